#!/usr/bin/env bash
# The decode step's energy over batch, kernel by kernel: one device call, ~6 minutes on an H100.
#   OUT=/path bash bench/step-energy.sh
# 1. build   cmake --preset $PRESET (default h200: sm_90), target roofline
# 2. run     roofline run --device $DEVICE --batch $BATCHES: the op table at those batches (each GEMM's implementation)
#            and the full step sweep with J/token measured and predicted at every batch ($OUT/w/run)
# 3. ncu     for each batch B of $BATCHES: Nsight Compute on `roofline run --only launch --quick --step-batches B`
#            with ROOFLINE_PROFILE_STEP=B and --profile-from-start off: the kernels of exactly one whole decode step
#            (one extra graph replay between cudaProfilerStart/Stop) with duration, DRAM bytes, tensor-pipe ops,
#            FP32/FP16 FMAs and instructions; clocks left alone (--clock-control none) → $OUT/w/ncu-bB.csv
# 3b. forced for K in cublaslt gemv: `roofline run --only bandwidth/read,gemm/fp16 --batch 2 --step-batches $BATCHES` with
#            ROOFLINE_DECODE_GEMM=K: the same steps with every m ≤ 8 GEMM on one kernel, J/token measured and predicted
# 3c. tests  ctest -L 'gpu|cudahost' (the GPU tests of this build)
# Stages that would start too late for the 10-minute limit of a device call are left out and say so.
# 4. table   bench/step_energy.py → $OUT/step-energy.md (printed)
# SKIP=run,tests,ncu,forced leaves steps out (RUN_JSON=path/results.json names an earlier run's for the table).
# Writes 4 files: step-energy.log (everything printed), step-energy.md, build.log, runs.tgz (w/: run folder, ncu CSVs).
set -uo pipefail
. "$(dirname "$0")/lib.sh"
bench_init step-energy.log
PRESET=${PRESET:-h200}
DEVICE=${DEVICE:-cuda:0}
BATCHES=${BATCHES:-1,2,4}
B=build/$PRESET
R=$B/roofline
W=$OUT/w
mkdir -p "$W"
# late N: true while the call is under N seconds old (a stage that would run past the 10-minute limit is left out)
late() { [ $(($(date +%s) - T0)) -lt "$1" ] || { echo "left out: $(($(date +%s) - T0)) s into the call"; return 1; }; }

stage "machine"
machine_gpu
use_torch_cudnn

stage "configure + build (preset $PRESET, target roofline)"
build_preset "$PRESET" roofline || { fail build 2; exit $status; }

if ! skip run; then
  stage "run: roofline run --device $DEVICE --batch $BATCHES (op table at those batches, the step sweep with energy)"
  timed_run w/run.log run --device "$DEVICE" --batch "$BATCHES" --out "$W/run" || fail "roofline run" $?
fi


forced=()
if ! skip forced; then
  for k in cublaslt gemv; do
    stage "forced: every m <= 8 GEMM on $k (ROOFLINE_DECODE_GEMM=$k), steps at batches $BATCHES"
    ROOFLINE_DECODE_GEMM=$k timed_run "w/forced-$k.log" run --device "$DEVICE" --only bandwidth/read,gemm/fp16 --batch 2 \
      --step-batches "$BATCHES" --out "$W/forced-$k" || fail "roofline run (forced $k)" $?
    [ -f "$W/forced-$k/results.json" ] && forced+=("$W/forced-$k/results.json")
  done
fi

if skip ncu || ! late 330; then :; else
stage "Nsight Compute metrics available"
NCU=$(command -v ncu || ls /usr/local/cuda/bin/ncu 2>/dev/null || true)
if [ -z "$NCU" ]; then
  fail "ncu (not found)" 3
else
  "$NCU" --version | tail -1
  "$NCU" --query-metrics > "$W/ncu-metrics.txt" 2>&1 || true
  want=(gpu__time_duration.sum dram__bytes_read.sum dram__bytes_write.sum lts__t_bytes.sum l1tex__t_bytes.sum
        sm__ops_path_tensor_src_fp16.sum sm__ops_path_tensor_src_bf16_dst_fp32.sum sm__inst_executed_pipe_tensor.sum
        smsp__sass_thread_inst_executed_op_ffma_pred_on.sum smsp__sass_thread_inst_executed_op_hfma_pred_on.sum
        smsp__sass_thread_inst_executed_op_conversion_pred_on.sum smsp__inst_executed.sum)
  metrics=()
  for m in "${want[@]}"; do
    grep -q "^${m%.*} " "$W/ncu-metrics.txt" && metrics+=("$m") || echo "not on this GPU/ncu: $m"
  done
  M=$(IFS=,; echo "${metrics[*]}")
  echo "metrics: $M"
  for b in ${BATCHES//,/ }; do
    late 450 || break
    stage "ncu: one whole decode step at batch $b"
    ROOFLINE_PROFILE_STEP=$b timeout 150 "$NCU" --profile-from-start off --clock-control none --csv --page raw \
      --metrics "$M" --log-file "$W/ncu-b$b.csv" \
      "$R" run --device "$DEVICE" --only launch --quick --step-budget 60 --batch "$b" --step-batches "$b" \
      --out "$W/ncu-run-b$b" \
      > "$W/ncu-b$b.log" 2>&1 || fail "ncu at batch $b" $?
    tail -2 "$W/ncu-b$b.log"
    echo "$(grep -c '^"[0-9]' "$W/ncu-b$b.csv" 2>/dev/null) kernels profiled"
  done
fi
fi


if ! skip tests && late 420; then
  stage "GPU tests (ctest -L 'gpu|cudahost')"
  build_preset "$PRESET" >> "$OUT/build.log" 2>&1 || fail "build (tests)" 2
  timeout 150 ctest --test-dir "$B" -L 'gpu|cudahost' --output-on-failure > "$W/ctest-gpu.log" 2>&1 || fail "ctest -L gpu|cudahost" $?
  tail -3 "$W/ctest-gpu.log"
fi

stage "tables → $OUT/step-energy.md"
ncu_csv=()
for b in ${BATCHES//,/ }; do [ -s "$W/ncu-b$b.csv" ] && ncu_csv+=("$W/ncu-b$b.csv"); done
python3 bench/step_energy.py --run ${RUN_JSON:+"$RUN_JSON"} $(skip run || echo "$W/run/results.json") ${forced[@]+"${forced[@]}"} \
  ${ncu_csv[@]+--ncu "${ncu_csv[@]}"} > "$OUT/step-energy.md" \
  || fail step_energy.py $?
cat "$OUT/step-energy.md"
rm -rf "$W"/*/report.html
tar -C "$OUT" -czf "$OUT/runs.tgz" w && rm -rf "$W"
stage "done (status $status)"
exit $status
