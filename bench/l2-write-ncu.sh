#!/usr/bin/env bash
# Nsight Compute's DRAM and L2 counters over bench/l2_write_scaling.cu: does a write to an L2-sized
# working set reach DRAM? One run on the GPU machine (about 20 s on an H200; ncu must be able to
# read the counters, e.g. not under gVisor):
#   OUT=/path bash bench/l2-write-ncu.sh
# Writes $OUT/ncu.csv (raw), $OUT/l2-write-ncu.md (bench/l2_write_ncu.py). Clocks are left alone
# (--clock-control none) and caches are not flushed between replays (--cache-control none).
set -euo pipefail
cd "$(dirname "$0")/.."
OUT="${OUT:-$PWD/bench-out/l2-write-ncu}"
mkdir -p "$OUT" build/bench
NVCC="${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}"
"$NVCC" -O3 -std=c++17 -arch=sm_90 -o build/bench/l2_write_scaling bench/l2_write_scaling.cu
{ nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit,ecc.mode.current --format=csv,noheader
  date -u +%FT%TZ; ncu --version | tail -1; } >"$OUT/machine.txt"
ncu --clock-control none --cache-control none -k scaling_kernel \
  --metrics gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sectors_op_read.sum,lts__t_sectors_op_write.sum \
  --csv --page raw build/bench/l2_write_scaling >"$OUT/ncu.csv"
python3 bench/l2_write_ncu.py "$OUT/ncu.csv" | tee "$OUT/l2-write-ncu.md"
