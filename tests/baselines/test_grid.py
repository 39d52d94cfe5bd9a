"""`baselines.experiment.grid`:
jobs in order whatever runs them, and an experiment that does not depend on where it ran."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from agentgym.errors import ConfigError
from baselines.config import Args, default_workers
from baselines.experiment.grid import land_checkpoint, run_jobs

ROOT = Path(__file__).resolve().parents[2]


def _slow_square(x: int, flag: str | None = None) -> tuple[int, int]:
    if flag is None:
        time.sleep(0.05 * (4 - x))  # the first jobs finish last
    elif x == 0:  # job 0 waits until another worker has finished a job: it finishes after it, however loaded
        deadline = time.monotonic() + 30
        while not os.path.exists(flag) and time.monotonic() < deadline:
            time.sleep(0.01)
    else:
        open(flag, "a").close()
    return x * x, os.getpid()


def test_run_jobs_returns_results_in_job_order_from_several_processes(tmp_path) -> None:
    finished: list[int] = []
    flag = str(tmp_path / "another-job-done")
    results = run_jobs(_slow_square, [(x, flag) for x in range(4)], workers=2, on_done=lambda i, _: finished.append(i))
    assert [r[0] for r in results] == [0, 1, 4, 9]
    assert sorted(finished) == [0, 1, 2, 3] and finished != [0, 1, 2, 3]  # finished out of order, returned in order
    assert len({r[1] for r in results}) == 2 and os.getpid() not in {r[1] for r in results}
    assert [r[0] for r in run_jobs(_slow_square, [(x,) for x in range(4)], workers=1)] == [0, 1, 4, 9]


def test_run_jobs_spawns_when_another_thread_runs(monkeypatch: pytest.MonkeyPatch) -> None:
    """fork is unsafe once this process has a second thread: the pool is spawned, same results."""
    import multiprocessing
    import threading

    import baselines.experiment.grid as grid

    methods: list[str] = []
    real = multiprocessing.get_context
    monkeypatch.setattr(grid.mp, "get_context", lambda method: methods.append(method) or real(method))
    stop = threading.Event()
    thread = threading.Thread(target=stop.wait, daemon=True)
    thread.start()
    try:
        results = run_jobs(_slow_square, [(x,) for x in range(3)], workers=2)
    finally:
        stop.set()
        thread.join(timeout=5)
    assert [r[0] for r in results] == [0, 1, 4] and os.getpid() not in {r[1] for r in results}
    assert methods == ["spawn"]


@pytest.mark.parametrize("kwargs, match", [({"executor": "slurm"}, "executor='slurm'"), ({"workers": 0}, "workers=0")])
def test_run_jobs_refuses_bad_settings(kwargs: dict, match: str) -> None:
    with pytest.raises(ConfigError, match=match):
        run_jobs(_slow_square, [(1,)], **{"workers": 1, **kwargs})


def test_args_resolve_workers_and_check_the_executor() -> None:
    assert Args().workers == default_workers() >= 1 and Args(workers=3).workers == 3
    with pytest.raises(ConfigError, match="--executor 'dask'"):
        Args(executor="dask")
    with pytest.raises(ConfigError, match="--workers -1"):
        Args(workers=-1)


def test_a_shipped_checkpoint_lands_only_where_it_is_missing(tmp_path: Path) -> None:
    path = tmp_path / "run" / "checkpoint.pt"
    summary = land_checkpoint({"checkpoint": str(path), "checkpoint_bytes": b"remote"})
    assert path.read_bytes() == b"remote" and "checkpoint_bytes" not in summary
    land_checkpoint({"checkpoint": str(path), "checkpoint_bytes": b"other"})
    assert path.read_bytes() == b"remote"  # a local run's own file is never overwritten


def _policy_digests(out: Path) -> dict[str, str]:
    import torch

    digests = {}
    for path in sorted(out.glob("*-s*/checkpoint.pt")):
        state = torch.load(path, map_location="cpu", weights_only=False)["policy"]
        h = hashlib.sha256()
        for key, value in sorted(state.items()):
            h.update(key.encode() + value.numpy().tobytes())
        digests[path.parent.name] = h.hexdigest()
    return digests


def _report_without_timing(out: Path) -> str:
    """report.md less what measures time or a worker's cache (throughput, costs, cache hit counts)."""
    sections = (out / "report.md").read_text().split("\n## ")
    kept = [s for s in sections if not s.startswith(("Throughput", "Cost per success", "Training cost"))]
    return "\n## ".join(kept)


