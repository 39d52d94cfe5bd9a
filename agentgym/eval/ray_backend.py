"""The Ray execution backend: the same episodes as the local pool, on a Ray cluster.

One actor per worker holds an `EpisodeWorker` (agent and warm envs built inside the actor:
Docker clients do not pickle). Episode seeds come from the spec, not from the worker, so a
spec gives the same record on Ray as in the local pool. Without a running Ray session this
starts a local one; connect to a cluster first with ``ray.init(address=...)`` (or set
``RAY_ADDRESS``) to spread workers over machines.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

from agentgym.eval.episodes import EpisodeSpec
from agentgym.eval.runner import EpisodeWorker, WorkerConfig
from agentgym.ray_support import require_ray

__all__ = ["iter_ray", "require_ray"]


class _Actor:
    def __init__(self, config: WorkerConfig) -> None:
        self.worker = EpisodeWorker(config)

    def run(self, spec: EpisodeSpec) -> dict[str, Any]:
        return self.worker.run(spec)

    def close(self) -> None:
        self.worker.close()


def iter_ray(config: WorkerConfig, specs: Iterable[EpisodeSpec], workers: int = 1) -> Iterator[dict[str, Any]]:
    """Records of ``specs`` as they finish, from ``workers`` Ray actors (2 episodes in flight each)."""
    ray = require_ray()
    specs = list(specs)
    if not specs:
        return
    if not ray.is_initialized():
        ray.init(include_dashboard=False, ignore_reinit_error=True, log_to_driver=False)
    actor_cls = ray.remote(num_cpus=1)(_Actor)
    actors = [actor_cls.remote(config) for _ in range(max(1, min(workers, len(specs))))]
    pending = iter(specs)
    inflight: dict[Any, Any] = {}
    try:
        for actor in actors:
            for _ in range(2):
                spec = next(pending, None)
                if spec is not None:
                    inflight[actor.run.remote(spec)] = actor
        while inflight:
            ready, _ = ray.wait(list(inflight), num_returns=1)
            ref = ready[0]
            actor = inflight.pop(ref)
            record = ray.get(ref)
            spec = next(pending, None)
            if spec is not None:
                inflight[actor.run.remote(spec)] = actor
            yield record
    finally:
        ray.get([a.close.remote() for a in actors])
        for a in actors:
            ray.kill(a)
