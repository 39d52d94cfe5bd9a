"""ToolUse tasks and domains: splits, tiers, templates, tool schemas — no sandbox needed."""

from __future__ import annotations

import json
from collections import Counter

import pytest

from agentgym.actions import tool_schema
from agentgym.envs.tooluse import ToolUseEnv, ToolUseTasks
from agentgym.envs.tooluse.domains import DOMAINS
from agentgym.envs.tooluse.tasks import TEMPLATES
from agentgym.errors import ConfigError

TASKS = ToolUseTasks()


def test_splits_are_disjoint_and_heldout_templates_never_train():
    ids = {s: set(TASKS.ids(s)) for s in TASKS.splits}
    assert all(ids.values())
    assert (
        not (ids["train"] & ids["test"]) and not (ids["train"] & ids["heldout"]) and not (ids["test"] & ids["heldout"])
    )
    held = {k for k, t in TEMPLATES.items() if t.heldout}
    assert held and {tid.split("/", 1)[1].rsplit("/", 1)[0] for tid in ids["heldout"]} == held
    assert not any(tid.split("/", 1)[1].rsplit("/", 1)[0] in held for tid in ids["train"] | ids["test"])
    for split, sids in ids.items():
        assert all(TASKS.get(t).split == split for t in list(sids)[:20])


def test_every_domain_has_every_tier_in_train_and_test():
    for split in ("train", "test"):
        seen = Counter((TASKS.get(t).meta["domain"], TASKS.get(t).tier) for t in TASKS.ids(split))
        for domain in DOMAINS:
            for tier in ("single", "multi", "refusal"):
                assert seen[(domain, tier)] > 0, (split, domain, tier)


def test_task_is_rebuilt_identically_from_its_id():
    tid = TASKS.ids("test")[5]
    a = TASKS.get(tid)
    ToolUseTasks._build.cache_clear()
    b = TASKS.get(tid)
    assert a == b and json.dumps(a.meta, sort_keys=True) == json.dumps(b.meta, sort_keys=True)


def test_tasks_need_composition_and_name_their_subtasks():
    for tid in TASKS.ids("test"):
        t = TASKS.get(tid)
        assert len(t.meta["lookups"]) >= 2 and t.min_turns >= 3
        writes = [s for s in t.subtasks if s.startswith("write:")]
        assert len(writes) == (0 if t.tier == "refusal" else len(t.meta["intents"]))
        if t.tier == "multi":
            assert len(t.meta["intents"]) >= 2
        assert "Policy:" in t.instruction and "Customer:" in t.instruction


def test_tools_are_typed_and_schemas_are_openai_shaped():
    for name, mod in DOMAINS.items():
        assert 8 <= len(mod.tools) <= 15, name
        assert any(s.writes for s in mod.tools) and any(s.name == "calculate" for s in mod.tools)
        for spec in mod.tools:
            schema = tool_schema(spec)
            fn = schema["function"]
            assert schema["type"] == "function" and fn["name"] == spec.name and fn["description"]
            assert fn["parameters"]["type"] == "object"
            assert set(fn["parameters"]["required"]) <= set(fn["parameters"]["properties"])
        names = [s["function"]["name"] for s in ToolUseEnv.tool_schemas(name)]
        assert names[-1] == "finish" and len(set(names)) == len(names)


def test_bad_ids_and_filters_raise_config_errors():
    for bad in ["tooluse/retail/nope/1", "tooluse/retail/cancel_pending/x", "coding/x", "tooluse/retail"]:
        with pytest.raises(ConfigError, match="tooluse/<domain>/<template>/<seed>"):
            TASKS.get(bad)
    with pytest.raises(ConfigError, match="unknown tooluse domain"):
        ToolUseTasks(domains=["space"])
    with pytest.raises(ConfigError, match="unknown tooluse tier"):
        ToolUseTasks(tiers=["hard"])
    only = ToolUseTasks(domains=["travel"], tiers=["refusal"])
    assert only.ids("test") and all("/travel/" in t and TASKS.get(t).tier == "refusal" for t in only.ids("test"))


def test_tasks_build_from_several_threads():
    """Task planning keeps SQLite state per thread, so threaded trainers and runners can build tasks."""
    from concurrent.futures import ThreadPoolExecutor

    from agentgym.envs.tooluse import tasks as tasks_module

    ids = ToolUseTasks().ids("train")[:24]
    tasks_module._build.cache_clear()
    with ThreadPoolExecutor(max_workers=4) as pool:
        built = list(pool.map(tasks_module._build, ids))
    tasks_module._build.cache_clear()
    assert [t.solution for t in built] == [tasks_module._build(i).solution for i in ids]
