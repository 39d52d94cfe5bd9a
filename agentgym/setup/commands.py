"""CLI commands of the foundation: ``setup``, ``doctor``, ``sandbox run`` and ``sandbox gc``.

``register(subparsers)`` adds them to the ``agentgym`` parser (see `agentgym.cli`).
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import platform
import sys
import time
import warnings
from importlib import metadata
from typing import Any

from agentgym.cli_args import add_backend_argument
from agentgym.distribution import installed_version
from agentgym.errors import AgentGymError, ConfigError
from agentgym.sandbox import make_sandbox, resolve_backend
from agentgym.sandbox.docker import docker_client, gc
from agentgym.setup import engine, images
from agentgym.setup.images import BASE_IMAGE

__all__ = [
    "register",
    "cmd_setup",
    "cmd_doctor",
    "cmd_sandbox_run",
    "cmd_sandbox_gc",
    "check_backend",
    "LOCAL_BACKEND_NEEDS",
    "missing_local_modules",
]

LOCAL_BACKEND_NEEDS = ("pytest",)
"""Modules the local backend's step server imports from this interpreter (Coding-v0 runs its
tests with pytest there; the Docker images carry their own). A missing one kills the server at
its first test run, which under RLlib showed up as a dead worker and "No samples returned"."""


def missing_local_modules() -> list[str]:
    """The `LOCAL_BACKEND_NEEDS` this interpreter cannot import."""
    return [name for name in LOCAL_BACKEND_NEEDS if importlib.util.find_spec(name) is None]


def _log(message: str) -> None:
    print(f"[agentgym] {message}", file=sys.stderr, flush=True)


# ---------------------------------------------------------------------------- setup
def setup_families(only: str) -> set[str] | None:
    """The families ``--only`` names (comma-separated), with the families whose images theirs
    build FROM (MiniWoB's pages go on Browser's Chromium image); None when it names none (all)."""
    wanted = {name.strip() for name in only.split(",") if name.strip()}
    if not wanted:
        return None
    packages = {images.family_image(name): path.parent.name for name, path in images.package_images().items()}
    pages = {source.name: source for source in images.PAGE_SOURCES}
    known = set(images.family_contexts()) | set(packages.values()) | set(pages) | {"bfcl", "swe"}
    unknown = sorted(wanted - known)
    if unknown:
        raise ConfigError(f"agentgym setup --only {only!r}: no family {unknown}; choose from {sorted(known)}")
    return wanted | {packages[pages[name].base] for name in wanted if name in pages and pages[name].base in packages}


def cmd_setup(args: argparse.Namespace) -> int:
    """Install and start the engine when needed, then build missing images (idempotent)."""

    start = time.monotonic()
    only = setup_families(args.only)
    step = time.monotonic()
    engine.ensure_engine(_log, timeout=args.engine_timeout)
    _log(f"  engine step: {time.monotonic() - step:.1f} s")
    client = docker_client()
    step = time.monotonic()
    built = images.build_base(client, tag=args.base_tag, rebuild=args.rebuild, base_image=args.base_image, log=_log)
    _log(f"  base image step: {time.monotonic() - step:.1f} s")
    if args.no_families:
        _log("family images: skipped (--no-families)")
    elif args.base_tag != images.BASE_IMAGE:
        _log(f"family images: skipped (they build FROM {images.BASE_IMAGE}, not {args.base_tag})")
    else:
        if only is not None:
            _log(f"images of {', '.join(sorted(only))} only (--only)")
        step = time.monotonic()
        families = images.build_families(client, rebuild=args.rebuild or built, log=_log, only=only)
        if not families and only is None:
            _log("family images: no envs/<family>/Dockerfile found")
        _log(f"  family images step: {time.monotonic() - step:.1f} s")
        step = time.monotonic()
        images.build_package_images(client, rebuild=args.rebuild or built, log=_log, only=only)
        _log(f"  package images step: {time.monotonic() - step:.1f} s")
        step = time.monotonic()
        images.build_page_images(client, rebuild=args.rebuild, log=_log, only=only)
        _log(f"  page images step: {time.monotonic() - step:.1f} s")
        step = time.monotonic()
        images.build_api_images(client, rebuild=args.rebuild, log=_log, only=only)
        _log(f"  api images step: {time.monotonic() - step:.1f} s")
        step = time.monotonic()
        images.build_swe_images(client, rebuild=args.rebuild, log=_log, only=only)
        _log(f"  swe image step: {time.monotonic() - step:.1f} s")
    _log(f"setup done in {time.monotonic() - start:.1f} s; `agentgym doctor` checks the result")
    return 0


# ---------------------------------------------------------------------------- doctor
def _version(dist: str) -> str:
    try:
        return metadata.version(dist)
    except metadata.PackageNotFoundError:
        return "not installed"


def check_backend(backend: str, image: str) -> tuple[bool, str]:
    """Start a sandbox on ``backend``, run one command in it; (works, what happened)."""

    start = time.monotonic()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with make_sandbox(backend, image=image, start_timeout=30) as sandbox:
                started = time.monotonic() - start
                result = sandbox.run(
                    ["python3", "-c", "import os, sys; print(os.getuid(), sys.version.split()[0])"], timeout=20
                )
                steps = []
                for _ in range(100):
                    t = time.perf_counter()
                    sandbox.ping()
                    steps.append(time.perf_counter() - t)
                step_ms = sorted(steps)[len(steps) // 2] * 1e3
    except AgentGymError as exc:
        return False, f"{type(exc).__name__}: {exc}"
    except Exception as exc:  # an unexpected engine answer: report it, do not crash the doctor
        return False, f"{type(exc).__name__}: {exc}"
    if not result.ok:
        return False, f"the test command failed (exit {result.exit_code}): {result.text[-300:]}"
    uid, py = (result.text.split() + ["?", "?"])[:2]
    if backend == "local" and (missing := missing_local_modules()):
        return False, (
            f"the sandbox starts, but {sys.executable} cannot import {', '.join(missing)}, which the "
            f"local backend needs for Coding-v0's tests: run `{sys.executable} -m pip install {' '.join(missing)}`"
        )
    return True, f"started in {started * 1e3:.0f} ms, step p50 {step_ms:.2f} ms, uid {uid}, python {py}"


def cmd_doctor(args: argparse.Namespace) -> int:
    """Report versions, the engine, images and which backend works; exit 0 when one does."""

    report: dict[str, Any] = {
        "versions": {
            "agentgym": installed_version(),
            "python": platform.python_version(),
            "gymnasium": _version("gymnasium"),
            "docker_sdk": _version("docker"),
        }
    }
    status = engine.engine_status()
    report["versions"]["docker_engine"] = status.version if status.ok else "unreachable"
    report["engine"] = {"ok": status.ok, "host": status.host, "detail": status.detail}
    image_status: dict[str, str] = {}
    if status.ok:
        client = docker_client()
        names = [images.BASE_IMAGE] + [
            images.family_image(f) for f in [*images.family_contexts(), *images.package_images()]
        ]
        names += [source.image for source in images.PAGE_SOURCES] + [images.BFCL_IMAGE, images.SWE_IMAGE]
        for name in names:
            image_status[name] = "present" if images.image_id(client, name) else "missing (run `agentgym setup`)"
    report["images"] = image_status
    backends: dict[str, dict[str, Any]] = {}
    if status.ok:
        if "missing" in image_status.get(args.image, "") or (
            args.image not in image_status and not images.image_id(client, args.image)
        ):
            backends["docker"] = {"ok": False, "detail": f"image {args.image} is missing: run `agentgym setup`"}
        else:
            ok, detail = check_backend("docker", args.image)
            backends["docker"] = {"ok": ok, "detail": detail}
    else:
        backends["docker"] = {"ok": False, "detail": f"no engine answers ({status.detail}): run `agentgym setup`"}
    ok, detail = check_backend("local", args.image)
    backends["local"] = {"ok": ok, "detail": detail + ("; no isolation (rlimits only)" if ok else "")}
    report["backends"] = backends
    try:
        report["auto_backend"] = resolve_backend("auto")
    except AgentGymError as exc:
        report["auto_backend"] = f"error: {exc}"
    works = any(b["ok"] for b in backends.values())
    if args.json:
        print(json.dumps(report, indent=2))
        return 0 if works else 1
    v = report["versions"]
    print(
        f"agentgym {v['agentgym']}, python {v['python']}, gymnasium {v['gymnasium']}, "
        f"docker SDK {v['docker_sdk']}, docker engine {v['docker_engine']}"
    )
    print(f"engine: {'answers at ' + status.host if status.ok else 'unreachable: ' + status.detail}")
    for name, state in image_status.items():
        print(f"image {name}: {state}")
    for name, b in backends.items():
        print(f"backend {name}: {'works' if b['ok'] else 'does not work'}: {b['detail']}")
    print(f"backend 'auto' uses: {report['auto_backend']}")
    if not works:
        print("no backend works: run `agentgym setup` (as root) and look at the reasons above", file=sys.stderr)
    return 0 if works else 1


# ---------------------------------------------------------------------------- sandbox
def cmd_sandbox_run(args: argparse.Namespace) -> int:
    """Run one command in a fresh sandbox; print its output; exit with its status."""

    cmd = list(args.cmd)
    if cmd and cmd[0] == "--":
        cmd = cmd[1:]
    if not cmd:
        print("agentgym sandbox run: give a command after --, e.g. `agentgym sandbox run -- echo hi`", file=sys.stderr)
        return 2
    argv: str | list[str] = cmd[0] if len(cmd) == 1 else cmd  # one word: a shell command line
    with make_sandbox(args.backend, image=args.image) as sandbox:
        result = sandbox.run(argv, timeout=args.timeout, max_output=args.max_output)
    sys.stdout.buffer.write(result.output)
    sys.stdout.flush()
    if result.timed_out:
        print(f"agentgym sandbox run: timed out after {args.timeout:g} s (process group killed)", file=sys.stderr)
        return 124
    code = result.exit_code
    return 128 + -code if code < 0 else code


def cmd_sandbox_gc(args: argparse.Namespace) -> int:
    """Remove agentgym containers whose owner process is gone (``--all``: every one)."""

    removed = gc(everything=args.all)
    print(f"removed {len(removed)} container(s)" + (f": {' '.join(removed)}" if removed else ""))
    return 0


# ---------------------------------------------------------------------------- wiring
def register(subparsers: Any) -> None:
    """Add ``setup``, ``doctor`` and ``sandbox {run,gc}`` to the ``agentgym`` parser."""

    p = subparsers.add_parser(
        "setup", help="install/start Docker and build the sandbox images (idempotent)", description=cmd_setup.__doc__
    )
    p.add_argument("--rebuild", action="store_true", help="rebuild the base and family images even if present")
    p.add_argument(
        "--base-image",
        metavar="NAME",
        default=None,
        help="build the base FROM this image (needs a registry), instead of bootstrapping Debian offline",
    )
    p.add_argument(
        "--base-tag",
        metavar="TAG",
        default=BASE_IMAGE,
        help=f"tag of the base image to build (default {BASE_IMAGE}; families need the default)",
    )
    p.add_argument("--no-families", action="store_true", help="do not build envs/<family>/Dockerfile images")
    p.add_argument(
        "--only",
        metavar="FAMILY,...",
        default="",
        help="build only these families' images besides the base (e.g. coding; default: every family's)",
    )
    p.add_argument(
        "--engine-timeout", type=float, default=90.0, metavar="S", help="seconds to wait for a started engine to answer"
    )
    p.set_defaults(func=cmd_setup)

    p = subparsers.add_parser(
        "doctor", help="say which sandbox backend works and why another does not", description=cmd_doctor.__doc__
    )
    p.add_argument("--image", default=BASE_IMAGE, help="image to test the docker backend with")
    p.add_argument("--json", action="store_true", help="print the report as JSON")
    p.set_defaults(func=cmd_doctor)

    p = subparsers.add_parser("sandbox", help="run a command in a sandbox, or remove leftover containers")
    sub = p.add_subparsers(dest="sandbox_command", metavar="{run,gc}", required=True)
    r = sub.add_parser("run", help="run one command in a fresh sandbox", description=cmd_sandbox_run.__doc__)
    add_backend_argument(r)
    r.add_argument("--image", default=BASE_IMAGE)
    r.add_argument("--timeout", type=float, default=60.0, help="seconds before the command's process group is killed")
    r.add_argument("--max-output", type=int, default=1 << 20, help="bytes of output kept before the truncation marker")
    r.add_argument("cmd", nargs=argparse.REMAINDER, help="-- CMD [ARG...] (one word is a shell command line)")
    r.set_defaults(func=cmd_sandbox_run)
    g = sub.add_parser(
        "gc", help="remove agentgym containers whose owner process is gone", description=cmd_sandbox_gc.__doc__
    )
    g.add_argument("--all", action="store_true", help="remove every agentgym container, owners alive or not")
    g.set_defaults(func=cmd_sandbox_gc)
