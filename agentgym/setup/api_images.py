"""API images: tool APIs written elsewhere (BFCL's multi-turn classes), fetched pinned and hash-checked.

The Berkeley Function Calling Leaderboard publishes its multi-turn tasks, their ground truth, the
function docs and the Python classes that implement the APIs in the ``bfcl-eval`` wheel. Nothing of
it is committed here: `agentgym setup` downloads the pinned wheel (and ``mpmath``'s pure-Python
wheel, which BFCL's ``MathAPI`` imports) with the machine's own ``pip`` (``--no-deps``), checks both
sha256 hashes (`agentgym.setup.page_images.fetch`), lays out what the envs need (`extract_bfcl`)
and builds ``agentgym/bfcl`` ``FROM`` the base image with no network, the files read-only under
``/opt/bfcl``. The same layout is kept on the host in the download cache (`bfcl_root`): the host
reads the tasks from it, runs the ground truth on its own instances, and the local backend's
sandbox imports the classes from it.

Layout (``<root>`` is ``/opt/bfcl`` in the image)::

    <root>/python/bfcl_apis/<module>.py   the eight multi-turn API classes and long_context.py; the
                                          one change is the package path of their imports
                                          (bfcl_eval.eval_checker.multi_turn_eval.func_source_code
                                          -> bfcl_apis)
    <root>/python/mpmath/                 mpmath 1.3.0 (BSD), for MathAPI
    <root>/data/                          BFCL_v4_multi_turn_<category>.json, possible_answer/,
                                          multi_turn_func_doc/
    <root>/LICENSE                        BFCL's (Apache-2.0) and mpmath's (BSD) license notes
"""

from __future__ import annotations

import hashlib
import os
import shutil
import tempfile
import time
import zipfile
from collections.abc import Collection
from pathlib import Path
from typing import Any

from agentgym.setup.base_image import BASE_IMAGE
from agentgym.setup.engine import Log, SetupFailed, _stderr
from agentgym.setup.imaging import CONTEXT_LABEL, _building, _docker_build, _temp_tag, _up_to_date, image_id
from agentgym.setup.page_images import Wheel, cache_dir, fetch

__all__ = [
    "BFCL",
    "MPMATH",
    "BFCL_IMAGE",
    "IMAGE_ROOT",
    "API_MODULES",
    "CLASSES",
    "extract_bfcl",
    "bfcl_root",
    "build_bfcl_image",
    "build_api_images",
]

BFCL = Wheel("bfcl_eval", "2026.3.23", "3bb6dfa5f0c68ad403c9ec50b00db2bb3b4cc9b38ab1ff33f48fe30d853d3a0a")
"""``bfcl-eval`` 2026.3.23 (Apache-2.0; the Gorilla project, UC Berkeley Sky Computing Lab)."""
MPMATH = Wheel("mpmath", "1.3.0", "a0b2b9fe80bbcd81a6647ff13108738cfb482d481d826cc0e02f5b35e5c88d2c")
"""``mpmath`` 1.3.0 (BSD), the version ``bfcl-eval`` pins; pure Python, imported by ``MathAPI``."""
BFCL_IMAGE = "agentgym/bfcl:latest"
IMAGE_ROOT = "/opt/bfcl"
CLASSES = {  # BFCL's class name -> its module and its function docs
    "GorillaFileSystem": ("gorilla_file_system", "gorilla_file_system.json"),
    "MathAPI": ("math_api", "math_api.json"),
    "MessageAPI": ("message_api", "message_api.json"),
    "TwitterAPI": ("posting_api", "posting_api.json"),
    "TicketAPI": ("ticket_api", "ticket_api.json"),
    "TradingBot": ("trading_bot", "trading_bot.json"),
    "TravelAPI": ("travel_booking", "travel_booking.json"),
    "VehicleControlAPI": ("vehicle_control", "vehicle_control.json"),
}
"""The eight classes the four multi-turn categories use (none uses the memory or web-search APIs)."""
API_MODULES = tuple(m for m, _ in CLASSES.values()) + ("long_context",)
_PACKAGE = "bfcl_eval/eval_checker/multi_turn_eval/func_source_code/"
_DATA = "bfcl_eval/data/"
_OLD_IMPORT = "bfcl_eval.eval_checker.multi_turn_eval.func_source_code"
_LICENSE = """\
bfcl-eval {version}: the Berkeley Function Calling Leaderboard's evaluation package (the Gorilla
project; Huanzhi Mao, Shishir Patil and the Sky Computing Lab, UC Berkeley), Apache License 2.0
as its package metadata states. Files used here: its multi-turn task data, ground truth, function
docs and API classes (the classes' package path renamed to bfcl_apis). Its METADATA follows.

mpmath {mpmath}: BSD license, reproduced after BFCL's METADATA.

"""
DOCKERFILE = """\
FROM {base}
COPY bfcl {root}
LABEL org.agentgym.family="bfcl" org.agentgym.source="bfcl_eval=={version} sha256:{sha256}"
RUN chmod -R a+rX,go-w {root} && python3 -c "import sys; sys.path.append('{root}/python'); \\
import mpmath, bfcl_apis.math_api, bfcl_apis.gorilla_file_system, bfcl_apis.travel_booking"
"""


