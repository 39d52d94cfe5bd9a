"""SkyRL adapter: skyrl_gym.make on agentgym ids, oracle episodes in a SkyRL-style env loop, budgets
from the row's own key, in process and against a loopback ``agentgym serve``."""

from __future__ import annotations

import pytest

skyrl_gym = pytest.importorskip("skyrl_gym")

import agentgym.integrations.skyrl as agskyrl  # noqa: E402
from agentgym.integrations.episode import EPISODE_OVER  # noqa: E402

LOCAL = {"backend": "local"}
PROMPT = [{"role": "system", "content": "You are an agent."}, {"role": "user", "content": "Solve the task."}]


def rollout(env, oracle, max_turns: int = 40) -> tuple[list[dict], list]:
    """SkyRL's generator loop, reduced: init, then step the model's reply until done or max_turns."""
    chat, _meta = env.init(PROMPT)
    outputs = []
    for _ in range(max_turns):
        reply = oracle()
        out = env.step(reply)
        outputs.append(out)
        chat += [{"role": "assistant", "content": reply}] + out["observations"]
        if out["done"]:
            break
    return chat, outputs


def test_every_id_is_registered_under_its_own_name():
    import agentgym

    assert set(agentgym.ENV_IDS) <= set(skyrl_gym.registry)
    assert agskyrl.register_envs(["agentgym/ToolUse-v0"]) == ["agentgym/ToolUse-v0"]  # idempotent


@pytest.mark.parametrize("env_id", ["agentgym/ToolUse-v0", "agentgym/Coding-v0", "agentgym/BFCL-v0"])
def test_oracle_episodes_in_process(env_id):
    env = skyrl_gym.make(env_id, env_config={"kwargs": LOCAL}, extras={"seed": 3, "budget": 20, "max_turns": 99})
    try:
        assert isinstance(env, skyrl_gym.envs.base_text_env.BaseTextEnv)
        chat, outputs = rollout(env, lambda: env.episode.env.unwrapped.reference_action())
        assert "20 turns" in chat[1]["content"] and chat[0] == PROMPT[0]  # the task joins the user message
        assert env.max_turns == 20  # the row's budget, not the generator's max_turns
        last = outputs[-1]
        assert last["done"] and last["reward"] == 1.0 and last["metadata"]["success"]
        assert last["metadata"]["episode"]["terminated"] and last["metadata"]["budget"] == 20
        assert all(o["observations"][0]["role"] == "user" for o in outputs)
        assert env.get_metrics()["success"] == 1.0
        again = env.step("help")
        assert again["done"] and again["observations"][0]["content"] == EPISODE_OVER and again["reward"] == 0.0
    finally:
        env.close()


def test_budget_from_extras_truncates_whatever_the_model_says():
    env = skyrl_gym.make(
        "agentgym/Coding-v0", env_config={"kwargs": LOCAL}, extras={"seed": 0, "budget": 3, "max_turns": 50}
    )
    try:
        _chat, outputs = rollout(env, lambda: "test")
        assert len(outputs) == 3 and outputs[-1]["done"] and outputs[-1]["metadata"]["episode"]["truncated"]
        assert (
            outputs[-1]["reward"] == 0.0 and "budget of 3 turns is spent" in outputs[-1]["observations"][0]["content"]
        )
        assert [o["observations"][0]["content"].endswith(f"[{n} turns left]") for o, n in zip(outputs[:2], (2, 1))] == [
            True,
            True,
        ]
    finally:
        env.close()


def test_oracle_and_budget_against_a_loopback_server(monkeypatch):
    import secrets

    from agentgym.serve.app import ServeConfig
    from agentgym.serve.server import ServerThread
    from agentgym.serve.sessions import ClientBounds

    token = secrets.token_urlsafe(32)
    monkeypatch.setenv("AGENTGYM_SERVE_TOKEN", token)
    config = ServeConfig(client=ClientBounds(budget=(2, 32)))
    with ServerThread(["agentgym/ToolUse-v0"], LOCAL, token=token, config=config) as srv:

        def served_oracle() -> str:  # the model is the oracle of the one env the server holds
            (session,) = srv.table.find(lambda s: s.env is not None and not s.closed)
            return session.env.unwrapped.reference_action()

        for budget, solved in ((20, True), (3, False)):
            env = skyrl_gym.make(
                "agentgym/ToolUse-v0",
                env_config={"remote": srv.url},
                extras={"seed": 2, "budget": budget, "max_turns": 99},
            )
            try:
                _chat, outputs = rollout(env, served_oracle)
                assert outputs[-1]["done"] and bool(outputs[-1]["metadata"]["success"]) is solved
                assert outputs[-1]["metadata"]["budget"] == budget
                if not solved:
                    assert len(outputs) == 3 and outputs[-1]["metadata"]["episode"]["truncated"]
            finally:
                env.close()


def test_missing_skyrl_gym_names_the_extra(monkeypatch):
    import importlib
    import sys

    from agentgym.errors import ConfigError

    monkeypatch.setitem(sys.modules, "skyrl_gym", None)
    monkeypatch.setitem(sys.modules, "skyrl_gym.envs.base_text_env", None)
    monkeypatch.delitem(sys.modules, "agentgym.integrations.skyrl")
    with pytest.raises(ConfigError, match=r"pip install 'agentgym(-budget)?\[trainers\]'"):
        importlib.import_module("agentgym.integrations.skyrl")
