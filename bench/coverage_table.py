"""Usage: python3 bench/coverage_table.py NAME=PLACE_JSON[,PLACE_JSON_WITH_MODEL] ... > table.md
How much of each real run `roofline place` attributes, and what it says of the run: per file the kernels,
the kernel time, the unattributed share without and with --model, the steps found, the main step's wall
time, MFU, HFU, MBU, the attainable step and measured ÷ attainable. Numbers as place.json (`place --json`)
has them; only sums and ratios are computed here."""
import json, sys

from tables import ms, pct


def unattributed(j):
    ks = j.get("kernels", [])
    total = sum(k["seconds"] for k in ks)
    none = sum(k["seconds"] for k in ks if k["class"] == "unattributed")
    return len(ks), total, (none / total if total else None)


print("| run | kernels | kernel time | unattributed | with --model | steps | main step | MFU | HFU | MBU | attainable | measured ÷ attainable |")
print("|---|---:|---:|---:|---:|---|---:|---:|---:|---:|---:|---:|")
for arg in sys.argv[1:]:
    name, files = arg.split("=", 1)
    paths = files.split(",")
    j = json.load(open(paths[0]))
    m = json.load(open(paths[1])) if len(paths) > 1 else None
    n, total, share = unattributed(j)
    share_m = unattributed(m)[2] if m else None
    run = (m or j).get("run") or {}
    steps = run.get("steps", [])
    main = run.get("main_kind", "—")
    wall, att = run.get("median_wall_s"), run.get("median_attainable_s")
    ratio = f"{wall / att:.2f}×" if wall and att else "—"
    print(f"| {name} | {n} | {ms(total)} | {pct(share)} | {pct(share_m) if m else '—'} | "
          f"{len(steps)} by {run.get('step_rule', '—')} ({sum(1 for s in steps if s['kind'] == main)} {main}) | {ms(wall)} | "
          f"{pct(run.get('median_mfu'))} | {pct(run.get('median_hfu'))} | {pct(run.get('median_mbu'))} | {ms(att)} | {ratio} |")
