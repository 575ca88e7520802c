#!/usr/bin/env bash
# Repeatability of the roofs: `roofline measure --repeat 2` (two whole measurements one after the
# other) and the per-roof difference as a table.
#   bash bench/repeatability.sh [DEVICE] [BINARY]     DEVICE: cpu (default) or cuda:N
# Writes $OUT/repeat-<device>/ (the measurement's outputs) and $OUT/repeat-<device>.md ($OUT
# defaults to ./bench-out).
set -euo pipefail
cd "$(dirname "$0")/.."
DEV="${1:-cpu}"
BIN="${2:-build/release/roofline}"
OUT="${OUT:-$PWD/bench-out}"
mkdir -p "$OUT"
tag="${DEV/:/}"
"$BIN" measure --device "$DEV" --repeat 2 --only bandwidth,compute,gemm --out "$OUT/repeat-$tag"
python3 bench/repeatability.py "$OUT/repeat-$tag/results.json" | tee "$OUT/repeat-$tag.md"
