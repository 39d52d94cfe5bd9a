"""Server-side sessions: one env (and so one sandbox) per client session, and what it may do.

- `EnvEndpoint`: one served id with its fixed kwargs and wrapper stack (the server's, never
  the client's), its spaces, what a client may choose at reset (`ClientBounds`: the budget
  and fault kinds the operator allows), and the env calls a session makes (`reset`, `step`,
  `state`, tool calls). Every reward a client sees comes from `step` here: the family's
  verifier in this process; nothing a client sends is read as a reward.
- `Session`: the env, the principal (token) that opened it, an unguessable id, a lock that
  keeps its calls in order.
- `SessionTable`: the limit on open sessions, the idle timeout (a vanished client's sandbox is
  closed by the reaper), the deadline on every env call, and the threads env calls run in
  (sandbox I/O blocks; the event loop must not). A session whose env call met an infrastructure
  failure (its sandbox died) or ran past the deadline is closed at once, so a dead sandbox never
  holds a slot; its error says so (``infrastructure``, ``session_closed``).
- `Workers`: those threads. Python cannot stop a thread, so a call past its deadline is
  abandoned: its session is closed (which ends a call blocked on its sandbox), a fresh thread
  takes its place, and until it returns it holds a session slot, so calls that never return
  bound the threads by ``max_sessions`` and never starve the other sessions.
"""

from __future__ import annotations

import asyncio
import logging
import queue
import secrets
import threading
import time
import uuid
from collections.abc import Callable, Mapping
from concurrent.futures import Future
from dataclasses import dataclass, field
from typing import Any

import gymnasium as gym
from gymnasium.error import ResetNeeded

from agentgym import __version__
from agentgym.core import FAULT_KINDS
from agentgym.errors import AgentGymError, ConfigError, InfrastructureError
from agentgym.llm.tools import call_action, family_tools, function
from agentgym.wire.codec import from_json, space_to_json, to_json
from agentgym.wire.protocol import CALL_TIMEOUT, SESSION_CLOSED
from agentgym.wrappers.budget import parse_budget
from agentgym.wrappers.faults import chosen_faults
from agentgym.wrappers.soft_budget import parse_soft_budget

__all__ = [
    "EnvEndpoint",
    "ClientBounds",
    "Session",
    "SessionTable",
    "Workers",
    "RequestError",
    "CapacityReached",
    "mcp_tools",
    "tool_action",
    "RESERVED_TOOLS",
]

log = logging.getLogger("agentgym.serve")

RESERVED_TOOLS = ("reset",)
"""The server's own tool names: a family tool of the same name is not listed over MCP."""


class RequestError(Exception):
    """A request the server refuses; ``code`` is OpenEnv's error code, the message is safe to send."""

    def __init__(
        self,
        message: str,
        code: str = "VALIDATION_ERROR",
        error_type: str = "",
        *,
        infrastructure: bool = False,
        session_closed: bool = False,
    ) -> None:
        super().__init__(message)
        self.code, self.error_type, self.infrastructure = code, error_type, infrastructure
        self.session_closed = session_closed

    def payload(self) -> dict[str, Any]:
        data: dict[str, Any] = {"message": str(self), "code": self.code}
        if self.error_type:
            data["error_type"] = self.error_type
        if self.infrastructure:
            data["infrastructure"] = True
        if self.session_closed:
            data[SESSION_CLOSED] = True
        return data


class CapacityReached(RequestError):
    def __init__(self, open_sessions: int, limit: int, hung: int = 0) -> None:
        held = f" ({hung} held by env calls past the call timeout that have not returned)" if hung else ""
        super().__init__(
            f"the server holds its limit of {limit} open sessions{held}; retry later or raise --max-sessions",
            "CAPACITY_REACHED",
        )
        self.open_sessions, self.limit = open_sessions, limit


def _seed(value: Any) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < 2**63:
        raise RequestError(f"seed must be an integer in [0, 2**63), got {str(value)[:40]!r}")
    return value