def _safe(name: str, wheel: Path) -> None:
    if name.startswith("/") or ".." in Path(name).parts:
        raise SetupFailed(f"{wheel.name} holds an unsafe path {name!r}")


def extract_bfcl(bfcl_wheel: Path, mpmath_wheel: Path, dest: Path) -> int:
    """Lay out the API classes, mpmath, the multi-turn data and the license notes under ``dest``
    (see the module docstring); the number of files written."""
    count = 0
    api = dest / "python" / "bfcl_apis"
    api.mkdir(parents=True, exist_ok=True)
    (api / "__init__.py").write_text(
        f'"""BFCL\'s multi-turn API classes (bfcl-eval {BFCL.version}), unchanged but for their package path."""\n'
    )
    with zipfile.ZipFile(bfcl_wheel) as zf:
        names = zf.namelist()
        for module in API_MODULES:
            source = zf.read(f"{_PACKAGE}{module}.py").decode()
            (api / f"{module}.py").write_text(source.replace(_OLD_IMPORT, "bfcl_apis"))
            count += 1
        tasks = [n for n in names if n.startswith(f"{_DATA}BFCL_v4_multi_turn_") and n.endswith(".json")]
        wanted = tasks + [f"{_DATA}possible_answer/{n[len(_DATA) :]}" for n in tasks]  # base, miss_func, ...
        wanted += [f"{_DATA}multi_turn_func_doc/{doc}" for _, doc in CLASSES.values()]
        for name in wanted:
            _safe(name, bfcl_wheel)
            target = dest / "data" / name[len(_DATA) :]
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(zf.read(name))
            count += 1
        metadata = zf.read(next(n for n in names if n.endswith(".dist-info/METADATA"))).decode(errors="replace")
    with zipfile.ZipFile(mpmath_wheel) as zf:
        for info in zf.infolist():
            if info.is_dir() or not info.filename.startswith("mpmath/"):
                continue
            _safe(info.filename, mpmath_wheel)
            target = dest / "python" / info.filename
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(zf.read(info))
            count += 1
        mp_license = zf.read(f"mpmath-{MPMATH.version}.dist-info/LICENSE").decode(errors="replace")
    (dest / "LICENSE").write_text(
        _LICENSE.format(version=BFCL.version, mpmath=MPMATH.version)
        + metadata.split("\n\n", 1)[0]
        + "\n\n"
        + mp_license
    )
    return count + 1


