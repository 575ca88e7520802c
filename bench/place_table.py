"""Usage: python3 bench/place_table.py PLACE_DIR... > bench.md
The before/after table of `roofline place` runs (each DIR holds a place.json written by
`roofline place --trace|--ncu FILE --out DIR`): kernels, kernel time, span, GPU busy, time by class,
GEMM share, unattributed share, and the baseline diff when one was given. Numbers as place.json has
them; nothing is recomputed here but sums and ratios of its fields."""
import json, os, sys

from tables import PLACE_CLASSES, ms, pct

CLASSES = PLACE_CLASSES


rows = []
for d in sys.argv[1:]:
    p = os.path.join(d, "place.json")
    if not os.path.exists(p):
        rows.append((os.path.basename(d), None))
        continue
    rows.append((os.path.basename(d), json.load(open(p))))

print("| run | kernels | kernel time | span | GPU busy | " + " | ".join(CLASSES) + " | GEMM share | vs baseline |")
print("|---|---:|---:|---:|---:|" + "---:|" * len(CLASSES) + "---:|---|")
for name, j in rows:
    if j is None:
        print(f"| {name} | not run |" + " |" * (len(CLASSES) + 5))
        continue
    t = j.get("trace") or {}
    ks = j.get("kernels", [])
    total = sum(k["seconds"] for k in ks)
    by = {c: 0.0 for c in CLASSES}
    for k in ks:
        by[k["class"]] = by.get(k["class"], 0.0) + k["seconds"]
    b = j.get("baseline")
    vs = "—" if not b else (f"kernels {ms(b['old_run_s'])} → {ms(b['new_run_s'])}, span {ms(b.get('old_span_s'))} → {ms(b.get('new_span_s'))}; "
                            f"{len(b['matched'])} matched by name ({ms(b['old_total_s'])} → {ms(b['new_total_s'])})")
    print(f"| {name} | {len(ks)} | {ms(total)} | {ms(t.get('span_s'))} | {pct(t.get('busy_fraction'))} | "
          + " | ".join(f"{ms(by[c])} ({pct(by[c] / total if total else None)})" for c in CLASSES)
          + f" | {pct(t.get('gemm_share'))} | {vs} |")
