"""A headless Chromium driven over the DevTools protocol, with the standard library only.

For checking pages such as ``agentgym view``'s in a real browser: load a ``file://`` page, run
script in it, click, collect console errors and uncaught exceptions, read JS heap metrics and take a
screenshot. It speaks the protocol over ``--remote-debugging-pipe`` (NUL-separated JSON on file
descriptors 3 and 4), so it needs no websocket library and opens no port.

    with Chromium() as browser:
        browser.open(Path("view.html").resolve().as_uri())
        assert browser.evaluate("document.body.dataset.ready") == "1"
        assert not browser.errors

Debian's ``chromium`` package provides the browser (``apt-get install -y chromium``).
"""

from __future__ import annotations

import base64
import json
import os
import shutil
import subprocess
import tempfile
import time
from pathlib import Path
from types import TracebackType
from typing import Any

from agentgym.errors import ConfigError

__all__ = ["Chromium", "find_chromium", "CHROMIUM_FLAGS"]

CHROMIUM_FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
    "--remote-debugging-pipe",
)
"""Flags for a machine with no network (background fetches are refused and would log errors)."""


def find_chromium() -> str | None:
    """The Chromium executable on PATH (``$CHROMIUM`` first), or None."""
    for name in (os.environ.get("CHROMIUM"), "chromium", "chromium-browser", "google-chrome"):
        if name and (path := shutil.which(name)):
            return path
    return None


class Chromium:
    """One headless Chromium with one page; `errors` collects console errors and exceptions."""

    def __init__(self, executable: str | None = None, width: int = 1280, height: int = 900) -> None:
        exe = executable or find_chromium()
        if exe is None:
            raise ConfigError("no Chromium found: install it (`apt-get install -y chromium`) or set $CHROMIUM")
        self._profile = tempfile.mkdtemp(prefix="agentgym-chromium-")
        to_browser_r, self._to_browser = os.pipe()
        self._from_browser, from_browser_w = os.pipe()
        # the browser reads commands on fd 3 and writes replies on fd 4
        self._proc = subprocess.Popen(
            [
                exe,
                *CHROMIUM_FLAGS,
                f"--user-data-dir={self._profile}",
                f"--window-size={width},{height}",
                "about:blank",
            ],
            pass_fds=(3, 4),  # kept open after preexec_fn has put the pipe ends there
            preexec_fn=lambda: (os.dup2(to_browser_r, 3), os.dup2(from_browser_w, 4)),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        os.close(to_browser_r)
        os.close(from_browser_w)
        self._buffer = b""
        self._next_id = 0
        self.errors: list[str] = []
        target = self._call("Target.createTarget", {"url": "about:blank"})["targetId"]
        self._session = self._call("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        for domain in ("Page.enable", "Runtime.enable", "Log.enable", "Performance.enable"):
            self.call(domain)
        self.call(
            "Emulation.setDeviceMetricsOverride",
            {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False},
        )

    # ---- the protocol --------------------------------------------------------------------------
    def _send(self, message: dict[str, Any]) -> None:
        os.write(self._to_browser, json.dumps(message).encode() + b"\0")

    def _read(self, timeout: float) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        while b"\0" not in self._buffer:
            if time.monotonic() > deadline:
                raise TimeoutError("Chromium did not answer in time")
            import select

            ready, _, _ = select.select([self._from_browser], [], [], 0.5)
            if ready:
                chunk = os.read(self._from_browser, 1 << 20)
                if not chunk:
                    raise ConfigError("Chromium exited (is it Debian's `chromium` package?)")
                self._buffer += chunk
        raw, self._buffer = self._buffer.split(b"\0", 1)
        message: dict[str, Any] = json.loads(raw)
        return message

    def _call(
        self, method: str, params: dict[str, Any] | None = None, session: str | None = None, timeout: float = 60.0
    ) -> dict[str, Any]:
        self._next_id += 1
        msg: dict[str, Any] = {"id": self._next_id, "method": method, "params": params or {}}
        if session:
            msg["sessionId"] = session
        self._send(msg)
        while True:
            reply = self._read(timeout)
            if reply.get("id") == self._next_id:
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error']}")
                result: dict[str, Any] = reply.get("result", {})
                return result
            self._event(reply)

    def _event(self, message: dict[str, Any]) -> None:
        method, params = message.get("method"), message.get("params", {})
        if method == "Runtime.exceptionThrown":
            details = params.get("exceptionDetails", {})
            self.errors.append(f"exception: {details.get('exception', {}).get('description') or details.get('text')}")
        elif method == "Runtime.consoleAPICalled" and params.get("type") in ("error", "assert"):
            self.errors.append(
                "console: " + " ".join(str(a.get("value", a.get("description"))) for a in params.get("args", []))
            )
        elif method == "Log.entryAdded" and params.get("entry", {}).get("level") == "error":
            entry = params["entry"]
            self.errors.append(f"log: {entry.get('text')} {entry.get('url', '')}".strip())

    def call(self, method: str, params: dict[str, Any] | None = None, timeout: float = 60.0) -> dict[str, Any]:
        """Send one protocol command to the page and return its result."""
        return self._call(method, params, self._session, timeout)

    # ---- what a test does ----------------------------------------------------------------------
    def open(self, url: str, timeout: float = 120.0) -> float:
        """Load ``url`` and wait for its load event; returns the seconds it took."""
        start = time.perf_counter()
        self.call("Page.navigate", {"url": url}, timeout)
        deadline = time.monotonic() + timeout
        while True:
            message = self._read(max(0.1, deadline - time.monotonic()))
            if message.get("method") == "Page.loadEventFired":
                return time.perf_counter() - start
            self._event(message)

    def evaluate(self, expression: str, timeout: float = 60.0) -> Any:
        """The value of a JavaScript expression in the page (awaited if it is a promise)."""
        result = self.call(
            "Runtime.evaluate", {"expression": expression, "returnByValue": True, "awaitPromise": True}, timeout
        )
        if "exceptionDetails" in result:
            details = result["exceptionDetails"]
            raise RuntimeError(
                f"{expression!r}: {details.get('exception', {}).get('description') or details.get('text')}"
            )
        return result.get("result", {}).get("value")

    def wait_for(self, expression: str, timeout: float = 30.0) -> Any:
        """Poll ``expression`` until it is truthy; its value, or TimeoutError."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            value = self.evaluate(expression)
            if value:
                return value
            time.sleep(0.05)
        raise TimeoutError(f"{expression!r} stayed false for {timeout} s")

    def metrics(self) -> dict[str, float]:
        """The page's performance metrics (``JSHeapUsedSize``, ``Nodes``, ``LayoutDuration``, ...)."""
        return {m["name"]: m["value"] for m in self.call("Performance.getMetrics")["metrics"]}

    def screenshot(self, path: str | os.PathLike[str], full_page: bool = False) -> Path:
        """Write a PNG of the viewport (or the whole page) to ``path``."""
        params: dict[str, Any] = {"format": "png"}
        if full_page:
            params["captureBeyondViewport"] = True
        data = self.call("Page.captureScreenshot", params)["data"]
        out = Path(path)
        out.write_bytes(base64.b64decode(data))
        return out

    def close(self) -> None:
        """Stop the browser and remove its throwaway profile."""
        try:
            self._send({"id": self._next_id + 1, "method": "Browser.close"})
        except OSError:
            pass
        try:
            self._proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self._proc.kill()
            self._proc.wait()
        for fd in (self._to_browser, self._from_browser):
            try:
                os.close(fd)
            except OSError:
                pass
        shutil.rmtree(self._profile, ignore_errors=True)

    def __enter__(self) -> Chromium:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()
