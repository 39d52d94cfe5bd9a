"""agentgym/SWE-v0: bugs in real open-source Python libraries, judged by each library's own tests.

Built the way SWE-smith builds its tasks, offline: pinned, permissively licensed pure-Python
libraries whose tests ship in their source distributions are fetched by ``agentgym setup``
(hash-checked) into the ``agentgym/swe`` image (`libraries`); procedural modifiers inject bugs
into functions and methods (`modifiers`); a candidate is kept only when the library's tests, run
in the sandbox, show at least one test going from pass to fail and at least one still passing
(`generate`, which writes ``data/``). The environment (`env`) hands the agent the buggy library
and a statement written from the failing tests; its verdict runs those tests again on a pristine
copy of the test suite with only the agent's source changes applied (`verdict`).
"""

from __future__ import annotations

from typing import Any

__all__ = ["SWEEnv", "SWETasks"]


def __getattr__(name: str) -> Any:  # lazy: the registry lists the libraries without loading the env
    if name == "SWEEnv":
        from agentgym.envs.swe.env import SWEEnv

        return SWEEnv
    if name == "SWETasks":
        from agentgym.envs.swe.build import SWETasks

        return SWETasks
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
