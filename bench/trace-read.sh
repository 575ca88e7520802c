#!/usr/bin/env bash
# The trace reader's speed and memory (docs/ingest.md, "Read speed"): a generated multi-GB trace made of
# a real training trace's events (bench/trace_gen.py), read by roofline_trace_read (ingest::read_torch_trace,
# what `roofline place --trace` runs), plain JSON and gzip; prints MB/s of JSON and the peak RSS.
#   GB=5 [PRESET=cpu] [TMP=/tmp] bash bench/trace-read.sh
set -euo pipefail
cd "$(dirname "$0")/.."
GB=${GB:-5}; PRESET=${PRESET:-cpu}; TMP=${TMP:-/tmp}
SRC=${SRC:-tests/data/h100-2026-12-05/train-qwen2-2l.json.gz}
cmake --preset "$PRESET" --log-level=NOTICE > /dev/null
cmake --build --preset "$PRESET" --target roofline_trace_read -j "$(nproc)" > /dev/null
BIN=build/$PRESET/roofline_trace_read
big=$TMP/roofline-trace-$GB.json
python3 bench/trace_gen.py "$SRC" "$big" "$GB"
echo "machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(nproc) vCPU, $(date -I)"
for i in 1 2; do "$BIN" "$big"; done
small=$TMP/roofline-trace-1.json
python3 bench/trace_gen.py "$SRC" "$small" 1 > /dev/null
gzip -1 -c "$small" > "$small.gz"
echo "gzip: $(stat -c %s "$small") bytes of JSON in $(stat -c %s "$small.gz") bytes"
"$BIN" "$small.gz"
rm -f "$big" "$small" "$small.gz"
