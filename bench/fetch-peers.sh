#!/usr/bin/env bash
# Extracts the peers' sources (never committed here) into bench-peers/ (git-ignored) from local git
# mirrors, and records their commits in bench-peers/COMMITS:
#   gpu-benches (github.com/te42kyfo/gpu-benches): gpu-cache, gpu-l2-cache, gpu-stream
#   BabelStream (github.com/UoB-HPC/BabelStream): the CUDA model
#   STREAM      (github.com/jeffhammond/STREAM, McCalpin's stream.c)
# MIRROR (default /work/.mirror) holds one bare repository per peer at <owner>+<name>/repo, as the
# workplace's fetch step leaves them; elsewhere clone them yourself and point MIRROR at the clones
# (MIRROR/<owner>+<name>/repo may also be a .git directory).
set -euo pipefail
cd "$(dirname "$0")/.."
MIRROR="${MIRROR:-/work/.mirror}"
DEST="${PEERS:-$PWD/bench-peers}"
mkdir -p "$DEST"
: >"$DEST/COMMITS"
for spec in te42kyfo+gpu-benches:gpu-benches UoB-HPC+BabelStream:BabelStream jeffhammond+STREAM:STREAM; do
  src="$MIRROR/${spec%%:*}/repo" name="${spec##*:}"
  if [ ! -d "$src" ]; then echo "missing mirror $src (fetch github:${spec%%:*} first)" >&2; exit 2; fi
  rm -rf "${DEST:?}/$name" && mkdir -p "$DEST/$name"
  git --git-dir="$src" archive HEAD | tar -x -C "$DEST/$name"
  echo "$name $(git --git-dir="$src" log -1 --format='%H %cs')" >>"$DEST/COMMITS"
done
cat "$DEST/COMMITS"
