"""TRL adapter: the generated classes, the dataset, and TRL's own GRPOTrainer running on them.

The GRPO tests train a 16-wide, 2-layer model for two optimisation steps with the real trainer, in
float32 (GRPOConfig's default bf16 on a CPU without bf16 units made each run 2-3x slower: the
LM head's matmul over the 49k vocabulary dominates, and its cost grows with the width);
its ``generate`` is scripted (`support.tiny_lm.ScriptedToolCalls`) so that tool calls happen from
the first step: the oracle's next action as a tool call, or, on rows given T=3, a tool call that
never ends the episode, to show agentgym ends it after 3 whatever the model does.
"""

from __future__ import annotations

import inspect
import os

import pytest

pytest.importorskip("trl")
pytest.importorskip("datasets")

from agentgym.integrations import trl as agtrl
from agentgym.integrations.episode import EPISODE_OVER
from agentgym.llm.tools import action_call, call_action, tool_schemas

LOCAL = {"backend": "local"}


def tools_of(cls: type) -> list[str]:
    """What TRL exposes as tools: the class's public functions but reset and get_reward."""
    return sorted(
        n
        for n, _ in inspect.getmembers(cls, predicate=inspect.isfunction)
        if not n.startswith("_") and n not in ("reset", "get_reward")
    )


def test_schemas_round_trip_through_transformers():
    from transformers.utils import get_json_schema

    factory = agtrl.environment_factory("agentgym/ToolUse-v0", **LOCAL)
    assert sorted(factory) == ["retail", "travel"]
    env = factory["retail"]()
    schema = get_json_schema(env.cancel_order)["function"]
    assert schema["parameters"]["required"] == ["order_id", "reason"]
    assert schema["parameters"]["properties"]["reason"]["enum"] == ["no longer needed", "ordered by mistake"]
    assert "finish" in tools_of(factory["retail"]) and "get_order" in tools_of(factory["retail"])
    assert "search_flights" in tools_of(factory["travel"]) and "get_order" not in tools_of(factory["travel"])
    coding = agtrl.environment_factory("agentgym/Coding-v0", **LOCAL)
    assert tools_of(coding) == ["patch", "replace", "revert", "run", "submit", "test", "view"]
    assert get_json_schema(coding().view)["function"]["parameters"]["required"] == ["path"]


def bfcl_tool_groups(split: str = "train") -> dict[str, str]:
    from agentgym.envs.bfcl.tasks import BFCLTasks

    return dict(BFCLTasks().tool_groups(split))


def test_bfcl_gives_one_class_per_set_of_api_classes():
    """BFCL's tools are the task's API classes': one class per class set, every method's schema the
    env's (names, required, types, enums) through transformers' parser and into the chat template."""
    from transformers.utils import get_json_schema

    from agentgym.envs.bfcl.data import func_docs
    from agentgym.envs.bfcl.env import REPLY_SCHEMA, openai_schema

    factory = agtrl.environment_factory("agentgym/BFCL-v0", **LOCAL)
    assert len(factory) == 20 and set(factory) == set(bfcl_tool_groups("train").values()) | set(
        bfcl_tool_groups("test").values()
    )
    checked = set()
    for group, cls in factory.items():
        expected = {
            s["function"]["name"]: s["function"]
            for s in [openai_schema(d) for c in group.split("+") for d in func_docs(c)] + [REPLY_SCHEMA]
        }
        assert tools_of(cls) == sorted(expected), group  # every method, withheld ones (miss_func) included
        for name, want in expected.items():
            if name in checked:  # the same doc gives the same method in every class set
                continue
            checked.add(name)
            got = get_json_schema(getattr(cls, name))["function"]
            props, want_props = got["parameters"]["properties"], want["parameters"]["properties"]
            assert list(props) == list(want_props), (group, name)
            assert sorted(got["parameters"].get("required", [])) == sorted(want["parameters"]["required"]), name
            for arg, prop in want_props.items():
                assert props[arg]["type"] == prop["type"] and props[arg].get("enum") == prop.get("enum"), (name, arg)
    assert "mv" in tools_of(factory["GorillaFileSystem+TwitterAPI"])
    assert "post_tweet" not in tools_of(factory["GorillaFileSystem"])

    from transformers.utils.chat_template_utils import render_jinja_template

    cls = factory["GorillaFileSystem+TwitterAPI"]
    env = cls()  # what TRL hands the template: the instance's bound methods (Qwen2.5's template renders them so)
    template = "{% for tool in tools %}{{ tool | tojson }}\n{% endfor %}{{ messages[0]['content'] }}"
    (rendered,), _ = render_jinja_template(
        [[{"role": "user", "content": "hi"}]], chat_template=template, tools=[getattr(env, n) for n in tools_of(cls)]
    )
    assert '"name": "post_tweet"' in rendered and '"name": "reply"' in rendered and '"destination"' in rendered

    narrowed = agtrl.environment_factory("agentgym/BFCL-miss_func-v0", tiers=["one_api"], **LOCAL)
    assert sorted(narrowed) == ["GorillaFileSystem", "TradingBot", "TravelAPI", "VehicleControlAPI"]
    for group, cls in narrowed.items():  # probed on a base task: miss_func's withheld functions are methods too
        assert tools_of(cls) == tools_of(factory[group]), group


