#!/usr/bin/env bash
# Real files for `roofline place`, made on the GPU with public tools, and this GPU's roofs beside them. One
# device call:  OUT=/path bash bench/real-runs.sh
# Stages: build roofline (preset h200, in the background while the GPU works); training steps under
# torch.profiler's schedule (bench/real_runs.py train: Qwen2 with fused AdamW, GPT-2 with foreach SGD momentum,
# a Llama layer with the flash SDPA backward, a GPT-2 layer (multi-head: the memory-efficient backend refuses GQA) with the memory-efficient one, and the full Qwen2.5-0.5B at 8 × 1024
# tokens for the benchmark); a vLLM-style CUDA-graph decode with its capture profiled; HF generate with a static
# cache (torch.compile + CUDA graphs); Nsight Compute on a program that fails half-way and on a training step;
# `roofline run` for this GPU's roofs. Writes $OUT/real.tgz (small files), $OUT/big.tgz (the benchmark traces),
# $OUT/run.tgz (results.json, report.md, logs), $OUT/real.log.
set -uo pipefail
. "$(dirname "$0")/lib.sh"
bench_init real.log
W=$OUT/w; mkdir -p "$W/big"
R=build/h200/roofline

stage "machine"
machine_gpu
use_torch_cudnn
(cmake --preset h200 --log-level=NOTICE -DROOFLINE_TESTS=OFF > "$W/build.log" 2>&1 &&
  cmake --build --preset h200 -j 12 --target roofline >> "$W/build.log" 2>&1; echo "build exit $?" >> "$W/build.log") &
BUILD=$!

py() { timeout "$1" python3 bench/real_runs.py "${@:2}" 2> "$W/err-$(date +%s%N).log" | tail -1 | tee -a "$W/runs.jsonl"; }
stage "training steps (small, for tests/data)"
py 120 "$W" train models/qwen2.5-0.5b.json --layers 2 --batch 4 --seq 512 --optim adamw-fused --name qwen2-2l
py 120 "$W" train models/gpt2.json --layers 2 --batch 4 --seq 256 --optim sgd-momentum --name gpt2-2l
py 120 "$W" train models/tinyllama-1.1b.json --layers 1 --batch 2 --seq 256 --optim adam-foreach --sdpa flash --name llama-1l-flash
py 120 "$W" train models/gpt2.json --layers 1 --batch 2 --seq 256 --optim adam-foreach --sdpa efficient --name gpt2-1l-efficient
stage "vLLM-style CUDA-graph decode, capture profiled"
py 120 "$W" capture models/tinyllama-1.1b.json --batch 1 --context 512 --name tinyllama-b1
stage "training step, full Qwen2.5-0.5B, 8 x 1024 tokens (benchmark)"
py 200 "$W/big" train models/qwen2.5-0.5b.json --batch 8 --seq 1024 --optim adamw-fused --name qwen2.5-0.5b-b8s1024
ls -la "$W" "$W/big"

stage "wait for the build"
wait $BUILD; tail -2 "$W/build.log"
if [ -x "$R" ]; then
  M=$($R place --ncu-metrics)
  stage "Nsight Compute: a program that fails at its 6th kernel"
  timeout 90 ncu --csv --clock-control none --metrics "$M" python3 bench/real_runs.py "$W" ncufail > "$W/ncu-fail.csv" 2> "$W/ncu-fail.err"
  echo "ncu exit $?"; grep -c '^"' "$W/ncu-fail.csv"; grep -h '==ERROR==' "$W/ncu-fail.csv" "$W/ncu-fail.err" | head -5
  stage "roofline run (this GPU's roofs)"
  timed_run run.log run --device cuda:0 --out "$W/run" || echo "roofline run exit $?"
  tail -25 "$OUT/run.log"
fi
T=$(($(date +%s) - T0))
if [ $T -lt 420 ]; then
  stage "HF generate, static cache (torch.compile + CUDA graphs)"
  timeout $((540 - T)) python3 bench/hf_traces.py "$W/big" graphs 2> "$W/hf-graphs.err" | tail -1 | tee -a "$W/runs.jsonl"
fi
stage "pack"
cp "$W/build.log" "$W/runs.jsonl" "$W/run/" 2>/dev/null
tar czf "$OUT/real.tgz" -C "$W" --exclude big --exclude run . ; tar czf "$OUT/big.tgz" -C "$W" big; tar czf "$OUT/run.tgz" -C "$W" run
ls -la "$OUT"; stage done
