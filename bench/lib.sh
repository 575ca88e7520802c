# Helpers every bench/ driver shares; source it, never run it:
#   . "$(dirname "$0")/lib.sh"; bench_init LOGNAME
# bench_init: cd to the repository root, $OUT (default ./bench-out) created, everything printed also
# appended to $OUT/LOGNAME, NVLink multicast off (KINDS.md), $T0 for the stage clock, $status = 0.
# stage TEXT      one "=== [seconds] TEXT" line
# want NAME       true when stage NAME is in $STAGES (comma-separated; empty or "all": every stage)
# skip NAME       true when NAME is in $SKIP (comma-separated); the old H200_SKIP is read too
# fail WHAT RC    report a failed step and keep the first failing status in $status
# machine_gpu     nvidia-smi's view of the GPU, nvcc, cmake, PyTorch (each may be missing)
# use_torch_cudnn put PyTorch's cuDNN first on LD_LIBRARY_PATH (roofline's attention loads it at run time)
# build_preset P [TARGET…]  configure and build preset P (all targets, or TARGET…) into $OUT/build.log
# stamp           a filter: the seconds since it started in front of every line (run_time_table.py reads it)
# timed_run LOG ARGS…  `roofline ARGS…` with its output stamped into $OUT/LOG and a final "wall N s" line

bench_init() {
  cd "$(dirname "${BASH_SOURCE[0]}")/.." || exit 2
  OUT="${OUT:-$PWD/bench-out}"
  mkdir -p "$OUT"
  exec > >(tee -a "$OUT/$1") 2>&1
  export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1 PYTHONUNBUFFERED=1
  T0=$(date +%s)
  status=0
}

stage() { echo; echo "=== [$(($(date +%s) - T0)) s] $*"; }

want() { [ -z "${STAGES:-}" ] || [ "${STAGES}" = all ] || [[ ",${STAGES}," == *",$1,"* ]]; }

skip() { [[ ",${SKIP:-}${H200_SKIP:+,$H200_SKIP}," == *",$1,"* ]]; }

fail() { echo "!!! $1 failed with status $2"; [ "$status" -eq 0 ] && status=$2; return 0; }

machine_gpu() {
  nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.max.sm,clocks.mem,clocks.max.mem,power.limit,ecc.mode.current,temperature.gpu --format=csv || true
  nvcc --version 2>/dev/null | tail -2 || true
  cmake --version | head -1 || true
  python3 -c 'import torch; print("torch", torch.__version__, "cuda", torch.version.cuda, torch.cuda.get_device_name(0))' 2>/dev/null || true
  uname -a
}

use_torch_cudnn() {
  local dir
  dir=$(python3 -c 'import os, nvidia.cudnn as c; print(os.path.join(list(c.__path__)[0], "lib"))' 2>/dev/null)
  if [ -n "$dir" ] && [ -d "$dir" ]; then
    export LD_LIBRARY_PATH="$dir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
    echo "cuDNN for roofline: PyTorch's copy in $dir"
  fi
}

build_preset() {
  local preset=$1; shift
  local targets=()
  [ $# -gt 0 ] && targets=(--target "$@")
  { cmake --preset "$preset" --log-level=NOTICE && cmake --build --preset "$preset" -j "$(nproc)" "${targets[@]}"; } \
    >> "$OUT/build.log" 2>&1 || { tail -30 "$OUT/build.log"; return 1; }
}

stamp() {
  python3 -u -c 'import sys, time
t0 = time.time()
for line in sys.stdin: sys.stdout.write("%8.2f %s" % (time.time() - t0, line))'
}

timed_run() {
  local log=$1; shift
  local rc
  { /usr/bin/time -f "wall %e s" timeout "${RUN_TIMEOUT:-600}" "$R" "$@" 2>&1; } 2>&1 | stamp > "$OUT/$log"
  rc=${PIPESTATUS[0]}
  grep -E "took|wall" "$OUT/$log" | tail -2
  return "$rc"
}
