"""Resume checks the whole agent configuration, and secrets given as agent settings never reach disk."""

from __future__ import annotations

import json
from http.server import BaseHTTPRequestHandler

import pytest
from eval_envs import KV_ID

from agentgym.errors import ConfigError
from agentgym.eval import evaluate
from agentgym.eval.agent_identity import agent_identity, is_secret, public_kwargs
from agentgym.eval.cli import main
from support.fake_chat import reply, serve

SECRET = "sk-test-DO-NOT-STORE-0123456789"
URL_SECRET = "pw-DO-NOT-STORE"


class Submitter(BaseHTTPRequestHandler):
    """A model that always submits; records the bearer token it was sent."""

    auth: list[str | None] = []

    def do_POST(self):
        self.rfile.read(int(self.headers["Content-Length"]))
        type(self).auth.append(self.headers.get("Authorization"))
        reply(self, "submit", {"prompt_tokens": 5, "completion_tokens": 1})

    def log_message(self, *args):
        pass


@pytest.fixture
def chat():
    Submitter.auth = []
    with serve(Submitter) as url:
        yield url


KW = dict(ks=[1], ts=[3], n=1, tasks=2, seed=1, progress=False, report=False)


def test_resume_refuses_another_model(chat, tmp_path):
    def run(**kwargs):
        return evaluate(
            KV_ID,
            "openai",
            out=tmp_path,
            agent_kwargs={"base_url": chat, "api_key": "sk-first-key-0000", "model": "model-a", **kwargs},
            **KW,
        )

    assert run().ran == 2
    with pytest.raises(ConfigError, match=r"another agent configuration.*model.*model-a.*model-b.*new --out"):
        run(model="model-b")
    with pytest.raises(ConfigError, match="temperature"):
        run(temperature=0.7)
    assert run().ran == 0  # the same configuration resumes
    assert run(api_key="sk-rotated-key-9999").ran == 0  # a new key for the same agent is not a new agent
    assert json.loads((tmp_path / "run.json").read_text())["agent_identity"]["kwargs"]["model"] == "model-a"


def test_identity_covers_name_settings_and_code():
    a = agent_identity("openai", {"base_url": "http://h/v1", "model": "m"})
    assert a["version"].startswith("agentgym ") and a["name"] == "openai"
    assert agent_identity("openai", {"base_url": "http://h/v1", "model": "m2"})["digest"] != a["digest"]
    assert (
        agent_identity("openai", {"base_url": "http://h/v1", "model": "m", "api_key": "sk-1"})["digest"]
        == agent_identity("openai", {"base_url": "http://h/v1", "model": "m", "api_key": "sk-2"})["digest"]
    )
    assert agent_identity("random")["digest"] != agent_identity("oracle")["digest"]


def test_secret_names_and_values_are_recognised():
    assert all(is_secret(k) for k in ("api_key", "apiKey", "access_token", "Authorization", "password", "secret"))
    assert not any(is_secret(k) for k in ("max_tokens", "model", "keywords", "monkey", "history"))
    out = public_kwargs(
        {
            "api_key": SECRET,
            "headers": {"Authorization": f"Bearer {SECRET}"},
            "base_url": f"http://user:{URL_SECRET}@127.0.0.1/v1",
            "note": f"uses {SECRET}",
        }
    )
    assert SECRET not in json.dumps(out) and URL_SECRET not in json.dumps(out)


def test_secret_agent_args_never_reach_disk(chat, tmp_path, capsys):
    out = tmp_path / "run"
    code = main(
        [
            "eval",
            "--env",
            KV_ID,
            "--agent",
            "openai",
            "--base-url",
            chat,
            "--model",
            "m",
            "--agent-arg",
            f"api_key={SECRET}",
            "--k",
            "1",
            "--t",
            "3",
            "--n",
            "1",
            "--tasks",
            "2",
            "--no-progress",
            "--out",
            str(out),
        ]
    )
    assert code == 0
    assert Submitter.auth and all(a == f"Bearer {SECRET}" for a in Submitter.auth)  # the key was used
    leaks = [str(p) for p in out.rglob("*") if p.is_file() and SECRET.encode() in p.read_bytes()]
    assert not leaks, f"the API key was written to {leaks}"
    assert SECRET not in capsys.readouterr().out
    run = json.loads((out / "run.json").read_text())
    assert run["agent_kwargs"]["api_key"] == "<redacted>" and "api_key" in run["agent_identity"]["secrets"]
