#!/usr/bin/env bash
# The H200 benchmark in one call: build roofline for sm_90, run the GPU tests, run
# `roofline run` on cuda:0, run PyTorch's equivalents, and write the side-by-side table.
#   OUT=/path bash bench/h200.sh        (the device tool sets $OUT; default ./bench-out)
# Writes: $OUT/h200.log (everything), $OUT/{build,ctest-gpu,run,torch}.log, $OUT/run.tgz (the four
# outputs of roofline run), $OUT/torch.json, $OUT/bench.md (the table), $OUT/ops.md (every op and the
# decode-attention context sweep beside PyTorch; ops.json, torch_ops.json). Needs: nvcc 13, CMake, Ninja,
# PyTorch; header deps in third_party/include and googletest in third_party/googletest (no internet).
# Exit status: 0 when everything ran (targets missed are reported in bench.md, not as a failure);
# otherwise the first failing stage's status, after the later stages have still run where possible.
set -uo pipefail
cd "$(dirname "$0")/.."
OUT="${OUT:-$PWD/bench-out}"
mkdir -p "$OUT"
exec > >(tee -a "$OUT/h200.log") 2>&1
# Never NVLink multicast on these hosts (KINDS.md).
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
T0=$(date +%s)
status=0
stage() { echo; echo "=== [$(($(date +%s) - T0)) s] $*"; }
# H200_SKIP=tests,run,torch,ops,llama3,whole,pair (comma-separated) leaves those stages out, to split the
# benchmark over two device calls of at most 10 minutes; ROOFLINE_RESULTS=path/results.json then names
# the run whose ops the ops table compares (default: $OUT/run/results.json).
skip() { [[ ",${H200_SKIP:-}," == *",$1,"* ]]; }
fail() { echo "!!! $1 failed with status $2"; [ "$status" -eq 0 ] && status=$2; }

stage "machine"
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.max.sm,clocks.mem,clocks.max.mem,power.limit,ecc.mode.current,temperature.gpu --format=csv || true
nvcc --version | tail -2 || true
cmake --version | head -1 || true
python3 -c 'import torch; print("torch", torch.__version__, "cuda", torch.version.cuda, torch.cuda.get_device_name(0))' || true
uname -a

# cuDNN (attention's second candidate, loaded at run time): the copy PyTorch's SDPA uses, so the
# side-by-side compares the same library; without it the loader's first libcudnn.so.9 is used.
CUDNN_DIR=$(python3 -c 'import os, nvidia.cudnn as c; print(os.path.join(list(c.__path__)[0], "lib"))' 2>/dev/null)
if [ -n "$CUDNN_DIR" ] && [ -d "$CUDNN_DIR" ]; then
  export LD_LIBRARY_PATH="$CUDNN_DIR${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  echo "cuDNN for roofline: PyTorch's copy in $CUDNN_DIR"
fi
python3 -c 'import torch; print("PyTorch cuDNN", torch.backends.cudnn.version())' || true

stage "configure + build (preset h200)"
cmake --preset h200 --log-level=NOTICE 2>&1 | tee "$OUT/build.log"
rc=$?; [ $rc -ne 0 ] && { fail configure $rc; exit $status; }
cmake --build --preset h200 -j "$(nproc)" 2>&1 | tee -a "$OUT/build.log"
rc=$?; [ $rc -ne 0 ] && { fail build $rc; exit $status; }

stage "GPU tests (ctest -L gpu) and CUDA host-logic tests"
skip tests || timeout 300 ctest --test-dir build/h200 -L 'gpu|cudahost' --output-on-failure 2>&1 | tee "$OUT/ctest-gpu.log"
rc=$?; skip tests || { [ $rc -ne 0 ] && fail "ctest -L gpu" $rc; }

if ! skip run; then
stage "roofline run --device cuda:0"
timeout 420 ./build/h200/roofline run --device cuda:0 --out "$OUT/run" 2>&1 | tee "$OUT/run.log"
rc=$?; [ $rc -ne 0 ] && fail "roofline run (1 = a probe failed, see errors in results.json)" $rc
fi

if ! skip torch; then
stage "PyTorch reference"
timeout 300 python3 bench/torch_reference.py measure --out "$OUT/torch.json" 2>&1 | tee "$OUT/torch.log"
rc=$?; [ $rc -ne 0 ] && fail "torch_reference.py measure" $rc
fi

