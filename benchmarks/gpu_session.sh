#!/usr/bin/env bash
# The GPU measurements the Performance page waits for, as one command of under ten minutes
# (a session is lent 15 minutes of device time, the machine's start included). From the
# repository root of a copy on the GPU machine:
#
#   TAILSPLIT_COMMIT=<commit> bash benchmarks/gpu_session.sh TOKENIZER_DIR OUT_DIR
#
# TOKENIZER_DIR holds the bundled model's tokenizer.json (the converted model's folder in the
# tailsplit cache, copied into the checkout). tailsplit is read from src/ without an install;
# packages the machine lacks (dill) are installed from the wheels in .whl/ when that folder is
# there. Each step has its own time limit and its benchmark rewrites its results file after
# every stage, so a step cut short keeps what it measured and the steps after it still run; the
# most wanted come first. OUT_DIR receives the results files (copy them into
# benchmarks/results/) and a log. SMOKE=1 runs every step on the CPU at a tiny size: a check of
# the script, not a measurement.
set -uo pipefail
tokenizer=${1:?TOKENIZER_DIR (a folder with tokenizer.json)}
out=${2:?OUT_DIR}
cd "$(dirname "$0")/.."
mkdir -p "$out"
export PYTHONUNBUFFERED=1 PYTHONPATH="$PWD/src${PYTHONPATH:+:$PYTHONPATH}"
if [ -d .whl ]; then
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/tailsplit-site .whl/*.whl \
    && export PYTHONPATH="$PYTHONPATH:/tmp/tailsplit-site" || exit 1
fi

if [ "${SMOKE:-0}" = 1 ]; then
  limits=(600 600 600 600)
  gpu() { python3 benchmarks/bench_gpu.py --tokenizer "$tokenizer" --smoke --shape tiny --pairs 300 --check-pairs 20 \
            --warmup-pairs 20 --reference-pairs 40 --variants transformers native "${@:3}" --json "$out/$1"; }
  planning() { python3 benchmarks/bench_planning.py --pairs 3000 --repeats 1 --json "$out/$1"; }
else
  limits=(270 150 60 100)
  python3 -c 'import torch, sys; sys.exit(0 if torch.cuda.is_available() else "no CUDA GPU: run with SMOKE=1 to check the script")' || exit 1
  nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv | tee "$out/gpu.csv" || true
  gpu() { python3 benchmarks/bench_gpu.py --tokenizer "$tokenizer" --shape "$2" --pairs 570000 "${@:3}" --json "$out/$1"; }
  planning() { python3 benchmarks/bench_planning.py --pairs 570000 --repeats 1 --json "$out/$1"; }
fi
export -f gpu planning
export tokenizer out
fastest=(--variants native-compiled --skip-reference --skip-unshared)
[ "${SMOKE:-0}" = 1 ] && fastest=(--skip-reference --skip-unshared)

status=0
# gpu FILE SHAPE [OPTION...] runs bench_gpu.py (the smoke run ignores SHAPE); planning FILE runs bench_planning.py
step() {  # step LIMIT_S NAME COMMAND...: run with a time limit, log it, remember a failure
  local limit=$1 name=$2
  shift 2
  echo "== $name (at most $limit s)" | tee -a "$out/log.txt"
  timeout "$limit" bash -c '"$@"' _ "$@" 2>&1 | tee -a "$out/log.txt"
  local code=${PIPESTATUS[0]}
  echo "== $name: exit $code" | tee -a "$out/log.txt"
  [ "$code" = 0 ] || status=1
}
# 1. the bundled shape: every variant, numerics, prefix sharing off, the reference recipe (goal: <= 15 s)
step "${limits[0]}" bundled gpu gpu_h100_bundled.json bundled
# 2. the 302M shape's MFU (goal: >= 35%), the fastest variant
step "${limits[1]}" gpt2-medium gpu gpu_h100_gpt2_medium.json gpt2-medium "${fastest[@]}"
# 3. tokenising and planning on the GPU machine's cores (goal: <= 4 s)
step "${limits[2]}" planning planning planning_gpu_host.json
# 4. a 1B shape, measured and reported
step "${limits[3]}" 1b gpu gpu_h100_1b.json 1b "${fastest[@]}"
exit "$status"
