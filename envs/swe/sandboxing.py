"""A sandbox on one SWE-v0 library: the image, the library's tree in the workspace, the runner loaded.

The task generator, the baseline and the env all start their sandboxes here, so the three run a
library's tests the same way::

    from agentgym.envs.swe.sandboxing import open_library_sandbox, run_tests

    with open_library_sandbox("boltons") as sandbox:          # docker, on agentgym/swe:latest
        report = run_tests(sandbox, ["tests/test_strutils.py::test_strip_ansi"])
        report["outcomes"]  # {"tests/test_strutils.py::test_strip_ansi": "passed"}
        sandbox.write_file("boltons/strutils.py", buggy_source)  # the workspace is the library
        run_tests(sandbox, files=["tests/test_strutils.py"])["failures"]

``run_tests`` is `Sandbox.fork_call` of the runner's ``run`` (`agentgym.envs.swe.runner`, whose
docstring gives the report's shape); call ``sandbox.fork_call(RUNNER, "run", root=sandbox.workspace,
...)`` directly where the `ForkResult` itself is wanted (a time-out is then an answer, not an error).

On the docker backend the tree is copied from the image's read-only ``/opt/swe/<name>``; on the
local backend (no isolation) from the host copy `agentgym setup --only swe` left in the download
cache (`agentgym.setup.swe_images.library_tree`).
"""

from __future__ import annotations

import shlex
from pathlib import Path
from typing import Any

from agentgym.envs.swe.libraries import IMAGE_ROOT, Library, library
from agentgym.errors import SandboxOpError
from agentgym.sandbox import Sandbox, make_sandbox, resolve_backend
from agentgym.sandbox.modules import SandboxModule
from agentgym.setup.swe_images import DEPS, SWE_IMAGE, library_tree, swe_root

__all__ = ["RUNNER", "RUNNER_MODULE", "open_library_sandbox", "configure_runner", "run_tests"]

RUNNER = "agentgym_swe_runner"
"""The name the runner is loaded under in the step server (for `Sandbox.fork_call`)."""
RUNNER_MODULE = SandboxModule.from_file(RUNNER, Path(__file__).with_name("runner.py"))


def configure_runner(sandbox: Sandbox, lib: Library, *, deps_root: str = f"{IMAGE_ROOT}/{DEPS}") -> None:
    """Load the runner into ``sandbox``'s step server, tell it how ``lib``'s suite runs, and let it
    compile the workspace's (pristine) files once (`runner.warm`)."""
    sandbox.load_module(RUNNER, RUNNER_MODULE.source)
    sandbox.call(
        RUNNER,
        "configure",
        timeout=30,
        tests=list(lib.tests),
        args=list(lib.pytest_args),
        python_path=list(lib.python_path),
        packages=list(lib.packages),
        extra_path=[deps_root] if lib.deps else [],
    )
    sandbox.call(RUNNER, "warm", timeout=120, root=sandbox.workspace)  # the pristine tree, compiled once


def open_library_sandbox(name: str, backend: str = "docker", *, image: str = SWE_IMAGE, **options: Any) -> Sandbox:
    """Start a sandbox on ``image`` with the library ``name``'s tree as its workspace and the runner
    loaded and configured; ``options`` go to the backend (memory, cpus, ...). Close it when done."""
    lib = library(name)
    concrete = resolve_backend(backend)
    if concrete == "docker":
        source, deps_root = lib.root, f"{IMAGE_ROOT}/{DEPS}"
    else:  # the host's copy: the local backend runs on the host
        source = str(library_tree(lib))
        deps_root = str(swe_root() / DEPS)
    sandbox = make_sandbox(concrete, image=image, **options)
    try:
        # each entry copied (not "SRC/." onto "."): the workspace folder itself is not the agent's to touch
        src = shlex.quote(source)
        copy = sandbox.run(
            f"find {src} -mindepth 1 -maxdepth 1 -exec cp -a -t . {{}} + && rm -f .complete", timeout=120
        )
        if not copy.ok:
            raise SandboxOpError(
                f"copying {source} into the workspace failed (exit {copy.exit_code}): {copy.text[-500:]}; "
                "run `agentgym setup --only swe` if the library is missing"
            )
        configure_runner(sandbox, lib, deps_root=deps_root)
    except BaseException:
        sandbox.close()
        raise
    return sandbox


def run_tests(
    sandbox: Sandbox,
    ids: list[str] | None = None,
    *,
    files: list[str] | None = None,
    timeout: float = 120.0,
    max_failure_chars: int = 1500,
    nonce: str = "",
) -> dict[str, Any]:
    """The runner's report for ``ids`` (or ``files``, or the whole suite) run in ``sandbox``'s
    workspace; a run that crashes or outlives ``timeout`` seconds raises `SandboxOpError`."""
    r = sandbox.fork_call(
        RUNNER,
        "run",
        timeout=timeout,
        max_output=16 << 20,  # it caps the report (the value) too: a whole suite is 10^4 ids
        root=sandbox.workspace,
        ids=ids,
        files=files,
        max_failure_chars=max_failure_chars,
        nonce=nonce,
    )
    if r.timed_out:
        raise SandboxOpError(f"the test run took over {timeout:g} s (killed); output tail: {r.text[-500:]}")
    if r.error is not None or not isinstance(r.value, dict):
        raise SandboxOpError(f"the test runner crashed (exit {r.exit_code}): {r.error}; output tail: {r.text[-500:]}")
    report: dict[str, Any] = r.value
    return report
