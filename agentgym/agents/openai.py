"""An agent for any OpenAI-compatible chat endpoint (vLLM, llama.cpp server, Ollama, ...).

Standard library only (``urllib``), so evaluating a served model adds no dependency. The
prompt gives the model the env's command grammar, the observation and the turns left; the
reply is the action. Token usage from the endpoint's ``usage`` field is recorded as cost.

An endpoint that cannot be reached after ``retries`` attempts raises `ModelEndpointError`, an
`InfrastructureError`: the harness retries the episode and never scores it as an agent failure.
"""

from __future__ import annotations

import json
import os
import re
import time
import urllib.error
import urllib.request
from typing import Any

import gymnasium as gym

from agentgym.errors import InfrastructureError

__all__ = ["OpenAIChatAgent", "ModelEndpointError", "SYSTEM_PROMPT"]

SYSTEM_PROMPT = """You are an agent solving a task in a sandboxed text environment, one action per turn.
Reply with exactly one action in the environment's command grammar and nothing else: no
explanation, no quotes. A malformed action costs a turn. The episode ends when you submit or
when your turns run out; work that is not submitted before the turns run out scores zero, so
leave yourself a turn to submit.

Command grammar:
{grammar}"""

_FENCE = re.compile(r"```[^\n`]*\n?(.*?)```", re.DOTALL)


class ModelEndpointError(InfrastructureError):
    """The chat endpoint did not answer usably; not the agent's fault. Check --base-url and that the server runs."""


