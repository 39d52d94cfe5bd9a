"""An agent for any OpenAI-compatible chat endpoint (vLLM, llama.cpp server, Ollama, ...).

Standard library only (``urllib``), so evaluating a served model adds no dependency. The prompt is
the language-model view every model path shares (`agentgym.llm.view.ChatView`): the tools or the
grammar and the task once, then each step's result; the reply is the action. Token usage from the
endpoint's ``usage`` field is recorded as cost.

An endpoint that cannot be reached after ``retries`` attempts raises `ModelEndpointError`, an
`InfrastructureError`: the harness retries the episode and never scores it as an agent failure.
Each request has one total deadline, a bounded body and no redirects (`agentgym.agents.http`);
a reply of the wrong shape is a `ModelReplyError` that names the field.
"""

from __future__ import annotations

import os
import time
from typing import Any

import gymnasium as gym

from agentgym.agents.http import ModelEndpointError, ModelEndpointTimeout, ModelReplyError, post_json
from agentgym.llm.view import SYSTEM_PROMPT, ChatView, extract_action, system_prompt

__all__ = [
    "OpenAIChatAgent",
    "ModelEndpointError",
    "ModelEndpointTimeout",
    "ModelReplyError",
    "SYSTEM_PROMPT",
    "parse_chat_reply",
]


class OpenAIChatAgent:
    """Chat-completions agent.

    Args:
        base_url: the API root, e.g. ``http://127.0.0.1:8000/v1`` (``/chat/completions`` is appended).
        model: the model name the server expects.
        api_key: sent as a bearer token; defaults to the ``OPENAI_API_KEY`` environment variable if set.
        temperature, max_tokens: sampling settings (temperature 0 and the per-episode ``seed`` keep
            runs as repeatable as the server allows).
        history: how many past exchanges to keep in the prompt (None: all; the task is always kept).
        timeout, retries: the total deadline of one request in seconds (connect, send, and the
            whole reply: a server that drips bytes cannot stretch it) and attempts before giving up.
        max_reply_bytes: a reply body over this size is refused (`ModelReplyError`).

    Redirects are never followed, so the API key goes only to ``base_url``'s host.
    """

    def __init__(
        self,
        base_url: str,
        model: str,
        *,
        api_key: str | None = None,
        temperature: float = 0.0,
        max_tokens: int = 512,
        history: int | None = None,
        timeout: float = 120.0,
        retries: int = 3,
        system_prompt: str = SYSTEM_PROMPT,
        max_reply_bytes: int = 8 << 20,
    ) -> None:
        self.url = base_url.rstrip("/") + "/chat/completions"
        self.model = model
        self.api_key = api_key if api_key is not None else os.environ.get("OPENAI_API_KEY")
        self.temperature = float(temperature)
        self.max_tokens = int(max_tokens)
        self.history = None if history is None else int(history)
        self.timeout = float(timeout)
        self.retries = max(1, int(retries))
        self.system_prompt = system_prompt
        self.max_reply_bytes = int(max_reply_bytes)
        self._seed: int | None = None
        self._chat = ChatView(system_prompt)
        self._env: gym.Env | None = None
        self._usage: dict[str, float] = {}

    # ------------------------------------------------------------------ Agent protocol
    def seed(self, seed: int) -> None:
        self._seed = int(seed)

    def reset(self, env: gym.Env, obs: dict[str, Any], info: dict[str, Any]) -> None:
        self._env = env
        self._chat = ChatView(system_prompt(env, info, template=self.system_prompt), history=self.history)
        self._usage = {"model_calls": 0, "prompt_tokens": 0, "completion_tokens": 0, "model_seconds": 0.0}

    def forced(self, obs: dict[str, Any], info: dict[str, Any], action: str) -> None:
        """An intervention's forced action, kept in the chat as the model's own reply to ``obs``."""
        self._chat.observe(self._env, obs, info)
        self._chat.reply(action)

    def act(self, obs: dict[str, Any], info: dict[str, Any]) -> str:
        self._chat.observe(self._env, obs, info)
        reply = self._complete(self._chat.prompt())
        self._chat.reply(reply)
        return extract_action(reply)

    def cost(self) -> dict[str, float]:
        return dict(self._usage)

    # ------------------------------------------------------------------ internals
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
        last: ModelEndpointError | None = None
        for attempt in range(self.retries):
            start = time.perf_counter()
            try:
                payload = post_json(self.url, body, headers, timeout=self.timeout, max_bytes=self.max_reply_bytes)
                content, prompt_tokens, completion_tokens = parse_chat_reply(payload)
            except ModelEndpointError as exc:
                last = exc
                if exc.status is not None and exc.status < 500 and exc.status != 429:
                    break  # a client error or a redirect (bad URL or model name) will not fix itself
            else:
                self._usage["model_calls"] += 1
                self._usage["prompt_tokens"] += prompt_tokens
                self._usage["completion_tokens"] += completion_tokens
                self._usage["model_seconds"] += time.perf_counter() - start
                return content
            if attempt + 1 < self.retries:
                time.sleep(min(8.0, 0.5 * 2**attempt))
        assert last is not None
        raise type(last)(
            f"chat endpoint failed after {attempt + 1} attempt(s): {last}. "
            "Check --base-url and --model and that the server is running.",
            last.status,
        ) from None


_MAX_TOKENS_FIELD = 10**9  # a usage count beyond this is garbage, not a count


def parse_chat_reply(payload: Any) -> tuple[str, int, int]:
    """``(content, prompt_tokens, completion_tokens)`` from a chat-completions reply; any field
    of the wrong shape is a `ModelReplyError` naming it (never an AttributeError or KeyError)."""
    if not isinstance(payload, dict):
        raise ModelReplyError(f"the reply is a JSON {type(payload).__name__}, not an object")
    choices = payload.get("choices")
    if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
        raise ModelReplyError("the reply has no choices[0] object")
    message = choices[0].get("message")
    if not isinstance(message, dict):
        raise ModelReplyError(f"choices[0].message is a {type(message).__name__}, not an object")
    content = message.get("content")
    if isinstance(content, list):  # content parts: [{"type": "text", "text": "..."}]
        if not all(isinstance(p, dict) and isinstance(p.get("text", ""), str) for p in content):
            raise ModelReplyError("choices[0].message.content is a list of something other than text parts")
        content = "".join(p.get("text", "") for p in content)
    if content is None:
        content = ""
    if not isinstance(content, str):
        raise ModelReplyError(f"choices[0].message.content is a {type(content).__name__}, not text")
    usage = payload.get("usage")
    if usage is None:
        usage = {}
    if not isinstance(usage, dict):
        raise ModelReplyError(f"usage is a {type(usage).__name__}, not an object")
    counts = []
    for field in ("prompt_tokens", "completion_tokens"):
        value = usage.get(field)
        if value is None:
            value = 0
        if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= _MAX_TOKENS_FIELD:
            raise ModelReplyError(f"usage.{field} is {str(value)[:40]!r}, not a token count")
        counts.append(value)
    return content, counts[0], counts[1]
