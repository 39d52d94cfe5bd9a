"""`RemoteEnv`: an env served by ``agentgym serve`` as a local `gymnasium.Env` again.

    env = gym.make("agentgym/ToolUse-v0", remote="http://127.0.0.1:8000")   # token from the environment
    env = RemoteEnv("http://127.0.0.1:8000", token=TOKEN)                    # or directly

The spaces are the server's (its wrapper stack included), read from ``/schema`` when the env is
built; the episode runs over one WebSocket (OpenEnv's ``/ws`` protocol), opened at the first
``reset``, so building the env (as `AsyncVectorEnv` does once in the parent) opens no session.
Observations are decoded into the server's spaces, so the same seed gives the same trajectory
as a local env. The reward is whatever the server's verifier decided: a client cannot send one.
``reset(options={"budget": T, "faults": SPEC})`` chooses one episode's budget and faults within
the bounds the server was started with (``--client-budget``, ``--client-faults``); outside them,
or for an option key the env does not read, the server refuses and this raises `ConfigError`.

Failures are typed: a server that cannot be reached, dies mid-episode or stops answering
raises `ServerUnreachable`, a server-side sandbox failure `RemoteInfrastructureError`, and an
env call past the server's deadline `RemoteCallTimeout` (for both the server closed that session;
the next ``reset`` opens a new one, on a fresh env). All are `agentgym.errors.InfrastructureError`, so the harness
retries instead of scoring them;
a refused token is `RemoteAuthError` (a `ConfigError`). Every wait has a deadline.
"""

from __future__ import annotations

import inspect
import json
import urllib.error
import urllib.request
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import gymnasium as gym
from gymnasium.error import ResetNeeded

from agentgym.errors import (
    ConfigError,
    RemoteAuthError,
    RemoteCallTimeout,
    RemoteError,
    RemoteInfrastructureError,
    ServerUnreachable,
)
from agentgym.registration import ENV_IDS
from agentgym.wire.auth import client_token
from agentgym.wire.codec import from_json, space_from_json, to_json
from agentgym.wire.protocol import CALL_TIMEOUT, SESSION_CLOSED

__all__ = [
    "RemoteEnv",
    "ServerUnreachable",
    "RemoteInfrastructureError",
    "RemoteCallTimeout",
    "RemoteAuthError",
    "RemoteError",
]


def _split(url: str) -> tuple[str, str]:
    """``(http_base, ws_url)`` for a server URL (``http://host:port[/agentgym/Coding-v0]``)."""
    parts = urlsplit(url if "://" in url else f"http://{url}")
    if parts.scheme not in ("http", "https", "ws", "wss"):
        raise ConfigError(f"remote={url!r}: expected an http:// or ws:// URL")
    if parts.username or parts.password:
        raise ConfigError("put the token in token= or AGENTGYM_SERVE_TOKEN, not in the URL")
    secure = parts.scheme in ("https", "wss")
    path = parts.path.rstrip("/")
    http = urlunsplit(("https" if secure else "http", parts.netloc, path, "", ""))
    ws = urlunsplit(("wss" if secure else "ws", parts.netloc, path + "/ws", "", ""))
    return http, ws


