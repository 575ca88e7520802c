#!/usr/bin/env bash
# roofline's fleet on two GPUs beside nccl-tests, in one device call (one 2-GPU machine, ≤ 10 min):
# build roofline (preset h200) and nccl-tests (in parallel), `mpirun -np 2 roofline run --quick`,
# nccl-tests' all_reduce / all_gather / reduce_scatter / alltoall / broadcast / sendrecv over
# 8 B … 512 MiB in fp16 (-d half, ×2 steps, both GPUs in one process: -g 2), the table
# (bench/fleet_table.py: busbw in and out of place and smallest-message latency, targets busbw ≥ 0.97×
# nccl-tests in place at 512 MiB and latency ≤ 1.2×), then the GPU tests one at a time.
#   bash bench/fetch-peers.sh nccl-tests            # here, once: nccl-tests' source into bench-peers/
#                                                   # (git-ignored, never committed)
#   OUT=/path bash bench/fleet-2gpu.sh              # on the 2-GPU machine (the device tool: kind
#                                                   # nvidia-h200-x2, carry ["third_party", "bench-peers"])
# Then copy $OUT/fleet-2gpu.md to bench/results/h200-x2/<date>-<commit>/bench.md (it names the machine and date).
# Writes (few files, for the device tool): $OUT/fleet-2gpu.md (the table), $OUT/fleet.json,
# $OUT/fleet.md, $OUT/fleet.html (roofline's fleet report), $OUT/ctest-gpu.log,
# $OUT/fleet-2gpu-logs.tgz (every log, nccl-tests' raw outputs, each rank's results).
# NCCL: the one the dynamic loader finds (ldconfig), else PyTorch's wheel copy
# (site-packages/nvidia/nccl); roofline is pointed at the same file with --nccl, nccl-tests links it.
# NVLink multicast (NVLS) stays off: NCCL_NVLS_ENABLE=0 for every process here.
# Never changes clocks or power limits. Exit status: 0 when the table was written.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
ROOT=$PWD
OUT="${OUT:-$ROOT/bench-out}"
PEERS="${PEERS:-$ROOT/bench-peers}"
LOGS="$OUT/logs"
mkdir -p "$OUT" "$LOGS/nccl-tests"
exec > >(tee -a "$LOGS/fleet-2gpu.log") 2>&1
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
T0=$(date +%s)
BUDGET=${BUDGET:-570}  # seconds for the whole call (the device tool stops a command at 600)
. bench/lib.sh   # stage, skip, fail (shared with bench/device.sh)
left() { echo $((BUDGET - ($(date +%s) - T0))); }
JOBS=$(nproc)
NVCC=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
CUDA_HOME=$(dirname "$(dirname "$NVCC")")
ARCH="${ARCH:-90}"

stage "machine"
MACHINE="$(nvidia-smi --query-gpu=name,driver_version,power.limit --format=csv,noheader 2>/dev/null | paste -sd ';' -); $(uname -r); $(date -u +%FT%TZ)"
echo "$MACHINE"
nvidia-smi topo -m || true
"$NVCC" --version | tail -1
command -v mpirun >/dev/null || echo "!!! mpirun not found: the fleet run cannot start (apt package openmpi-bin)"

stage "NCCL"
NCCL_LIB=$(ldconfig -p 2>/dev/null | awk '/libnccl\.so\.2 /{print $NF; exit}')
WHEEL=$(python3 -c 'import nvidia.nccl as m; print(list(m.__path__)[0])' 2>/dev/null || true)
[ -z "$NCCL_LIB" ] && [ -n "$WHEEL" ] && [ -f "$WHEEL/lib/libnccl.so.2" ] && NCCL_LIB="$WHEEL/lib/libnccl.so.2"
# nccl.h for nccl-tests: beside the library (<prefix>/lib/../include), the system's, the toolkit's,
# else the wheel's; and a lib/ with the link name -lnccl wants (a wheel ships only libnccl.so.2)
NCCL_HOME="$PEERS/nccl-home"
rm -rf "$NCCL_HOME" && mkdir -p "$NCCL_HOME/lib"
for inc in ${NCCL_LIB:+"$(dirname "$(dirname "$NCCL_LIB")")/include"} /usr/include "$CUDA_HOME/include" ${WHEEL:+"$WHEEL/include"}; do
  if [ -f "$inc/nccl.h" ]; then ln -s "$inc" "$NCCL_HOME/include"; break; fi
