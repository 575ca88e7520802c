#!/usr/bin/env bash
# roofline's GEMMs beside PyTorch's, timed in alternation in one process (bench/gemm_pair.py through
# libroofline_gemm_pair.so): the fairest comparison under a power cap, because each pair of samples
# sees the same clock. Builds the h200 preset first (BUILD=0 skips it), runs the GPU tests when
# TESTS=1, logs NVML clocks and power every 100 ms beside the run (nvidia-smi), and writes
# $OUT/gemm-pair.{md,json}, $OUT/smi.csv and $OUT/gemm-pair.log.
#   OUT=/path [ONLY=fp16,bf16] [SIZES="2048 4096"] [SECONDS_PER_SIDE=0.5] bash bench/gemm-pair.sh
set -uo pipefail
cd "$(dirname "$0")/.."
OUT="${OUT:-$PWD/bench-out}"
mkdir -p "$OUT"
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
status=0
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,power.limit,ecc.mode.current,temperature.gpu --format=csv || true
if [ "${BUILD:-1}" = 1 ]; then
  { cmake --preset h200 --log-level=NOTICE && cmake --build --preset h200 -j "$(nproc)"; } > "$OUT/build.log" 2>&1 \
    || { echo "build failed: tail of $OUT/build.log"; tail -30 "$OUT/build.log"; exit 1; }
fi
if [ "${TESTS:-0}" = 1 ]; then
  timeout 300 ctest --test-dir build/h200 -L 'gpu|cudahost' --output-on-failure > "$OUT/ctest-gpu.log" 2>&1 || status=$?
  tail -3 "$OUT/ctest-gpu.log"
fi
nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw,temperature.gpu,clocks_event_reasons.sw_power_cap \
  --format=csv -lms 100 > "$OUT/smi.csv" 2>/dev/null &
smi=$!
# shellcheck disable=SC2086
timeout 420 python3 bench/gemm_pair.py --lib build/h200/libroofline_gemm_pair.so --out "$OUT" \
  ${ONLY:+--only "$ONLY"} ${SIZES:+--sizes $SIZES} --seconds "${SECONDS_PER_SIDE:-1.0}" 2>&1 | tee "$OUT/gemm-pair.log"
rc=${PIPESTATUS[0]}; [ "$rc" -ne 0 ] && [ "$status" -eq 0 ] && status=$rc
kill "$smi" 2>/dev/null
exit $status
