#!/usr/bin/env bash
# The GPU checks and measurements the Performance page waits for, in two parts of about six
# minutes each (a session is lent 15 minutes of device time, the machine's start included: one
# part, run once, leaves time to rerun it). From the repository root of a copy on the GPU machine:
#
#   PART=1 TAILSPLIT_COMMIT=<commit> bash benchmarks/gpu/gpu_session.sh TOKENIZER_DIR OUT_DIR
#
# PART=1 (the default; the most wanted): the device tests, the bundled shape on 570,000 pairs
# (today's eager native model against every lever: end to end, scored alone, a profile,
# numerics), and the whole Likelihood Split of 570,000 pairs (score, then split with its
# analysis, as commands). PART=2: the 302M, 1B and 8B shapes' MFU, then each lever's share. PART=all runs
# both (about 12 minutes: over one command's limit of ten).
#
# TOKENIZER_DIR holds the bundled model's tokenizer.json (the converted model's folder in the
# tailsplit cache, copied into the checkout: `python -m benchmarks.gpu.stage` stages it as
# .gpu/tokenizer, and the wheels below as .whl). tailsplit is read from src/ without an install;
# packages the machine lacks (nltk, sqlglot, gguf, dill: not typer, rich or click, which the
# machine has, and a carried typer 0.29 fails there for want of pydantic) are installed from
# the wheels in WHEEL_DIR (default .whl) when that folder is there. Each step has
# its own time limit and its benchmark rewrites its results file after every stage, so a step
# cut short keeps what it measured and the steps after it still run. OUT_DIR receives the
# results files (named after the card: gpu_h200_native.json, ...; copy them into
# benchmarks/results/), the tests' report and a log. SMOKE=1 runs every step of the part on the
# CPU at a tiny size: a check of the script, not a measurement.
set -uo pipefail
tokenizer=$(realpath "${1:?TOKENIZER_DIR (a folder with tokenizer.json)}")
out=$(realpath -m "${2:?OUT_DIR}")
cd "$(dirname "$0")/../.."
mkdir -p "$out"
source benchmarks/gpu/gpu_setup.sh

part=${PART:-1}
if [ "${SMOKE:-0}" = 1 ]; then
  limits=(900 600 600 600 600 600 600 600 600)
  gpu() { python3 -m benchmarks.speed.bench_gpu --tokenizer "$tokenizer" "${@:3}" --smoke --shape tiny --pairs 300 --check-pairs 20 \
            --warmup-pairs 20 --reference-pairs 40 --json "$out/$1"; }
  moonshot() { python3 -m benchmarks.speed.bench_moonshot --tokenizer "$tokenizer" --smoke "${@:2}" --json "$out/$1"; }
  planning() { python3 -m benchmarks.speed.bench_planning --tokenizer "$tokenizer" --pairs 3000 --repeats 1 --json "$out/$1"; }
  echo "smoke, 0 MiB, none, 0 MHz" > "$out/gpu.csv"
else
  # part 1: tests, bundled, moonshot (360 s); part 2: 302M, 1B, 8B, levers (350 s)
  limits=(60 190 110 55 55 170 70 45 200)
  nvidia-smi --query-gpu=name,memory.total,driver_version,clocks.max.sm --format=csv,noheader | tee "$out/gpu.csv" || true
  gpu() { python3 -m benchmarks.speed.bench_gpu --tokenizer "$tokenizer" --shape "$2" "${@:3}" --json "$out/$1"; }
  moonshot() { python3 -m benchmarks.speed.bench_moonshot --tokenizer "$tokenizer" "${@:2}" --json "$out/$1"; }
  planning() { python3 -m benchmarks.speed.bench_planning --tokenizer "$tokenizer" --pairs 570000 --repeats 1 --json "$out/$1"; }
fi
export -f gpu moonshot planning
export tokenizer out
# eager native (measured faster than transformers' model and than whole-model compiling on the
# H200) against the levers (--fused, --attention varlen); each run also times its planned
# batches scored alone (MFU while scoring) and checks every variant's numerics
fastest=(--variants native native-all --numerics-variants native native-all --skip-reference --skip-unshared
         --scoring-alone)
levers=(--variants native-fused native-fused-varlen --numerics-variants native-fused native-fused-varlen
        --skip-reference --skip-unshared)