def _options(value: Any) -> dict[str, Any] | None:
    if value is None:
        return None
    if not isinstance(value, Mapping):
        raise RequestError(f"options must be an object, got {type(value).__name__}")
    return dict(value)


RESET_FIELDS = ("seed", "episode_id", "options", "session_id")
"""Fields of a reset request; any other is an env option (OpenEnv sends custom reset parameters
beside ``seed``, agentgym's client nests them in ``options``)."""


def _reset_options(data: Mapping[str, Any]) -> dict[str, Any] | None:
    """The env's reset options: ``options`` and any field beside OpenEnv's own (``{"seed": 1,
    "budget": 6}`` as OpenEnv clients send custom parameters), which the env then checks like any
    option, refusing the keys it does not read."""
    options = _options(data.get("options"))
    beside = {str(k): v for k, v in data.items() if k not in RESET_FIELDS}
    if not beside:
        return options
    twice = sorted(set(beside) & set(options or {}))
    if twice:
        raise RequestError(
            f"reset options {twice} given both in 'options' and beside it; give each once",
            "VALIDATION_ERROR",
            "ConfigError",
        )
    return {**(options or {}), **beside}


@dataclass(frozen=True)
class ClientBounds:
    """What a client may choose in ``reset(options=...)`` (``agentgym serve --client-budget 2-32
    --client-faults tool_error,timeout``); None: nothing, and such an option is refused.

    ``budget`` bounds T (both ends inclusive); a soft budget's ``extra`` may then be chosen too,
    up to the served budget's own largest ``extra``. ``faults`` lists the fault kinds a client's
    fault spec may use (``""``, no faults, is always within them)."""

    budget: tuple[int, int] | None = None
    faults: tuple[str, ...] | None = None

    def __post_init__(self) -> None:
        if self.budget is not None:
            lo, hi = self.budget
            if any(isinstance(v, bool) or not isinstance(v, int) for v in (lo, hi)) or not 1 <= lo <= hi:
                raise ConfigError(f"--client-budget {lo}-{hi}: expected LO-HI with 1 <= LO <= HI, e.g. 2-32")
        if self.faults is not None:
            bad = [k for k in self.faults if k not in FAULT_KINDS]
            if bad or not self.faults:
                raise ConfigError(
                    f"--client-faults {','.join(self.faults)!r}: fault kinds are {', '.join(FAULT_KINDS)}"
                )

    def served_kwargs(self, kwargs: Mapping[str, Any]) -> dict[str, Any]:
        """The env kwargs with room for the client's T: with ``budget`` bounds and no served
        budget, a turn limit of T = HI (a client that chooses none gets the most it could have
        asked for, never an unlimited episode); ``max_budget`` raised to HI."""
        out = dict(kwargs)
        if self.budget is None:
            return out
        hi = self.budget[1]
        if out.get("budget") is None:
            out["budget"] = hi
        spec = out["budget"]
        base = parse_soft_budget(spec)[0] if isinstance(spec, Mapping) and "soft" in spec else spec
        top = parse_budget(base, out.get("max_budget"))[1]
        if top < hi:
            out["max_budget"] = hi
        return out

    def check(self, options: Mapping[str, Any]) -> None:
        """Refuse a reset's budget or faults outside the bounds, naming the flag (the env refuses
        keys it does not know, and checks the values against its spaces)."""
        budget, faults = options.get("budget"), options.get("faults")
        if budget is not None:
            if self.budget is None:
                raise _refused(
                    "options.budget: this server does not let clients choose the budget; its operator "
                    "allows it with agentgym serve ... --client-budget LO-HI"
                )
            t = budget.get("soft") if isinstance(budget, Mapping) else budget
            lo, hi = self.budget
            if t is not None and (isinstance(t, bool) or not isinstance(t, int) or not lo <= t <= hi):
                raise _refused(f"options.budget={str(t)[:40]}: outside the server's --client-budget {lo}-{hi}")
        if faults is not None:
            if self.faults is None:
                raise _refused(
                    "options.faults: this server does not let clients choose faults; its operator "
                    "allows fault kinds with agentgym serve ... --client-faults KIND[,KIND...]"
                )
            try:
                rules = chosen_faults(faults)
            except ConfigError as exc:
                raise _refused(str(exc)[:300]) from None
            kinds = sorted({k for rule in rules for k in rule.kinds} - set(self.faults))
            if kinds:
                raise _refused(
                    f"options.faults: the kinds {kinds} are outside the server's --client-faults "
                    f"{','.join(self.faults)}"
                )


