"""The oracle recovers from ``rate_limit`` and ``wrong_value`` at the smallest turn budget that allows it,
in every family that applies them, and one turn less is not enough.

A rate limit at turn 1 costs exactly its retry-after (the refused turn and the waits); a wrong value
costs one turn where the oracle reads again before it commits (ToolUse-v0 re-issues the read,
Browser-v0 looks at the page again), and none where its plan does not rest on the value shown
(Coding-v0 runs the tests before it submits whatever an edit's echo said; BFCL-v0 replays the
ground truth's calls, whose true results are what BFCL's checks count). ``T_clean`` is the oracle's
own turn count on the same seed without the fault.
"""

from __future__ import annotations

from typing import Any

import pytest

import agentgym
from agentgym.agents import OracleAgent
from agentgym.core import AgentEnv
from agentgym.testing import run_episode
from support.docker import require_docker

EXTRA = {  # turns the oracle needs beyond T_clean, per (family, kind), with the fault at turn 1
    ("agentgym/ToolUse-v0", "wrong_value"): 1,
    ("agentgym/Browser-v0", "wrong_value"): 1,
    ("agentgym/BFCL-v0", "wrong_value"): 0,
    ("agentgym/Coding-v0", "wrong_value"): 0,
    ("agentgym/SWE-v0", "wrong_value"): 0,  # a stale echo of the first patch: the oracle reads the true file
}
DOCKER_ONLY = {"agentgym/MiniWoB-v0": "agentgym/miniwob:latest", "agentgym/SWE-v0": "agentgym/swe:latest"}


def _family(env_id: str) -> type[AgentEnv]:
    env = agentgym.make(env_id)
    try:
        return type(env.unwrapped)
    finally:
        env.close()


CASES = [
    (env_id, kind, retry)
    for env_id in sorted(agentgym.ENV_IDS)
    for kind, retry in (("rate_limit", 2), ("rate_limit", 3), ("wrong_value", None))
    if kind in _family(env_id).fault_kinds
]


def _turns(env_id: str, seed: int, budget: int, faults: str | None, **kwargs: Any) -> tuple[bool, int, list[str]]:
    env = agentgym.make(env_id, budget=budget, faults=faults, split="test", **kwargs)
    try:
        ep = run_episode(env, OracleAgent(), seed=seed)
        return ep.success, ep.turns, ep.faults
    finally:
        env.close()


@pytest.mark.parametrize("env_id,kind,retry", CASES, ids=[f"{i}-{k}-{r}" for i, k, r in CASES])
def test_oracle_recovers_at_the_smallest_budget(env_id, kind, retry):
    kwargs: dict[str, Any] = {"backend": "local"}
    if env_id in DOCKER_ONLY:
        require_docker(DOCKER_ONLY[env_id])
        kwargs["backend"] = "docker"
    spec = f"{kind}@turn=1" + (f":retry_after={retry}" if retry else "")
    extra = retry if kind == "rate_limit" else EXTRA[(env_id, kind)]
    for seed in (0, 1):
        ok, clean, _ = _turns(env_id, seed, 60, None, **kwargs)
        assert ok, (env_id, seed)
        ok, used, faults = _turns(env_id, seed, clean + extra, spec, **kwargs)
        assert faults == [kind] and ok and used == clean + extra, (env_id, seed, faults, ok, used, clean)
        ok, _, faults = _turns(env_id, seed, clean + extra - 1, spec, **kwargs)
        assert faults == [kind] and not ok, (env_id, seed, "one turn less should not do")


@pytest.mark.docker
@pytest.mark.parametrize("kind", ["rate_limit", "wrong_value"])
def test_browser_chromium_backend_shows_and_recovers_from_both_kinds(kind):
    """The Chromium backend renders the same page text, so it gets the same 429 page and wrong values."""
    require_docker("agentgym/browser-chromium:latest")
    kwargs = {"backend": "docker", "browser": "chromium"}
    ok, clean, _ = _turns("agentgym/Browser-v0", 1, 60, None, **kwargs)
    extra = 2 if kind == "rate_limit" else 1
    env = agentgym.make("agentgym/Browser-v0", budget=clean + extra, faults=f"{kind}@turn=1", split="test", **kwargs)
    try:
        ep = run_episode(env, OracleAgent(), seed=1)
    finally:
        env.close()
    assert ok and ep.success and ep.faults == [kind] and ep.turns == clean + extra, ep.trace()
    if kind == "rate_limit":
        assert any("too many requests, retry in 2 turns" in t.lower() for t in ep.texts), ep.trace()


def test_a_wrong_value_with_nothing_to_change_costs_nothing():
    """A page with no amount, date or count (Browser-v0's moderation queue, seed 19) is shown as it is:
    no fault is recorded, and it counts as seen, so the oracle does not look again after every click."""
    ok, clean, _ = _turns("agentgym/Browser-v0", 19, 60, None, backend="local")
    ok_faulted, used, faults = _turns("agentgym/Browser-v0", 19, clean, "wrong_value@turn=1", backend="local")
    assert ok and ok_faulted and faults == [] and used == clean, (clean, used, faults)
