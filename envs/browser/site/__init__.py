"""The browser family's sandbox-side code: sites, the text browser, its renderer.

These files are stdlib-only and import each other by their in-sandbox names
(``agentgym_browser_<stem>``). The env sends `SOURCES` to the step server with
``sandbox.load_module`` in dependency order; `host_modules` loads the same files in this process,
for planning tasks and for tests.
"""

from __future__ import annotations

import importlib.util
import sys
import threading
from pathlib import Path
from types import ModuleType

__all__ = ["SOURCES", "MODULE", "CHROME_SOURCES", "CHROME_MODULE", "host_modules"]

_HERE = Path(__file__).resolve().parent
_ORDER = ("web", "axtree", "shop", "forum", "admin", "session")
SOURCES: tuple[tuple[str, str], ...] = tuple((f"agentgym_browser_{stem}", (_HERE / f"{stem}.py").read_text())
                                             for stem in _ORDER)
"""(module name, source) pairs, in the order the step server must load them."""
MODULE = "agentgym_browser_session"
"""The module whose functions (setup, act, drift, verify) the env calls."""
CHROME_MODULE = "agentgym_browser_chrome"
"""The Chromium backend's module: the same functions, with pages served to and acted on in Chromium."""
CHROME_SOURCES: tuple[tuple[str, str], ...] = SOURCES + ((CHROME_MODULE, (_HERE / "chrome.py").read_text()),)

_lock = threading.Lock()


def host_modules() -> dict[str, ModuleType]:
    """The sandbox modules loaded in this process (once), keyed by stem; sessions are objects, so threads may share them."""
    with _lock:
        out = {}
        for stem in _ORDER:
            name = f"agentgym_browser_{stem}"
            mod = sys.modules.get(name)
            if mod is None:
                spec = importlib.util.spec_from_file_location(name, _HERE / f"{stem}.py")
                assert spec is not None and spec.loader is not None
                mod = importlib.util.module_from_spec(spec)
                sys.modules[name] = mod
                spec.loader.exec_module(mod)
            out[stem] = mod
        return out
