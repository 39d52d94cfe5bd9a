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
from agentgym.llm.tools import action_call, tool_schemas
from support.docker import kill_sandbox_container, require_docker
from support.procs import wait_until

IMAGES = {"agentgym/Coding-v0": "agentgym/coding:latest", "agentgym/ToolUse-v0": "agentgym/tooluse:latest"}


def trl_call(env, name: str, args: dict) -> object:
    """A tool call as TRL 1.16's tool loop makes it: any exception becomes ``{"error": str(e)}``."""
    try:
        return getattr(env, name)(**args)
    except Exception as e:  # what grpo_trainer.py does with a tool's exception
        return {"error": str(e)}


def family_env(env, srv=None):
    """The family env behind an adapter's episode (a TRL instance's, a SkyRL env's): its own in
    process, or, behind ``srv`` (a `ServerThread`), the server's session of this very episode."""
    if srv is None:
        return env.episode.env.unwrapped
    episode_id = env.episode.env.unwrapped.state()["episode_id"]
    (session,) = srv.table.find(lambda s: not s.closed and s.episode_id == episode_id)
    return session.env.unwrapped


def oracle_call(env, srv=None) -> tuple[str, dict]:
    """The oracle's next action as a tool call of ``env`` (a TRL instance)."""
    base = family_env(env, srv)
    schemas = tool_schemas(env.episode.env, probed=base.tools(), family=base.family)
    return action_call(base.family, base.reference_action(), schemas)


def instance(env_id: str, remote: str | None = None, **kwargs):
    factory = agtrl.environment_factory(env_id, remote=remote, **kwargs)
    row = agtrl.dataset(env_id, n=1, seed=0)[0]
    cls = factory[row["environment"]] if isinstance(factory, dict) else factory
    return cls(), row


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
@pytest.mark.parametrize("where", ["in process", "served"])
def test_a_reset_that_fails_once_costs_the_trainer_nothing_but_time(where, monkeypatch):
    """The container dies between two episodes: the next reset meets the dead sandbox, is tried again
    on a fresh env (over the wire: a new session), and the episode runs and is scored as any other
    (the oracle still solves it)."""
    import contextlib

    require_docker(IMAGES["agentgym/ToolUse-v0"])
    srv = served(["agentgym/ToolUse-v0"], monkeypatch) if where == "served" else contextlib.nullcontext()
    with srv:
        remote = srv.url if where == "served" else None
        env, row = instance("agentgym/ToolUse-v0", remote=remote, reset_backoff=0.2)
        try:
            env.reset(**row)
            old_env = env.episode.env
            kill_sandbox_container(family_env(env, srv if remote else None).sandbox)
            start = time.monotonic()
            first = env.reset(**row)
            took = time.monotonic() - start
            assert env.episode.reset_retries == 1 and env.episode.env is not old_env and first.strip()
            assert env.episode.summary()["infra_failures"] == 0  # retried, not failed: the episode is whole
            while not env.episode.done:
                trl_call(env, *oracle_call(env, srv if remote else None))
            assert env.get_reward() == 1.0 and env.episode.summary()["success"]
            assert took < 30, f"the retried reset took {took:.1f} s"
            if remote:
                assert len(open_sessions(srv)) == 1  # the dead session was closed, not left to the idle reaper
        finally:
            env.episode.close()


def test_a_reset_that_keeps_failing_raises_with_its_causes(unused_port, monkeypatch):
    """Every attempt meets a server that is not there: after ``reset_attempts`` tries (with the backoff
    between them) `ResetFailed` names each cause, and the episode is left unscorable."""
    monkeypatch.setenv("AGENTGYM_SERVE_TOKEN", secrets.token_urlsafe(32))
    env, _row = instance("agentgym/Coding-v0", backend="local")
    url = f"http://127.0.0.1:{unused_port}"
    episode = Episode("agentgym/Coding-v0", remote=url, reset_attempts=3, reset_backoff=0.1)
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


