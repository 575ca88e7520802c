#!/usr/bin/env bash
# How much of each real run `roofline place` attributes, and its answer (the coverage table of docs/ingest.md):
# every kept real trace and export (tests/data/h100-2026-12-05 and -06, tests/data/h200-2026-12-03), and the
# benchmark's own files when given (BIG=path/train-qwen2.5-0.5b-b8s1024.json.gz), each placed without and with
# --model, on its own GPU's roofs.   [R=build/cpu/roofline] [BIG=…] bash bench/place-coverage.sh > table.md
set -euo pipefail
cd "$(dirname "$0")/.."
R=${R:-build/cpu/roofline}
T=$(mktemp -d)
H1=tests/data/h100-2026-12-05 H2=tests/data/h200-2026-12-03
place() {  # NAME FILE ROOFS MODEL [more place args]
  local name=$1 f=$2 roofs=$3 model=$4; shift 4
  "$R" place $f --results "$roofs" --json "$@" > "$T/$name.json"
  "$R" place $f --results "$roofs" --model "$model" --json "$@" > "$T/$name-model.json"
  args+=("$name=$T/$name.json,$T/$name-model.json")
}
args=()
place "qwen2-2l-train" "--trace $H1/train-qwen2-2l.json.gz" $H1/results.json $H1/qwen2-2l.json
place "gpt2-2l-train" "--trace $H1/train-gpt2-2l.json.gz" $H1/results.json $H1/gpt2-2l.json
place "llama-1l-flash-train" "--trace $H1/train-llama-1l-flash.json.gz" $H1/results.json $H1/tinyllama-1l.json
H3=tests/data/h100-2026-12-06
place "gpt2-1l-efficient-train" "--trace $H3/train-gpt2-1l-efficient.json.gz" $H1/results.json $H3/gpt2-1l.json
place "tinyllama-capture-b1-h100" "--trace $H3/capture-tinyllama-b1.json.gz" $H1/results.json tinyllama-1.1b
place "tinyllama-static-graphs-h100" "--trace $H1/trace-tinyllama-graphs-h100.json.gz" $H1/results.json tinyllama-1.1b
place "tinyllama-eager-h200" "--trace $H2/torch-trace-tinyllama-eager.json.gz" $H2/results.json tinyllama-1.1b
place "tinyllama-compiled-h200" "--trace $H2/trace-tinyllama-compiled.json.gz" $H2/results.json tinyllama-1.1b
place "tinyllama-static-graphs-h200" "--trace $H2/trace-tinyllama-graphs.json.gz" $H2/results.json tinyllama-1.1b
place "ncu-decode-h200" "--ncu $H2/ncu-tinyllama-decode-recommended-metrics.csv" $H2/results.json tinyllama-1.1b --phase decode --batch 1 --context 512
if [ -n "${BIG:-}" ]; then
  place "qwen2.5-0.5b-train-b8s1024" "--trace $BIG" $H1/results.json models/qwen2.5-0.5b.json
fi
python3 bench/coverage_table.py "${args[@]}"
rm -rf "$T"
