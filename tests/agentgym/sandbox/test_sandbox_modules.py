"""Sandbox-side code declared on the family class: loaded once per sandbox, services kept across resets."""

from __future__ import annotations

import textwrap

import pytest

from agentgym.sandbox.modules import SandboxModule, load_on_host
from support.procs import pid_alive
from support.toy_env import ToyEnv

COUNTER = textwrap.dedent("""
    _state = {"loads": 0}
    _state["loads"] += 1

    def start():
        proc = start_service(["sleep", "300"])
        return {"pid": proc.pid}

    def loads():
        return _state["loads"]
""")


@pytest.fixture
def counter_module(tmp_path):
    path = tmp_path / "counter.py"
    path.write_text(COUNTER)
    return SandboxModule.from_file("agentgym_test_counter", path)


def test_declared_modules_load_once_and_services_survive_resets(backend, counter_module):
    class ServiceEnv(ToyEnv):
        sandbox_modules = (counter_module,)
        sandbox_services = (("agentgym_test_counter", "start"),)

    env = ServiceEnv(backend=backend)
    try:
        env.reset(seed=0)
        service = env.services["agentgym_test_counter.start"]["pid"]
        stray = int(env.sandbox.run("setsid sleep 301 >/dev/null 2>&1 & echo $!").text.split()[0])
        for seed in (1, 2):
            env.reset(seed=seed)
            assert env.sandbox.call("agentgym_test_counter", "loads") == 1  # the same sandbox, loaded once
        assert env.services["agentgym_test_counter.start"]["pid"] == service
        alive = env.sandbox.run(f"test -d /proc/{service} && echo service; test -d /proc/{stray} && echo stray").text
        assert "service" in alive and "stray" not in alive  # reset kills everything but the service
    finally:
        env.close()
    if backend == "local":  # a local server ends its services on close
        import time

        deadline = time.monotonic() + 5
        while pid_alive(service) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not pid_alive(service)


def test_load_on_host_runs_each_module_once_and_retries_a_failed_one(tmp_path):
    good = tmp_path / "good.py"
    good.write_text("import random\nVALUE = random.random()\n")
    bad = tmp_path / "bad.py"
    bad.write_text("raise RuntimeError('broken')\n")
    first = load_on_host([SandboxModule.from_file("agentgym_test_good", good)])["agentgym_test_good"].VALUE
    assert load_on_host([SandboxModule.from_file("agentgym_test_good", good)])["agentgym_test_good"].VALUE == first
    module = SandboxModule.from_file("agentgym_test_bad", bad)
    for _ in range(2):  # not left half-registered: the second call runs it again
        with pytest.raises(RuntimeError, match="broken"):
            load_on_host([module])


def test_a_service_that_fails_to_start_is_an_infrastructure_error(tmp_path):
    from agentgym.errors import InfrastructureError, SandboxStartFailed

    path = tmp_path / "broken.py"
    path.write_text("def start():\n    raise RuntimeError('no browser here')\n")

    class BrokenServiceEnv(ToyEnv):
        sandbox_modules = (SandboxModule.from_file("agentgym_test_broken", path),)
        sandbox_services = (("agentgym_test_broken", "start"),)

    env = BrokenServiceEnv(backend="local")
    try:
        with pytest.raises(SandboxStartFailed, match="no browser here") as caught:
            env.reset(seed=0)
        assert isinstance(caught.value, InfrastructureError) and env.sandbox is None
    finally:
        env.close()


def test_modules_under_dotted_names_import_their_siblings_in_the_sandbox_as_on_the_host(backend):
    """The kit's and families' sandbox files ship under their real names (``agentgym.world.records``)
    and import each other as the host does (``from agentgym.world import records``)."""
    from agentgym import world
    from agentgym.envs.tooluse.domains import MODULES

    class KitEnv(ToyEnv):
        sandbox_modules = MODULES

    env = KitEnv(backend=backend)
    try:
        env.reset(seed=0)
        names = [m.name for m in MODULES]
        assert names[: len(world.MODULES)] == [m.name for m in world.MODULES]
        assert all(n.startswith("agentgym.") for n in names)  # readers and type checkers follow them
        got = env.sandbox.call(
            "agentgym.world.verdict",
            "world_verdict",
            state_ok=True,
            answer="It is $5.00.",
            refusal=False,
            expected="$5.00",
        )
        assert got["success"] and got["answer_ok"]
    finally:
        env.close()


def test_load_on_host_imports_a_dotted_name_as_the_package_module():
    import agentgym.world.records as records

    loaded = load_on_host([SandboxModule.from_file("agentgym.world.records", records.__file__)])
    assert loaded["agentgym.world.records"] is records
