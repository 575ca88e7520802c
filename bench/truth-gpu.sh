#!/usr/bin/env bash
# Every number true at any clock and any input, on the GPU: one device call from the repository root,
# under 9 minutes on an H100 (build ~60 s, GPU tests ~75 s, one full run ~100 s, two GEMM runs ~20 s each):
#   OUT=/path bash bench/truth-gpu.sh
# 1. build     cmake --preset $PRESET (default h200: sm_90), every target (the GPU tests need them)
# 2. tests     ctest -L 'gpu|cudahost'
# 3. run 1     roofline run --device $DEVICE: the roofs, the ops and the decode step sweep with J/token at every
#              batch ($OUT/w/run1)
# 4. runs 2, 3 roofline measure --only gemm/fp16: the model's GEMM again, its repeats paired with their own clocks,
#              sustained on normal(0,1) and on all-zero inputs ($OUT/w/run2, run3); skipped past $GEMM_BY seconds
# 5. place     roofline place --ncu on the shared Nsight Compute exports (tests/data/h200-2026-12-03) against run 1
# 6. table     bench/truth_gpu.py: one table per "Done when" → $OUT/truth.md (printed), and run 1's step sweep
#              (bench/step_sweep_table.py)
# Writes at most 6 files: $OUT/truth.log (everything printed), truth.md, build.log, ctest-gpu.log, runs.tgz (the
# run folders, their logs and the place JSON). Exit status: the first failing step's, after the others ran.
set -uo pipefail
. "$(dirname "$0")/lib.sh"
bench_init truth.log
PRESET=${PRESET:-h200}
DEVICE=${DEVICE:-cuda:0}
GEMM_BY=${GEMM_BY:-420}  # seconds into the call after which the GEMM runs are left out (9 min in all)
B=build/$PRESET
R=$B/roofline
W=$OUT/w
mkdir -p "$W"

stage "machine"
machine_gpu
use_torch_cudnn

stage "configure + build (preset $PRESET)"
build_preset "$PRESET" || { fail build 2; exit $status; }

stage "GPU tests (ctest -L 'gpu|cudahost')"
timeout 240 ctest --test-dir "$B" -L 'gpu|cudahost' --output-on-failure > "$OUT/ctest-gpu.log" 2>&1 || fail "ctest -L gpu|cudahost" $?
tail -3 "$OUT/ctest-gpu.log"

stage "run 1: roofline run --device $DEVICE (roofs, ops, the step sweep with its energy)"
timed_run w/run1.log run --device "$DEVICE" --out "$W/run1" || fail "roofline run (1 = a probe failed: errors in results.json)" $?
runs=("$W/run1")
for n in 2 3; do
  if [ $(($(date +%s) - T0)) -gt "$GEMM_BY" ]; then
    echo "run $n left out: $(($(date +%s) - T0)) s into the call (GEMM_BY=$GEMM_BY)"
    continue
  fi
  stage "run $n: roofline measure --device $DEVICE --only gemm/fp16"
  timed_run "w/run$n.log" measure --device "$DEVICE" --only gemm/fp16 --out "$W/run$n" || fail "roofline measure (run $n)" $?
  runs+=("$W/run$n")
done

stage "roofline place on the shared Nsight Compute exports, against run 1's roofs"
place=()
if [ -f "$W/run1/results.json" ]; then
  for f in tests/data/h200-2026-12-03/ncu-*.csv; do
    j="$W/place-$(basename "$f" .csv).json"
    "$R" place --ncu "$f" --results "$W/run1/results.json" --json > "$j" 2> "$j.err" && place+=("$j") \
      || { cat "$j.err"; fail "roofline place --ncu $(basename "$f")" 3; }
  done
fi

stage "tables → $OUT/truth.md"
python3 bench/truth_gpu.py --runs "${runs[@]}" ${place[@]+--place "${place[@]}"} > "$OUT/truth.md" || fail truth_gpu.py $?
[ -f "$W/run1/results.json" ] && { echo; python3 bench/step_sweep_table.py "$W/run1/results.json"; } >> "$OUT/truth.md"
cat "$OUT/truth.md"

tar -C "$OUT" -czf "$OUT/runs.tgz" w && rm -rf "$W"
stage "done (status $status); table: $OUT/truth.md"
exit $status
