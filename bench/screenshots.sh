#!/usr/bin/env bash
# Screenshots of roofline's pages and figures as a user sees them: headless Chromium at 1400 px wide,
# PNGs reduced to a 32-colour palette (pngquant) so that bench/results stays small.
#   bash bench/screenshots.sh OUT H100_RESULTS CPU_RESULTS CPU_BASELINE_RESULTS [BINARY]
# writes OUT/{h100,cpu}-*.png and the rendered files under OUT/render/ (not kept). Needs chromium and
# pngquant (apt-get install chromium pngquant). CPU_BASELINE_RESULTS: an earlier run of a like machine, for compare;
# the CPU place page places the CPU run's own measured ops, written as a CSV of name,flops,bytes,time_s.
set -euo pipefail
out=$1 h100=$2 cpu=$3 cpu_base=$4 bin=${5:-build/release/roofline}
render=$out/render
rm -rf "$render" && mkdir -p "$render"
prof=$(mktemp -d)
trap 'rm -rf "$prof"' EXIT
d=tests/data/h100-2026-12-05

# shot PNG FILE HEIGHT [CSS]: FILE at 1400 × HEIGHT px; CSS (optional) is added to an html page first
# (e.g. to show one section alone, as it lays out at that width).
shot() {
  local png=$1 file=$2 height=$3 css=${4:-}
  local page=$file
  if [ -n "$css" ]; then
    page="${file%.html}-shot.html"
    CSS="$css" perl -pe 's#</head>#<style>$ENV{CSS}</style></head>#' "$file" >"$page"  # the CSS may hold '#'; perl inserts it literally
  fi
  local bars=--hide-scrollbars  # html pages keep theirs: a wide table shows that it scrolls
  case $file in *.html) bars= ;; esac
  timeout 120 chromium --headless --no-sandbox --disable-gpu $bars --no-first-run --user-data-dir="$prof" \
    --window-size=1400,"$height" --virtual-time-budget=3000 --screenshot="$out/$png" "file://$(readlink -f "$page")" >/dev/null 2>&1
  pngquant --force --strip --speed 1 32 --output "$out/$png" "$out/$png"
  echo "$png: 1400 x $height px, $(stat -c %s "$out/$png") B" >&2
}
svg_height() { grep -o -m1 '<svg[^>]* height="[0-9.]*"' "$1" | sed 's/.*height="\([0-9]*\).*/\1/'; }
# only one section of a page: the h1 and that section
only() { echo "body > :not(h1):not($1) { display: none !important; }"; }

"$bin" report "$h100" --out "$render/h100" >/dev/null 2>&1
"$bin" compare "$h100" tests/data/h200-2026-12-03/results.json --out "$render/h100-vs-h200" >/dev/null 2>&1
"$bin" place --trace $d/train-qwen2-2l.json.gz --results "$h100" --model $d/qwen2-2l.json --out "$render/h100-place" >/dev/null 2>&1
"$bin" report "$cpu" --out "$render/cpu" >/dev/null 2>&1
"$bin" compare "$cpu_base" "$cpu" --out "$render/cpu-vs-earlier" >/dev/null 2>&1
# the CPU run's own measured ops as a user's CSV of name,flops,bytes,time_s (there is no CPU profile in tests/data)
python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))
print("name,flops,bytes,time_s")
for o in r["ops"]:
    if o.get("measured_s") and o["flops"] > 0:
        print("{} {} b{},{},{},{}".format(o["name"], o["phase"], o["batch"], o["flops"], o["bytes"], o["measured_s"]))
' "$cpu" >"$render/cpu-ops.csv"
"$bin" place --csv "$render/cpu-ops.csv" --results "$cpu" --out "$render/cpu-place" >/dev/null 2>&1

for side in h100 cpu; do
  shot "$side-report.png" "$render/$side/report.html" 1300
  # the widest table (MFU and HFU → scenarios, 19 columns) scrolling in its box; the CPU's is alike
  [ $side = h100 ] && shot "$side-report-mfu.png" "$render/$side/report.html" 900 "$(only '#mfu')"
  shot "$side-roofline.png" "$render/$side/roofline.svg" "$(svg_height "$render/$side/roofline.svg")"
  [ -f "$render/$side/batch.svg" ] && shot "$side-batch.png" "$render/$side/batch.svg" "$(svg_height "$render/$side/batch.svg")"
done
shot h100-compare.png "$render/h100-vs-h200/compare.svg" "$(svg_height "$render/h100-vs-h200/compare.svg")"
shot h100-compare-html.png "$render/h100-vs-h200/compare.html" 800
shot cpu-compare.png "$render/cpu-vs-earlier/compare.svg" "$(svg_height "$render/cpu-vs-earlier/compare.svg")"
shot cpu-compare-html.png "$render/cpu-vs-earlier/compare.html" 800
shot h100-place.png "$render/h100-place/place.html" 1600
# the trace's page puts its figure under the steps' tables, below the first screen: place.svg alone
shot h100-place-figure.png "$render/h100-place/place.svg" "$(svg_height "$render/h100-place/place.svg")"
shot cpu-place.png "$render/cpu-place/place.html" 1000
