#!/usr/bin/env bash
# The BudgetMix --full experiment on the GPU machine (one H200, 16 cores, no Docker; it has torch,
# numpy, matplotlib, pytest and tensorboard, not gymnasium, docker or tqdm), in about 8 minutes:
# 5 schedules x 12 seeds x 8,000 env steps, trained and evaluated in one worker process per core.
#
#   bash scripts/gpu_check.sh --fetch     # here, with package access: the small wheels it lacks, into .whl/
#   bash scripts/gpu_check.sh [ARGS...]   # there (carry .whl): install them, run --full, print the figures
#
# The run uses the local sandbox backend and Coding-v0's result cache (memory per worker process,
# over one disk store all workers share, in the user's cache folder). ARGS go to `python -m baselines.budgetmix --full`
# (e.g. `--total-env-steps 500 --seeds 1,2 --eval-tasks 40 --workers 2` for a short check; that is
# how it was proven on a 2-core CPU machine). Output goes to $OUT (the device tool's result folder)
# or runs/gpu_check; it prints env steps/s per training run and for the whole grid, the peak GPU
# memory, the wall times and the report's headline and contrast tables.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
PYTHON="${PYTHON:-$(command -v python3 || command -v python)}"
WHEELS=.whl
SMALL_WHEELS=(gymnasium==1.4.0 cloudpickle farama-notifications typing-extensions tqdm)

if [ "${1:-}" = "--fetch" ]; then
    mkdir -p "$WHEELS"
    "$PYTHON" -m pip download --no-deps --only-binary=:all: -d "$WHEELS" "${SMALL_WHEELS[@]}"
    du -sh "$WHEELS"
    exit 0
fi

missing=()
for mod in gymnasium cloudpickle farama_notifications typing_extensions tqdm; do
    "$PYTHON" -c "import $mod" 2>/dev/null || missing+=("$mod")
done
if [ ${#missing[@]} -gt 0 ]; then
    echo "installing from $WHEELS: ${missing[*]}"
    "$PYTHON" -m pip install -q --no-index --no-deps --find-links "$WHEELS" "${missing[@]//_/-}"
fi
export PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}"

OUTDIR="${OUT:-runs}/gpu_check"
mkdir -p "$OUTDIR"
echo "== machine"
nproc
command -v nvidia-smi >/dev/null && nvidia-smi --query-gpu=name,memory.total,memory.used --format=csv || true
"$PYTHON" -c 'import torch; print("torch", torch.__version__, "cuda", torch.cuda.is_available())'

echo "== python -m baselines.budgetmix --full --backend local $*"
start=$(date +%s)
"$PYTHON" -m baselines.budgetmix --full --backend local --no-progress --out "$OUTDIR" "$@" 2>&1 | tee "$OUTDIR/log.txt"
echo "wall: $(( $(date +%s) - start )) s"

echo "== figures"
"$PYTHON" - "$OUTDIR" <<'PY'
import json, pathlib, sys
out = pathlib.Path(sys.argv[1])
runs = sorted(out.glob("*-s*/summary.json"))
steps = secs = 0.0
for p in runs:
    s = json.loads(p.read_text())
    steps += s["env_steps"]; secs += s["seconds"]
    cache = s.get("result_cache") or {}
    hits = ", ".join(f"{k} {c['hits']}/{c['hits'] + c['misses']}" for k, c in cache.items()) or "off"
    print(f"{p.parent.name}: {s['steps_per_second']:.0f} env steps/s, update {s.get('update_seconds', 0):.0f} s, "
          f"straggler {s.get('straggler_seconds', 0):.1f} s, cache hits {hits}, GPU peak {s.get('cuda_max_memory_mb')} MB, "
          f"device {s['device']}")
print(f"training, mean over runs: {steps / max(secs, 1e-9):.0f} env steps/s per run")
timing = json.loads((out / "timing.json").read_text()) if (out / "timing.json").exists() else {}
if timing.get("train_env_steps"):
    print(f"training, whole grid: {timing['train_env_steps'] / timing['train_seconds']:.0f} env steps/s "
          f"({timing['train_env_steps']} env steps in {timing['train_seconds']:.0f} s wall)")
print(json.dumps(timing, indent=1) if timing else "no timing.json")
report = (out / "report.md").read_text() if (out / "report.md").exists() else ""
keep, on = [], False
for line in report.splitlines():
    if line.startswith("## "):
        on = line.startswith(("## Success at each budget", "## Contrasts named", "## Throughput"))
    if on:
        keep.append(line)
print("\n".join(keep))
PY
