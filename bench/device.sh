#!/usr/bin/env bash
# The device benchmark, one driver with stages, run on the GPU machine from the repository root:
#   OUT=/path [STAGES=build,tests,run,speed,torch,whole,pairs] [SKIP=…] bash bench/device.sh
# Stages, in this order (STAGES names the ones to run; default build,tests,run,speed,torch,whole,pairs; "all"
# adds peers, place and beside):
#   build   cmake --preset $PRESET (default h200: sm_90) and a full build
#   tests   ctest -L 'gpu|cudahost' (every probe at quick size, verified; NVML; detection)
#   run     roofline run --device $DEVICE --tpot-target 20ms for TinyLlama-1.1B ($OUT/run), then Llama-3-8B's
#           shapes ($OUT/run-llama3; SKIP=llama3 leaves it out); progress timestamped (where the time goes)
#   speed   roofline run --quick, timed; and the decode ops at batches 4 and 16 ($OUT/small-batch), where
#           whole-step predictions miss most
#   torch   PyTorch at roofline's sizes (torch_reference.py measure) and every op beside PyTorch's
#           fastest (roofline_op_bench + torch_reference.py ops → $OUT/ops.md)
#   whole   PyTorch's whole decode/prefill steps as CUDA graphs (torch_whole_step.py)
#   pairs   GEMMs beside PyTorch in one process, sample by sample (bench/gemm-pair.sh → $OUT/pair/)
#   peers   memory levels beside gpu-benches and BabelStream (bench/peers-gpu.sh → $OUT/peers/)
#   place   HF TinyLlama traces and Nsight Compute exports placed by roofline place (bench/place-traces.sh)
#   beside  roofline measure alone and beside a PyTorch matmul loop (the interference check)
# Then $OUT/bench.md: the side-by-side table, whole steps, the GEMM pairs, the accuracy of each run.
# Writes $OUT/device.log (everything), $OUT/build.log, one log per stage, $OUT/bench.md, and $OUT/run.tgz
# (the run folders and side tables, packed: the device tool returns few files; PACK=0 keeps them loose).
# ROOFLINE_RESULTS=path/results.json names the run the ops table compares when `run` is not in this call.
# Exit status: 0 when every stage ran (missed targets are in bench.md, not a failure); otherwise the first
# failing stage's status, after the later stages have still run where possible.
set -uo pipefail
. "$(dirname "$0")/lib.sh"
bench_init device.log
PRESET=${PRESET:-h200}
DEVICE=${DEVICE:-cuda:0}
STAGES=${STAGES:-build,tests,run,speed,torch,whole,pairs}
[ "$STAGES" = all ] && STAGES=build,tests,run,speed,torch,whole,pairs,peers,place,beside
B=build/$PRESET
R=$B/roofline

stage "machine (stages: $STAGES)"
machine_gpu
use_torch_cudnn

if want build; then
  stage "configure + build (preset $PRESET)"
  build_preset "$PRESET" || { fail build 2; exit $status; }
fi

if want tests && ! skip tests; then
  stage "GPU tests (ctest -L gpu) and CUDA host-logic tests"
  timeout 300 ctest --test-dir "$B" -L 'gpu|cudahost' --output-on-failure > "$OUT/ctest-gpu.log" 2>&1 || fail "ctest -L gpu" $?
  tail -3 "$OUT/ctest-gpu.log"
fi

if want run && ! skip run; then
  stage "roofline run --device $DEVICE"
  timed_run run.log run --device "$DEVICE" --tpot-target 20ms --out "$OUT/run" \
    || fail "roofline run (1 = a probe failed, see errors in results.json)" $?
  tail -40 "$OUT/run.log"
  if ! skip llama3; then
    stage "roofline run, Llama-3-8B shapes (random weights): the roofs its ops need, ops, whole steps"
    timed_run run-llama3.log run --device "$DEVICE" --model llama-3-8b --only bandwidth,gemm,launch,latency \
      --out "$OUT/run-llama3" || fail "roofline run --model llama-3-8b" $?
  fi
fi

if want speed && ! skip speed; then
  stage "roofline run --quick, timed; decode ops at batches 4 and 16"
  timed_run quick.log run --device "$DEVICE" --quick --out "$OUT/quick" || fail "roofline run --quick" $?
  timed_run small-batch.log run --device "$DEVICE" --quick --batch 4,16 --out "$OUT/small-batch" \
    || fail "roofline run --quick --batch 4,16" $?
fi

if want torch && ! skip torch; then
  stage "PyTorch reference (torch_reference.py measure)"
  timeout 300 python3 bench/torch_reference.py measure --out "$OUT/torch.json" > "$OUT/torch.log" 2>&1 \
    || fail "torch_reference.py measure" $?
  if ! skip ops && [ -x "$B/roofline_op_bench" ]; then
    stage "ops beside PyTorch (roofline_op_bench attention sweeps, torch_reference.py ops)"
    timeout 240 "$B/roofline_op_bench" > "$OUT/ops.json" || fail roofline_op_bench $?
    timeout 300 python3 bench/torch_reference.py ops --out "$OUT/torch_ops.json" >> "$OUT/torch.log" 2>&1 \
      || fail "torch_reference.py ops" $?
    [ -f "$OUT/torch_ops.json" ] && python3 bench/torch_reference.py ops-table \
      --roofline "${ROOFLINE_RESULTS:-$OUT/run/results.json}" --torch-ops "$OUT/torch_ops.json" \
      --op-bench "$OUT/ops.json" --out "$OUT/ops.md" | tail -30
  fi
fi