def test_bfcl_oracle_episode_through_a_class_hands_each_user_turn_back():
    """A multi-turn task played with the oracle's calls as TRL makes them (a method call per tool call):
    each `reply` returns the user's next message as the tool's result, and the last one ends the episode
    with BFCL's verdict. miss_func/49 calls `tail` a turn before the user gives it back: the class has it."""
    from transformers.utils import get_json_schema

    from agentgym.envs.bfcl.data import ADDED_FUNCTIONS_PROMPT, entry

    task_id = "bfcl/miss_func/49"
    factory = agtrl.environment_factory("agentgym/BFCL-v0", **LOCAL)
    cls = factory[bfcl_tool_groups()[task_id]]
    schemas = [get_json_schema(getattr(cls, n)) for n in tools_of(cls)]
    env = cls()
    first = env.reset(seed=0, task_id=task_id, budget=30)
    turns = entry("miss_func", 49).turns
    assert f"User: {turns[0]}" in first and "reply" in first and "Tools:" not in first  # TRL shows the schemas
    replies = []
    while not env.episode.done:
        name, args = action_call("bfcl", env.episode.env.unwrapped.reference_action(), schemas)
        text = getattr(env, name)(**args)
        if name == "reply":
            replies.append(text)
    assert len(replies) == len(turns)
    for k, text in enumerate(replies[:-1], start=1):
        assert text.startswith(f"User: {turns[k]}" if turns[k] else f"User: {ADDED_FUNCTIONS_PROMPT}"), text
        assert " turns left]" in text
    assert replies[-1].startswith("The user has no more requests")
    assert env.get_reward() == 1.0 and env.episode.summary()["success"] and env.episode.terminated
    assert env.reply(message="more?") == EPISODE_OVER
    assert env.episode.env.unwrapped.turn_results == [True, True, None, True, True]
    env.episode.close()


def test_bfcl_dataset_rows_name_their_class_set():
    from agentgym.envs.bfcl.data import entry

    rows = agtrl.dataset("agentgym/BFCL-v0", n=24, seed=1, **LOCAL)
    assert set(rows.column_names) == {"prompt", "task_id", "seed", "budget", "faults", "environment"}
    factory = agtrl.environment_factory("agentgym/BFCL-v0", **LOCAL)
    for row in rows:
        _, category, index = row["task_id"].split("/")
        assert (
            row["environment"] == "+".join(sorted(entry(category, int(index)).classes))
            and row["environment"] in factory
        )
    test_rows = agtrl.dataset("agentgym/BFCL-v0", split="test", n=8, categories=["miss_param"], **LOCAL)
    assert all(t.startswith("bfcl/miss_param/") for t in test_rows["task_id"])
    assert all(dict(bfcl_tool_groups("test"))[t] == g for t, g in zip(test_rows["task_id"], test_rows["environment"]))