class RemoteEnv(gym.Env[Any, Any]):
    """A `gymnasium.Env` whose episodes run in an ``agentgym serve`` process.

    Args:
        url: the server (``http://127.0.0.1:8000``), or one of its ids (``http://host:port/agentgym/Coding-v0``).
        env_id: if given, the server's id must be this one (``gym.make(id, remote=url)`` passes it).
        token, token_file: the token; defaults to ``$AGENTGYM_SERVE_TOKEN`` then ``$AGENTGYM_SERVE_TOKEN_FILE``.
        render_mode: ``"ansi"`` renders the last observation text, as local envs do.
        timeout: seconds for connecting and for the schema request.
        step_timeout: seconds one reset or step may take on the server (sandbox work included).
    """

    metadata = {"render_modes": ["ansi"], "render_fps": 4}

    def __init__(
        self,
        url: str,
        env_id: str | None = None,
        *,
        token: str | None = None,
        token_file: str | None = None,
        render_mode: str | None = None,
        timeout: float = 30.0,
        step_timeout: float = 900.0,
        max_message_bytes: int = 64 << 20,
    ) -> None:
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ConfigError(f"render_mode={render_mode!r}; supported: {self.metadata['render_modes']}")
        self.url = url
        self._http, self._ws_url = _split(url)
        self._token = client_token(token, token_file)
        self.timeout, self.step_timeout, self.max_message_bytes = float(timeout), float(step_timeout), max_message_bytes
        self.render_mode = render_mode
        schema = self._get("/schema")
        self.env_id: str = schema["env_id"]
        if env_id is not None and env_id != self.env_id:
            raise ConfigError(
                f"the server at {self._http} serves {self.env_id!r}, not {env_id!r}; "
                f"use {self._http}/{env_id} if it serves several ids"
            )
        self.observation_space = space_from_json(schema["spaces"]["observation_space"])
        self.action_space = space_from_json(schema["spaces"]["action_space"])
        self._ws: Any = None
        self._last_text = ""
        self._last_obs: Any = None
        self._info: dict[str, Any] = {}

    # ------------------------------------------------------------------ gymnasium API
    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[Any, dict[str, Any]]:
        super().reset(seed=seed)
        data = self._call("reset", {"seed": seed, "options": to_json(options) if options is not None else None})
        obs = self._observation(data)
        self._info = data.get("info") or {}
        return obs, dict(self._info)

    def step(self, action: Any) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        data = self._call("step", {"action": to_json(action)})
        obs = self._observation(data)
        return obs, float(data["reward"]), bool(data["terminated"]), bool(data["truncated"]), data.get("info") or {}

    def render(self) -> str | None:
        return self._last_text if self.render_mode == "ansi" else None

    def close(self) -> None:
        ws, self._ws = self._ws, None
        if ws is not None:
            try:
                ws.send(json.dumps({"type": "close"}))
            except Exception:  # the server may be gone already; closing is best effort
                pass
            try:
                ws.close()
            except Exception:
                pass
        super().close()

    # ------------------------------------------------------------------ what LLM agents read
    def help_text(self) -> str:
        """The family's action grammar, from the last reset's ``info["help"]``."""
        return str(self._info.get("help", ""))

    def tools(self) -> list[dict[str, Any]]:
        """The task's tools as an OpenAI-style list, from the last reset's ``info["tools"]``."""
        return list(self._info.get("tools", []))

    def action_masks(self) -> Any:
        """The menu mask of a served `NumericView` (``obs["action_mask"]``), for sb3-contrib's MaskablePPO."""
        import numpy as np

        mask = self._last_obs.get("action_mask") if isinstance(self._last_obs, dict) else None
        if mask is None:
            raise AttributeError("the served env has no action_mask: serve it with numeric=True")
        return np.asarray(mask, dtype=bool)

    def state(self) -> dict[str, Any]:
        """OpenEnv's ``state``: episode id, step count, env id, task id, done."""
        return self._call("state", None, reply="state")

    # ------------------------------------------------------------------ wire
    def _headers(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self._token}"}

    def _get(self, path: str) -> dict[str, Any]:
        request = urllib.request.Request(self._http + path, headers=self._headers())
        opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
        try:
            with opener.open(request, timeout=self.timeout) as response:
                return json.loads(response.read(self.max_message_bytes))
        except urllib.error.HTTPError as exc:
            if exc.code in (401, 403):
                raise RemoteAuthError(f"the server at {self._http} refused the token (HTTP {exc.code})") from None
            if exc.code == 404:
                raise ConfigError(
                    f"{self._http}{path} does not exist: is this an agentgym server, and the id "
                    "in the URL one it serves?"
                ) from None
            raise ServerUnreachable(f"{self._http}{path} answered HTTP {exc.code}") from None
        except (urllib.error.URLError, OSError, ValueError) as exc:
            raise ServerUnreachable(
                f"cannot reach the agentgym server at {self._http}: {exc}. Start it with `agentgym serve ID`."
            ) from None

    def _connect(self) -> Any:
        from websockets.exceptions import InvalidStatus, WebSocketException
        from websockets.sync.client import connect

        options: dict[str, Any] = {}
        if "legacy" in inspect.signature(connect).parameters:  # websockets >= 17: a plain connection, no reconnects
            options["legacy"] = True
        try:
            return connect(
                self._ws_url,
                additional_headers=self._headers(),
                open_timeout=self.timeout,
                close_timeout=5,
                max_size=self.max_message_bytes,
                compression=None,
                proxy=None,
                ping_interval=20,
                ping_timeout=60,
                **options,
            )
        except InvalidStatus as exc:
            status = exc.response.status_code
            if status in (401, 403):
                raise RemoteAuthError(f"the server at {self._http} refused the token (HTTP {status})") from None
            raise ServerUnreachable(f"the server at {self._ws_url} refused the connection (HTTP {status})") from None
        except (OSError, TimeoutError, WebSocketException) as exc:
            raise ServerUnreachable(f"cannot reach the agentgym server at {self._ws_url}: {exc}") from None

    def _call(self, kind: str, data: dict[str, Any] | None, reply: str = "observation") -> dict[str, Any]:
        from websockets.exceptions import ConnectionClosed, WebSocketException

        if self._ws is None:
            if kind != "reset":
                raise ResetNeeded("call reset() before step(): no episode has started on the server")
            self._ws = self._connect()
        message = {"type": kind} if data is None else {"type": kind, "data": data}
        try:
            try:
                self._ws.send(json.dumps(message))
            except ConnectionClosed:  # a server may say why before it closes (a full one does): read that
                pass
            raw = self._ws.recv(timeout=self.step_timeout)
        except TimeoutError:
            self._drop()
            raise ServerUnreachable(f"the server did not answer a {kind} within {self.step_timeout:g} s") from None
        except (WebSocketException, OSError) as exc:
            self._drop()
            raise ServerUnreachable(
                f"the connection to the agentgym server broke during {kind}: {type(exc).__name__}: {exc}"
            ) from None
        answer = json.loads(raw)
        if answer.get("type") == "error":
            self._raise(answer.get("data") or {}, kind)
        if answer.get("type") != reply:
            raise RemoteError(f"the server answered {kind} with {str(answer.get('type'))[:40]!r}")
        return answer.get("data") or {}

    def _drop(self) -> None:
        ws, self._ws = self._ws, None
        try:
            ws.close()
        except Exception:  # already broken
            pass

    def _raise(self, error: dict[str, Any], kind: str) -> None:
        message, code, error_type = (
            str(error.get("message", "")),
            str(error.get("code", "")),
            str(error.get("error_type", "")),
        )
        if error_type == "ResetNeeded":
            raise ResetNeeded(message)
        if code == "CAPACITY_REACHED":
            self._drop()
            raise ServerUnreachable(f"the server is full: {message}")
        if error_type == CALL_TIMEOUT:  # the server closed the session (and so the connection)
            self._drop()
            raise RemoteCallTimeout(f"{kind} failed on the server: {message}")
        if error.get("infrastructure"):
            if error.get(SESSION_CLOSED):  # the server closed the session: the next reset opens a new one
                self._drop()
            raise RemoteInfrastructureError(f"{kind} failed on the server: {message}")
        if error_type == "ConfigError":
            raise ConfigError(message)
        raise RemoteError(f"{kind} refused by the server: {message}", code, error_type)

    def _observation(self, data: dict[str, Any]) -> Any:
        obs = from_json(self.observation_space, data["observation"])
        text = obs.get("text") if isinstance(obs, dict) else None
        self._last_text = text if isinstance(text, str) else ""
        self._last_obs = obs
        return obs


_CLIENT_KWARGS = ("token", "token_file", "render_mode", "timeout", "step_timeout", "max_message_bytes")


def make_remote(remote: str, family_entry_point: str, options: dict[str, Any], env_kwargs: dict[str, Any]) -> RemoteEnv:
    """What ``gym.make(id, remote=URL)`` builds: a `RemoteEnv` for the server's env of that id.

    The server fixes the env kwargs and the wrapper stack (``agentgym serve ID --kwargs ...``), so
    wrapper options and env kwargs here are refused rather than silently ignored.
    """
    set_options = sorted(k for k, v in options.items() if v not in (None, False))
    other = sorted(set(env_kwargs) - set(_CLIENT_KWARGS))
    if set_options or other:
        raise ConfigError(
            f"remote={remote!r} serves the server's env as it was built; {set_options + other} "
            "belong on the server: `agentgym serve ID --kwargs '{...}'`. Client options: "
            f"{list(_CLIENT_KWARGS)}"
        )
    env_id = next((i for i, ep in ENV_IDS.items() if ep == family_entry_point), None)
    return RemoteEnv(remote, env_id, **env_kwargs)
