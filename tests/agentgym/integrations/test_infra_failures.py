"""Infrastructure failures inside a trainer's rollout are never the agent's (DESIGN 16).

The failure is real: the episode's sandbox container is ``docker kill``-ed mid-episode (as an OOM
kill, an engine restart or a lost node would end it), in process and behind ``agentgym serve``.
Each adapter then speaks its trainer's contract: TRL gets None from ``get_reward()`` (every reward
function None: unscorable, advantage 0) and a neutral tool result; SkyRL a typed error its skip
option acts on; verifiers an error on the rollout. An agent that crashes its own sandbox earns no
such exclusion. The GRPO step with a killed rollout is in ``test_grpo_survives_a_killed_rollout``.
"""

from __future__ import annotations

import secrets
import time

import pytest

pytest.importorskip("trl")
pytest.importorskip("datasets")

from agentgym.errors import InfrastructureError, ResetFailed
from agentgym.integrations import trl as agtrl
from agentgym.integrations.episode import EPISODE_OVER, INFRA_FAILURE, Episode
from agentgym.integrations.tools import action_call, tool_schemas
from support.docker import kill_sandbox_container, require_docker

IMAGES = {"agentgym/Coding-v0": "agentgym/coding:latest", "agentgym/ToolUse-v0": "agentgym/tooluse:latest"}


def trl_call(env, name: str, args: dict) -> object:
    """A tool call as TRL 1.16's tool loop makes it: any exception becomes ``{"error": str(e)}``."""
    try:
        return getattr(env, name)(**args)
    except Exception as e:  # what grpo_trainer.py does with a tool's exception
        return {"error": str(e)}


def oracle_call(env) -> tuple[str, dict]:
    episode = env.episode
    base = episode.env.unwrapped
    return action_call(base.family, base.reference_action(), tool_schemas(episode.env, probed=base.tools()))


def instance(env_id: str, remote: str | None = None, **kwargs):
    factory = agtrl.environment_factory(env_id, remote=remote, **kwargs)
    row = agtrl.dataset(env_id, n=1, seed=0)[0]
    cls = factory[row["environment"]] if isinstance(factory, dict) else factory
    return cls(), row


@pytest.mark.docker
@pytest.mark.parametrize("env_id", sorted(IMAGES))
def test_a_sandbox_killed_mid_episode_leaves_the_completion_unscorable(env_id):
    """The user's report: reset, one call, kill the container, three more calls as TRL makes them,
    then ``get_reward()``. It answered 0.0 (the policy's failure); it must answer None."""
    require_docker(IMAGES[env_id])
    env, row = instance(env_id)
    try:
        env.reset(**row)
        first = trl_call(env, *oracle_call(env))
        assert isinstance(first, str) and not env.episode.done
        action = oracle_call(env)
        kill_sandbox_container(env.episode.env.unwrapped.sandbox)
        after = [trl_call(env, *action) for _ in range(3)]
        assert env.get_reward() is None
        assert after == [INFRA_FAILURE, EPISODE_OVER, EPISODE_OVER]  # a neutral text, never the exception
        summary = env.episode.summary()
        assert summary["infra_failures"] == 1 and summary["infra_error"].startswith("SandboxCrashed")
        assert summary["done"] and not summary["success"] and summary["calls_after_end"] == 2
        assert env.episode.env is None  # the dead sandbox's env is closed; the next reset builds a fresh one
        env.reset(**row)  # the next episode on this instance is scored again
        assert env.get_reward() == 0.0 and env.episode.summary()["infra_failures"] == 0
        assert isinstance(trl_call(env, *oracle_call(env)), str) and env.get_reward() is not None
    finally:
        env.episode.close()


