#!/usr/bin/env bash
# The fairness check on pooled SNLI with task models trained on a GPU (the scoring LM fine-tuned
# as a classifier, and the encoder), as one command of under ten minutes. From the repository
# root of a copy on the GPU machine:
#
#   TAILSPLIT_COMMIT=<commit> bash benchmarks/gpu/gpu_fairness.sh SNLI_DIR OUT_DIR [SPLITS_DIR]
#
# SNLI_DIR holds dev.jsonl.gz and test.jsonl.gz (the shared data's layout). SPLITS_DIR, where
# given, holds split folders made beforehand (aflite), copied in so that they are not made
# again. The bundled model and encoder must be importable (benchmarks/gpu/weights.py unpacks
# them where the machine cannot install them). Scores in
# float32 (as on a CPU), then trains each (seed, baseline, split) in a process of its own, 14 at
# a time: seed 0 first, seeds 1 and 2 after it until DEADLINE_S (default 480) seconds from the
# start; the whole stops at LIMIT_S (default 540), leaving time to pack what it made. The embed
# baseline is left to the CPU (its logistic regressions were the stragglers on the H200, behind
# 14 training processes): read the table back there with the archive's cache, adding
# --baseline embed (fairness_snli.py's docstring says how). Writes
# OUT_DIR/snli_fairness_<card>.json after every seed, and the splits' and evaluations' small files
# as OUT_DIR/fairness_<card>.tar.gz. SMOKE=1 runs it on the CPU on the first 150 pairs of each
# file: a check of the script, not a result.
set -uo pipefail
snli=$(realpath "${1:?SNLI_DIR}")
out=$(realpath -m "${2:?OUT_DIR}")
splits=${3:+$(realpath "$3")}
cd "$(dirname "$0")/../.."
mkdir -p "$out"
source benchmarks/gpu/gpu_setup.sh
work=${WORK_DIR:-/tmp/tailsplit-fairness}
mkdir -p "$work"
export TAILSPLIT_CACHE_DIR=$work/cache  # its trained runs come back in the archive
if [ -n "$splits" ]; then cp -r "$splits"/. "$work"/; fi
if [ "${SMOKE:-0}" = 1 ]; then
  mkdir -p "$work/data"
  for part in dev test; do
    python3 -c 'import gzip, sys; lines = gzip.open(sys.argv[1], "rt").readlines()[:150]; gzip.open(sys.argv[2], "wt").writelines(lines)' \
      "$snli/$part.jsonl.gz" "$work/data/$part.jsonl.gz"
  done
  snli=$work/data
  recipe=(--max-steps 4 --seeds 0,1 --deadline-s 3000 --workers 4)
  limit=3600
else
  recipe=(--max-steps "${MAX_STEPS:-1000}" --seeds 0,1,2 --deadline-s "${DEADLINE_S:-480}")
  limit=${LIMIT_S:-540}
fi
# AFLite is split on a CPU beforehand (about an hour on 2 cores: its filter is sequential) and
# carried in SPLITS_DIR; without it the run leaves AFLite out
[ -f "$work/aflite/manifest.json" ] || recipe+=(--without aflite)
echo "== fairness $(date -u +%T)" | tee -a "$out/fairness_log.txt"
timeout "$limit" python3 -m benchmarks.evidence.fairness_snli --data-dir "$snli" --out "$work" --baseline encoder --baseline lm \
  --device "$device" --score-dtype float32 --parallel "${recipe[@]}" --json "$out/snli_fairness_${card}.json" \
  2>&1 | tee -a "$out/fairness_log.txt"
code=${PIPESTATUS[0]}
echo "== fairness: exit $code $(date -u +%T)" | tee -a "$out/fairness_log.txt"
(cd "$work" && tar czf "$out/fairness_${card}.tar.gz" --exclude='./*/scores.parquet' --exclude=scratch --exclude=data \
  --exclude=cache/models --exclude='cache/*.sqlite' --exclude=train.jsonl --exclude=dev.jsonl --exclude=test.jsonl .) || true
exit "$code"
