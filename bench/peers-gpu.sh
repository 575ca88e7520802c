#!/usr/bin/env bash
# roofline's GPU bandwidth levels beside the field's benchmarks, in one run on one GPU:
#   gpu-benches (te42kyfo) gpu-cache (L1), gpu-l2-cache (L2), gpu-stream (DRAM) and BabelStream CUDA
#   (DRAM), beside `roofline measure --only bandwidth`, then one ratio table (bench/peers_table.py gpu).
#   bash bench/fetch-peers.sh                     # once, where the peers' git mirrors are (never committed)
#   OUT=/path bash bench/peers-gpu.sh             # on the GPU machine (the device tool sets $OUT)
# Needs: nvcc (CUDA 12+), CMake, Ninja, python3; header deps in third_party/ (scripts/vendor-headers.sh)
# when the machine has no packages; the peers' sources in bench-peers/ (PEERS=dir to override).
# Order: builds (in parallel), roofline, the peers, the table, then the tests (quick probes + rules).
# Writes (at most 8 files, for the device tool): $OUT/peers-gpu.md (the table), $OUT/results.json
# (roofline's), $OUT/peers-gpu-logs.tgz (every log and raw peer output), $OUT/ctest.log.
# Never changes clocks or power limits. Exit status: 0 when the table was written.
set -uo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
OUT="${OUT:-$ROOT/bench-out}"
PEERS="${PEERS:-$ROOT/bench-peers}"
LOGS="$OUT/logs"
mkdir -p "$OUT" "$LOGS"
exec > >(tee -a "$LOGS/peers-gpu.log") 2>&1
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
T0=$(date +%s)
. bench/lib.sh   # stage, skip, fail (shared with bench/device.sh)
JOBS=$(nproc)
NVCC=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
CUDA_HOME=$(dirname "$(dirname "$NVCC")")
ARCH="${ARCH:-sm_90}"

stage "machine"
MACHINE="$(nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem,power.limit,ecc.mode.current --format=csv,noheader 2>/dev/null | head -1); $(uname -r); $(date -u +%FT%TZ)"
echo "$MACHINE"
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv || true
"$NVCC" --version | tail -1

stage "build roofline (preset h200) and the peers, in parallel"
(
  cmake --preset h200 --log-level=NOTICE >"$LOGS/build-roofline.log" 2>&1 &&
    cmake --build --preset h200 -j "$JOBS" --target roofline test_cudahost test_gpu test_common >>"$LOGS/build-roofline.log" 2>&1
  echo "roofline build exit $?" >>"$LOGS/build-roofline.log"
) &
B1=$!
build_gb() {  # gpu-benches tool: its own Makefile, our arch, CUPTI/NVML from the toolkit (stubs last)
  local d=$1 libs="-L$CUDA_HOME/lib64 -L$CUDA_HOME/lib64/stubs -lcuda"
  [ "$d" != gpu-stream ] && libs="-L$CUDA_HOME/extras/CUPTI/lib64 $libs -lnvidia-ml -lcupti -lnvperf_host -lnvperf_target -Xlinker -rpath -Xlinker $CUDA_HOME/extras/CUPTI/lib64"
  make -C "$PEERS/gpu-benches/$d" -B \
    NVCCFLAGS="-std=c++17 -O3 -arch=$ARCH --compiler-options=-O2,-fopenmp -Xcompiler -rdynamic" \
    INCLUDES="-I$CUDA_HOME/extras/CUPTI/include -I$CUDA_HOME/include" LDFLAGS="$libs" >"$LOGS/build-$d.log" 2>&1
  echo "$d build exit $?" >>"$LOGS/build-$d.log"
}
(for d in gpu-stream gpu-l2-cache gpu-cache; do build_gb $d & done; wait) &
B2=$!
(
  cmake -S "$PEERS/BabelStream" -B "$PEERS/BabelStream/build" -DMODEL=cuda -DCMAKE_CUDA_COMPILER="$NVCC" \
    -DCUDA_ARCH="$ARCH" -DCMAKE_BUILD_TYPE=Release -DCMAKE_EXE_LINKER_FLAGS="-L$CUDA_HOME/lib64/stubs" \
    >"$LOGS/build-babelstream.log" 2>&1 &&
    cmake --build "$PEERS/BabelStream/build" -j 4 >>"$LOGS/build-babelstream.log" 2>&1
  echo "BabelStream build exit $?" >>"$LOGS/build-babelstream.log"
) &
B3=$!
wait $B1 $B2 $B3
tail -n 3 "$LOGS"/build-*.log

stage "roofline measure --only bandwidth"
RUN="$LOGS/roofline"
mkdir -p "$RUN"
timeout 170 ./build/h200/roofline measure --device cuda:0 --only bandwidth --out "$RUN/results.json" >"$LOGS/roofline.log" 2>&1
echo "roofline exit $?"; tail -n 5 "$LOGS/roofline.log"
RESULTS=$(find "$RUN" -name results.json -type f | head -1)
[ -n "$RESULTS" ] && cp "$RESULTS" "$OUT/results.json"

run_peer() {  # name, seconds, command...: the peer's stdout is kept even when the timeout stops it
  local name=$1 secs=$2; shift 2
  stage "$name"
  if [ -x "$1" ]; then
    timeout "$secs" stdbuf -oL "$@" >"$LOGS/$name.txt" 2>&1
    echo "$name exit $? (124 = stopped at ${secs} s; rows before that are kept)"; tail -n 4 "$LOGS/$name.txt"
  else
    echo "$name: not built (see $LOGS/build-*.log)"
  fi
}
run_peer gpu-l2-cache 45 "$PEERS/gpu-benches/gpu-l2-cache/cuda-l2-cache"
run_peer gpu-cache 35 "$PEERS/gpu-benches/gpu-cache/cuda-cache"
run_peer gpu-stream 30 "$PEERS/gpu-benches/gpu-stream/cuda-stream"
# 2^28 doubles = 2 GiB per array, 6 GiB in all (>= 4 × L2 many times over).
BS="$PEERS/BabelStream/build/cuda-stream"  # the CUDA model's binary (older trees: babelstream)
[ -x "$BS" ] || BS="$PEERS/BabelStream/build/babelstream"
run_peer babelstream 30 "$BS" --arraysize 268435456 --numtimes 50 --csv

stage "table"
if [ -f "$OUT/results.json" ]; then
  python3 bench/peers_table.py gpu --roofline "$OUT/results.json" --gpu-cache "$LOGS/gpu-cache.txt" \
    --gpu-l2-cache "$LOGS/gpu-l2-cache.txt" --gpu-stream "$LOGS/gpu-stream.txt" --babelstream "$LOGS/babelstream.txt" \
    --commits "$PEERS/COMMITS" --machine "$MACHINE" --out "$OUT/peers-gpu.md"
  rc=$?
else
  echo "no results.json from roofline"; rc=3
fi
tar -C "$OUT" -czf "$OUT/peers-gpu-logs.tgz" logs

stage "tests: memory levels, sanity rules, GPU bandwidth probes"
timeout 90 ctest --test-dir build/h200 -R 'MemoryLevel|StreamVariants|StreamPattern|SanityRules|Sanity\.|GpuProbes\.Bandwidth' \
  --output-on-failure >"$OUT/ctest.log" 2>&1
echo "ctest exit $?"; tail -n 15 "$OUT/ctest.log"

rm -rf "$LOGS"
stage "done (status $rc)"
exit $rc