def _refused(message: str) -> RequestError:
    return RequestError(message, "VALIDATION_ERROR", "ConfigError")


@dataclass
class EnvEndpoint:
    """One served id: ``gym.make(env_id, **kwargs)`` per session. The kwargs (wrapper options
    included: ``budget``, ``faults``, ``labels``, ``numeric``...) are fixed by the server; a
    client chooses within ``client`` (`ClientBounds`) at reset."""

    env_id: str
    kwargs: dict[str, Any] = field(default_factory=dict)
    factory: Callable[[], gym.Env] | None = None
    client: ClientBounds = field(default_factory=ClientBounds)

    def __post_init__(self) -> None:
        if self.factory is None:
            env_id, kwargs = self.env_id, self.client.served_kwargs(self.kwargs)
            if env_id not in gym.registry:
                raise ConfigError(
                    f"unknown env id {env_id!r}; agentgym ids: "
                    f"{sorted(k for k in gym.registry if k.startswith('agentgym'))}"
                )
            self.factory = lambda: gym.make(env_id, **kwargs)
        probe = self.factory()  # builds no sandbox (they start at reset); checks the kwargs now, not per client
        try:
            self.spaces = {
                "observation_space": space_to_json(probe.observation_space),
                "action_space": space_to_json(probe.action_space),
            }
            doc = (type(probe.unwrapped).__doc__ or "").strip()
            self.description = doc.splitlines()[0] if doc else self.env_id
            self.render_modes = list(probe.unwrapped.metadata.get("render_modes", []))
            self.family = str(getattr(probe.unwrapped, "family", ""))  # what `mcp_tools` derives a grammar's verbs from
        finally:
            probe.close()

    def schema(self) -> dict[str, Any]:
        """OpenEnv's ``/schema`` (JSON schemas of action, observation, state) plus the gymnasium spaces."""
        action = {
            "title": "Action",
            "type": "object",
            "properties": {
                "action": {"description": "one action: a string in the family's grammar (or the space's element)"}
            },
            "required": ["action"],
        }
        observation = {
            "title": "Observation",
            "type": "object",
            "properties": {k: {} for k in self.spaces["observation_space"].get("spaces", {"value": 0})},
        }
        state = {
            "title": "State",
            "type": "object",
            "properties": {
                "episode_id": {"type": ["string", "null"]},
                "step_count": {"type": "integer"},
                "env_id": {"type": "string"},
                "task_id": {"type": ["string", "null"]},
                "done": {"type": "boolean"},
            },
        }
        return {
            "action": action,
            "observation": observation,
            "state": state,
            "env_id": self.env_id,
            "spaces": self.spaces,
            "render_modes": self.render_modes,
        }

    def metadata(self) -> dict[str, Any]:
        return {
            "name": self.env_id,
            "description": self.description,
            "version": __version__,
            "author": "agentgym",
            "documentation_url": None,
            "readme_content": None,
        }