@pytest.mark.docker
def test_a_reset_that_fails_once_costs_the_trainer_nothing_but_time():
    """The container dies between two episodes: the next reset meets the dead sandbox, is tried again
    on a fresh env, and the episode runs and is scored as any other (the oracle still solves it)."""
    require_docker(IMAGES["agentgym/ToolUse-v0"])
    env, row = instance("agentgym/ToolUse-v0", reset_backoff=0.2)
    try:
        env.reset(**row)
        old_env = env.episode.env
        kill_sandbox_container(old_env.unwrapped.sandbox)
        start = time.monotonic()
        first = env.reset(**row)
        took = time.monotonic() - start
        assert env.episode.reset_retries == 1 and env.episode.env is not old_env and first.strip()
        assert env.episode.summary()["infra_failures"] == 0  # retried, not failed: the episode is whole
        while not env.episode.done:
            trl_call(env, *oracle_call(env))
        assert env.get_reward() == 1.0 and env.episode.summary()["success"]
        assert took < 30, f"the retried reset took {took:.1f} s"
    finally:
        env.episode.close()


def test_a_reset_that_keeps_failing_raises_with_its_causes(unused_port, monkeypatch):
    """Every attempt meets a server that is not there: after ``reset_attempts`` tries (with the backoff
    between them) `ResetFailed` names each cause, and the episode is left unscorable."""
    monkeypatch.setenv("AGENTGYM_SERVE_TOKEN", secrets.token_urlsafe(32))
    env, _row = instance("agentgym/Coding-v0", backend="local")
    episode = Episode("agentgym/Coding-v0", remote=f"http://127.0.0.1:{unused_port}", reset_attempts=3, reset_backoff=0.1)
    start = time.monotonic()
    with pytest.raises(ResetFailed) as caught:
        episode.reset(seed=0)
    assert time.monotonic() - start >= 0.1 + 0.2  # backoff 0.1 s, then 0.2 s
    assert len(caught.value.failures) == 3 and all(f.startswith("ServerUnreachable") for f in caught.value.failures)
    assert isinstance(caught.value, InfrastructureError) and "agentgym serve" in str(caught.value)
    assert isinstance(caught.value.__cause__, InfrastructureError)
    assert episode.summary()["infra_failures"] == 3 and episode.done and episode.env is None
    assert episode.step("test") == EPISODE_OVER
    env.episode = episode  # what TRL would ask of the instance next
    assert env.get_reward() is None


@pytest.fixture
def unused_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.mark.docker
def test_an_agent_that_crashes_its_own_sandbox_earns_no_exclusion(monkeypatch):
    """The attack: an agent that expects to lose makes its sandbox die, hoping for None (left out of
    the baseline) rather than its 0. It cannot kill the root step server, and a server it wedges past
    the host's deadline (its container still running) is its own failure: 0.0, not None."""
    require_docker(IMAGES["agentgym/Coding-v0"])
    env, row = instance("agentgym/Coding-v0")
    try:
        env.reset(**row)
        text = env.run(command="kill -9 1; pkill -9 -f python3; kill -9 -1; sleep 1")  # -1: its own shell too
        assert "Operation not permitted" in text and not env.episode.done  # the root server is out of reach
        assert "alive" in env.run(command="echo alive")
        assert env.get_reward() == 0.0
        sandbox = env.episode.env.unwrapped.sandbox
        real_request = type(sandbox).request

        def wedge(self, op, wait=30.0, /, raw=b"", **args):  # the command outlives the host's deadline
            if op == "exec":
                return real_request(self, "exec", 0.5, cmd="sleep 3", timeout=10)
            return real_request(self, op, wait, raw=raw, **args)

        monkeypatch.setattr(type(sandbox), "request", wedge)
        text = env.run(command="sleep 600")
        monkeypatch.undo()
        assert text.startswith("error: the sandbox stopped answering") and env.episode.done
        assert env.get_reward() == 0.0  # scored: the agent's failure, in the group's baseline
        assert env.episode.summary()["infra_failures"] == 0 and env.episode.info["sandbox_crashed"] is True
    finally:
        env.episode.close()


