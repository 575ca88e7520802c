#!/usr/bin/env bash
# One device call: build roofline for the H200, a full `roofline run` (TinyLlama-1.1B) and a `--quick`
# run with every progress line timestamped (where the run's time goes), the decode step sweep and
# energy table, and Llama-3-8B's shapes (the roofs its ops need, its ops and its step sweep).
#   OUT=/path bash bench/h200-speed-energy.sh
set -uo pipefail
OUT=${OUT:?set OUT}
export NCCL_NVLS_ENABLE=0
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit,temperature.gpu,ecc.mode.current --format=csv > "$OUT/gpu.txt"
(cmake --preset h200 -DROOFLINE_TESTS=OFF && cmake --build --preset h200 -j16 --target roofline) > "$OUT/build.log" 2>&1 || { tail -30 "$OUT/build.log"; exit 3; }
stamp() { python3 -u -c 'import sys,time
t0=time.time()
for l in sys.stdin: sys.stdout.write("%8.2f %s" % (time.time()-t0, l))'; }
R=build/h200/roofline
( /usr/bin/time -f "wall %e s" $R run --tpot-target 20ms --out "$OUT/full" ) 2>&1 | stamp > "$OUT/full.log"
( /usr/bin/time -f "wall %e s" $R run --quick --out "$OUT/quick" ) 2>&1 | stamp > "$OUT/quick.log"
python3 bench/step_sweep_table.py "$OUT/full/results.json" > "$OUT/step_sweep.md" 2>&1
( /usr/bin/time -f "wall %e s" timeout 240 $R run --model llama-3-8b --only bandwidth,gemm,launch,latency --out "$OUT/llama3" ) 2>&1 | stamp > "$OUT/llama3.log"
python3 bench/step_sweep_table.py "$OUT/llama3/results.json" > "$OUT/step_sweep_llama3.md" 2>&1
# Ops measured at the small batches whose whole steps the prediction misses most (decode b4, b16).
( /usr/bin/time -f "wall %e s" $R run --quick --batch 4,16 --out "$OUT/b4" ) 2>&1 | stamp > "$OUT/b4.log"
python3 - "$OUT/full/results.json" "$OUT/b4/results.json" > "$OUT/ops_small_batch.md" 2>&1 <<'PY'
import json, sys
print("| file | op | phase | batch | count | predicted µs | measured µs | measured ÷ predicted |")
print("| --- | --- | --- | ---: | ---: | ---: | ---: | ---: |")
for f in sys.argv[1:]:
    r = json.load(open(f))
    for o in r["ops"]:
        if o.get("phase") != "decode" or o.get("alternative_to"): continue
        m, p = o.get("measured_s"), o.get("predicted_s")
        print(f"| {f.split('/')[-2]} | {o['name']} | decode | {o['batch']} | {o.get('count',1)} | {p*1e6:.1f} | "
              + (f"{m*1e6:.1f} | {m/p:.2f} |" if m else "— | — |"))
    for w in r.get("whole_step", []):
        print(f"| {f.split('/')[-2]} | whole step | {w['phase']} | {w['batch']} | | {w['predicted_s']*1e6:.0f} | "
              f"{w['measured_s']*1e6:.0f} | {w['measured_s']/w['predicted_s']:.2f} |")
PY
grep -E "wall|took" "$OUT"/*.log; cat "$OUT/step_sweep.md" "$OUT/step_sweep_llama3.md"
(cd "$OUT" && tar czf runs.tgz full quick llama3 b4 && rm -rf full quick llama3 b4)
