"""The browser family's sandbox-side code: the sites, the text browser and its Chromium backend.

These files are stdlib-only and import each other, the web kit (`agentgym.web`: the page view,
the renderer, the Chromium driver) and the stateful-world kit by their own dotted names
(``from agentgym.envs.browser.site import web``), in the sandbox as here. The env declares
`MODULES` (the step server loads them in dependency order); `host_modules` loads the same files in
this process, for planning tasks and for tests.
"""

from __future__ import annotations

from pathlib import Path
from types import ModuleType

from agentgym import web as web_kit
from agentgym import world
from agentgym.sandbox.modules import SandboxModule, load_on_host

__all__ = ["MODULES", "MODULE", "CHROME_MODULES", "CHROME_MODULE", "host_modules"]

_HERE = Path(__file__).resolve().parent
_ORDER = ("web", "shop", "forum", "admin", "session")
MODULES: tuple[SandboxModule, ...] = (
    world.MODULES
    + web_kit.MODULES
    + tuple(SandboxModule.from_file(f"{__name__}.{stem}", _HERE / f"{stem}.py") for stem in _ORDER)
)
"""The text backend's sandbox-side files, in the order the step server must load them (the
stateful-world kit, `agentgym.world`, first: the store and the verdict use it; then the web kit's
view and renderer)."""
MODULE = f"{__name__}.session"
"""The module whose functions (setup, act, drift, verify) the env calls."""
CHROME_MODULE = f"{__name__}.chrome"
"""The Chromium backend's module: the same functions, with pages served to and acted on in Chromium."""
CHROME_MODULES: tuple[SandboxModule, ...] = MODULES + (
    web_kit.CHROMIUM,
    SandboxModule.from_file(CHROME_MODULE, _HERE / "chrome.py"),
)


def host_modules() -> dict[str, ModuleType]:
    """The text backend's modules loaded in this process (once), keyed by stem (the web kit's
    ``view`` and ``axtree`` with the sites'); sessions are objects, so threads may share them."""
    loaded = load_on_host(MODULES)
    ours = (f"{web_kit.__name__}.", f"{__name__}.")
    return {m.name.rpartition(".")[2]: loaded[m.name] for m in MODULES if m.name.startswith(ours)}