def test_coding_verbs_parse_as_the_grammar():
    from agentgym.core import BadArguments
    from agentgym.envs.coding.grammar import parse

    calls = {
        "view": {"path": "a.py", "start": 2, "end": 4},
        "run": {"command": "ls -l"},
        "replace": {"path": "a.py", "start": 3, "end": 3, "lines": "x = 1\ny = 2"},
        "patch": {"diff": "--- a/a.py\n+++ b/a.py\n@@ -1,1 +1,1 @@\n-a\n+b\n"},
        "test": {},
        "revert": {},
        "submit": {},
    }
    for name, args in calls.items():
        action = call_action("coding", name, args)
        parsed = parse(action)
        assert not isinstance(parsed, BadArguments) and parsed.name == name, action
        back = action_call("coding", action, [{"function": {"name": n}} for n in calls])
        assert back == (name, args)
    assert isinstance(parse(call_action("coding", "view", {})), BadArguments)  # a bad call costs its turn


def test_episode_ends_at_budget_and_then_refuses():
    factory = agtrl.environment_factory("agentgym/ToolUse-v0", **LOCAL)
    rows = agtrl.dataset("agentgym/ToolUse-v0", n=1, budget=3, **LOCAL)
    row = rows[0]
    env = factory[row["environment"]]()
    first = env.reset(**row)
    assert "3 turns" in first
    for _ in range(3):
        text = env.calculate(expression="1 + 1")
    assert "budget of 3 turns is spent" in text and env.episode.truncated
    assert env.episode.info["budget"] == 3
    for _ in range(2):
        assert env.calculate(expression="2 + 2") == EPISODE_OVER
        assert env.finish(answer="done") == EPISODE_OVER
    assert env.episode.turns == 3 and env.episode.calls_after_end == 4 and env.get_reward() == 0.0


def test_dataset_draws_budgets_per_row_and_cycles_faults():
    rows = agtrl.dataset(
        "agentgym/Coding-v0", n=40, budget={"uniform": [2, 16]}, seed=3, faults=["", "tool_error@turn=1"]
    )
    assert set(rows.column_names) == {"prompt", "task_id", "seed", "budget", "faults"}
    assert 2 <= min(rows["budget"]) and max(rows["budget"]) <= 16 and len(set(rows["budget"])) > 5
    assert rows["faults"][:4] == [None, "tool_error@turn=1", None, "tool_error@turn=1"]
    again = agtrl.dataset(
        "agentgym/Coding-v0", n=40, budget={"uniform": [2, 16]}, seed=3, faults=["", "tool_error@turn=1"]
    )
    assert again.to_list() == rows.to_list()
    assert agtrl.dataset("agentgym/Coding-v0", n=3)["budget"] == [None] * 3


def test_missing_trainer_package_names_the_extra(monkeypatch):
    import sys

    from agentgym.errors import ConfigError

    monkeypatch.setitem(sys.modules, "datasets", None)
    with pytest.raises(ConfigError, match=r"pip install 'agentgym(-budget)?\[trainers\]'"):
        agtrl.dataset("agentgym/Coding-v0", n=1)


# ---------------------------------------------------------------------------------------- GRPO


def scripted_policy(env_instance, index: int) -> tuple[str, dict] | None:
    """On a T=3 row, a tool call that never ends the episode; else the oracle's next action as a tool
    call for even rollouts and an early, wrong submission for odd ones (so GRPO sees rewards differ)."""
    episode = env_instance.episode
    base = episode.env.unwrapped
    coding = base.family == "coding"
    if episode.info.get("budget") == 3:
        return ("test", {}) if coding else ("calculate", {"expression": "1 + 1"})
    if episode.done:
        return None
    if index % 2:
        return ("submit", {}) if coding else ("finish", {"answer": "done"})
    return action_call(base.family, base.reference_action(), tool_schemas(episode.env, probed=base.tools()))