def test_trl_reward_helpers_follow_the_episode(unused_port, monkeypatch):
    """`skip_infra_failures` turns a reward function's value into None exactly for the completions whose
    episode met an infrastructure failure (a real one: a reset against a server that is not there),
    and `log_infra_failures` scores nothing and logs the counts through TRL's ``log_metric``."""
    from agentgym.errors import ConfigError

    monkeypatch.setenv("AGENTGYM_SERVE_TOKEN", secrets.token_urlsafe(32))
    cls = agtrl.environment_factory("agentgym/Coding-v0", backend="local", reset_backoff=0.0)
    healthy, broken = cls(), cls()
    try:
        healthy.reset(seed=0)
        healthy.test()
        broken.episode = Episode("agentgym/Coding-v0", remote=f"http://127.0.0.1:{unused_port}", reset_backoff=0.0)
        with pytest.raises(ResetFailed):
            broken.reset(seed=0)
        environments = [healthy, broken]

        def turns(prompts, completions, environments, **kwargs):
            return [float(e.episode.turns) for e in environments]

        scored = agtrl.skip_infra_failures(turns)
        assert scored.__name__ == "turns"  # TRL names the reward column after the function
        assert scored(prompts=["a", "b"], completions=["", ""], environments=environments) == [1.0, None]
        assert [e.get_reward() for e in environments] == [0.0, None]
        metrics: dict[str, float] = {}
        out = agtrl.log_infra_failures(prompts=["a", "b"], environments=environments, log_metric=metrics.__setitem__)
        assert out == [None, None] and metrics == {"agentgym/infra_failures": 1.0, "agentgym/reset_retries": 0.0}

        async def judged(**kwargs):
            return [0.0]

        with pytest.raises(ConfigError, match="coroutine"):
            agtrl.skip_infra_failures(judged)
        with pytest.raises(ConfigError, match="reset_attempts=0"):
            agtrl.environment_factory("agentgym/Coding-v0", backend="local", reset_attempts=0)
    finally:
        healthy.episode.close()


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


# ---------------------------------------------------------------------------------------- SkyRL


def skyrl_generate(envs, policies, *, skip_failed_rollouts: bool) -> list[dict]:
    """SkyRL's ``SkyRLGymGenerator.generate``, reduced to what decides a failed rollout's fate: the
    rollouts of a batch gathered with asyncio (``env.init``, then ``env.step`` until done, in worker
    threads), the first exception aborting the step; with ``skip_failed_rollouts`` (SkyRL #1613: not
    in SkyRL 0.3.0) a rollout that raised becomes a placeholder with reward 0, its loss masked and
    ``stop_reason="rollout_error"``, and ``generate/num_rollout_errors`` counts them."""
    import asyncio

    async def rollout(env, policy) -> dict:
        await asyncio.to_thread(env.init, [{"role": "user", "content": "Solve the task."}])
        reward, turns = 0.0, 0
        for _ in range(40):
            out = await asyncio.to_thread(env.step, policy(env))
            reward, turns = reward + out["reward"], turns + 1
            if out["done"]:
                break
        return {"reward": reward, "turns": turns, "loss_mask": 1, "stop_reason": "stop"}

    async def contained(env, policy) -> dict:
        try:
            return await rollout(env, policy)
        except Exception as exc:  # what skip_failed_rollouts catches
            return {"reward": 0.0, "loss_mask": 0, "stop_reason": "rollout_error", "error": exc}

    async def batch() -> list[dict]:
        wrap = contained if skip_failed_rollouts else rollout
        return list(await asyncio.gather(*(wrap(e, p) for e, p in zip(envs, policies))))

    return asyncio.run(batch())


