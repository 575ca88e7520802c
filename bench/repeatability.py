#!/usr/bin/env python3
"""How far two consecutive whole measurements on one machine differ, per roof.

Reads a results.json written by `roofline measure --repeat N` (N >= 2): every bandwidth and compute
row carries `across_runs` (the N runs' best rates). Writes a Markdown table: roof, the runs' min and
max, range = (max - min) / median, the target (bandwidth and vector roofs 3 %, GEMMs 5 %: the power
cap moves them) and whether it was met. Usage:

    python3 bench/repeatability.py results.json > table.md
"""
import json
import sys


def si(v, unit):
    for p, s in ((1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k")):
        if abs(v) >= p:
            return f"{v / p:.3g} {s}{unit}"
    return f"{v:.3g} {unit}"


def main():
    path = sys.argv[1]
    r = json.load(open(path))
    dev = r["device"]
    print(f"# Repeatability: {dev['name']} ({dev['id']}), {r['host']['timestamp']}\n")
    print(f"`{r['host']['command']}`: {r.get('repeat', 1)} whole measurements one after the other.\n")
    print("| roof | runs | min | max | range | target | met |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | --- |")
    missed = 0
    rows = []
    for b in r["measured"]["bandwidth"]:
        if b["level"] in ("dram", "hbm") and b.get("across_runs"):
            rows.append((f"{b['level']} {b['pattern']} {b['working_set_bytes'] / 2**20:.0f} MiB", b["across_runs"], "B/s", 0.03))
    for c in r["measured"]["compute"]:
        if c.get("across_runs"):
            size = f" n={c['size']}" if c.get("size") else ""
            target = 0.05 if c["engine"] in ("gemm", "tensor") else 0.03
            rows.append((f"{c['precision']} {c['engine']}{size}", c["across_runs"], "FLOP/s", target))
    for name, a, unit, target in rows:
        ok = a["range"] <= target
        missed += not ok
        print(f"| {name} | {a['n']} | {si(a['min'], unit)} | {si(a['max'], unit)} | {100 * a['range']:.1f} % | "
              f"{100 * target:.0f} % | {'met' if ok else '**missed**'} |")
    if not rows:
        print("| (no row carries across_runs: run with --repeat 2 or more) | | | | | | |")
    busy = r.get("interference") or {}
    print(f"\n{len(rows) - missed} of {len(rows)} roofs within target."
          + (f" The machine was busy: {busy.get('summary')}" if busy.get("busy") else ""))


if __name__ == "__main__":
    main()
