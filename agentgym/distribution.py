"""What agentgym is installed as: the distribution ``agentgym-budget``, imported as ``agentgym``.

The name ``agentgym`` on the public package index belongs to an unrelated project, so this one is
distributed as ``agentgym-budget`` (``pip install -e '.[train]'`` from a checkout, or
``pip install 'agentgym-budget[train] @ git+URL'``); the import name and the ``agentgym/...`` ids
are unchanged. Code that asks the installed metadata (versions, extras) asks it for `DISTRIBUTION`,
never for ``"agentgym"``, which on a machine with that other package installed answers for it.
"""

from __future__ import annotations

from importlib import metadata

__all__ = ["DISTRIBUTION", "OLD_DISTRIBUTION", "install_hint", "installed_version"]

DISTRIBUTION = "agentgym-budget"
"""The distribution name: ``pip install``/``pip show``/``importlib.metadata`` use it."""
OLD_DISTRIBUTION = "agentgym"
"""The name this project was installed under before it was renamed (and the unrelated index package's)."""


def installed_version() -> str:
    """The installed distribution's version; the package's own, marked so, when `DISTRIBUTION` is not
    installed (a checkout on ``PYTHONPATH``, or an install made before the rename)."""
    from agentgym import __version__

    try:
        return metadata.version(DISTRIBUTION)
    except metadata.PackageNotFoundError:
        return f"{__version__} ({DISTRIBUTION} not installed)"


def install_hint(extra: str) -> str:
    """The command that adds an extra's requirements to this install (pip finds the installed
    `DISTRIBUTION` and adds only what the extra needs; the index holds nothing of that name to fetch)."""
    return f"pip install '{DISTRIBUTION}[{extra}]'"
