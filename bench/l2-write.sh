#!/usr/bin/env bash
# Is the GPU's L2 write rate the L2's or the SMs' store path's? One run on the GPU machine:
#   OUT=/path bash bench/l2-write.sh [--probe]
# 1. builds bench/l2_write_scaling.cu (nvcc -O3 -arch=sm_90; our own code, no peer's) and runs it:
#    read, st.global write and TMA bulk-store writes at 15 MiB (L2) and 4 GiB (HBM) on 16, 33, 66, 99
#    and all SMs; the table (and how to read it: the comment header of the .cu) goes to
#    $OUT/l2-write-scaling.md;
# 2. with --probe: builds roofline (preset h200, target roofline only) and runs
#    `roofline measure --only bandwidth/write,bandwidth/copy` into $OUT/probe/, then lists the write and
#    copy points with the kernel each size picked ($OUT/probe-points.md): on an sm_90 device the TMA
#    bulk-store variants ("stores: TMA bulk (cp.async.bulk), tile N KiB") are among the candidates.
# Everything is logged to $OUT/log.txt. About 1 minute for step 1, 3–4 minutes with --probe.
set -uo pipefail
cd "$(dirname "$0")/.."
OUT="${OUT:-$PWD/bench-out/l2-write}"
mkdir -p "$OUT"
exec > >(tee -a "$OUT/log.txt") 2>&1
T0=$(date +%s)
stage() { echo; echo "=== [$(($(date +%s) - T0)) s] $*"; }

stage machine
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,power.limit,temperature.gpu --format=csv || true
date -u +%Y-%m-%dT%H:%M:%SZ

stage "build bench/l2_write_scaling.cu (nvcc -O3 -arch=sm_90)"
mkdir -p build/bench
NVCC="${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}"
"$NVCC" -O3 -std=c++17 -arch=sm_90 -lineinfo -Xptxas=-v -o build/bench/l2_write_scaling bench/l2_write_scaling.cu 2>"$OUT/ptxas.txt" \
  || { cat "$OUT/ptxas.txt"; echo "build failed"; exit 2; }
grep -E "registers|spill" "$OUT/ptxas.txt" | head -20

stage "run l2_write_scaling"
timeout 240 build/bench/l2_write_scaling | tee "$OUT/l2-write-scaling.md"
echo "l2_write_scaling exit ${PIPESTATUS[0]}"

if [ "${1:-}" = "--probe" ]; then
  stage "build roofline (preset h200)"
  cmake --preset h200 --log-level=NOTICE >/dev/null || { echo "configure failed"; exit 2; }
  timeout 300 cmake --build --preset h200 -j "$(nproc)" --target roofline test_cudahost 2>&1 | grep -E "error|warning|FAILED" | head -40
  [ -x build/h200/roofline ] || { echo "build failed"; exit 2; }
  [ -x build/h200/tests/test_cudahost ] && timeout 30 build/h200/tests/test_cudahost --gtest_filter='StreamBulk.*:StreamVariants.*' 2>&1 | tail -3

  stage "roofline measure --only bandwidth/write,bandwidth/copy"
  rm -rf "$OUT/probe"
  timeout 240 build/h200/roofline measure --device cuda:0 --only bandwidth/write,bandwidth/copy --out "$OUT/probe" \
    >"$OUT/probe.log" 2>&1
  echo "roofline exit $?"; tail -n 5 "$OUT/probe.log"
  if [ -f "$OUT/probe/results.json" ]; then
    python3 - "$OUT/probe/results.json" <<'EOF' | tee "$OUT/probe-points.md"
import json, sys
r = json.load(open(sys.argv[1]))
print("| pattern | level | working set (MiB) | GB/s | kernel |")
print("|---|---|---|---|---|")
for b in r.get("measured", {}).get("bandwidth", []):
    kernel = next((f for f in b.get("flags", []) if f.startswith("kernel: ")), "")
    print(f"| {b['pattern']} | {b['level']} | {b['working_set_bytes'] / 2**20:.4g} | {b['bytes_per_s'] / 1e9:,.0f} | {kernel} |")
for e in r.get("errors", []):
    print("error:", e)
EOF
  fi
fi
stage done
