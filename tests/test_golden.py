"""The golden trajectories still hold: every registered id replays its recording exactly.

Issue 13 moves shared code between the families without changing behaviour; a difference here
is a behaviour change. If it is a deliberate one, re-record with ``python3
tests/golden/record.py`` and say in the commit which episodes changed and why.
"""

from __future__ import annotations

import json

import pytest

import agentgym
from golden import record  # tests/ is on sys.path (conftest.py)
from support.docker import require_docker

GOLDEN = json.loads(record.PATH.read_text())


def test_every_registered_id_is_recorded() -> None:
    assert sorted(GOLDEN) == sorted(agentgym.ENV_IDS), "re-record: python3 tests/golden/record.py"


@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize(
    "env_id",
    [  # a Docker-only family's replay (a real browser) takes about 10 s
        pytest.param(i, marks=[pytest.mark.slow] if record.backend_of(i) == "docker" else []) for i in sorted(GOLDEN)
    ],
)
def test_replay_matches_the_recording(env_id: str) -> None:
    if record.backend_of(env_id) == "docker":  # a Docker-only family needs its image (CI fails without it)
        require_docker(agentgym.make(env_id).unwrapped.image)
    got = record.record_id(env_id)
    for agent, episodes in GOLDEN[env_id].items():
        assert len(got[agent]) == len(episodes), agent
        for want, have in zip(episodes, got[agent]):
            assert have == want, f"{env_id} {agent} seed {want['seed']} ({want['task_id']}) differs"