done
[ -n "$NCCL_LIB" ] && ln -s "$NCCL_LIB" "$NCCL_HOME/lib/libnccl.so" && ln -s "$NCCL_LIB" "$NCCL_HOME/lib/libnccl.so.2"
echo "libnccl: ${NCCL_LIB:-none found}; nccl.h: $(readlink -f "$NCCL_HOME/include/nccl.h" 2>/dev/null || echo none)"
grep -h 'define NCCL_\(MAJOR\|MINOR\|PATCH\)' "$NCCL_HOME/include/nccl.h" 2>/dev/null | tr '\n' ' '; echo
export LD_LIBRARY_PATH="$NCCL_HOME/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"

stage "build roofline (preset h200) and nccl-tests, in parallel"
(
  cmake --preset h200 --log-level=NOTICE >"$LOGS/build-roofline.log" 2>&1 &&
    cmake --build --preset h200 -j "$JOBS" >>"$LOGS/build-roofline.log" 2>&1
  echo "roofline build exit $?" >>"$LOGS/build-roofline.log"
) &
B1=$!
(
  if [ -d "$PEERS/nccl-tests" ]; then
    make -C "$PEERS/nccl-tests" -j "$JOBS" MPI=0 CUDA_HOME="$CUDA_HOME" NCCL_HOME="$NCCL_HOME" \
      NVCC_GENCODE="-gencode=arch=compute_$ARCH,code=sm_$ARCH" >"$LOGS/build-nccl-tests.log" 2>&1
    echo "nccl-tests build exit $?" >>"$LOGS/build-nccl-tests.log"
  else
    echo "no $PEERS/nccl-tests: run bash bench/fetch-peers.sh nccl-tests first" >"$LOGS/build-nccl-tests.log"
  fi
) &
B2=$!
wait $B1 $B2
tail -n 3 "$LOGS"/build-*.log
grep -h "roofline backends\|MPI" "$LOGS/build-roofline.log" | head -3

stage "roofline fleet: mpirun -np 2 roofline run --quick"
NCCL_FLAG=()
[ -n "$NCCL_LIB" ] && NCCL_FLAG=(--nccl "$NCCL_LIB")
timeout 240 mpirun --allow-run-as-root -np 2 -x NCCL_NVLS_ENABLE -x LD_LIBRARY_PATH \
  ./build/h200/roofline run --quick "${NCCL_FLAG[@]}" --out "$LOGS/fleet" >"$LOGS/fleet-run.log" 2>&1
echo "fleet run exit $? (0 complete, 1 partial: see fleet.md's errors)"
grep -E "^\[rank [01]/2\]" "$LOGS/fleet-run.log" | tail -n 6
for f in fleet.json fleet.md fleet.html; do [ -f "$LOGS/fleet/$f" ] && cp "$LOGS/fleet/$f" "$OUT/$f"; done
grep -A 14 "### Communication roofs" "$OUT/fleet.md" 2>/dev/null

stage "nccl-tests: 8 B … 512 MiB, fp16, 2 GPUs"
for t in all_reduce all_gather reduce_scatter alltoall broadcast sendrecv; do
  bin="$PEERS/nccl-tests/build/${t}_perf"
  if [ -x "$bin" ]; then
    timeout 45 "$bin" -b 8 -e 512M -f 2 -d half -g 2 -w 5 -n 20 >"$LOGS/nccl-tests/${t}_perf.txt" 2>&1
    echo "$t exit $? (124 = stopped at 45 s; rows before that are kept)"
    grep -E "^ +536870912 " "$LOGS/nccl-tests/${t}_perf.txt" || tail -n 3 "$LOGS/nccl-tests/${t}_perf.txt"
  else
    echo "$t: not built (see $LOGS/build-nccl-tests.log)"
  fi
done

stage "table"
if [ -f "$OUT/fleet.json" ]; then
  python3 bench/fleet_table.py --fleet "$OUT/fleet.json" --nccl-tests "$LOGS/nccl-tests" --machine "$MACHINE" \
    --commits "$PEERS/COMMITS" --out "$OUT/fleet-2gpu.md"
  rc=$?
else
  echo "no fleet.json from roofline (see $LOGS/fleet-run.log)"; tail -n 20 "$LOGS/fleet-run.log"; rc=3
fi

stage "GPU tests, one at a time (ctest -L gpu), in the time left"
T=$(left)
if [ "$T" -gt 20 ]; then
  timeout $((T - 10)) ctest --test-dir build/h200 -L gpu -j 1 --output-on-failure >"$OUT/ctest-gpu.log" 2>&1
  echo "ctest exit $? (124 = stopped for time: the tests it reached are in ctest-gpu.log)"
  tail -n 15 "$OUT/ctest-gpu.log"
else
  echo "no time left for ctest -L gpu ($T s)" | tee "$OUT/ctest-gpu.log"
fi

tar -C "$OUT" -czf "$OUT/fleet-2gpu-logs.tgz" logs && rm -rf "$LOGS"
stage "done (status $rc)"
exit $rc
