#!/usr/bin/env python3
"""Where a `roofline run`'s time goes, and its ops at small batches, from its timestamped log and results.

    python3 bench/run_time_table.py stages RUN.log [BEFORE.log]     # seconds per stage (and before/after)
    python3 bench/run_time_table.py small-batch A/results.json …     # decode ops, measured ÷ predicted

A timestamped log is the run's progress with the seconds since its start in front of each line (lib.sh's
`stamp`); a stage is a probe, the model ops, the per-linear sweep or the whole steps. The small-batch table
lays out roofline's own per-op prediction and measurement (results.ops, results.whole_step)."""
import json
import re
import sys

from tables import DASH, die, us

LINE = re.compile(r"\s*([\d.]+) \[roofline\s+\d+%[^\]]*\] (.*)")


def stage_of(what):
    for prefix, name in (("op ", "model ops"), ("batch sweep", "per-linear batch sweep"),
                         ("whole step", "whole steps"), ("analys", "analysis + writing"),
                         ("latency/small-work", "latency/small-work"), ("detecting", "detecting the device")):
        if what.startswith(prefix):
            return name
    return what.split(":")[0]


def stages(path):
    rows, end = [], None
    for line in open(path):
        m = LINE.match(line)
        if m:
            rows.append((float(m.group(1)), m.group(2).strip()))
        w = re.match(r"\s*([\d.]+) wall", line)
        if w:
            end = float(w.group(1))
    if not rows or end is None:
        die("run_time_table.py", f"{path}: no timestamped progress lines or no final 'wall' line")
    out = {"start (process, device context)": rows[0][0]}
    for i, (t, what) in enumerate(rows):
        t2 = rows[i + 1][0] if i + 1 < len(rows) else end
        out[stage_of(what)] = out.get(stage_of(what), 0) + t2 - t
    return out, end


def stage_table(paths):
    runs = [stages(p) for p in paths]
    keys = list(dict.fromkeys(k for r, _ in runs for k in r))
    heads = ["after (s)", "before (s)"][:len(runs)] if len(runs) == 2 else ["seconds"]
    runs = runs[::-1] if len(runs) == 2 else runs  # before first
    heads = heads[::-1]
    print("| stage | " + " | ".join(heads) + " |")
    print("| --- |" + " ---: |" * len(runs))
    for k in keys:
        print(f"| {k} | " + " | ".join(f"{r.get(k, 0):.1f}" for r, _ in runs) + " |")
    print("| **total (wall)** | " + " | ".join(f"**{e:.1f}**" for _, e in runs) + " |")


def small_batch(paths):
    print("| run | op | batch | count | predicted | measured | measured ÷ predicted |")
    print("| --- | --- | ---: | ---: | ---: | ---: | ---: |")
    for path in paths:
        r = json.load(open(path))
        tag = path.split("/")[-2]
        for o in r.get("ops", []):
            if o.get("phase") != "decode" or o.get("alternative_to"):
                continue
            m, p = o.get("measured_s"), o.get("predicted_s")
            ratio = DASH if not (m and p) else f"{m / p:.2f}"
            print(f"| {tag} | {o['name']} | {o['batch']} | {o.get('count', 1)} | {us(p)} | {us(m)} | {ratio} |")
        for w in r.get("whole_step", []):
            m, p = w.get("measured_s"), w.get("predicted_s")
            ratio = DASH if not (m and p) else f"{m / p:.2f}"
            print(f"| {tag} | whole step ({w['phase']}) | {w['batch']} | | {us(p)} | {us(m)} | {ratio} |")


if __name__ == "__main__":
    if len(sys.argv) < 3 or sys.argv[1] not in ("stages", "small-batch"):
        die("run_time_table.py", "usage: run_time_table.py stages RUN.log [BEFORE.log] | small-batch RESULTS.json …")
    (stage_table if sys.argv[1] == "stages" else small_batch)(sys.argv[2:])
