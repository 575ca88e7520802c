#!/usr/bin/env python3
"""How far two consecutive whole measurements on one machine differ, per roof, with the clock beside.

Reads the results.json of two `roofline measure` runs made one after the other on one machine
(bench/repeatability.sh makes them) and pairs their rows: a bandwidth row by pattern, level and
working set; a compute row by precision, engine and size; the k-th row with one label in the first
run is paired with the k-th in the second (probes run in one order). For each pair it prints both
rates, the difference |a - b| / mean(a, b), the target (bandwidth and vector roofs 3 %; GEMMs 5 %,
since the power cap moves them), whether it was met, and beside it what can explain a GEMM
difference: the median SM clock of each run's row (NVML telemetry; "—" where none was sampled, e.g.
on a CPU) and the cuBLASLt algorithm each run chose. Only rows that can be roofs are compared (device
memory levels and compute rows, not rejected in either run).

A single results.json from `roofline measure --repeat N` is accepted too: its rows carry
`across_runs` (the N runs' best rates) but one row's telemetry only, so no clock column.

    python3 bench/repeatability.py first/results.json second/results.json > table.md
    python3 bench/repeatability.py repeated/results.json > table.md
"""
import json
import sys

from tables import DEVICE_MEMORY, si


def rows_of(r):
    """(label, rate, unit, target, sm clock MHz or None, algo text) for every row that may be a roof."""
    out, seen = [], {}

    def add(label, *rest):
        k = seen.get(label, 0)
        seen[label] = k + 1
        out.append((label if k == 0 else f"{label} (#{k + 1})",) + rest)

    for b in r["measured"]["bandwidth"]:
        if b["level"] in DEVICE_MEMORY and not b.get("rejected"):
            add(f"{b['level']} {b['pattern']} {b['working_set_bytes'] / 2**20:.0f} MiB", b["bytes_per_s"], "B/s",
                0.03, clock(b), "", b)
    for c in r["measured"]["compute"]:
        if c.get("rejected"):
            continue
        size = f" n={c['size']}" if c.get("size") else ""
        gemm = c["engine"] in ("gemm", "tensor")
        algo = c.get("algo") or {}
        algo_text = f"algo {algo['algo_id']}, tile {algo.get('tile', '?')}" if "algo_id" in algo else ""
        add(f"{c['precision']} {c['engine']}{size}", c["flops_per_s"], "FLOP/s", 0.05 if gemm else 0.03, clock(c),
            algo_text, c)
    return out


def clock(row):
    t = row.get("telemetry") or {}
    s = t.get("sm_clock_mhz") or {}
    return s.get("median")


def header(r):
    dev = r["device"]
    return f"{dev['name']} ({dev['id']})", r["host"]["timestamp"], r["host"].get("command", "")


def busy_line(r, which):
    i = r.get("interference") or {}
    return f"- {which}: the machine was busy: {i.get('summary')}" if i.get("busy") else f"- {which}: no interference seen"


def two_runs(a, b):
    (name, t1, c1), (_, t2, c2) = header(a), header(b)
    print(f"# Repeatability: {name}, two whole measurements one after the other\n")
    print(f"- first: {t1}, `{c1}`")
    print(f"- second: {t2}, `{c2}`")
    print(busy_line(a, "first"))
    print(busy_line(b, "second"))
    print("\nClock: the median SM clock NVML sampled while that row's probe ran (— where none was sampled).\n")
    print("| roof | first | second | difference | target | met | SM clock first → second | algorithm first → second |")
    print("| --- | ---: | ---: | ---: | ---: | --- | --- | --- |")
    second = {row[0]: row for row in rows_of(b)}
    missed = n = 0
    unpaired = []
    for label, v1, unit, target, k1, al1, _ in rows_of(a):
        if label not in second:
            unpaired.append(label)
            continue
        _, v2, _, _, k2, al2, _ = second.pop(label)
        diff = abs(v1 - v2) / ((v1 + v2) / 2)
        ok = diff <= target
        n += 1
        missed += not ok
        clk = "—" if k1 is None and k2 is None else (
            f"{k1:.0f} → {k2:.0f} MHz ({100 * (k2 - k1) / k1:+.1f} %)" if k1 and k2 else f"{k1} → {k2} MHz")
        alg = "" if not al1 and not al2 else (al1 if al1 == al2 else f"{al1} → {al2}")
        print(f"| {label} | {si(v1, unit)} | {si(v2, unit)} | {100 * diff:.1f} % | {100 * target:.0f} % | "
              f"{'met' if ok else '**missed**'} | {clk} | {alg} |")
    unpaired += list(second)
    print(f"\n{n - missed} of {n} roofs within target.")
    if unpaired:
        print(f"Not compared (a row in one run only, or rejected in the other): {', '.join(unpaired)}.")


def one_repeated(r):
    name, t, c = header(r)
    print(f"# Repeatability: {name}, {t}\n")
    print(f"`{c}`: {r.get('repeat', 1)} whole measurements one after the other (no per-run clock in one file).\n")
    print("| roof | runs | min | max | range | target | met |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | --- |")
    n = missed = 0
    for label, _, unit, target, _, _, row in rows_of(r):
        a = row.get("across_runs")
        if not a:
            continue
        ok = a["range"] <= target
        n += 1
        missed += not ok
        print(f"| {label} | {a['n']} | {si(a['min'], unit)} | {si(a['max'], unit)} | {100 * a['range']:.1f} % | "
              f"{100 * target:.0f} % | {'met' if ok else '**missed**'} |")
    if n == 0:
        print("| (no row carries across_runs: run with --repeat 2 or more) | | | | | | |")
    print(f"\n{n - missed} of {n} roofs within target.")
    print(busy_line(r, "run"))


def main():
    if len(sys.argv) == 3:
        two_runs(json.load(open(sys.argv[1])), json.load(open(sys.argv[2])))
    elif len(sys.argv) == 2:
        one_repeated(json.load(open(sys.argv[1])))
    else:
        sys.exit("usage: repeatability.py FIRST.json SECOND.json | REPEATED.json")


if __name__ == "__main__":
    main()
