#!/usr/bin/env bash
# The kernels benchmark in one device call (fits a 420 s limit): build roofline and its op bench for
# sm_90, run the GPU tests of the decode/prefill attention and GEMM paths, then time roofline's
# kernels and PyTorch's equivalents at the same shapes and write the side-by-side tables.
#   OUT=/path bash bench/h200_kernels.sh [--gemm]
# Writes under $OUT: log.txt (everything), ops.json (roofline_op_bench: decode context sweep),
# torch_ops.json + ops.md (every op beside PyTorch), gemm.json + torch_gemm.json + gemm.md (GEMM
# probe vs torch.matmul). Stages run under their own timeouts; a failed stage does not stop the rest.
set -uo pipefail
cd "$(dirname "$0")/.."
OUT="${OUT:-$PWD/bench-out}"
mkdir -p "$OUT"
exec > >(tee -a "$OUT/log.txt") 2>&1
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1 PYTHONUNBUFFERED=1
T0=$(date +%s)
stage() { echo; echo "=== [$(($(date +%s) - T0)) s] $*"; }
stage machine
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,power.limit,temperature.gpu --format=csv || true
stage "configure + build (preset h200)"
cmake --preset h200 --log-level=NOTICE -DROOFLINE_TESTS=ON >/dev/null || { echo "configure failed"; exit 2; }
timeout 260 cmake --build --preset h200 -j "$(nproc)" --target roofline roofline_op_bench test_gpu test_cudahost 2>&1 | grep -E "error|FAILED" | head -40
[ -x build/h200/roofline_op_bench ] || { echo "build failed"; exit 2; }
cuobjdump --dump-resource-usage build/h200/roofline_op_bench 2>/dev/null | grep -A1 "decode_mma" | grep -o "REG:[0-9]*\|STACK:[0-9]*\|SHARED:[0-9]*\|LOCAL:[0-9]*" | paste -sd' ' | head -c 600; echo
stage "GPU tests: cudahost, decode attention, GEMM ops"
timeout 30 build/h200/tests/test_cudahost 2>&1 | tail -2
timeout 150 build/h200/tests/test_gpu --gtest_filter='ops_attention.decode*:ops_gemm.*:ops_attention.naive*:GpuProbes.Gemm*' 2>&1 | grep -E "^\[ +(OK|FAILED|PASSED) |Failure|Expected|actual|which is" | head -40
stage "roofline_op_bench (decode context sweep)"
timeout 100 build/h200/roofline_op_bench > "$OUT/ops.json"
stage "PyTorch ops + decode sweep"
timeout 150 python3 bench/torch_reference.py ops --out "$OUT/torch_ops.json" | tail -3
python3 bench/torch_reference.py ops-table --torch-ops "$OUT/torch_ops.json" --op-bench "$OUT/ops.json" --out "$OUT/ops.md" | tail -45
stage "roofline run --only launch (every op at TinyLlama shapes)"
timeout 120 build/h200/roofline run --device cuda:0 --only launch --model tinyllama-1.1b --out "$OUT/run" > "$OUT/run.log" 2>&1
tail -2 "$OUT/run.log"
[ -f "$OUT/run/results.json" ] && cp "$OUT/run/results.json" "$OUT/results.json" && rm -rf "$OUT/run"
[ -f "$OUT/results.json" ] && python3 bench/torch_reference.py ops-table --roofline "$OUT/results.json" --torch-ops "$OUT/torch_ops.json" --op-bench "$OUT/ops.json" --out "$OUT/ops.md" > /dev/null
if [ "${1:-}" = "--gemm" ]; then
  stage "GEMM probe (roofline measure --only gemm) and torch.matmul"
  timeout 170 build/h200/roofline measure --device cuda:0 --only gemm --out "$OUT/gemm.json" 2>&1 | tail -3
  timeout 120 python3 bench/torch_reference.py measure --only-gemm --out "$OUT/torch_gemm.json" | tail -3
  [ -f "$OUT/gemm.json" ] && [ -f "$OUT/torch_gemm.json" ] && python3 bench/torch_reference.py table --roofline "$OUT/gemm.json" --torch "$OUT/torch_gemm.json" --out "$OUT/gemm.md" | tail -40
fi
stage done