def remote_policy(env_instance, index: int) -> tuple[str, dict] | None:
    """Coding-v0 over the wire (no oracle on the client): on a T=3 row, tests forever; else even
    rollouts test twice then submit, odd ones submit at once (so the turn-count reward differs)."""
    episode = env_instance.episode
    if episode.info.get("budget") == 3:
        return ("test", {})
    if episode.done:
        return None
    return ("test", {}) if index % 2 == 0 and episode.turns < 2 else ("submit", {})


def run_grpo(
    env_id: str, tmp_path, monkeypatch, *, max_iterations: int, remote: str | None = None
) -> tuple[list[dict], object]:
    """Two GRPO steps, each on one prompt x 2 generations: a row given T=3 and a row given T=12
    (against ``remote``, an ``agentgym serve`` URL, when given)."""
    import torch
    import trl.trainer.utils
    from trl import GRPOTrainer

    # Without Triton, TRL's fused LM head scores every position (prompt and padding too, to keep tile
    # shapes fixed for compilers) and masks the rest to 0 afterwards; on a 49k vocabulary that is most
    # of a CPU step. Scoring only the completion's positions, as it does on GPUs, gives the same values.
    monkeypatch.setattr(trl.trainer.utils, "_use_triton", lambda device: True)

    from support.tiny_lm import ScriptedToolCalls, cpu_grpo_config, smollm2_tokenizer, tiny_model

    os.environ.setdefault("TRL_EXPERIMENTAL_SILENCE", "1")
    torch.set_num_threads(2)
    tokenizer = smollm2_tokenizer()
    model = tiny_model(tokenizer, hidden=16)  # plumbing, not learning: the LM head is most of a step
    factory = agtrl.environment_factory(env_id, remote=remote) if remote else agtrl.environment_factory(env_id, **LOCAL)
    rows = agtrl.dataset(env_id, n=2, budget={"choice": [3, 12]}, seed=0, **LOCAL)
    assert sorted(rows["budget"]) == [3, 12]
    episodes: list[dict] = []

    def log_episodes(environments, **_):  # what a user's reward_funcs see: the episode on the instance
        episodes.extend(e.episode.summary() for e in environments)
        if remote:  # no success to tell rollouts apart over the wire here: fewer turns score higher
            return [-0.1 * e.episode.turns for e in environments]
        return [0.0] * len(environments)

    args = cpu_grpo_config(
        tmp_path,
        max_steps=2,
        per_device_train_batch_size=2,
        num_generations=2,
        max_tool_calling_iterations=max_iterations,
    )
    trainer = GRPOTrainer(
        model=model,
        reward_funcs=[log_episodes],
        args=args,
        train_dataset=rows,
        processing_class=tokenizer,
        environment_factory=factory,
    )
    scripted = ScriptedToolCalls(tokenizer, lambda: trainer.environments, remote_policy if remote else scripted_policy)
    scripted.install(trainer.model)
    before = [p.detach().clone() for p in trainer.model.parameters()]
    try:
        trainer.train()
    finally:  # TRL keeps its env instances and never closes them: their sandboxes are ours to close
        for instance in trainer.environments or []:
            instance.episode.close()
    assert trainer.state.global_step == 2
    assert any((p.detach() != b).any() for p, b in zip(trainer.model.parameters(), before)), "no weight moved"
    assert scripted.calls > 0
    return episodes, trainer


