#!/usr/bin/env bash
# Repeatability of the roofs: two whole `roofline measure` runs, one after the other, and the per-roof
# difference as a table with each run's SM clock and chosen GEMM algorithm beside it
# (bench/repeatability.py).
#   bash bench/repeatability.sh [DEVICE] [BINARY]     DEVICE: cpu (default) or cuda:N
# Writes $OUT/repeat-<device>-1/ and -2/ (the two measurements' outputs) and $OUT/repeat-<device>.md
# ($OUT defaults to ./bench-out). Run it on an idle machine: the table says when a run saw load.
set -euo pipefail
cd "$(dirname "$0")/.."
DEV="${1:-cpu}"
BIN="${2:-build/release/roofline}"
OUT="${OUT:-$PWD/bench-out}"
mkdir -p "$OUT"
tag="${DEV/:/}"
for i in 1 2; do
  "$BIN" measure --device "$DEV" --only bandwidth,compute,gemm --out "$OUT/repeat-$tag-$i"
done
python3 bench/repeatability.py "$OUT/repeat-$tag-1/results.json" "$OUT/repeat-$tag-2/results.json" | tee "$OUT/repeat-$tag.md"