@dataclass(eq=False)
class Session:
    """One client's env. Its id is 256 random bits; it answers only to the principal that opened it."""

    principal: str
    endpoint: EnvEndpoint
    kind: str
    id: str = field(default_factory=lambda: secrets.token_urlsafe(32))
    env: gym.Env | None = None
    last_active: float = field(default_factory=time.monotonic)
    busy: int = 0
    closed: bool = False
    episode_id: str | None = None
    task_id: str | None = None
    turn: int = 0
    done: bool = False
    tools: list[Mapping[str, Any]] = field(default_factory=list)
    help: str = ""
    mcp_id: str | None = None  # the MCP transport's session id, for MCP sessions
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)

    # ---------------------------------------------------------------- env calls (in a worker thread)
    def reset(self, data: Mapping[str, Any]) -> dict[str, Any]:
        seed, options = _seed(data.get("seed")), _reset_options(data)
        if options:
            self.endpoint.client.check(options)
        episode_id = data.get("episode_id")
        assert self.env is not None
        obs, info = self.env.reset(seed=seed, options=options)
        self.episode_id = str(episode_id)[:255] if episode_id is not None else uuid.uuid4().hex
        self.task_id, self.turn, self.done = info.get("task_id"), int(info.get("turn", 0)), False
        self.tools = [t for t in info.get("tools", []) if isinstance(t, Mapping)]
        self.help = str(info.get("help", ""))
        return {"observation": to_json(obs), "reward": None, "done": False, "info": to_json(info)}

    def step(self, action: Any) -> dict[str, Any]:
        assert self.env is not None
        if self.task_id is None:
            raise ResetNeeded("call reset before step")
        try:
            value = from_json(self.env.action_space, action)
        except (ValueError, TypeError) as exc:
            raise RequestError(f"the action is not an element of the action space: {exc}") from None
        obs, reward, terminated, truncated, info = self.env.step(value)
        if isinstance(info.get("tools"), list):  # the env's tools changed mid-episode (BFCL-v0's miss_func)
            self.tools = [t for t in info["tools"] if isinstance(t, Mapping)]
        self.turn = int(info.get("turn", self.turn + 1))
        self.done = bool(terminated or truncated)
        return {
            "observation": to_json(obs),
            "reward": float(reward),
            "done": self.done,
            "terminated": bool(terminated),
            "truncated": bool(truncated),
            "info": to_json(info),
        }

    def state(self) -> dict[str, Any]:
        return {
            "episode_id": self.episode_id,
            "step_count": self.turn,
            "env_id": self.endpoint.env_id,
            "task_id": self.task_id,
            "done": self.done,
        }

    def close_env(self) -> None:
        env, self.env = self.env, None
        if env is not None:
            env.close()


def mcp_tools(session: Session) -> list[dict[str, Any]]:
    """The session's tools in MCP's shape: ``reset``, then the env's tools as every model path offers
    them (`agentgym.llm.tools.family_tools`: the family's tools from ``tools()`` at the last reset, a
    grammar family's verbs, or ``act``)."""
    reset_args: dict[str, Any] = {
        "seed": {"type": "integer", "minimum": 0, "description": "episode seed (same seed, same task)"},
        "task_id": {"type": "string", "description": "a task id of this env, instead of sampling one"},
    }
    bounds = session.endpoint.client
    if bounds.budget is not None:  # listed only where the operator lets clients choose (--client-budget)
        reset_args["budget"] = {
            "type": "integer",
            "minimum": bounds.budget[0],
            "maximum": bounds.budget[1],
            "description": "this episode's turn budget T",
        }
    if bounds.faults is not None:
        reset_args["faults"] = {
            "type": "string",
            "description": "this episode's fault plan, e.g. "
            f"'tool_error@turn=1' (kinds: {', '.join(bounds.faults)}; '' for none)",
        }
    out = [
        {
            "name": "reset",
            "description": "Start a new episode. Returns the task and the action grammar.",
            "inputSchema": {"type": "object", "properties": reset_args},
        }
    ]
    for schema in family_tools(session.endpoint.family, session.tools):  # the one tool surface
        fn = function(schema)
        if fn.get("name") == "reset":
            continue  # reserved: it means the server's own tool
        out.append(
            {
                "name": str(fn.get("name")),
                "description": str(fn.get("description", "")),
                "inputSchema": dict(fn.get("parameters") or {"type": "object", "properties": {}}),
            }
        )
    return out


