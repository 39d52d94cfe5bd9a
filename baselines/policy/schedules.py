"""Budget schedules: which turn budget T each training episode gets.

A schedule turns into the ``budget=`` argument of `agentgym.make` (so `TurnLimit` /
`RandomBudget` do the sampling, from the env's seeded RNG, the same way they do for users):

- ``fixed:T`` — every episode gets T;
- ``uniform:LO-HI`` — T uniform over the integers LO..HI (BudgetMix);
- ``choice:T1,T2,...`` or ``choice:T1,T2,...@W1,W2,...`` — weighted choice (BudgetMix);
- ``loguniform:LO-HI`` — log T uniform (BudgetMix, more short budgets than long ones);
- ``curriculum:LO-HI`` — an increasing horizon: T grows linearly from LO to HI over the
  first ``ramp`` fraction of training (default 0.75), then stays at HI;
- ``steps:T1,T2,...`` — a stepwise increasing horizon (AgentGym-RL raises its horizon this
  way): training is cut into equal stages, T1 in the first, T2 in the second, and so on.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from agentgym.errors import ConfigError

__all__ = ["BudgetSchedule", "parse_schedule", "SCHEDULE_KINDS"]

SCHEDULE_KINDS = ("fixed", "uniform", "choice", "loguniform", "curriculum", "steps")


@dataclass
class BudgetSchedule:
    """A parsed schedule; `budget_arg` is what `agentgym.make(budget=...)` receives."""

    kind: str
    values: tuple[int, ...]
    weights: tuple[float, ...] | None = None
    ramp: float = 0.75
    current: int = field(default=0)

    def __post_init__(self) -> None:
        if self.kind not in SCHEDULE_KINDS:
            raise ConfigError(f"budget schedule kind {self.kind!r}; choose one of {SCHEDULE_KINDS}")
        if not self.values or min(self.values) < 1:
            raise ConfigError(f"budget schedule {self.kind}:{self.values} needs budgets >= 1")
        if self.kind in ("uniform", "loguniform", "curriculum") and (
            len(self.values) != 2 or self.values[0] > self.values[1]
        ):
            raise ConfigError(f"budget schedule {self.kind} needs LO-HI with LO <= HI, got {self.values}")
        if self.kind == "steps" and list(self.values) != sorted(self.values):
            raise ConfigError(f"budget schedule steps:{','.join(map(str, self.values))} must not decrease")
        if self.weights is not None and len(self.weights) != len(self.values):
            raise ConfigError(f"choice weights {self.weights} do not match budgets {self.values}")
        self.current = self.values[0]

    @property
    def lo(self) -> int:
        return min(self.values)

    @property
    def hi(self) -> int:
        return max(self.values)

    def budget_arg(self) -> Any:
        """The ``budget=`` value for `agentgym.make`."""
        if self.kind == "fixed":
            return int(self.values[0])
        if self.kind == "uniform":
            return {"uniform": [self.lo, self.hi]}
        if self.kind == "loguniform":
            return {"loguniform": [self.lo, self.hi]}
        if self.kind == "choice":
            spec: dict[str, Any] = {"choice": list(self.values)}
            if self.weights is not None:
                spec["weights"] = list(self.weights)
            return spec
        return self._curriculum_budget  # a callable(np_random) -> int; reads the trainer's progress

    def _curriculum_budget(self, np_random: np.random.Generator) -> int:
        return int(self.current)

    def update(self, progress: float) -> None:
        """Tell the schedule how far training is (0..1); only the curriculum moves."""
        if self.kind == "curriculum":
            frac = min(max(progress / self.ramp, 0.0), 1.0) if self.ramp > 0 else 1.0
            self.current = int(round(self.lo + frac * (self.hi - self.lo)))
        elif self.kind == "steps":
            stage = min(int(max(progress, 0.0) * len(self.values)), len(self.values) - 1)
            self.current = int(self.values[stage])

    @property
    def mean(self) -> float:
        """The schedule's mean budget (for the report); the curriculum's is over its whole run."""
        lo, hi = self.lo, self.hi
        if self.kind == "fixed":
            return float(lo)
        if self.kind == "uniform":
            return (lo + hi) / 2
        if self.kind == "loguniform":
            return (hi - lo) / math.log(hi / lo) if hi > lo else float(lo)
        if self.kind == "choice":
            w = np.asarray(self.weights if self.weights is not None else [1.0] * len(self.values), dtype=float)
            return float(np.dot(w / w.sum(), self.values))
        if self.kind == "steps":
            return float(np.mean(self.values))
        return self.ramp * (lo + hi) / 2 + (1 - self.ramp) * hi

    def __str__(self) -> str:
        if self.kind == "fixed":
            return f"fixed:{self.values[0]}"
        if self.kind == "steps":
            return "steps:" + ",".join(map(str, self.values))
        if self.kind == "choice":
            text = "choice:" + ",".join(map(str, self.values))
            return text + ("@" + ",".join(f"{w:g}" for w in self.weights) if self.weights else "")
        return f"{self.kind}:{self.lo}-{self.hi}"


def parse_schedule(spec: str, *, ramp: float = 0.75) -> BudgetSchedule:
    """Parse a ``KIND:ARGS`` schedule string (see the module docstring); errors echo the spec."""
    kind, _, rest = spec.strip().partition(":")
    try:
        if kind == "fixed":
            return BudgetSchedule("fixed", (int(rest),))
        if kind in ("uniform", "loguniform", "curriculum"):
            lo, _, hi = rest.partition("-")
            return BudgetSchedule(kind, (int(lo), int(hi)), ramp=ramp)
        if kind == "choice":
            values, _, weights = rest.partition("@")
            ws = tuple(float(w) for w in weights.split(",")) if weights else None
            return BudgetSchedule("choice", tuple(int(v) for v in values.split(",")), ws)
        if kind == "steps":
            return BudgetSchedule("steps", tuple(int(v) for v in rest.split(",")))
    except ValueError as exc:
        raise ConfigError(
            f"budget schedule {spec!r}: {exc}. Examples: fixed:8, uniform:2-16, choice:4,8,16@2,1,1"
        ) from exc
    raise ConfigError(f"budget schedule {spec!r}: kind must be one of {SCHEDULE_KINDS}, e.g. fixed:8 or uniform:2-16")