if want whole && ! skip whole; then
  stage "PyTorch whole step (one CUDA graph per step: TinyLlama and Llama-3-8B shapes)"
  timeout 600 python3 bench/torch_whole_step.py measure --out "$OUT/torch_whole_step.json" >> "$OUT/torch.log" 2>&1 \
    || fail "torch_whole_step.py measure" $?
fi

if want pairs && ! skip pair; then
  stage "GEMMs beside PyTorch in one process, sample by sample (bench/gemm-pair.sh)"
  BUILD=0 OUT="$OUT/pair" timeout 480 bash bench/gemm-pair.sh > "$OUT/pair.log" 2>&1 || fail gemm-pair.sh $?
  tail -3 "$OUT/pair/gemm-pair.md" 2>/dev/null
fi

if want peers; then
  stage "memory levels beside the peers (bench/peers-gpu.sh; needs bench-peers/)"
  OUT="$OUT/peers" timeout 420 bash bench/peers-gpu.sh > "$OUT/peers.log" 2>&1 || fail peers-gpu.sh $?
fi

if want place; then
  stage "your own run placed (bench/place-traces.sh; needs transformers and ncu)"
  OUT="$OUT/place-traces" timeout 580 bash bench/place-traces.sh > "$OUT/place.log" 2>&1 || fail place-traces.sh $?
fi

if want beside; then
  stage "interference: roofline measure alone, then beside a PyTorch matmul loop"
  "$R" measure --device "$DEVICE" --quick --only launch,gemm/fp16 --out "$OUT/alone" > "$OUT/alone.log" 2>&1
  python3 -c 'import time, torch
x = torch.randn(8192, 8192, device="cuda", dtype=torch.float16); t = time.time()
while time.time() - t < 120: y = x @ x
torch.cuda.synchronize()' > "$OUT/hog.log" 2>&1 &
  hog=$!
  sleep 8
  nvidia-smi --query-compute-apps=pid,process_name,used_memory --format=csv
  "$R" measure --device "$DEVICE" --quick --only launch,gemm/fp16 --out "$OUT/beside" > "$OUT/beside.log" 2>&1
  echo "beside: exit $?"
  kill "$hog" 2>/dev/null; wait "$hog" 2>/dev/null
  for d in alone beside; do
    python3 -c "import json, sys; i = json.load(open(sys.argv[1])).get('interference'); print(sys.argv[2] + ':', 'null' if i is None else i.get('summary'))" \
      "$OUT/$d/results.json" "$d" || fail "interference $d" 3
  done
fi

stage "tables → $OUT/bench.md"
if [ -f "$OUT/run/results.json" ] && [ -f "$OUT/torch.json" ]; then
  python3 bench/torch_reference.py table --roofline "$OUT/run/results.json" --torch "$OUT/torch.json" --out "$OUT/bench.md" \
    || fail table $?
else
  echo "(run or PyTorch reference not in this call: no side-by-side table)"
  : >> "$OUT/bench.md"
fi
if [ -f "$OUT/torch_whole_step.json" ] && [ -f "$OUT/run/results.json" ]; then
  python3 bench/torch_whole_step.py table --roofline "$OUT/run/results.json" "$OUT/run-llama3/results.json" \
    --torch "$OUT/torch_whole_step.json" --out "$OUT/whole_step.md" && cat "$OUT/whole_step.md" >> "$OUT/bench.md" \
    || fail "whole-step table" $?
fi
# The GEMM target is judged on the paired table (the sweeps of `torch` ran in separate processes).
[ -f "$OUT/pair/gemm-pair.md" ] && { echo; echo "GEMMs timed in alternation with PyTorch in one process (the target's table):"; echo;
  cat "$OUT/pair/gemm-pair.md"; } >> "$OUT/bench.md"
for f in run run-llama3; do
  [ -f "$OUT/$f/results.json" ] && python3 bench/accuracy_table.py "$OUT/$f/results.json" > "$OUT/accuracy-$f.md" \
    && cat "$OUT/accuracy-$f.md" >> "$OUT/bench.md"
done
# The decode step over batch and its energy (analysis.step_sweep, analysis.energy) of each run.
for f in run run-llama3; do
  [ -f "$OUT/$f/results.json" ] && python3 bench/step_sweep_table.py "$OUT/$f/results.json" > "$OUT/step-sweep-$f.md" \
    && { echo; cat "$OUT/step-sweep-$f.md"; } >> "$OUT/bench.md"
done
# Where the time goes, and the ops at small batches.
for f in run quick; do
  [ -f "$OUT/$f.log" ] && { echo; echo "Where \`roofline $f\` spent its time (progress lines timestamped):"; echo;
    python3 bench/run_time_table.py stages "$OUT/$f.log"; } >> "$OUT/bench.md"
done
[ -f "$OUT/small-batch/results.json" ] && { echo; echo "Decode ops at small batches, measured ÷ predicted:"; echo;
  python3 bench/run_time_table.py small-batch $(ls "$OUT"/run/results.json 2>/dev/null) "$OUT/small-batch/results.json"; } >> "$OUT/bench.md"
[ -f "$OUT/peers/peers-gpu.md" ] && cat "$OUT/peers/peers-gpu.md" >> "$OUT/bench.md"
if [ "${PACK:-1}" = 1 ]; then
  extra=$(cd "$OUT" && ls -d run run-llama3 quick small-batch pair alone beside torch_whole_step.json whole_step.md accuracy-run.md accuracy-run-llama3.md step-sweep-run.md step-sweep-run-llama3.md 2>/dev/null)
  [ -n "$extra" ] && tar -C "$OUT" -czf "$OUT/run.tgz" $extra && (cd "$OUT" && rm -rf $extra)
fi
stage "done (status $status); table: $OUT/bench.md"
exit $status
