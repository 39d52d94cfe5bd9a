"""An LLM rollout loop on an env served by ``agentgym serve``, over WebSocket or plain HTTP.

    agentgym serve agentgym/ToolUse-v0 --kwargs '{"budget": 12, "split": "test"}' &
    export AGENTGYM_SERVE_TOKEN_FILE=...          # the path the server printed
    python examples/remote_llm_agent.py --server http://127.0.0.1:8000 \\
        --base-url http://127.0.0.1:8001/v1 --model my-model [--transport http]

The model is any OpenAI-compatible chat endpoint, driven by `agentgym.agents.OpenAIChatAgent`
exactly as in examples/llm_agent.py. With ``--transport websocket`` (the default) the env is
``gym.make(id, remote=URL)``, a `gymnasium.Env` over OpenEnv's ``/ws`` protocol; with
``--transport http`` the loop speaks the plain HTTP routes (``POST /reset`` opens a session and
returns its id, ``POST /step`` takes it), standard library only. The reward is the server's:
the client only ever sends actions.
"""

from __future__ import annotations

import argparse
import json
import os
import urllib.request
from typing import Any

import gymnasium as gym

import agentgym  # noqa: F401  (registers the ids gym.make resolves)
from agentgym.agents import OpenAIChatAgent
from agentgym.wire.auth import client_token


class HttpEpisode:
    """The plain-HTTP side of the protocol: what an agent in any language would send."""

    def __init__(self, server: str, token: str, timeout: float = 600.0) -> None:
        self.server, self.timeout, self.session_id = server.rstrip("/"), timeout, None
        self.headers = {"Authorization": f"Bearer {token}", "Content-Type": "application/json"}
        self._help = ""

    def _post(self, path: str, body: dict[str, Any]) -> dict[str, Any]:
        request = urllib.request.Request(self.server + path, json.dumps(body).encode(), self.headers, method="POST")
        opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))  # loopback: no proxy
        with opener.open(request, timeout=self.timeout) as response:
            return json.loads(response.read())

    def reset(self, seed: int) -> tuple[dict[str, Any], dict[str, Any]]:
        out = self._post("/reset", {"seed": seed})
        self.session_id, self._help = out["session_id"], out["info"].get("help", "")
        return out["observation"], out["info"]

    def step(self, action: str) -> tuple[dict[str, Any], float, bool, bool, dict[str, Any]]:
        out = self._post("/step", {"session_id": self.session_id, "action": action})
        return out["observation"], out["reward"], out["terminated"], out["truncated"], out["info"]

    def close(self) -> None:
        if self.session_id is not None:
            self._post("/close", {"session_id": self.session_id})

    # what OpenAIChatAgent reads from an env: its grammar
    @property
    def unwrapped(self) -> HttpEpisode:
        return self

    def help_text(self) -> str:
        return self._help


def main(argv: list[str] | None = None) -> dict[str, Any]:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--server", required=True, help="the agentgym server, e.g. http://127.0.0.1:8000")
    p.add_argument("--env", default="agentgym/ToolUse-v0", help="the id the server serves")
    p.add_argument("--transport", choices=["websocket", "http"], default="websocket")
    p.add_argument("--base-url", required=True, help="chat API root, e.g. http://127.0.0.1:8001/v1")
    p.add_argument("--model", required=True)
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args(argv)

    agent = OpenAIChatAgent(args.base_url, args.model, api_key=os.environ.get("OPENAI_API_KEY"))
    if args.transport == "websocket":
        env: Any = gym.make(args.env, remote=args.server)  # token from AGENTGYM_SERVE_TOKEN(_FILE)
        obs, info = env.reset(seed=args.seed)
    else:
        env = HttpEpisode(args.server, client_token())
        obs, info = env.reset(args.seed)
    agent.reset(env, obs, info)
    print(obs["text"])
    reward, turns = 0.0, 0
    try:
        while True:
            action = agent.act(obs, info)
            obs, reward, terminated, truncated, info = env.step(action)
            turns += 1
            print(f"\n> {action}\n{obs['text'][:2000]}")
            if terminated or truncated:
                break
    finally:
        env.close()
    print(f"\nreward={reward} success={info.get('success')} turns={turns} transport={args.transport}")
    return info


if __name__ == "__main__":
    main()