def bfcl_root(*, cache: Path | None = None, log: Log | None = None, download: bool = False) -> Path:
    """The host's copy of the layout, extracted from the hash-checked wheels in the download cache.

    Extracted once (into a temporary folder renamed into place, so a half-written copy is never
    read). Without the wheels it raises `SetupFailed` saying to run ``agentgym setup``, unless
    ``download`` (setup itself) lets `fetch` download them.
    """
    folder = cache if cache is not None else cache_dir()
    root = folder / f"{BFCL.name}-{BFCL.version}"
    if (root / ".complete").is_file():
        return root
    wheels = []
    for wheel in (BFCL, MPMATH):
        if not download and not (folder / wheel.filename).exists():
            raise SetupFailed(
                f"BFCL's data is not on this machine ({folder / wheel.filename} is missing): run "
                "`agentgym setup` (it downloads the pinned bfcl-eval and mpmath wheels and checks "
                "their hashes)"
            )
        wheels.append(fetch(wheel, cache=folder, log=log or _stderr))
    folder.mkdir(parents=True, exist_ok=True)
    temp = Path(tempfile.mkdtemp(prefix=f".{root.name}-", dir=folder))
    try:
        extract_bfcl(wheels[0], wheels[1], temp)
        (temp / ".complete").write_text(f"{BFCL.sha256}\n{MPMATH.sha256}\n")
        os.chmod(temp, 0o755)
        try:
            temp.rename(root)
        except OSError:  # another process extracted it first
            if not (root / ".complete").is_file():
                raise
    finally:
        if temp.exists():
            shutil.rmtree(temp, ignore_errors=True)
    return root


def _dockerfile() -> str:
    return DOCKERFILE.format(base=BASE_IMAGE, root=IMAGE_ROOT, version=BFCL.version, sha256=BFCL.sha256)


def build_bfcl_image(client: Any, *, rebuild: bool = False, cache: Path | None = None, log: Log = _stderr) -> bool:
    """Build `BFCL_IMAGE` (the base plus `extract_bfcl`'s layout) unless up to date. True when built."""
    base_id = image_id(client, BASE_IMAGE)
    if base_id is None:
        raise SetupFailed(f"{BFCL_IMAGE} builds FROM {BASE_IMAGE}, which is missing: run `agentgym setup`")
    text = _dockerfile()
    digest = hashlib.sha256(f"{BFCL.sha256}\0{MPMATH.sha256}\0{base_id}\0{text}".encode()).hexdigest()[:32]
    if not rebuild and _up_to_date(client, BFCL_IMAGE, digest, "api", log):
        bfcl_root(cache=cache, log=log, download=True)  # the host's copy too (the ground truth runs there)
        return False
    start = time.monotonic()
    log(f"api image {BFCL_IMAGE}: building from {BFCL.name}=={BFCL.version} and {MPMATH.name}=={MPMATH.version}")
    root = bfcl_root(cache=cache, log=log, download=True)
    temp = _temp_tag(BFCL_IMAGE)
    with tempfile.TemporaryDirectory(prefix="agentgym-bfcl-") as ctx:
        shutil.copytree(root, Path(ctx, "bfcl"), ignore=shutil.ignore_patterns(".complete", "__pycache__"))
        Path(ctx, "Dockerfile").write_text(text)
        log(f"  {sum(1 for p in Path(ctx, 'bfcl').rglob('*') if p.is_file())} files (sha256 checked)")
        with _building(client, temp, BFCL_IMAGE, log):
            _docker_build(client, ctx, temp, labels={CONTEXT_LABEL: digest}, network_mode="none", log=log)
    log(f"api image {BFCL_IMAGE}: built in {time.monotonic() - start:.1f} s")
    return True


def build_api_images(
    client: Any, *, rebuild: bool = False, log: Log = _stderr, only: Collection[str] | None = None
) -> dict[str, bool]:
    """Build every API image (BFCL's; none when ``only`` leaves out ``bfcl``); image -> whether it was (re)built."""
    if only is not None and "bfcl" not in only:
        return {}
    return {BFCL_IMAGE: build_bfcl_image(client, rebuild=rebuild, log=log)}
