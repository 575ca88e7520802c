#!/usr/bin/env bash
# Extracts the peers' sources (never committed here) into bench-peers/ (git-ignored) from local git
# mirrors, and records their commits in bench-peers/COMMITS:
#   gpu-benches (github.com/te42kyfo/gpu-benches): gpu-cache, gpu-l2-cache, gpu-stream
#   BabelStream (github.com/UoB-HPC/BabelStream): the CUDA model
#   STREAM      (github.com/jeffhammond/STREAM, McCalpin's stream.c)
#   nccl-tests  (github.com/NVIDIA/nccl-tests): only when named, `bash bench/fetch-peers.sh nccl-tests`
#               (bench/fleet-2gpu.sh builds it with nvcc on the GPU machine)
# With names as arguments only those peers are extracted (their COMMITS lines replaced).
# MIRROR (default /work/.mirror) holds one bare repository per peer at <owner>+<name>/repo, as the
# workplace's fetch step leaves them; elsewhere clone them yourself and point MIRROR at the clones
# (MIRROR/<owner>+<name>/repo may also be a .git directory).
set -euo pipefail
cd "$(dirname "$0")/.."
MIRROR="${MIRROR:-/work/.mirror}"
DEST="${PEERS:-$PWD/bench-peers}"
mkdir -p "$DEST"
ALL="te42kyfo+gpu-benches:gpu-benches UoB-HPC+BabelStream:BabelStream jeffhammond+STREAM:STREAM NVIDIA+nccl-tests:nccl-tests"
if [ $# -eq 0 ]; then
  SPECS="te42kyfo+gpu-benches:gpu-benches UoB-HPC+BabelStream:BabelStream jeffhammond+STREAM:STREAM"
  : >"$DEST/COMMITS"
else
  SPECS=""
  for want in "$@"; do
    hit=""
    for spec in $ALL; do [ "${spec##*:}" = "$want" ] && hit=$spec; done
    if [ -z "$hit" ]; then echo "unknown peer '$want' (known: gpu-benches BabelStream STREAM nccl-tests)" >&2; exit 2; fi
    SPECS="$SPECS $hit"
  done
  touch "$DEST/COMMITS"
fi
for spec in $SPECS; do
  src="$MIRROR/${spec%%:*}/repo" name="${spec##*:}"
  if [ $# -gt 0 ]; then grep -v "^$name " "$DEST/COMMITS" >"$DEST/COMMITS.new" || true; mv "$DEST/COMMITS.new" "$DEST/COMMITS"; fi
  if [ ! -d "$src" ]; then echo "missing mirror $src (fetch github:${spec%%:*} first)" >&2; exit 2; fi
  rm -rf "${DEST:?}/$name" && mkdir -p "$DEST/$name"
  git --git-dir="$src" archive HEAD | tar -x -C "$DEST/$name"
  echo "$name $(git --git-dir="$src" log -1 --format='%H %cs')" >>"$DEST/COMMITS"
done
cat "$DEST/COMMITS"
