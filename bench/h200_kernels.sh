#!/usr/bin/env bash
# The kernels benchmark in one device call (fits a 420 s limit): build roofline and its op bench for
# sm_90, run the GPU tests of the decode/prefill attention and GEMM paths, then time roofline's
# kernels and PyTorch's equivalents at the same shapes and write the side-by-side tables.
#   OUT=/path bash bench/h200_kernels.sh [--no-gemm]
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
cmake --build --preset h200 -j "$(nproc)" --target roofline roofline_op_bench test_gpu test_cudahost 2>&1 | grep -E "error|warning|FAILED|ptxas" | head -60
[ -x build/h200/roofline_op_bench ] || { echo "build failed"; exit 2; }
stage "GPU tests: attention, GEMM, cudahost"
timeout 120 build/h200/tests/test_cudahost 2>&1 | tail -5
timeout 150 build/h200/tests/test_gpu --gtest_filter='ops_attention.*:ops_gemm.*:GpuProbes.Gemm*' 2>&1 | grep -E "^\[|Failure|error|Expected|Which|actual" | head -60
stage "roofline_op_bench (decode context sweep)"
timeout 120 build/h200/roofline_op_bench > "$OUT/ops.json"
stage "PyTorch ops + decode sweep"
timeout 150 python3 bench/torch_reference.py ops --out "$OUT/torch_ops.json" | tail -5
stage "roofline run --only launch (ops at TinyLlama shapes)"
timeout 150 build/h200/roofline run --device cuda:0 --only launch --model tinyllama-1.1b --out "$OUT/run" > "$OUT/run.log" 2>&1
tail -3 "$OUT/run.log"
[ -f "$OUT/run/results.json" ] && cp "$OUT/run/results.json" "$OUT/results.json" && rm -rf "$OUT/run"
python3 bench/torch_reference.py ops-table --roofline "$OUT/results.json" --torch-ops "$OUT/torch_ops.json" --op-bench "$OUT/ops.json" --out "$OUT/ops.md" | tail -40
if [ "${1:-}" != "--no-gemm" ]; then
  stage "GEMM probe (roofline measure --only gemm) and torch.matmul"
  timeout 200 build/h200/roofline measure --device cuda:0 --only gemm --out "$OUT/gemm.json" 2>&1 | tail -3
  timeout 200 python3 bench/torch_reference.py measure --only-gemm --out "$OUT/torch_gemm.json" | tail -3
  [ -f "$OUT/gemm.json" ] && [ -f "$OUT/torch_gemm.json" ] && python3 bench/torch_reference.py table --roofline "$OUT/gemm.json" --torch "$OUT/torch_gemm.json" --out "$OUT/gemm.md" | tail -40
fi
stage done
