#!/usr/bin/env bash
# GEMMs beside PyTorch with the power cap's drift shared: roofline's GEMM probe and PyTorch's matmul
# measured alternately, A B A B (whole sweeps: every precision and size n = 256 … 16384), each in its
# own process, on the same GPU, then each side's two medians averaged per case and compared
# (bench/gemm_interleaved.py). Under a 700 W cap one sweep after another runs hotter or cooler than
# the one before, by up to ±5 % at n ≥ 2048 (bench/results/h200/2026-12-01-repeat-b/bench.md); alternating
# gives both sides the same exposure, so the ratio is of the libraries' kernels, not of the order.
#   OUT=/path bash bench/gemm-interleaved.sh    (needs build/h200 already built, PyTorch)
# Writes $OUT/gemm-interleaved.md and the four raw files (roofline-{1,2}.json, torch-{1,2}.json).
#   SWEEPS="1" (or "2") runs one pair only, to split the four sweeps over two device calls (the table
#   is then made where the four files are: bench/gemm_interleaved.py); ONLY= the probes roofline
#   measures (default: every GEMM probe; PyTorch always sweeps all of its GEMMs); PREHEAT=S runs each
#   PyTorch GEMM untimed for S seconds first (torch_reference.py --preheat), as roofline's probe runs its
#   candidate selection right before timing: the two are then timed from the same power-capped state.
set -uo pipefail
cd "$(dirname "$0")/.."
OUT="${OUT:-$PWD/bench-out}"
BIN="${BIN:-build/h200/roofline}"
mkdir -p "$OUT"
status=0
SWEEPS="${SWEEPS:-1 2}"
ONLY="${ONLY:-gemm}"
PREHEAT="${PREHEAT:-0}"
for i in $SWEEPS; do
  echo "=== [$(date +%T)] roofline measure --only $ONLY (sweep $i)"
  timeout 240 "$BIN" measure --device cuda:0 --only "$ONLY" --out "$OUT/r$i" > "$OUT/roofline-$i.log" 2>&1 || status=$?
  [ -f "$OUT/r$i/results.json" ] && cp "$OUT/r$i/results.json" "$OUT/roofline-$i.json" && rm -rf "$OUT/r$i"
  echo "=== [$(date +%T)] PyTorch GEMMs (sweep $i)"
  timeout 240 python3 bench/torch_reference.py measure --only-gemm --preheat "$PREHEAT" --out "$OUT/torch-$i.json" > "$OUT/torch-$i.log" 2>&1 || status=$?
done
[ "$SWEEPS" = "1 2" ] && { python3 bench/gemm_interleaved.py --roofline "$OUT/roofline-1.json" "$OUT/roofline-2.json" \
  --torch "$OUT/torch-1.json" "$OUT/torch-2.json" --out "$OUT/gemm-interleaved.md" || status=$?; }
exit $status