@pytest.mark.docker
@pytest.mark.parametrize("where", ["in process", "served"])
def test_skyrl_gets_a_typed_error_its_skip_option_drops(where, monkeypatch):
    """Two rollouts of one batch through SkyRL's text env; one's container is killed mid-episode. Its
    ``step`` raises the `InfrastructureError` (typed, with a note naming SkyRL's setting), never a
    reward of 0; without the skip option the step stops (SkyRL 0.3.0's behaviour), with it the other
    rollout's reward stands and only the dead one is masked."""
    skyrl_gym = pytest.importorskip("skyrl_gym")
    import contextlib

    import agentgym.integrations.skyrl as agskyrl

    require_docker(IMAGES["agentgym/ToolUse-v0"])
    srv = served(["agentgym/ToolUse-v0"], monkeypatch) if where == "served" else contextlib.nullcontext()
    with srv:
        env_config = {"remote": srv.url} if where == "served" else {"kwargs": {"backend": "docker"}}

        def base_of(env):  # the env whose oracle plays: in process, or the server's session of this episode
            return family_env(env, srv if where == "served" else None)

        def oracle(env) -> str:
            return base_of(env).reference_action()

        def killer(env) -> str:
            action = oracle(env)
            if env.episode.turns == 1:
                kill_sandbox_container(base_of(env).sandbox)
            return action

        for skip in (False, True):
            extras = {"seed": 2, "budget": 20, "max_turns": 99}
            envs = [skyrl_gym.make("agentgym/ToolUse-v0", env_config=env_config, extras=extras) for _ in range(2)]
            try:
                if not skip:
                    with pytest.raises(InfrastructureError) as caught:
                        skyrl_generate(envs, [killer, oracle], skip_failed_rollouts=False)
                    assert agskyrl.SKIP_NOTE in getattr(caught.value, "__notes__", [])
                    assert envs[0].get_metrics()["infra_failures"] == 1
                    continue
                killed, solved = skyrl_generate(envs, [killer, oracle], skip_failed_rollouts=True)
                assert killed["stop_reason"] == "rollout_error" and killed["loss_mask"] == 0
                assert isinstance(killed["error"], InfrastructureError)
                assert solved["reward"] == 1.0 and solved["stop_reason"] == "stop"
                assert envs[0].get_metrics()["infra_failures"] == 1 and envs[1].get_metrics()["infra_failures"] == 0
                after = envs[0].step("help")  # SkyRL would not step it again; if it did, nothing happens
                assert after["done"] and after["reward"] == 0.0
            finally:
                for env in envs:
                    env.close()
        if where == "served":
            wait_until(lambda: not open_sessions(srv), 10, "every session closed")


# ---------------------------------------------------------------------------------------- TRL GRPO


def grpo_steps_with_killed_sandboxes(tmp_path, monkeypatch, remote: str | None, base_of) -> tuple[object, list[dict]]:
    """Two real GRPO steps of TRL 1.16 on Coding-v0 (Docker sandboxes), each on one prompt and three
    rollouts. In each step rollout 0's container is killed before its second tool call, after which
    it calls three more tools; rollout 1 plays the oracle (solves it); rollout 2 submits at once
    (fails). Between the steps rollout 1's container is killed too, so the second step's reset of
    that instance meets a dead sandbox. ``base_of(env)`` is the family env whose oracle and sandbox
    a rollout uses (the server's, over the wire). Returns the trainer and, per step, the episodes'
    summaries, TRL's advantages and its reward columns (as TRL logged them for that step)."""
    import torch
    import trl.trainer.utils
    from transformers import TrainerCallback
    from trl import GRPOTrainer

    from support.tiny_lm import ScriptedToolCalls, cpu_grpo_config, smollm2_tokenizer, tiny_model

    monkeypatch.setattr(trl.trainer.utils, "_use_triton", lambda device: True)  # as test_trl.run_grpo
    monkeypatch.setenv("TRL_EXPERIMENTAL_SILENCE", "1")
    torch.set_num_threads(2)
    tokenizer = smollm2_tokenizer()
    model = tiny_model(tokenizer, hidden=16)
    env_id = "agentgym/Coding-v0"
    factory = agtrl.environment_factory(env_id, remote=remote) if remote else agtrl.environment_factory(env_id)
    rows = agtrl.dataset(env_id, n=1, budget=12, seed=0)
    killed: list[str] = []

    def policy(env, index: int) -> tuple[str, dict] | None:
        episode = env.episode
        if index == 0 and episode.infra_failures:  # three more calls, as a model that keeps going would
            return ("test", {}) if episode.calls_after_end < 3 else None
        if episode.done:
            return None
        if index == 2:
            return ("submit", {})
        base = base_of(env)
        call = action_call("coding", base.reference_action(), tool_schemas(episode.env, family="coding"))
        if index == 0 and episode.turns == 1:
            killed.append(kill_sandbox_container(base.sandbox))
        return call

    def turn_cost(environments, **_):  # a user's own reward function: fewer turns score higher
        return [-0.01 * e.episode.turns for e in environments]

    args = cpu_grpo_config(
        tmp_path, max_steps=2, per_device_train_batch_size=3, num_generations=3, max_tool_calling_iterations=12
    )
    trainer = GRPOTrainer(
        model=model,
        reward_funcs=[agtrl.skip_infra_failures(turn_cost), agtrl.log_infra_failures],
        args=args,
        train_dataset=rows,
        processing_class=tokenizer,
        environment_factory=factory,
    )
    ScriptedToolCalls(tokenizer, lambda: trainer.environments, policy).install(trainer.model)
    steps: list[dict] = []

    class BetweenSteps(TrainerCallback):
        def on_step_end(self, args, state, control, **kwargs):
            steps.append(
                {
                    "episodes": [e.episode.summary() for e in trainer.environments],
                    "advantages": list(trainer._logs["advantages"]),
                    "rewards": {name: list(values) for name, values in trainer._logs["rewards"].items()},
                }
            )
            if state.global_step == 1:  # the next step's reset of rollout 1 meets a dead sandbox
                killed.append(kill_sandbox_container(base_of(trainer.environments[1]).sandbox))

    trainer.add_callback(BetweenSteps())
    before = [p.detach().clone() for p in trainer.model.parameters()]
    try:
        trainer.train()
    finally:
        for instance in trainer.environments or []:
            instance.episode.close()
    assert trainer.state.global_step == 2 and len(killed) == 3 and len(steps) == 2
    assert any((p.detach() != b).any() for p, b in zip(trainer.model.parameters(), before)), "no weight moved"
    return trainer, steps