def tool_action(session: Session, name: str, arguments: Mapping[str, Any] | None) -> str:
    """The action string a tool call stands for, in the family's own grammar (the env parses and
    checks it, so a bad call costs its turn exactly as the same text would)."""
    return call_action(session.endpoint.family, name, dict(arguments or {}))


class _Job:
    __slots__ = ("future", "fn", "args", "abandoned")

    def __init__(self, fn: Callable[..., Any], args: tuple[Any, ...]) -> None:
        self.future: Future[Any] = Future()
        self.fn, self.args, self.abandoned = fn, args, False


class Workers:
    """A thread pool whose threads can be given up on: `abandon` a call past its deadline and a
    new thread takes its place, so a call that never returns costs one thread, not the pool.

    `ThreadPoolExecutor` cannot do this (a stuck call keeps its worker forever, and its threads
    are joined at interpreter exit, so a stuck call also blocks the server's exit); these
    threads are daemons, since the server closes every session itself before it exits.
    """

    def __init__(self, size: int, name: str = "agentgym-serve") -> None:
        self.size, self.name = size, name
        self._jobs: queue.SimpleQueue[_Job | None] = queue.SimpleQueue()
        self._lock = threading.Lock()
        self._threads = 0  # threads serving the queue (abandoned ones no longer count)
        self._idle = 0  # of those, waiting for a job and not yet promised one
        self.hung = 0
        """Abandoned calls still running."""
        self._stopped = False

    def submit(self, fn: Callable[..., Any], *args: Any) -> _Job:
        job = _Job(fn, args)
        with self._lock:
            if self._stopped:
                raise RuntimeError("the worker threads are shut down")
            self._jobs.put(job)
            if self._idle:
                self._idle -= 1  # promised to this job
            elif self._threads < self.size:
                self._start()
        return job

    def abandon(self, job: _Job) -> bool:
        """Give up on ``job``: True if it was running (its thread is replaced and counted in
        `hung` until the call returns), False if it had not started (it never will) or ended."""
        if job.future.cancel():
            return False
        with self._lock:
            if job.future.done() or job.abandoned:
                return False
            job.abandoned = True
            self.hung += 1
            self._threads -= 1
            if not self._stopped and self._threads < self.size:
                self._start()  # takes the queued jobs the abandoned thread would have taken
            return True

    def shutdown(self) -> None:
        """Cancel queued jobs and let idle threads end; running calls end when they return."""
        with self._lock:
            self._stopped = True
            threads = self._threads
        while True:
            try:
                job = self._jobs.get_nowait()
            except queue.Empty:
                break
            if job is not None:
                job.future.cancel()
        for _ in range(threads):
            self._jobs.put(None)

    def _start(self) -> None:  # with self._lock held
        self._threads += 1
        threading.Thread(target=self._work, name=f"{self.name}-{self._threads}", daemon=True).start()

    def _work(self) -> None:
        while True:
            job = self._jobs.get()
            if job is None:
                return
            if not job.future.set_running_or_notify_cancel():
                with self._lock:
                    self._idle += 1
                continue
            try:
                result = job.fn(*job.args)
            except BaseException as exc:  # handed to whoever awaits the call
                job.future.set_exception(exc)
            else:
                job.future.set_result(result)
            with self._lock:
                if job.abandoned:  # replaced long ago: this thread ends here
                    self.hung -= 1
                    return
                self._idle += 1


