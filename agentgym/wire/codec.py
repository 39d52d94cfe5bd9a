"""Values and spaces as JSON, the one codec both ends of `agentgym serve` use.

- `to_json(value)`: observations, infos and actions as plain JSON values (numpy arrays become
  lists, numpy scalars Python numbers, tuples lists).
- `from_json(space, value)`: the value back as the space holds it (a ``Box`` array of its dtype
  and shape, a ``Dict`` in its key order), so a remote observation equals the local one.
- `space_to_json(space)` / `space_from_json(spec)`: the spaces a served env declares, so a
  `agentgym.remote.RemoteEnv` has exactly the server's spaces (wrappers included).

Standard library and numpy only: the client imports this without the server's packages.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np
from gymnasium import spaces

from agentgym.errors import ConfigError
from agentgym.spaces import AnyText

__all__ = ["to_json", "from_json", "space_to_json", "space_from_json"]


def to_json(value: Any) -> Any:
    """``value`` as JSON-encodable Python (dict keys become strings); unknown objects become their repr."""
    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, (int, float)):
        return value
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, Mapping):
        return {str(k): to_json(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [to_json(v) for v in value]
    if isinstance(value, (set, frozenset)):
        return sorted((to_json(v) for v in value), key=repr)
    if isinstance(value, bytes):
        return value.decode("utf-8", "replace")
    return repr(value)


def from_json(space: spaces.Space, value: Any) -> Any:
    """Decode ``value`` as an element of ``space`` (the inverse of `to_json` for the spaces served)."""
    if isinstance(space, spaces.Dict):
        if not isinstance(value, Mapping):
            raise ValueError(f"expected an object for {space}, got {type(value).__name__}")
        return {key: from_json(sub, value[key]) for key, sub in space.spaces.items()}
    if isinstance(space, spaces.Tuple):
        return tuple(from_json(sub, v) for sub, v in zip(space.spaces, value, strict=True))
    if isinstance(space, spaces.Text):
        return value if isinstance(value, str) else str(value)
    if isinstance(space, spaces.Discrete):
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
            raise ValueError(f"expected an integer for {space}, got {value!r:.40}")
        return np.int64(value)
    if isinstance(space, (spaces.Box, spaces.MultiDiscrete, spaces.MultiBinary)):
        return np.asarray(value, dtype=space.dtype).reshape(space.shape)
    raise ValueError(f"no JSON decoding for {space}")


def _bound(x: float) -> Any:
    return x if math.isfinite(x) else ("inf" if x > 0 else "-inf" if x < 0 else "nan")


def space_to_json(space: spaces.Space) -> dict[str, Any]:
    """A JSON description of ``space`` (strict JSON: infinite bounds are the strings ``"inf"``/``"-inf"``)."""
    if isinstance(space, AnyText):
        return {"type": "AnyText", "min_length": space.min_length, "max_length": space.max_length}
    if isinstance(space, spaces.Text):
        return {
            "type": "Text",
            "min_length": space.min_length,
            "max_length": space.max_length,
            "charset": "".join(sorted(space.character_set)),
        }
    if isinstance(space, spaces.Dict):
        return {"type": "Dict", "spaces": {k: space_to_json(s) for k, s in space.spaces.items()}}
    if isinstance(space, spaces.Tuple):
        return {"type": "Tuple", "spaces": [space_to_json(s) for s in space.spaces]}
    if isinstance(space, spaces.Discrete):
        return {"type": "Discrete", "n": int(space.n), "start": int(space.start)}
    if isinstance(space, spaces.MultiBinary):
        return {"type": "MultiBinary", "n": to_json(space.n)}
    if isinstance(space, spaces.MultiDiscrete):
        return {
            "type": "MultiDiscrete",
            "nvec": space.nvec.tolist(),
            "start": space.start.tolist(),
            "dtype": space.dtype.name,
        }
    if isinstance(space, spaces.Box):
        return {
            "type": "Box",
            "shape": list(space.shape),
            "dtype": space.dtype.name,
            "low": [_bound(float(x)) for x in space.low.flat],
            "high": [_bound(float(x)) for x in space.high.flat],
        }
    raise ConfigError(
        f"agentgym serve cannot describe the space {space!r}; served envs use Dict, Text, Box, "
        "Discrete, MultiDiscrete, MultiBinary and Tuple spaces"
    )


def space_from_json(spec: Mapping[str, Any]) -> spaces.Space:
    """The space `space_to_json` described."""
    kind = spec.get("type")
    if kind == "AnyText":
        return AnyText(int(spec["max_length"]), min_length=int(spec["min_length"]))
    if kind == "Text":
        return spaces.Text(int(spec["max_length"]), min_length=int(spec["min_length"]), charset=str(spec["charset"]))
    if kind == "Dict":
        return spaces.Dict({k: space_from_json(s) for k, s in spec["spaces"].items()})
    if kind == "Tuple":
        return spaces.Tuple([space_from_json(s) for s in spec["spaces"]])
    if kind == "Discrete":
        return spaces.Discrete(int(spec["n"]), start=int(spec["start"]))
    if kind == "MultiBinary":
        return spaces.MultiBinary(spec["n"])
    if kind == "MultiDiscrete":
        return spaces.MultiDiscrete(spec["nvec"], dtype=spec["dtype"], start=spec["start"])
    if kind == "Box":
        dtype, shape = np.dtype(spec["dtype"]), tuple(spec["shape"])
        low = np.array([float(x) for x in spec["low"]], dtype=np.float64).reshape(shape)
        high = np.array([float(x) for x in spec["high"]], dtype=np.float64).reshape(shape)
        return spaces.Box(low.astype(dtype), high.astype(dtype), shape=shape, dtype=dtype)
    raise ConfigError(f"unknown space description {kind!r} from the server")