TIMED = frozenset({"seconds", "latency_s", "env_seconds", "agent_seconds", "ms_per_decision"})
"""summary.json's keys that hold measured times (the deployment metrics): they differ between any two runs."""


def _without_timing(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _without_timing(v) for k, v in value.items() if k not in TIMED}
    if isinstance(value, list):
        return [_without_timing(v) for v in value]
    return value


@pytest.mark.slow
def test_one_worker_two_workers_and_ray_give_bit_identical_policies_and_reports(
    tmp_path: Path, smoke_run: tuple[Path, dict[str, str]]
) -> None:
    pytest.importorskip("ray")
    reference, env = smoke_run  # the 1-worker run (conftest), with its result cache
    outs = {"w1": reference}
    for name, flags in {"w2": ["--workers", "2"], "ray": ["--workers", "2", "--executor", "ray"]}.items():
        outs[name] = tmp_path / name
        proc = subprocess.run(
            [
                sys.executable,
                "-m",
                "baselines.budgetmix",
                "--smoke",
                "--backend",
                "local",
                "--out",
                str(outs[name]),
                *flags,
            ],
            cwd=tmp_path,
            env=env,
            capture_output=True,
            text=True,
            timeout=400,
        )
        assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    digests = _policy_digests(reference)
    assert len(digests) == 6  # five schedules and BudgetMix without forced starts
    for name, out in outs.items():
        assert _policy_digests(out) == digests, name
        for result in ("contrasts.json", "summary.json", "control.json"):
            got, want = (_without_timing(json.loads((o / result).read_text())) for o in (out, reference))
            assert got == want, (name, result)
        assert _report_without_timing(out) == _report_without_timing(reference), name


def _tagged(tag: str, *inputs: Any) -> tuple[str, tuple[Any, ...], int]:
    time.sleep(0.02)
    return tag, inputs, os.getpid()


def _fails() -> None:
    raise ValueError("job failed")


def test_run_graph_starts_a_job_after_those_it_waits_for_with_their_results() -> None:
    from baselines.experiment.grid import Job, run_graph

    jobs = [
        Job("train", _tagged, ("train",), cost=5.0),
        Job("eval", _tagged, lambda done: ("eval", done["train"][0]), after=("train",), cost=10.0),
        Job("other", _tagged, ("other",), cost=1.0),
    ]
    for workers in (1, 2):
        seen: list[str] = []
        results, timeline = run_graph(jobs, workers=workers, on_done=lambda name, _, seen=seen: seen.append(name))
        assert results["eval"][:2] == ("eval", ("train",))
        rows = {r["job"]: r for r in timeline}
        assert rows["eval"]["start"] >= rows["train"]["end"] - 1e-3  # it waited
        assert rows["eval"]["after"] == ["train"] and rows["eval"]["cpu_s"] >= 0
        assert seen.index("train") < seen.index("eval") and sorted(seen) == ["eval", "other", "train"]
    # one worker: the job with the most work behind it first (train: 5 + 10), then the rest
    _, timeline = run_graph(jobs, workers=1)
    assert [r["job"] for r in timeline] == ["train", "eval", "other"]


def test_priorities_are_a_jobs_cost_plus_its_costliest_chain() -> None:
    from baselines.experiment.grid import Job, priorities

    jobs = [
        Job("a", print, cost=1),
        Job("b", print, after=("a",), cost=2),
        Job("c", print, after=("b",), cost=3),
        Job("d", print, after=("a",), cost=10),
    ]
    assert priorities(jobs) == {"a": 11.0, "b": 5.0, "c": 3.0, "d": 10.0}


def test_run_graph_raises_a_jobs_error_and_refuses_bad_graphs() -> None:
    from baselines.experiment.grid import Job, run_graph

    with pytest.raises(ValueError, match="job failed"):
        run_graph([Job("x", _fails), Job("y", _tagged, ("y",))], workers=2)
    with pytest.raises(ConfigError, match="the graph lacks"):
        run_graph([Job("x", _tagged, after=("nope",))], workers=1)
    with pytest.raises(ConfigError, match="cycle"):
        run_graph([Job("x", _tagged, after=("y",)), Job("y", _tagged, after=("x",))], workers=2)
