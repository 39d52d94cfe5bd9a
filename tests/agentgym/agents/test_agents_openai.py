"""The OpenAI-compatible chat agent against a fake chat server on 127.0.0.1 (http.server)."""

from __future__ import annotations

import json
import re
from http.server import BaseHTTPRequestHandler

import gymnasium as gym
import pytest

from agentgym.agents import ModelEndpointError, OpenAIChatAgent
from agentgym.eval import evaluate
from agentgym.llm.view import extract_action
from agentgym.make import wrap
from agentgym.testing.kv_env import KVTasks, ScriptedAgentEnv
from support.fake_chat import reply, serve

KV_ID = "test/AgentsKV-v0"
if KV_ID not in gym.registry:
    gym.register(id=KV_ID, entry_point="agentgym.testing.kv_env:ScriptedAgentEnv")


class FakeChat(BaseHTTPRequestHandler):
    """Plays the key-value task from the prompt alone: set each key named in the first user
    message, get the last one, submit. The first reply comes in a code fence, as models do."""

    requests: list[dict] = []
    fail_with: int | None = None

    def do_POST(self):  # http.server's naming
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        type(self).requests.append({"path": self.path, "auth": self.headers.get("Authorization"), "body": body})
        if self.fail_with:
            self.send_response(self.fail_with)
            self.end_headers()
            self.wfile.write(b"model is overloaded")
            return
        messages = body["messages"]
        first_user = next(m["content"] for m in messages if m["role"] == "user")
        targets = re.findall(r"(\w+)=(\w+)", first_user.split("\n\n")[0])
        done = sum(1 for m in messages if m["role"] == "assistant")
        plan = [f"set {k} {v}" for k, v in targets] + [f"get {targets[-1][0]}", "submit"]
        action = plan[min(done, len(plan) - 1)]
        content = f"```\n{action}\n```" if done == 0 else action
        reply(
            self, content, {"prompt_tokens": sum(len(m["content"].split()) for m in messages), "completion_tokens": 3}
        )

    def log_message(self, *args):
        pass


@pytest.fixture
def server():
    FakeChat.requests = []
    FakeChat.fail_with = None
    with serve(FakeChat) as url:
        yield url


def test_agent_completes_an_episode_and_records_usage(server):
    env = wrap(ScriptedAgentEnv(split="train"), budget=10, labels=True, cost=True)
    agent = OpenAIChatAgent(server, "fake-model", api_key="sk-test", retries=1)
    agent.seed(5)
    obs, info = env.reset(seed=0, options={"task_id": "kv/3"})
    agent.reset(env, obs, info)
    turns = 0
    while True:
        obs, _, terminated, truncated, info = env.step(agent.act(obs, info))
        turns += 1
        if terminated or truncated:
            break
    env.close()
    assert info["success"] is True and turns == info["min_turns"]
    cost = agent.cost()
    assert cost["model_calls"] == turns and cost["completion_tokens"] == 3 * turns and cost["prompt_tokens"] > 0
    first = FakeChat.requests[0]
    assert first["path"] == "/v1/chat/completions" and first["auth"] == "Bearer sk-test"
    body = first["body"]
    assert body["model"] == "fake-model" and body["seed"] == 5 and body["temperature"] == 0.0
    system, user = body["messages"][0], body["messages"][1]
    assert system["role"] == "system" and "set KEY VALUE | get KEY" in system["content"]  # the grammar, once
    assert (
        "[budget: 10 turns" in user["content"] and "Actions you may take now" not in user["content"]
    )  # menu on request
    last_user = FakeChat.requests[-1]["body"]["messages"][-1]["content"]
    assert f"[{10 - turns + 1} turns left]" in last_user


def test_harness_runs_the_openai_agent_and_keeps_token_costs(server, tmp_path):
    ids = KVTasks().ids("test")[:3]
    result = evaluate(
        KV_ID,
        "openai",
        ks=[1],
        ts=[6],
        n=1,
        tasks=ids,
        out=tmp_path,
        progress=False,
        report=False,
        agent_kwargs={"base_url": server, "model": "fake-model", "api_key": "sk-secret"},
    )
    assert result.grid() == {6: {1: 1.0}}
    for r in result.records:
        assert r["cost"]["model_calls"] == r["turns"]
        assert r["cost"]["prompt_tokens"] > 0 and r["cost"]["completion_tokens"] == 3 * r["turns"]
    assert "sk-secret" not in (tmp_path / "run.json").read_text()
    cost = result.summary["results"]["clean"][KV_ID]["cost"]["6"]
    assert cost["completion_tokens"] > 0


def test_unreachable_endpoint_is_an_infrastructure_failure(server, tmp_path):
    FakeChat.fail_with = 503
    agent = OpenAIChatAgent(server, "fake-model", retries=2)
    env = wrap(ScriptedAgentEnv(split="train"), budget=5)
    obs, info = env.reset(seed=0, options={"task_id": "kv/3"})
    agent.reset(env, obs, info)
    with pytest.raises(ModelEndpointError, match="HTTP 503"):
        agent.act(obs, info)
    env.close()
    assert len(FakeChat.requests) == 2  # a 5xx is retried
    result = evaluate(
        KV_ID,
        "openai",
        ks=[1],
        ts=[4],
        n=1,
        tasks=KVTasks().ids("test")[:2],
        out=tmp_path,
        progress=False,
        report=False,
        retries=0,
        agent_kwargs={"base_url": server, "model": "m", "retries": 1},
    )
    assert result.summary["counts"]["infra_errors"] == 2 and result.summary["counts"]["scored"] == 0
    assert all(r["infra_error"].startswith("ModelEndpointError") for r in result.records)


def test_extract_action():
    assert extract_action("```bash\nset alpha amber\n```") == "set alpha amber"
    assert extract_action("  `submit`  ") == "submit"
    assert extract_action("edit a.py\nline two") == "edit a.py\nline two"


def test_the_system_prompt_lists_what_wrappers_add_to_help(server):
    env = wrap(ScriptedAgentEnv(split="train"), budget={"soft": 4, "extra": 2})
    agent = OpenAIChatAgent(server, "fake-model", api_key="sk-test", retries=1)
    obs, info = env.reset(seed=0, options={"task_id": "kv/3"})
    agent.reset(env, obs, info)
    env.step(agent.act(obs, info))
    env.close()
    system = FakeChat.requests[0]["body"]["messages"][0]["content"]
    assert "extend" not in env.unwrapped.help_text()  # the family's own grammar does not have it
    assert "extend" in system
