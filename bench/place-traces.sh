#!/usr/bin/env bash
# Your own run on your roofline, on the H200: profile HF TinyLlama eager, compiled (Triton kernels)
# and with CUDA graphs (static cache), plus the README's Nsight Compute command on a small program,
# then `roofline place` each against the H200 roofs, the compiled and graph runs with the eager one as
# the baseline. One device call:
#   OUT=/path bash bench/place-traces.sh   (default ./bench-out; needs nvcc 13, CMake, Ninja, PyTorch,
#                                           transformers, ncu; third_party/ from scripts/vendor-headers.sh)
# Writes $OUT/place.log, $OUT/trace-tinyllama-{eager,compiled,graphs}.json.gz,
# $OUT/ncu-{prog,decode}-recommended.csv (ncu with `roofline place --ncu-metrics`), $OUT/place.tgz (every
# place output and traces.md, the before/after table), $OUT/tpot.json (the TPOT each mode measured).
set -uo pipefail
cd "$(dirname "$0")/.."
OUT="${OUT:-$PWD/bench-out}"
mkdir -p "$OUT/place"
exec > >(tee -a "$OUT/place.log") 2>&1
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1 PYTHONUNBUFFERED=1
T0=$(date +%s)
. bench/lib.sh   # stage, skip, fail (shared with bench/device.sh)
ROOFS=${ROOFS:-tests/data/h200-2026-12-03/results.json}

stage "machine"
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.limit --format=csv || true
python3 -c 'import torch, transformers; print("torch", torch.__version__, "transformers", transformers.__version__)' || true

stage "build (preset h200, roofline only)"
cmake --preset h200 --log-level=NOTICE -DROOFLINE_TESTS=OFF > "$OUT/place/build.log" 2>&1 &&
  cmake --build --preset h200 -j "$(nproc)" --target roofline >> "$OUT/place/build.log" 2>&1 || { tail -30 "$OUT/place/build.log"; exit 1; }
R=./build/h200/roofline

stage "traces: eager, compiled, graphs"
: > "$OUT/tpot.json"
for m in eager compiled graphs; do
  timeout 240 python3 bench/hf_traces.py "$OUT" "$m" 2> "$OUT/place/hf-$m.err" | tail -1 | tee -a "$OUT/tpot.json" || tail -5 "$OUT/place/hf-$m.err"
done

stage "Nsight Compute with the recommended metrics (place --ncu-metrics), clocks left alone"
M=$($R place --ncu-metrics)
timeout 200 ncu --csv --clock-control none --metrics "$M" python3 tests/data/h200-2026-12-03/prog.py \
  > "$OUT/ncu-prog-recommended.csv" 2> "$OUT/place/ncu-prog.err" || tail -5 "$OUT/place/ncu-prog.err"
timeout 240 ncu --csv --clock-control none --profile-from-start off --launch-count 60 --metrics "$M" \
  python3 bench/hf_traces.py "$OUT/place" ncu > "$OUT/ncu-decode-recommended.csv" 2> "$OUT/place/ncu-decode.err" || tail -5 "$OUT/place/ncu-decode.err"

stage "place"
for m in eager compiled graphs; do
  f="$OUT/trace-tinyllama-$m.json.gz"
  [ -f "$f" ] || continue
  gunzip -kf "$f"
  base=()
  [ "$m" != eager ] && [ -f "$OUT/trace-tinyllama-eager.json" ] && base=(--baseline "$OUT/trace-tinyllama-eager.json")
  $R place --trace "${f%.gz}" --results "$ROOFS" --out "$OUT/place/$m" "${base[@]}" > "$OUT/place/$m.txt" 2>&1
  echo "$m: exit $?"; head -40 "$OUT/place/$m.txt"
done
for f in "$OUT"/ncu-*-recommended.csv tests/data/h200-2026-12-03/ncu-*.csv; do
  n=$(basename "$f" .csv)
  $R place --ncu "$f" --results "$ROOFS" --out "$OUT/place/$n" > "$OUT/place/$n.txt" 2>&1
  echo "$n: exit $?"; head -14 "$OUT/place/$n.txt"
done
stage "table"
python3 bench/place_table.py "$OUT"/place/{eager,compiled,graphs} | tee "$OUT/place/traces.md"
rm -f "$OUT"/trace-tinyllama-*.json
tar czf "$OUT/place.tgz" -C "$OUT" place && rm -rf "$OUT/place"
stage "done"
