"""An LLM agent on agentgym through any OpenAI-compatible chat endpoint (vLLM, llama.cpp, Ollama).

    python examples/llm_agent.py --base-url http://127.0.0.1:8000/v1 --model my-model --budget 12

The agent is `agentgym.agents.OpenAIChatAgent`: its system prompt holds the family's ``help``
text (for ToolUse-v0 the tools as OpenAI-style JSON schemas), each user turn the observation
text and the turns left, and it sends whatever the model answers as the action. It reads
nothing else: no menu, no hidden state. For a Pass@(K,T) grid use ``agentgym eval --agent
openai`` with the same flags (docs/eval.md).
"""

from __future__ import annotations

import argparse
import os

import agentgym
from agentgym.agents import OpenAIChatAgent


def main(argv: list[str] | None = None) -> dict:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--base-url", required=True, help="API root, e.g. http://127.0.0.1:8000/v1")
    p.add_argument("--model", required=True)
    p.add_argument("--env", default="agentgym/ToolUse-v0")
    p.add_argument("--budget", type=int, default=12)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--backend", default="auto", help="sandbox backend: auto, docker or local")
    args = p.parse_args(argv)

    env = agentgym.make(args.env, budget=args.budget, backend=args.backend, split="test")
    agent = OpenAIChatAgent(args.base_url, args.model, api_key=os.environ.get("OPENAI_API_KEY"))
    obs, info = env.reset(seed=args.seed)
    agent.reset(env, obs, info)
    print(obs["text"])
    while True:
        action = agent.act(obs, info)
        obs, reward, terminated, truncated, info = env.step(action)
        print(f"\n> {action}\n{obs['text'][:2000]}")
        if terminated or truncated:
            break
    print(f"\nsuccess={info['success']} category={info['failure_category']} turns={info['turn']} cost={info['cost']}")
    env.close()
    return info


if __name__ == "__main__":
    main()