class OpenAIChatAgent:
    """Chat-completions agent.

    Args:
        base_url: the API root, e.g. ``http://127.0.0.1:8000/v1`` (``/chat/completions`` is appended).
        model: the model name the server expects.
        api_key: sent as a bearer token; defaults to the ``OPENAI_API_KEY`` environment variable if set.
        temperature, max_tokens: sampling settings (temperature 0 and the per-episode ``seed`` keep
            runs as repeatable as the server allows).
        history: how many past exchanges to keep in the prompt (the first observation is always kept).
        show_menu: list ``admissible_actions`` in the prompt when the env offers at most ``menu_limit``.
        timeout, retries: per-request deadline in seconds and attempts before giving up.
    """

    def __init__(
        self,
        base_url: str,
        model: str,
        *,
        api_key: str | None = None,
        temperature: float = 0.0,
        max_tokens: int = 512,
        history: int = 16,
        show_menu: bool = True,
        menu_limit: int = 40,
        timeout: float = 120.0,
        retries: int = 3,
        system_prompt: str = SYSTEM_PROMPT,
    ) -> None:
        self.url = base_url.rstrip("/") + "/chat/completions"
        self.model = model
        self.api_key = api_key if api_key is not None else os.environ.get("OPENAI_API_KEY")
        self.temperature = float(temperature)
        self.max_tokens = int(max_tokens)
        self.history = int(history)
        self.show_menu = bool(show_menu)
        self.menu_limit = int(menu_limit)
        self.timeout = float(timeout)
        self.retries = max(1, int(retries))
        self.system_prompt = system_prompt
        self._seed: int | None = None
        self._messages: list[dict[str, str]] = []
        self._usage: dict[str, float] = {}

    # ------------------------------------------------------------------ Agent protocol
    def seed(self, seed: int) -> None:
        self._seed = int(seed)

    def reset(self, env: gym.Env, obs: dict[str, Any], info: dict[str, Any]) -> None:
        self._messages = [{"role": "system", "content": self.system_prompt.format(grammar=env_grammar(env))}]
        self._usage = {"model_calls": 0, "prompt_tokens": 0, "completion_tokens": 0, "model_seconds": 0.0}

    def act(self, obs: dict[str, Any], info: dict[str, Any]) -> str:
        self._messages.append({"role": "user", "content": self._render(obs, info)})
        reply = self._complete(self._prompt())
        self._messages.append({"role": "assistant", "content": reply})
        return extract_action(reply)

    def cost(self) -> dict[str, float]:
        return dict(self._usage)

    # ------------------------------------------------------------------ internals
    def _render(self, obs: dict[str, Any], info: dict[str, Any]) -> str:
        parts = [str(obs.get("text", ""))]
        menu = info.get("admissible_actions") or []
        if self.show_menu and 0 < len(menu) <= self.menu_limit:
            parts.append("Actions you may take now:\n" + "\n".join(f"- {a}" for a in menu))
        left = turns_left(obs, info)
        if left is not None:
            parts.append(f"[turns left: {left}]")
        return "\n\n".join(parts)

    def _prompt(self) -> list[dict[str, str]]:
        head, rest = self._messages[:2], self._messages[2:]
        keep = 2 * self.history
        return head + (rest[-keep:] if keep and len(rest) > keep else rest if keep else rest[-1:])

    def _complete(self, messages: list[dict[str, str]]) -> str:
        body: dict[str, Any] = {
            "model": self.model,
            "messages": messages,
            "temperature": self.temperature,
            "max_tokens": self.max_tokens,
        }
        if self._seed is not None:
            body["seed"] = self._seed
        headers = {"Content-Type": "application/json"}
        if self.api_key:
            headers["Authorization"] = f"Bearer {self.api_key}"
        data = json.dumps(body).encode()
        last = ""
        for attempt in range(self.retries):
            start = time.perf_counter()
            try:
                req = urllib.request.Request(self.url, data=data, headers=headers, method="POST")
                with urllib.request.urlopen(req, timeout=self.timeout) as resp:
                    payload = json.loads(resp.read().decode("utf-8"))
                content = payload["choices"][0]["message"].get("content") or ""
            except urllib.error.HTTPError as exc:
                last = f"HTTP {exc.code} from {self.url}: {exc.read()[:200]!r}"
                if exc.code < 500 and exc.code != 429:
                    break  # a client error (bad model name, bad request) will not fix itself
            except (urllib.error.URLError, OSError, TimeoutError) as exc:
                last = f"{self.url} unreachable: {exc}"
            except (ValueError, KeyError, IndexError, TypeError) as exc:
                last = f"malformed reply from {self.url}: {type(exc).__name__}: {exc}"
            else:
                usage = payload.get("usage") or {}
                self._usage["model_calls"] += 1
                self._usage["prompt_tokens"] += int(usage.get("prompt_tokens") or 0)
                self._usage["completion_tokens"] += int(usage.get("completion_tokens") or 0)
                self._usage["model_seconds"] += time.perf_counter() - start
                return str(content)
            if attempt + 1 < self.retries:
                time.sleep(min(8.0, 0.5 * 2**attempt))
        raise ModelEndpointError(f"chat endpoint failed after {self.retries} attempt(s): {last}. "
                                 "Check --base-url and --model and that the server is running.")


def env_grammar(env: gym.Env) -> str:
    """The family's command grammar as text: `AgentEnv.help_text` (the contract), else the Action Space
    section of the env's docstring (for gymnasium envs that are not agentgym's)."""
    base = env.unwrapped
    value = base.help_text() if callable(getattr(base, "help_text", None)) else None
    if isinstance(value, str) and value.strip():
        return value.strip()
    doc = type(base).__doc__ or ""
    match = re.search(r"Action Space\s*\n[-=~]*\n?(.*?)(?:\n\s*\n\S|\Z)", doc, re.DOTALL)
    if match:
        return match.group(1).strip()
    return "(see the first observation; send `help` to list commands)"


def turns_left(obs: dict[str, Any], info: dict[str, Any]) -> int | None:
    """Turns left in this episode, from the TurnLimit observation field or info."""
    value = obs.get("turns_left") if isinstance(obs, dict) else None
    if value is None:
        value = info.get("turns_left")
    if value is None:
        return None
    try:
        return int(getattr(value, "flat", [value])[0])
    except (TypeError, ValueError, IndexError):
        return None


def extract_action(reply: str) -> str:
    """The action in a model reply: the body of the first code fence if there is one, else the
    reply stripped of surrounding whitespace and quotes."""
    match = _FENCE.search(reply)
    text = match.group(1) if match else reply
    text = text.strip()
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "`'\"":
        text = text[1:-1].strip()
    return text