@pytest.mark.slow  # 60-100 s each at load 8-12 on the shared 2-core machine (in bf16: 150-170 s at load 4-6)
@pytest.mark.timeout(1800)
@pytest.mark.parametrize("env_id", ["agentgym/ToolUse-v0", "agentgym/Coding-v0"])
def test_grpo_trains_two_steps_through_the_adapter(env_id, tmp_path, monkeypatch):
    episodes, trainer = run_grpo(env_id, tmp_path, monkeypatch, max_iterations=12)
    assert len(episodes) == 4  # 2 steps x 1 prompt x 2 generations
    assert sum(e["turns"] for e in episodes) > 0  # the tool calls reached agentgym
    short = [e for e in episodes if e["budget"] == 3]
    long = [e for e in episodes if e["budget"] == 12]
    assert len(short) == len(long) == 2
    for e in short:  # the model kept calling: agentgym ended the episode after 3, TRL stopped at 12
        assert e["turns"] == 3 and e["truncated"] and not e["success"]
        assert e["calls_after_end"] == 12 - 3
    assert sorted(e["success"] for e in long) == [False, True]  # the oracle's calls solved it, the early submit not
    for e in long:
        assert e["calls_after_end"] == 0 and e["turns"] <= 12
    metrics = trainer.state.log_history
    assert any(float(m.get("tools/call_frequency", 0)) > 0 for m in metrics), metrics


@pytest.mark.slow  # about 50 s on the shared 2-core machine
@pytest.mark.timeout(1800)
def test_grpo_trains_two_steps_against_a_loopback_server(tmp_path, monkeypatch):
    """The same GRPO run with every env served by `agentgym serve`: the rows' budgets are chosen by
    the trainer within the operator's bounds and honoured on the server."""
    import secrets

    from agentgym.serve.app import ServeConfig
    from agentgym.serve.server import ServerThread
    from agentgym.serve.sessions import ClientBounds

    token = secrets.token_urlsafe(32)
    monkeypatch.setenv("AGENTGYM_SERVE_TOKEN", token)
    config = ServeConfig(client=ClientBounds(budget=(2, 32), faults=("tool_error",)))
    with ServerThread(["agentgym/Coding-v0"], LOCAL, token=token, config=config) as srv:
        episodes, trainer = run_grpo("agentgym/Coding-v0", tmp_path, monkeypatch, max_iterations=12, remote=srv.url)
    assert len(episodes) == 4
    short = [e for e in episodes if e["budget"] == 3]
    long = [e for e in episodes if e["budget"] == 12]
    assert len(short) == len(long) == 2
    for e in short:  # the server ended the episode after 3 calls; TRL kept calling until 12
        assert e["turns"] == 3 and e["truncated"] and e["calls_after_end"] == 12 - 3
    assert sorted(e["turns"] for e in long) == [1, 3] and all(e["terminated"] for e in long)
    assert any(float(m.get("tools/call_frequency", 0)) > 0 for m in trainer.state.log_history)


def test_factory_against_a_loopback_server(monkeypatch):
    import secrets

    from agentgym.serve.app import ServeConfig
    from agentgym.serve.server import ServerThread
    from agentgym.serve.sessions import ClientBounds

    token = secrets.token_urlsafe(32)
    monkeypatch.setenv("AGENTGYM_SERVE_TOKEN", token)
    config = ServeConfig(client=ClientBounds(budget=(2, 32), faults=("tool_error",)))
    with ServerThread(["agentgym/Coding-v0"], LOCAL, token=token, config=config) as srv:
        cls = agtrl.environment_factory("agentgym/Coding-v0", remote=srv.url)
        assert tools_of(cls) == ["patch", "replace", "revert", "run", "submit", "test", "view"]
        env = cls()
        env.reset(seed=0, budget=3, faults="tool_error@turn=1")
        assert "error" in env.test()  # the row's fault plan, on the server
        env.view(path="missing.py")
        assert "budget of 3 turns is spent" in env.test()
        assert env.submit() == EPISODE_OVER and env.episode.truncated and env.get_reward() == 0.0
        with pytest.raises(Exception, match="budget"):  # outside the operator's bounds: refused
            env.reset(seed=0, budget=40)
        env.episode.close()
