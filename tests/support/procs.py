"""Process checks for lifetime tests."""

from __future__ import annotations

__all__ = ["pid_alive"]


def pid_alive(pid: int) -> bool:
    """True while ``pid`` exists and is not a zombie waiting to be reaped."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False