status=0
# gpu FILE SHAPE [OPTION...] runs bench_gpu.py (the smoke run ignores SHAPE); planning FILE runs bench_planning.py
step() {  # step LIMIT_S NAME COMMAND...: run with a time limit, log it, remember a failure
  local limit=$1 name=$2
  shift 2
  echo "== $name (at most $limit s) $(date -u +%T)" | tee -a "$out/log.txt"
  timeout "$limit" bash -c '"$@"' _ "$@" 2>&1 | tee -a "$out/log.txt"
  local code=${PIPESTATUS[0]}
  echo "== $name: exit $code $(date -u +%T)" | tee -a "$out/log.txt"
  [ "$code" = 0 ] || status=1
}
in_part() { [ "$part" = all ] || [ "$part" = "$1" ]; }
if in_part 1; then
  # 0. correct first: the tests of the GPU levers, on the device (tiny random Llama, the bundled
  #    tokenizer); their report becomes gpu_<card>_tests.json
  step "${limits[0]}" tests env TAILSPLIT_TEST_TOKENIZER="$tokenizer" python3 -m pytest -q -p no:cacheprovider -m gpu \
    --device "$device" --junitxml "$out/gpu_tests.xml" -W ignore tests/scoring/test_gpu_device.py tests/scoring/test_gpu_levers.py \
    tests/scoring/test_fused_regions.py tests/scoring/test_varlen_attention.py \
    tests/scoring/test_language_model.py
  python3 -m benchmarks.gpu.junit_results "$out/gpu_tests.xml" "$out/gpu.csv" --json "$out/gpu_${card}_tests.json" || status=1
  # 1. the bundled shape on 570,000 pairs, today's eager native model against every lever
  #    (--fused, --attention varlen, --planner process; goal: <= 12 s end to end, element-wise
  #    kernels <= 25% of kernel time): end to end, the batches alone, the host's whole path on
  #    100,000 pairs under cProfile (what neither planning nor the batches account for), a
  #    profile of batches from the middle of a plan (of the faster)
  step "${limits[1]}" bundled gpu "gpu_${card}_native.json" bundled --pairs 570000 "${fastest[@]}" --check-pairs 20 \
    --warmup-pairs 2000 --host-profile-pairs 100000 --profile-batches 3
  # 2. the whole Likelihood Split of 570,000 pairs as a user runs it: score (every lever), then
  #    split with its analysis, each a fresh process (goal: <= 30 s in all; the host's work on
  #    all its cores)
  step "${limits[2]}" moonshot moonshot "moonshot_${card}.json"
fi
if in_part 2; then
  # 3. the 302M shape's MFU (goal: >= 35% end to end), 50,000 pairs per variant
  step "${limits[3]}" gpt2-medium gpu "gpu_${card}_gpt2_medium.json" gpt2-medium --pairs 50000 "${fastest[@]}" --check-pairs 20
  # 4. a 1B shape (goal: >= 45% end to end), 30,000 pairs per variant
  step "${limits[4]}" 1b gpu "gpu_${card}_1b.json" 1b --pairs 30000 "${fastest[@]}" --check-pairs 20 --warmup-pairs 1000
  # 5. an 8B-class Llama (32 x 4096, 8 KV heads; goal: >= 50% end to end) on 50,000 pairs, every
  #    lever; bf16 against the device's float32 on identical weights (a CPU would take minutes)
  step "${limits[5]}" 8b gpu "gpu_${card}_8b.json" 8b --pairs 50000 --variants native-all --numerics-variants native-all \
    --numerics-reference device --skip-reference --skip-unshared --scoring-alone --check-pairs 20 --warmup-pairs 500
  # 6. each lever's share, at the bundled shape on 200,000 pairs: fused regions alone, then with
  #    variable-length attention (the planner's share is step 1's difference)
  step "${limits[6]}" levers gpu "gpu_${card}_levers.json" bundled --pairs 200000 "${levers[@]}" --check-pairs 20 \
    --warmup-pairs 2000
fi
# 7. tokenising and planning alone on the GPU machine's cores (goal: <= 4 s), when asked for
if [ "${PLANNING:-0}" = 1 ] || { [ "${SMOKE:-0}" = 1 ] && in_part 2; }; then
  step "${limits[7]}" planning planning "planning_${card}_host.json"
fi
# 8. the compiled native model at the bundled shape, when asked for
if [ "${COMPILED:-0}" = 1 ]; then
  step "${limits[8]}" compiled gpu "gpu_${card}_bundled_compiled.json" bundled --pairs 570000 --variants native-compiled \
    --skip-reference --skip-unshared --check-pairs 20 --numerics-variants native
fi
exit "$status"