@pytest.mark.slow
@pytest.mark.docker
@pytest.mark.timeout(1800)
@pytest.mark.parametrize("where", ["in process", "served"])
def test_grpo_survives_a_killed_rollout(where, tmp_path, monkeypatch, capsys):
    """Each step completes; the killed completion is unscorable (every reward function None), so its
    advantage is 0 and it is out of the group's baseline; the other two train on their own rewards
    (one solved, one failed: advantages of opposite signs), and the count is logged. The second
    step's reset that met a dead sandbox was retried: that rollout solved its task as before."""
    require_docker(IMAGES["agentgym/Coding-v0"])
    import contextlib

    srv = served(["agentgym/Coding-v0"], monkeypatch) if where == "served" else contextlib.nullcontext()
    with srv:

        def base_of(env):
            return family_env(env, srv if where == "served" else None)

        trainer, steps = grpo_steps_with_killed_sandboxes(
            tmp_path, monkeypatch, srv.url if where == "served" else None, base_of
        )
    logged = [m for m in trainer.state.log_history if "agentgym/infra_failures" in m]
    assert len(logged) == 2
    for step, log in zip(steps, logged):
        killed, solved, failed = step["episodes"]
        assert killed["infra_failures"] == 1 and killed["calls_after_end"] == 3 and not killed["success"]
        assert solved["success"] and not failed["success"] and solved["infra_failures"] == failed["infra_failures"] == 0
        rewards, advantages = step["rewards"], step["advantages"]
        get_reward = rewards[next(n for n in rewards if n.startswith("AgentGym"))]
        assert get_reward[1:] == [1.0, 0.0] and get_reward[0] != get_reward[0]  # NaN: TRL's None
        assert all(r != r for r in rewards["log_infra_failures"])  # the logging hook scores nothing
        assert rewards["turn_cost"][0] != rewards["turn_cost"][0]  # the user's reward skipped it too
        assert advantages[0] == 0.0 and advantages[1] > 0 > advantages[2], advantages
        # without the dead rollout in the baseline, the two live ones are centred on their own mean
        assert abs(advantages[1] + advantages[2]) < 1e-4, advantages
        assert log["agentgym/infra_failures"] == 1.0
        with capsys.disabled():  # the figures, for the record
            counts = {k: v for k, v in log.items() if k.startswith("agentgym/")}
            print(f"\n[{where}] step advantages {advantages}, get_reward {get_reward}, logged {counts}")
    assert [log["agentgym/reset_retries"] for log in logged] == [0.0, 1.0]
    assert [s["episodes"][1]["reset_retries"] for s in steps] == [0, 1]
