#!/usr/bin/env bash
# README command (1): the main job. Installs what the experiment needs (agentgym with its `train`
# extra and torch 2.13.0; README command (2) installs the rest for the tests), uses Docker when it
# answers (starting it with `agentgym setup` when run as root) and otherwise chooses the local
# backend by name (and says so), then runs the BudgetMix baseline (arguments go to it). Until that
# baseline exists it runs the doctor and a sandbox demo.
#
# Where its time goes (issue 34 item 7): pip's resolver takes 35-40 s even when everything is
# installed, so a checkout whose requirements are all met skips the install (`scripts/requirements_met.py`);
# on a fresh machine `agentgym setup` (Docker engine, base image, Coding's image: under a minute) runs
# in the background while torch installs (with uv, `scripts/install.py`), once agentgym's own small
# dependencies are in.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

PYTHON="${PYTHON:-$(command -v python3 || command -v python)}"
step() { printf '\n== %s (%s)\n' "$1" "$(date +%H:%M:%S)"; }

if "$PYTHON" -c 'import sys, sysconfig, os; sys.exit(not os.path.exists(os.path.join(sysconfig.get_path("stdlib"), "EXTERNALLY-MANAGED")))'; then
    export PIP_BREAK_SYSTEM_PACKAGES=1
fi

# With no arguments the job is the Coding-v0 experiment, which needs the base and Coding's image
# only: the Chromium, MiniWoB and BFCL images (about 25 s on a fresh machine) are left to
# README command (2) or a later `agentgym setup`. With arguments (another preset), every image.
setup_args=()
[ "$#" -gt 0 ] || setup_args=(--only coding)
setup_pid=""
setup_log=""
start_setup() {  # `agentgym setup` in the background (root only); its log is printed when it ends
    [ "$(id -u)" -eq 0 ] || return 0
    setup_log="$(mktemp -t agentgym-setup.XXXXXX)"
    "$PYTHON" -m agentgym setup "${setup_args[@]}" >"$setup_log" 2>&1 &
    setup_pid=$!
}

step "install"
if "$PYTHON" scripts/requirements_met.py train 2>/dev/null; then
    echo "agentgym (this checkout, with its train extra) and torch 2.13.0 are installed: pip skipped"
else
    # agentgym's own dependencies first (seconds): enough for `agentgym setup`, which then builds the
    # Docker images while torch (pinned: a looser pin pulls CUDA builds) and the train extra install;
    # scripts/install.py installs with uv (pip's settings passed on), else pip
    "$PYTHON" scripts/install.py -e .
    start_setup
    nice -n 10 "$PYTHON" scripts/install.py torch==2.13.0 -e '.[train]'  # niced: the set-up comes first
fi

step "sandbox backend"
if [ "$(id -u)" -eq 0 ]; then
    [ -n "$setup_pid" ] || start_setup
    setup_ok=1
    wait "$setup_pid" || setup_ok=0
    cat "$setup_log"
    rm -f "$setup_log"
    if [ "$setup_ok" -eq 0 ]; then
        echo "agentgym setup failed: continuing with the local backend (no isolation)" >&2
    fi
else
    echo "not root: skipping \`agentgym setup\`; Docker is used if it already answers"
fi
# "auto" never falls back to the host by itself: without an engine, choose the local backend by name.
if [ -z "${AGENTGYM_BACKEND:-}" ] && ! "$PYTHON" -c 'import sys; from agentgym.sandbox.docker import engine_available; sys.exit(not engine_available())'; then
    export AGENTGYM_BACKEND=local
    echo "no Docker engine answers: running with AGENTGYM_BACKEND=local (agent code runs on this host, not isolated)"
fi

if [ -f baselines/budgetmix.py ]; then
    step "python -m baselines.budgetmix $*"
    exec "$PYTHON" -m baselines.budgetmix "$@"
fi
step "agentgym doctor"
"$PYTHON" -m agentgym doctor
step "sandbox demo"
"$PYTHON" -m agentgym sandbox run -- python3 -c \
    'import os, platform, sys; print(f"hello from a sandbox: uid {os.getuid()}, python {sys.version.split()[0]}, {platform.node()}")'
