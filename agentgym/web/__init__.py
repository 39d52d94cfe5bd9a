"""The web kit: what Browser-v0 and MiniWoB-v0 share, one module per concept.

Sandbox side (stdlib only; shipped into the step server under these very names by `MODULES` and
`CHROMIUM_MODULES`, so family code imports them as on the host: ``from agentgym.web import view``):

- `agentgym.web.view`: `View`, the page as the agent sees it (``[id] role 'name'`` lines with
  episode-stable ids, a scrolling window) and the actions on one element (fill, select, scroll);
- `agentgym.web.axtree`: HTML to those lines (a BrowserGym-style accessibility tree);
- `agentgym.web.chromium`: Chromium over ``--remote-debugging-pipe`` (the CDP client, the page's
  app served on 127.0.0.1, one browser per sandbox started as a service).

Host side:

- `agentgym.web.actions`: `BrowserActions`, the grammar (``click(12)``, BrowserGym's and
  WebArena's forms), its help text and tool schemas;
- `agentgym.web.env`: `WebEnv`, the grammar's ``help`` and tools, and calls into the page's
  sandbox module with Chromium's failures raised as infrastructure errors.

A family writes only its domain on top: its pages (Browser-v0's sites, MiniWoB++'s task pages),
what acting on them does, its tasks, its verdict and its oracle.
"""

from __future__ import annotations

from pathlib import Path

from agentgym.sandbox.modules import SandboxModule

__all__ = ["MODULES", "CHROMIUM", "CHROMIUM_MODULES"]

_HERE = Path(__file__).resolve().parent
MODULES: tuple[SandboxModule, ...] = tuple(
    SandboxModule.from_file(f"{__name__}.{stem}", _HERE / f"{stem}.py") for stem in ("view", "axtree")
)
"""The kit's sandbox-side files every page needs, in load order."""
CHROMIUM = SandboxModule.from_file(f"{__name__}.chromium", _HERE / "chromium.py")
"""The Chromium driver, loaded after `MODULES`; its ``start`` launches the sandbox's one browser."""
CHROMIUM_MODULES: tuple[SandboxModule, ...] = MODULES + (CHROMIUM,)
"""What a page in Chromium needs of the kit, in load order."""