def served(env_ids: list[str], monkeypatch, **config):
    """``agentgym serve`` on loopback (Docker sandboxes), the token in the environment as users set it."""
    from agentgym.serve.app import ServeConfig
    from agentgym.serve.server import ServerThread
    from agentgym.serve.sessions import ClientBounds

    token = secrets.token_urlsafe(32)
    monkeypatch.setenv("AGENTGYM_SERVE_TOKEN", token)
    config.setdefault("client", ClientBounds(budget=(2, 32)))
    return ServerThread(env_ids, {"backend": "docker"}, token=token, config=ServeConfig(**config))


def open_sessions(srv) -> list:
    return srv.table.find(lambda s: not s.closed)


def wait_until(predicate, timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f"not within {timeout} s: {what}")
        time.sleep(0.05)


@pytest.mark.docker
def test_over_the_wire_a_dead_sandbox_is_flagged_and_its_session_reaped_at_once(monkeypatch):
    """The same kill behind ``agentgym serve``: the server answers the step with the infrastructure
    flag and closes the session with its env at once (not at the idle timeout: 600 s here), the
    adapter treats it as in process, and the next reset opens a new session on a fresh sandbox."""
    require_docker(IMAGES["agentgym/Coding-v0"])
    with served(["agentgym/Coding-v0"], monkeypatch, idle_timeout=600.0) as srv:
        env, row = instance("agentgym/Coding-v0", remote=srv.url)
        try:
            env.reset(**row)
            assert isinstance(trl_call(env, "test", {}), str)
            (session,) = open_sessions(srv)
            container = kill_sandbox_container(session.env.unwrapped.sandbox)
            after = [trl_call(env, "test", {}) for _ in range(3)]
            assert after == [INFRA_FAILURE, EPISODE_OVER, EPISODE_OVER] and env.get_reward() is None
            assert env.episode.summary()["infra_error"].startswith("RemoteInfrastructureError")
            assert "infrastructure failure, not the agent's: SandboxCrashed" in env.episode.summary()["infra_error"]
            wait_until(lambda: not open_sessions(srv) and session.env is None, 10, "the dead session closed")
            assert srv.table.closed_count == srv.table.opened
            env.reset(**row)  # a new session, a fresh sandbox
            (fresh,) = open_sessions(srv)
            assert fresh is not session and fresh.env.unwrapped.sandbox._container_id != container
            assert isinstance(trl_call(env, "test", {}), str) and env.get_reward() == 0.0
        finally:
            env.episode.close()


@pytest.mark.docker
def test_over_http_a_dead_sandbox_closes_the_session_and_says_so(monkeypatch):
    """The plain HTTP form of the same rule (sessions named by id): the error carries
    ``infrastructure`` and ``session_closed``, and the id is unknown afterwards."""
    import json
    import os
    import urllib.error
    import urllib.request

    require_docker(IMAGES["agentgym/ToolUse-v0"])
    with served(["agentgym/ToolUse-v0"], monkeypatch) as srv:

        def post(path: str, body: dict) -> tuple[int, dict]:
            request = urllib.request.Request(
                srv.url + path,
                data=json.dumps(body).encode(),
                headers={"Authorization": f"Bearer {os.environ['AGENTGYM_SERVE_TOKEN']}"},
            )
            opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
            try:
                with opener.open(request, timeout=60) as response:
                    return response.status, json.loads(response.read())
            except urllib.error.HTTPError as exc:
                return exc.code, json.loads(exc.read())

        status, reset = post("/reset", {"seed": 0})
        assert status == 200
        (session,) = open_sessions(srv)
        action = session.env.unwrapped.reference_action()
        kill_sandbox_container(session.env.unwrapped.sandbox)
        status, answer = post("/step", {"session_id": reset["session_id"], "action": action})
        error = answer["error"]
        assert error["infrastructure"] is True and error["session_closed"] is True and status >= 400, answer
        wait_until(lambda: not open_sessions(srv) and session.env is None, 10, "the dead session closed")
        status, again = post("/step", {"session_id": reset["session_id"], "action": action})
        assert "unknown session_id" in again["error"]["message"]