if ! skip ops && [ -x build/h200/roofline_op_bench ]; then
  stage "ops beside PyTorch (roofline_op_bench attention sweeps, torch_reference.py ops)"
  timeout 240 ./build/h200/roofline_op_bench > "$OUT/ops.json" || fail "roofline_op_bench" $?
  timeout 300 python3 bench/torch_reference.py ops --out "$OUT/torch_ops.json" > "$OUT/torch_ops.log" 2>&1 || fail "torch_reference.py ops" $?
  [ -f "$OUT/torch_ops.json" ] && python3 bench/torch_reference.py ops-table --roofline "${ROOFLINE_RESULTS:-$OUT/run/results.json}" \
    --torch-ops "$OUT/torch_ops.json" --op-bench "$OUT/ops.json" --out "$OUT/ops.md" | tail -30
fi

if ! skip llama3; then
stage "roofline run, Llama-3-8B shapes (random weights): the roofs its ops need, ops, whole steps"
timeout 600 ./build/h200/roofline run --device cuda:0 --model llama-3-8b --only bandwidth,gemm,launch,latency \
  --out "$OUT/run-llama3" 2>&1 | tee -a "$OUT/run.log"
rc=$?; [ $rc -ne 0 ] && fail "roofline run --model llama-3-8b" $rc
fi

if ! skip whole; then
stage "PyTorch whole step (one CUDA graph per step: TinyLlama and Llama-3-8B shapes)"
timeout 600 python3 bench/torch_whole_step.py measure --out "$OUT/torch_whole_step.json" 2>&1 | tee -a "$OUT/torch.log"
rc=$?; [ $rc -ne 0 ] && fail "torch_whole_step.py measure" $rc
fi

if ! skip pair; then
stage "GEMMs beside PyTorch in one process, sample by sample (bench/gemm-pair.sh)"
BUILD=0 OUT="$OUT/pair" timeout 480 bash bench/gemm-pair.sh > "$OUT/pair.log" 2>&1
rc=$?; [ $rc -ne 0 ] && fail "gemm-pair.sh" $rc
tail -3 "$OUT/pair/gemm-pair.md" 2>/dev/null
fi

stage "side-by-side table"
if skip run || skip torch; then
  echo "(run or PyTorch reference skipped: no side-by-side table in this call)"
elif [ -f "$OUT/run/results.json" ] && [ -f "$OUT/torch.json" ]; then
  python3 bench/torch_reference.py table --roofline "$OUT/run/results.json" --torch "$OUT/torch.json" --out "$OUT/bench.md"
  rc=$?; [ $rc -ne 0 ] && fail "table" $rc
else
  fail "table (missing results.json or torch.json)" 3
fi
# Whole step beside PyTorch's graph, and the accuracy table (headline over all ops), appended to bench.md.
if [ -f "$OUT/torch_whole_step.json" ]; then
  python3 bench/torch_whole_step.py table --roofline "$OUT/run/results.json" "$OUT/run-llama3/results.json" \
    --torch "$OUT/torch_whole_step.json" --out "$OUT/whole_step.md" && cat "$OUT/whole_step.md" >> "$OUT/bench.md"
  rc=$?; [ $rc -ne 0 ] && fail "whole-step table" $rc
fi
# The GEMM target is judged on the paired table (the sweeps above ran in separate processes).
[ -f "$OUT/pair/gemm-pair.md" ] && { echo; echo "GEMMs timed in alternation with PyTorch in one process (the target's table):"; echo;
  cat "$OUT/pair/gemm-pair.md"; } >> "$OUT/bench.md"
for f in run run-llama3; do
  [ -f "$OUT/$f/results.json" ] && python3 bench/accuracy_table.py "$OUT/$f/results.json" > "$OUT/accuracy-$f.md" \
    && cat "$OUT/accuracy-$f.md" >> "$OUT/bench.md"
done
# The device tool returns at most 8 files: pack roofline run's outputs (and the extra tables) into one.
extra=$(cd "$OUT" && ls -d run run-llama3 pair torch_whole_step.json whole_step.md accuracy-run.md accuracy-run-llama3.md 2>/dev/null)
[ -n "$extra" ] && tar -C "$OUT" -czf "$OUT/run.tgz" $extra && (cd "$OUT" && rm -rf $extra)
stage "done (status $status); table: $OUT/bench.md"
exit $status
