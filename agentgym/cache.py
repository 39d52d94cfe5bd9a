"""``agentgym cache info|clear``: the persistent result cache on disk (Coding-v0's test runs and
verifications, `agentgym.envs.coding.result_cache.DiskStore`).

    agentgym cache info            # where it is, entries, bytes, cap (--json for one object)
    agentgym cache clear           # delete every entry

The folder is ``AGENTGYM_CACHE_DIR``, else ``$XDG_CACHE_HOME/agentgym``, else ``~/.cache/agentgym``;
``AGENTGYM_DISK_CACHE=0`` stops envs from using it, ``AGENTGYM_CACHE_MAX_MB`` sets its cap.
"""

from __future__ import annotations

import argparse
import json
from typing import Any

from agentgym.envs.coding.result_cache import DiskStore, disk_enabled

__all__ = ["register"]


def register(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "cache", help="the persistent result cache on disk: info, clear", description=__doc__.split("\n\n")[0]
    )
    sub = p.add_subparsers(dest="cache_command", metavar="ACTION", required=True)
    info = sub.add_parser("info", help="where the cache is, how many entries and bytes it holds, its cap")
    info.add_argument("--json", action="store_true", help="print one JSON object")
    info.set_defaults(func=_info)
    clear = sub.add_parser("clear", help="delete every entry")
    clear.set_defaults(func=_clear)


def _store() -> Any:
    return DiskStore()


def _info(args: argparse.Namespace) -> int:
    info = {**_store().info(), "enabled": disk_enabled()}
    if args.json:
        print(json.dumps(info))
        return 0
    print(
        f"path:     {info['path']}{'' if info['enabled'] else '  (off: AGENTGYM_DISK_CACHE=0)'}\n"
        f"entries:  {info['entries']:,}\n"
        f"size:     {info['bytes'] / 2**20:.1f} MiB of {info['max_bytes'] / 2**20:.0f} MiB "
        "(AGENTGYM_CACHE_MAX_MB; least recently used entries go first)\n"
        f"code:     {info['code_digest']} (entries of other code versions are misses and age out)"
    )
    return 0


def _clear(args: argparse.Namespace) -> int:
    store = _store()
    print(f"deleted {store.clear():,} entries from {store.root}")
    return 0