class SessionTable:
    """Open sessions, their limits, and the threads their env calls run in."""

    def __init__(
        self,
        *,
        max_sessions: int = 512,
        idle_timeout: float = 300.0,
        call_timeout: float = 600.0,
        workers: int | None = None,
    ) -> None:
        if max_sessions < 1 or idle_timeout <= 0 or call_timeout <= 0:
            raise ConfigError(
                f"max_sessions={max_sessions}, idle_timeout={idle_timeout}, call_timeout={call_timeout}:"
                " all must be positive"
            )
        self.max_sessions, self.idle_timeout, self.call_timeout = max_sessions, idle_timeout, call_timeout
        self._sessions: dict[str, Session] = {}
        self._workers = Workers(workers or min(64, max_sessions + 4))
        self._closing: set[asyncio.Task[None]] = set()
        self.opened = self.closed_count = 0

    def __len__(self) -> int:
        return len(self._sessions)

    @property
    def hung(self) -> int:
        """Env calls given up on at their deadline that have not returned; each holds a session slot."""
        return self._workers.hung

    async def open(self, principal: str, endpoint: EnvEndpoint, kind: str) -> Session:
        if len(self._sessions) + self.hung >= self.max_sessions:
            raise CapacityReached(len(self._sessions) + self.hung, self.max_sessions, self.hung)
        session = Session(principal=principal, endpoint=endpoint, kind=kind)
        self._sessions[session.id] = session  # reserved before the first await: the limit holds under races
        self.opened += 1
        factory = endpoint.factory
        assert factory is not None

        def build() -> None:
            session.env = factory()
            if session.closed:  # given up on while it was built: close what nobody else will
                session.close_env()

        try:
            await self._run(build)
            log.debug("opened a %s session of %s for %s (%d open)", kind, endpoint.env_id, principal, len(self))
        except TimeoutError:
            self._close_soon(session)
            raise RequestError(
                f"building the env took over {self.call_timeout:g} s (the server's --call-timeout)",
                "FACTORY_ERROR",
                CALL_TIMEOUT,
                infrastructure=True,
            ) from None
        except BaseException:
            self._forget(session)
            raise
        return session

    def get(self, session_id: Any, principal: str) -> Session | None:
        """The session, only for the principal that opened it; another's id reads as unknown."""
        session = self._sessions.get(session_id) if isinstance(session_id, str) else None
        if session is None or session.closed or not secrets.compare_digest(session.principal, principal):
            return None
        return session

    async def _run(self, fn: Callable[..., Any], *args: Any) -> Any:
        """``fn(*args)`` in a worker thread, within ``call_timeout``; past it the call is abandoned
        (`Workers.abandon`) and `asyncio.TimeoutError` raised."""
        job = self._workers.submit(fn, *args)
        try:  # shielded: at the deadline the call is abandoned here, not merely cancelled
            return await asyncio.wait_for(asyncio.shield(asyncio.wrap_future(job.future)), self.call_timeout)
        except TimeoutError:
            if self._workers.abandon(job):
                log.warning(
                    "an env call (%s) ran past the %g s call timeout; its thread is abandoned (%d hung, "
                    "each holding a session slot until it returns)",
                    getattr(fn, "__name__", "call"),
                    self.call_timeout,
                    self.hung,
                )
            raise
        except asyncio.CancelledError:  # the request went away: a queued call never runs, a running one finishes
            job.future.cancel()
            raise

    async def call(self, session: Session, fn: Callable[..., Any], *args: Any) -> Any:
        """Run ``fn(*args)`` (a blocking env call) in order for ``session``, within ``call_timeout``;
        env errors become `RequestError` with a message safe to send."""
        session.busy += 1
        try:
            async with session.lock:
                if session.closed:
                    raise RequestError("the session is closed", "SESSION_ERROR")
                try:
                    return await self._run(fn, *args)
                except TimeoutError:
                    self._close_soon(session)  # closing the env ends a call blocked on its sandbox
                    raise RequestError(
                        f"the env call took over {self.call_timeout:g} s (the server's --call-timeout);"
                        " the session and its sandbox are closed: reset to start a new one",
                        "EXECUTION_ERROR",
                        CALL_TIMEOUT,
                        infrastructure=True,
                        session_closed=True,
                    ) from None
        except RequestError:
            raise
        except ResetNeeded as exc:
            raise RequestError(str(exc), "EXECUTION_ERROR", "ResetNeeded") from None
        except InfrastructureError as exc:  # its sandbox died, not by the agent's doing: free the slot now
            self._close_soon(session)
            raise RequestError(
                f"infrastructure failure, not the agent's: {type(exc).__name__}: {exc}; the session and its env "
                "are closed: reset to start a new one",
                "EXECUTION_ERROR",
                type(exc).__name__,
                infrastructure=True,
                session_closed=True,
            ) from None
        except AgentGymError as exc:
            raise RequestError(f"{type(exc).__name__}: {exc}", "EXECUTION_ERROR", type(exc).__name__) from None
        except Exception as exc:  # an env bug: logged here, named (not detailed) to the client
            log.exception("env call failed in a %s session of %s", session.kind, session.endpoint.env_id)
            raise RequestError(f"the env raised {type(exc).__name__}", "EXECUTION_ERROR", type(exc).__name__) from None
        finally:
            session.busy -= 1
            session.last_active = time.monotonic()

    async def call_tool(self, session: Session, name: str, arguments: Mapping[str, Any]) -> dict[str, Any]:
        """One tool of `mcp_tools` called (from MCP or OpenEnv's ``call_tool``): ``reset`` resets,
        any other known tool is the step `tool_action` makes of it."""
        if name == "reset":
            unknown = sorted(set(arguments) - {"seed", "task_id", "budget", "faults"})
            if unknown:
                raise RequestError(
                    f"reset takes seed, task_id, budget, faults; not {unknown}", "VALIDATION_ERROR", "ConfigError"
                )
            options = {k: arguments[k] for k in ("task_id", "budget", "faults") if arguments.get(k) is not None}
            if "task_id" in options:
                options["task_id"] = str(options["task_id"])
            return await self.call(session, session.reset, {"seed": arguments.get("seed"), "options": options or None})
        known = {t["name"] for t in mcp_tools(session)}
        if name not in known:
            raise RequestError(f"unknown tool {name!r}; tools: {sorted(known)}", "VALIDATION_ERROR", "ToolNotFound")
        return await self.call(session, session.step, tool_action(session, name, arguments))

    def _close_soon(self, session: Session) -> None:
        """Mark ``session`` closed now and close its env in the background (the caller answers its
        client without waiting for a sandbox to stop)."""
        self._forget(session)
        task = asyncio.get_running_loop().create_task(self.close(session, forgotten=True))
        self._closing.add(task)  # the loop keeps only weak references to tasks
        task.add_done_callback(self._closing.discard)

    def _forget(self, session: Session) -> bool:
        if session.closed:
            return False
        session.closed = True
        self._sessions.pop(session.id, None)
        self.closed_count += 1
        return True

    async def close(self, session: Session, *, forgotten: bool = False) -> None:
        """Forget the session and close its env (and so its sandbox); idempotent."""
        if not self._forget(session) and not forgotten:
            return
        log.debug("closing a %s session of %s (%d open)", session.kind, session.endpoint.env_id, len(self))
        try:
            await self._run(session.close_env)
        except Exception:  # closing must go on for the others; the sandbox's own reaper is the backstop
            log.warning("closing a %s session of %s failed", session.kind, session.endpoint.env_id, exc_info=True)

    def find(self, predicate: Callable[[Session], bool]) -> list[Session]:
        return [s for s in list(self._sessions.values()) if predicate(s)]

    async def reap_forever(self, kinds: tuple[str, ...] = ("http", "mcp")) -> None:
        """Close sessions of ``kinds`` idle for ``idle_timeout`` (websocket sessions time out in
        their own receive loop)."""
        interval = max(0.2, min(self.idle_timeout / 4, 5.0))
        while True:
            await asyncio.sleep(interval)
            now = time.monotonic()

            def idle(s: Session, now: float = now) -> bool:
                return s.kind in kinds and not s.busy and now - s.last_active > self.idle_timeout

            for session in self.find(idle):
                log.info("closing an idle %s session of %s", session.kind, session.endpoint.env_id)
                await self.close(session)

    async def close_all(self) -> None:
        await asyncio.gather(
            *(self.close(s) for s in list(self._sessions.values())), *list(self._closing), return_exceptions=True
        )

    def shutdown(self) -> None:
        self._workers.shutdown()
