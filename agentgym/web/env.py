"""`WebEnv`: the host side every web family shares, between `AgentEnv` and Browser-v0 / MiniWoB-v0.

A web family acts through one grammar (`agentgym.web.actions`), so ``help`` and the tool schemas
come from its action set, and reaches its page through one sandbox module, where Chromium can fail
in ways that are not the agent's doing: such a failure drops the sandbox and is raised as an
`InfrastructureError` (the eval harness retries it and keeps it out of scores).
"""

from __future__ import annotations

from typing import Any, ClassVar

from agentgym.core import AgentEnv, ParsedAction
from agentgym.errors import InfrastructureError, SandboxOpError
from agentgym.web.actions import BrowserActions

__all__ = ["WebEnv"]


class WebEnv(AgentEnv):
    """Base of the web families: the action set's grammar and help, and calls into the page's sandbox module.

    A family sets ``actions`` (its `BrowserActions`) and ``_module`` (the sandbox module whose
    ``setup``/``act``/``drift`` it calls), and writes its domain on top.
    """

    actions: ClassVar[BrowserActions] = BrowserActions()
    """The family's action set: what parses, what ``help`` says, the tool schemas."""
    page_observations: ClassVar[bool] = True
    _module: str = ""
    """The sandbox module `_call` calls (an instance may choose it: Browser-v0's backends differ)."""

    def _parse(self, action: str) -> ParsedAction:
        return self.actions.parse(action)

    def help_text(self) -> str:
        return self.actions.help_text()

    def tools(self) -> list[dict[str, Any]]:
        return self.actions.tools()

    def _call(self, func: str, **kwargs: Any) -> Any:
        """A call into the sandbox's page module. Chromium failing (it crashed, or missed a deadline)
        is not the agent's doing: the sandbox is dropped (the next reset starts a fresh one) and the
        failure raised as an `InfrastructureError`, which the eval harness retries and keeps out of scores."""
        try:
            return self.sandbox.call(self._module, func, **kwargs)
        except SandboxOpError as exc:
            if not str(exc).startswith("BrowserError"):
                raise
            self.sandbox.close()
            raise InfrastructureError(f"Chromium failed in the sandbox: {exc}") from exc
