"""What the verifiers test runs: ``agentgym serve`` on loopback, an oracle chat model, and ``vf-eval``.

verifiers 0.4 pins ``mcp==2.0.0`` and its OpenEnv task set needs ``openenv>=0.4.1`` (agentgym:
``mcp>=2.3``, tests against ``openenv-core`` 0.3), so ``vf-eval`` runs from a virtual environment
of its own (`verifiers_venv`); the server and the chat model run in this process. The model is the
oracle: each chat request is answered with the served env's ``reference_action()`` as OpenEnv's step action
``{"action": TEXT}``, the JSON object verifiers' OpenEnv task set sends to ``/step`` as it is.
The config is the part a user writes (docs/trainers.md): ``resets`` holds one reset per task,
each with its own ``options`` (``task_id``, ``budget``, ``faults``).
"""

from __future__ import annotations

import json
import subprocess
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from support.fake_chat import ScriptedChat, reply, serve


def eval_config(server_url: str, token: str, chat_url: str, resets: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """A ``vf-eval @ config.json`` config: verifiers' OpenEnv task set on an ``agentgym serve`` URL."""
    host = server_url.split("://", 1)[1]
    return {
        "env": {
            "taskset": {"id": "openenv", "base_url": f"http://agentgym:{token}@{host}", "resets": list(resets)},
            "player": {"runtime": {"type": "subprocess"}},
        },  # the model runs host-side: no sandbox, no tunnel
        "model": "oracle",
        "client": {"type": "eval", "base_url": chat_url, "api_key_var": "ORACLE_API_KEY"},
        "num_rollouts": 1,
        "max_concurrent": 1,
        "push": False,
        "rich": None,
    }


def stream_reply(handler: Any, content: str, model: str) -> None:
    """One assistant message as OpenAI's server-sent chunks (verifiers' proxy streams from its upstream)."""
    base = {"id": "chatcmpl-oracle", "object": "chat.completion.chunk", "created": 0, "model": model}
    chunks = [
        {**base, "choices": [{"index": 0, "delta": {"role": "assistant", "content": content}, "finish_reason": None}]},
        {
            **base,
            "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
        },
    ]
    data = "".join(f"data: {json.dumps(c)}\n\n" for c in chunks).encode() + b"data: [DONE]\n\n"
    handler.send_response(200)
    handler.send_header("Content-Type", "text/event-stream")
    handler.send_header("Content-Length", str(len(data)))
    handler.end_headers()
    handler.wfile.write(data)


def oracle_chat(table: Any, before_reply: Callable[[Any, int], None] | None = None) -> type[ScriptedChat]:
    """A chat model that answers with the open session's oracle action (one session at a time);
    ``before_reply(session, n)`` runs before the n-th reply (from 0), once the action is chosen."""

    class Oracle(ScriptedChat):
        requests: list[dict] = []
        actions: list[str] = []

        def respond(self, body: dict, turn: int) -> None:
            sessions = table.find(lambda s: s.env is not None and not s.closed and s.task_id is not None)
            assert len(sessions) == 1, f"{len(sessions)} sessions open"
            action = sessions[0].env.unwrapped.reference_action()
            if before_reply is not None:
                before_reply(sessions[0], len(type(self).actions))
            type(self).actions.append(action)
            content = json.dumps({"action": action})
            if body.get("stream"):
                stream_reply(self, content, body.get("model", "oracle"))
            else:
                reply(self, content, {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2})

    return Oracle


def program_env(vpython: str, home: Path) -> dict[str, str]:
    """The environment ``vf-eval`` runs in: the venv's ``uv`` on PATH (verifiers runs its chat program
    as a uv script and would otherwise download uv), and pip's own indexes passed on to uv."""
    env = {
        "ORACLE_API_KEY": "x",
        "HOME": str(home),
        "PATH": f"{Path(vpython).parent}:/usr/bin:/bin",
        "UV_INDEX_STRATEGY": "unsafe-best-match",
    }  # as pip: every index counts
    config = subprocess.run([vpython, "-m", "pip", "config", "list"], capture_output=True, text=True).stdout
    for line in config.splitlines():
        key, _, value = line.partition("=")
        value = value.strip().strip("'")
        if key.endswith(".index-url"):
            env["UV_INDEX_URL"] = value
        elif key.endswith(".extra-index-url"):
            env["UV_EXTRA_INDEX_URL"] = value
        elif key.endswith(".find-links"):
            env["UV_FIND_LINKS"] = value
        elif key.endswith(".cert"):
            env["SSL_CERT_FILE"] = value
    return env


def run_vf_eval(
    vpython: str,
    server: Any,
    token: str,
    resets: Sequence[dict[str, Any]],
    out: Path,
    timeout: float = 600,
    before_reply: Callable[[Any, int], None] | None = None,
) -> tuple[subprocess.CompletedProcess[str], list[dict], type[ScriptedChat]]:
    """Run ``vf-eval`` on ``resets`` with the oracle model; returns the process, the traces and the model."""
    chat = oracle_chat(server.table, before_reply)
    with serve(chat) as chat_url:
        config = eval_config(server.url, token, chat_url, resets)
        config["output_dir"] = str(out)
        path = out / "eval.json"
        out.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(config))
        proc = subprocess.run(
            [str(Path(vpython).parent / "vf-eval"), "@", str(path)],
            capture_output=True,
            text=True,
            timeout=timeout,
            env=program_env(vpython, out),
        )
    traces = [json.loads(line) for f in out.rglob("traces.jsonl") for line in f.read_text().splitlines() if line]
    return proc, traces, chat
