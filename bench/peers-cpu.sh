#!/usr/bin/env bash
# roofline's CPU bandwidth beside McCalpin's STREAM in one run on the same machine and threads:
#   bash bench/fetch-peers.sh               # once (STREAM's source into bench-peers/, never committed)
#   bash bench/peers-cpu.sh [OUT_DIR]       # default bench-out/cpu; run on a quiet machine; BIN=path/roofline
# Builds stream.c with gcc -O3 -march=native -fopenmp (80 M elements per array, 20 repeats; each
# array 640 MB, far above any LLC), runs it, then `roofline measure --only bandwidth` (build/cpu, the
# cpu preset), then STREAM again, so drift shows; writes OUT/peers-cpu.md (bench/peers_table.py cpu)
# and OUT/results.json. Threads: OMP_NUM_THREADS if set, else every core, for both tools.
# Exit status: 0 when the table was written (missed targets are in the table).
set -uo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
OUT="${1:-$ROOT/bench-out/cpu}"
PEERS="${PEERS:-$ROOT/bench-peers}"
mkdir -p "$OUT"
exec > >(tee "$OUT/peers-cpu.log") 2>&1
export OMP_NUM_THREADS="${OMP_NUM_THREADS:-$(nproc)}" OMP_PROC_BIND="${OMP_PROC_BIND:-spread}"
MACHINE="$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(nproc) CPUs, $OMP_NUM_THREADS threads; $(uname -r); $(date -u +%FT%TZ); load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "$MACHINE"

[ -f "$PEERS/STREAM/stream.c" ] || { echo "no $PEERS/STREAM/stream.c: run bench/fetch-peers.sh"; exit 2; }
gcc -O3 -march=native -fopenmp -DSTREAM_ARRAY_SIZE=80000000 -DNTIMES=20 "$PEERS/STREAM/stream.c" -o "$OUT/stream" ||
  { echo "STREAM build failed"; exit 2; }
BIN="${BIN:-build/cpu/roofline}"  # any build of roofline (the h200 preset's measures the CPU too)
[ -x "$BIN" ] || { . /root/ccache-env.sh 2>/dev/null; cmake --preset cpu --log-level=NOTICE && cmake --build --preset cpu -j "$(nproc)" --target roofline; } ||
  { echo "roofline build failed"; exit 2; }

"$OUT/stream" >"$OUT/stream-1.txt"; grep -E '^(Copy|Scale|Add|Triad):' "$OUT/stream-1.txt"
"$BIN" measure --device cpu --only bandwidth --out "$OUT/results.json" >"$OUT/roofline.log" 2>&1
echo "roofline exit $?"
RESULTS="$OUT/results.json"; [ -d "$RESULTS" ] && RESULTS="$RESULTS/results.json"
"$OUT/stream" >"$OUT/stream-2.txt"; grep -E '^(Copy|Scale|Add|Triad):' "$OUT/stream-2.txt"

python3 bench/peers_table.py cpu --roofline "$RESULTS" --stream "$OUT/stream-1.txt" "$OUT/stream-2.txt" \
  --commits "$PEERS/COMMITS" --machine "$MACHINE (load average after: $(cut -d' ' -f1-3 /proc/loadavg))" --out "$OUT/peers-cpu.md"
