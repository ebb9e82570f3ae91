#!/usr/bin/env bash
# The GPU check of issue 20 (docs/engines.md): on a machine with a CUDA GPU, the batched
# MuJoCo Warp backend's throws per second with its batch size, and the face counts of the
# fair paper d8 with a chi-square test against 1/8. Target: 10^6 paper d8 throws in under
# a minute on one GPU. First a short run at each batch size (it also compiles Warp's
# kernels), then the million throws at the fastest. Run from the repository root:
#   bash benchmarks/gpu_check.sh            # THROWS=1000000 BATCHES="16384 65536" by default
set -euo pipefail
cd "$(dirname "$0")/.."
[ -d .venv ] && . .venv/bin/activate
python -m pip install -q -e '.[engines]' >/dev/null
THROWS=${THROWS:-1000000}
BATCHES=${BATCHES:-"16384 65536"}
nvidia-smi --query-gpu=name,memory.total --format=csv,noheader || echo "gpu_check: nvidia-smi not found"
best=""; best_rate=0
for b in $BATCHES; do
  out=$(python -m benchmarks.bench_engines --backend gpu --batch "$b" --throws "$b" --json)
  rate=$(printf '%s' "$out" | python -c "import json,sys; print(int(json.load(sys.stdin)['throws_per_s']))")
  echo "batch $b: $rate throws/s (short run of $b throws)"
  if [ "$rate" -gt "$best_rate" ]; then best=$b; best_rate=$rate; fi
done
echo "batch $best: $THROWS throws"
python -m benchmarks.bench_engines --backend gpu --batch "$best" --throws "$THROWS"
