#!/usr/bin/env bash
# Real files for `roofline place`, made on the GPU with public tools, and this GPU's roofs beside them. One
# device call:  OUT=/path [STAGES=train,capture,big,ncu,run,graphs] bash bench/real-runs.sh
# Stages (default: all, in this order; bench/lib.sh's `want`):
#   train    training steps under torch.profiler's schedule (bench/real_runs.py train): Qwen2 (2 layers) with
#            fused AdamW, GPT-2 (2 layers) with foreach SGD momentum, a TinyLlama layer with the flash SDPA
#            backward, a GPT-2 layer (multi-head: the memory-efficient backend refuses GQA) with the
#            memory-efficient one
#   capture  a vLLM-style CUDA-graph decode with its capture profiled (bench/real_runs.py capture)
#   big      the full Qwen2.5-0.5B at 8 × 1024 tokens (the benchmark's training trace)
#   ncu      Nsight Compute with `roofline place --ncu-metrics`: a program that fails at its 7th kernel, and
#            the first 120 kernels of a Qwen2 training step
#   run      `roofline run` (this GPU's roofs)
#   graphs   HF generate with a static cache (torch.compile + CUDA graphs: bench/hf_traces.py graphs)
# roofline itself is built (preset h200) in the background while the GPU works. Writes $OUT/real.tgz
# (small files), $OUT/big.tgz (the benchmark traces), $OUT/run.tgz (results.json, report.md, logs),
# $OUT/real.log.
set -uo pipefail
. "$(dirname "$0")/lib.sh"
bench_init real.log
STAGES=${STAGES:-train,capture,big,ncu,run,graphs}
W=$OUT/w; mkdir -p "$W/big"
R=build/h200/roofline

stage "machine (stages: $STAGES)"
machine_gpu
use_torch_cudnn
(cmake --preset h200 --log-level=NOTICE -DROOFLINE_TESTS=OFF > "$W/build.log" 2>&1 &&
  cmake --build --preset h200 -j 12 --target roofline >> "$W/build.log" 2>&1; echo "build exit $?" >> "$W/build.log") &
BUILD=$!

py() { timeout "$1" python3 bench/real_runs.py "${@:2}" 2> "$W/err-$(date +%s%N).log" | tail -1 | tee -a "$W/runs.jsonl"; }
if want train; then
  stage "training steps (small, for tests/data)"
  py 120 "$W" train models/qwen2.5-0.5b.json --layers 2 --batch 4 --seq 512 --optim adamw-fused --name qwen2-2l
  py 120 "$W" train models/gpt2.json --layers 2 --batch 4 --seq 256 --optim sgd-momentum --name gpt2-2l
  py 120 "$W" train models/tinyllama-1.1b.json --layers 1 --batch 2 --seq 256 --optim adam-foreach --sdpa flash --name llama-1l-flash
  py 120 "$W" train models/gpt2.json --layers 1 --batch 2 --seq 256 --optim adam-foreach --sdpa efficient --name gpt2-1l-efficient
fi
if want capture; then
  stage "vLLM-style CUDA-graph decode, capture profiled"
  py 120 "$W" capture models/tinyllama-1.1b.json --batch 1 --context 512 --name tinyllama-b1
fi
if want big; then
  stage "training step, full Qwen2.5-0.5B, 8 x 1024 tokens (benchmark)"
  py 200 "$W/big" train models/qwen2.5-0.5b.json --batch 8 --seq 1024 --optim adamw-fused --name qwen2.5-0.5b-b8s1024
fi

stage "wait for the build"
wait $BUILD; tail -2 "$W/build.log"
if [ -x "$R" ] && want ncu; then
  M=$($R place --ncu-metrics)
  stage "Nsight Compute: a program that fails at its 7th kernel"
  timeout 90 ncu --csv --clock-control none --metrics "$M" python3 bench/real_runs.py "$W" ncufail > "$W/ncu-fail.csv" 2> "$W/ncu-fail.err"
  echo "ncu exit $?"; grep -h '==ERROR==' "$W/ncu-fail.csv" "$W/ncu-fail.err" | head -5
  stage "Nsight Compute: the first 120 kernels of a Qwen2 training step"
  timeout 150 ncu --csv --clock-control none --launch-count 120 --metrics "$M" python3 bench/real_runs.py "$W/big" train \
    models/qwen2.5-0.5b.json --layers 2 --batch 4 --seq 512 --name ncu-scratch > "$W/ncu-train-qwen2-2l.csv" 2> "$W/ncu-train.err"
  echo "ncu exit $?"; grep -c '^"' "$W/ncu-train-qwen2-2l.csv"
fi
if [ -x "$R" ] && want run; then
  stage "roofline run (this GPU's roofs)"
  timed_run run.log run --device cuda:0 --out "$W/run" || echo "roofline run exit $?"
  tail -25 "$OUT/run.log"
fi
T=$(($(date +%s) - T0))
if want graphs && [ $T -lt 420 ]; then
  stage "HF generate, static cache (torch.compile + CUDA graphs)"
  timeout $((540 - T)) python3 bench/hf_traces.py "$W/big" graphs 2> "$W/hf-graphs.err" | tail -1 | tee -a "$W/runs.jsonl"
fi
stage "pack"
mkdir -p "$W/run"; cp "$W/build.log" "$W/runs.jsonl" "$W/run/" 2>/dev/null
rm -f "$W"/big/train-ncu-scratch*
tar czf "$OUT/real.tgz" -C "$W" --exclude big --exclude run . ; tar czf "$OUT/big.tgz" -C "$W" big; tar czf "$OUT/run.tgz" -C "$W" run
ls -la "$OUT"; stage done
