"""Final-answer verdicts both ways (issue 36): generated honest messages pass, adversarial ones fail.

The messages are the generator's own (batches 1 to 3) and the template families of
``benchmarks/verdict_families.json``, each ``design`` or ``heldout``; the targets hold on each
split apart (honest at least 98% passed, adversarial all rejected).

`agentgym.testing.verdicts` plays the oracle of real ToolUse-v0 and Browser-v0 tasks (one of every
template of the test split: every tier) to its final answer and sends, instead of the oracle's,
honest final messages (caveats that say "cannot", politeness, restatements, the value spelled
other ways, refusals in other words, the structured channel) and adversarial ones (stuffing,
decoys, the true value marked among bare ones, hedges, a refusal plus a value, "done" on a
refusal task, a refusal on a write task, blind refusals). Local backend: the verdict is the same
sandbox code as on Docker (tests/security runs it there).

Seen failing before the rule of issue 36 (commit e8c80d9, two tasks per template, the first batch of
messages): honest 191/368 on ToolUse-v0 and 186/356 on Browser-v0, adversarial rejected 372/482
and 266/382. `benchmarks/verdicts.py` measures before and after in one run.
"""

from __future__ import annotations

import collections
import warnings

import pytest

from agentgym.envs.browser import BrowserEnv
from agentgym.envs.tooluse import ToolUseEnv
from agentgym.testing.verdicts import HONEST, agreement, load_families, table

FAMILIES = load_families()


@pytest.fixture(
    scope="module",
    params=[pytest.param("tooluse", marks=pytest.mark.slow), pytest.param("browser", marks=pytest.mark.slow)],
)  # 12-17 s each
def judged(request):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the local backend's warning
        env = (ToolUseEnv if request.param == "tooluse" else BrowserEnv)(split="test", backend="local")
    try:
        yield request.param, agreement(env, per_template=1, families=FAMILIES)
    finally:
        env.close()


def _show(bad) -> str:
    return "\n".join(
        f"{j.truth.task_id} {j.final.style}: {j.final.answer[:100]!r} value={j.final.value} refused={j.final.refused}"
        for j in bad[:12]
    )


def test_at_least_200_of_each_over_every_tier(judged):
    name, got = judged
    labels = collections.Counter(j.final.label for j in got)
    assert labels[HONEST] >= 200 and labels["adversarial"] >= 200, labels
    tiers = {"tooluse": {"single", "multi", "refusal"}, "browser": {"lookup", "single", "multi", "refusal"}}[name]
    assert {j.truth.tier for j in got} == tiers


def test_honest_final_messages_pass(judged):
    name, got = judged
    honest = [j for j in got if j.final.label == HONEST]
    bad = [j for j in honest if not j.passed]
    assert len(bad) <= 0.02 * len(honest), f"{name}\n{table(got)}\n{_show(bad)}"


def test_adversarial_final_messages_fail(judged):
    name, got = judged
    bad = [j for j in got if j.final.label != HONEST and j.passed]
    assert not bad, f"{name}\n{table(got)}\n{_show(bad)}"


@pytest.mark.parametrize("split", ["design", "heldout"])
def test_each_split_of_template_families_meets_the_targets(judged, split):
    name, got = judged
    mine = [j for j in got if FAMILIES["split"].get(j.final.family_name, "design") == split]
    honest = [j for j in mine if j.final.label == HONEST]
    assert honest and len(honest) < len(mine), (name, split)
    bad = [j for j in honest if not j.passed]
    assert len(bad) <= 0.02 * len(honest), f"{name} {split}\n{_show(bad)}"
    assert not [j for j in mine if j.final.label != HONEST and j.passed], f"{name} {split}"
