#!/usr/bin/env python3
"""roofline's interconnect roofs beside nccl-tests, one markdown table (bench/fleet-2gpu.sh).

  fleet_table.py --fleet fleet.json --nccl-tests DIR [--machine TEXT] [--commits FILE] [--out table.md]

DIR holds nccl-tests' stdout, one file per binary: all_reduce_perf.txt, all_gather_perf.txt,
reduce_scatter_perf.txt, alltoall_perf.txt, broadcast_perf.txt, sendrecv_perf.txt (missing ones are
"not run"). nccl-tests prints one row per size: size (B), count, type, redop, root, then out-of-place
time (us), algbw, busbw (GB/s), #wrong, then the same in place (NVIDIA/nccl-tests src/common.cu;
conventions in doc/PERFORMANCE.md). roofline's numbers are fleet.json's interconnect.points (median
time, slowest rank; busbw by the same conventions, SI GB/s = 1e9 B/s).

Pattern pairs: all_reduce, all_gather, reduce_scatter, broadcast (same names); alltoall = all_to_all;
sendrecv = send_recv_bidir 0<->1 (on 2 GPUs nccl-tests' ring send/recv is both directions at once).

Targets (the project's two-GPU issue): at 512 MiB, roofline busbw >= 0.97 x nccl-tests in place;
at the smallest common size, roofline time <= 1.2 x the faster of nccl-tests' two times.
Exit status 0 whenever the table was written (missed targets are in the table), 2 on bad input.
"""
import argparse
import json
import os
import sys

import tables
from tables import MIB, fmt

AT_BYTES = 512 * MIB
BUSBW_TARGET = 0.97
LATENCY_TARGET = 1.2
PAIRS = [  # (nccl-tests binary, roofline series)
    ("all_reduce_perf", "all_reduce"),
    ("all_gather_perf", "all_gather"),
    ("reduce_scatter_perf", "reduce_scatter"),
    ("alltoall_perf", "all_to_all"),
    ("broadcast_perf", "broadcast"),
    ("sendrecv_perf", "send_recv_bidir 0\u21941"),
]


def die(msg):
    tables.die("fleet_table.py", msg)


def number(tok):
    try:
        return float(tok)
    except ValueError:
        return None


def parse_nccl_tests(text):
    """Rows of an nccl-tests run: {size: {"type", "oop": (us, algbw, busbw), "ip": (...)}}.

    A data row is a line not starting with '#' whose first two fields are integers and that has at
    least 13 fields; "N/A" in a #wrong column (-c 0) is allowed. Other lines are ignored."""
    rows = {}
    for line in text.splitlines():
        s = line.strip()
        if not s or s.startswith("#"):
            continue
        t = s.split()
        if len(t) < 13 or not t[0].isdigit() or not t[1].isdigit():
            continue
        oop = tuple(number(x) for x in t[5:8])
        ip = tuple(number(x) for x in t[9:12])
        if None in oop or None in ip:
            continue
        rows[int(t[0])] = {"type": t[2], "oop": oop, "ip": ip}
    return rows


def load_fleet(path):
    try:
        with open(path) as f:
            j = json.load(f)
    except (OSError, ValueError) as e:
        die(f"{path}: {e}")
    ic = j.get("interconnect")
    if not isinstance(ic, dict):
        die(f"{path}: interconnect missing (not a fleet.json?)")
    series = {}
    for p in ic.get("points", []):
        name = p.get("series") or p.get("collective")
        try:
            series.setdefault(name, {})[int(p["bytes"])] = (float(p["seconds"]), float(p["busbw_bytes_per_s"]))
        except (KeyError, TypeError, ValueError):
            die(f"{path}: interconnect.points entry without bytes/seconds/busbw_bytes_per_s: {p}")
    return ic, series


verdict = tables.yes_no


def build_table(fleet_path, nccl_dir, machine="", commits=""):
    ic, series = load_fleet(fleet_path)
    out = ["# roofline fleet vs nccl-tests", ""]
    if machine:
        out += [f"Machine: {machine}", ""]
    out += [f"roofline: {ic.get('library', '?')}, {ic.get('ranks', '?')} ranks, {ic.get('dtype', '?')}, status "
            f"{ic.get('status', '?')}" + (f" ({ic.get('reason')})" if ic.get("reason") else "") + ".", ""]
    if commits:
        out += [f"nccl-tests: {commits}", ""]
    out += ["Bus bandwidth at 512 MiB (GB/s; target: roofline >= 0.97 x nccl-tests in place):", "",
            "| pattern | roofline | nccl-tests out-of-place | nccl-tests in-place | roofline ÷ in-place | meets |",
            "|---|---:|---:|---:|---:|---|"]
    lat = ["", "Latency at the smallest common size (µs; target: roofline <= 1.2 x the faster nccl-tests time):", "",
           "| pattern | size (B) | roofline | nccl-tests out-of-place | nccl-tests in-place | roofline ÷ faster | meets |",
           "|---|---:|---:|---:|---:|---:|---|"]
    detail = ["", "Every common size (busbw GB/s):", "",
              "| pattern | size (B) | roofline | nccl-tests out-of-place | nccl-tests in-place |", "|---|---:|---:|---:|---:|"]
    met = total = 0
    for binary, name in PAIRS:
        path = os.path.join(nccl_dir, binary + ".txt")
        rows = {}
        if os.path.exists(path):
            with open(path, errors="replace") as f:
                rows = parse_nccl_tests(f.read())
        ours = series.get(name, {})
        if not rows or not ours:
            why = "nccl-tests not run" if not rows else "roofline did not measure it"
            out.append(f"| {name} | {why} | | | | — |")
            lat.append(f"| {name} | | {why} | | | | — |")
            continue
        r512, n512 = ours.get(AT_BYTES), rows.get(AT_BYTES)
        ratio = ok = None
        if r512 and n512 and n512["ip"][2] > 0:
            ratio = r512[1] / 1e9 / n512["ip"][2]
            ok = ratio >= BUSBW_TARGET
            total += 1
            met += ok
        out.append(f"| {name} | {fmt(r512 and r512[1] / 1e9, '.1f')} | {fmt(n512 and n512['oop'][2], '.1f')} | "
                   f"{fmt(n512 and n512['ip'][2], '.1f')} | {fmt(ratio, '.3f')} | {verdict(ok)} |")
        common = sorted(set(ours) & set(rows))
        if common:
            s = common[0]
            r_us = ours[s][0] * 1e6
            faster = min(rows[s]["oop"][0], rows[s]["ip"][0])
            lratio = r_us / faster if faster > 0 else None
            lok = None if lratio is None else lratio <= LATENCY_TARGET
            if lok is not None:
                total += 1
                met += lok
            lat.append(f"| {name} | {s} | {r_us:.2f} | {rows[s]['oop'][0]:.2f} | {rows[s]['ip'][0]:.2f} | "
                       f"{fmt(lratio, '.3f')} | {verdict(lok)} |")
        for s in common:
            detail.append(f"| {name} | {s} | {ours[s][1] / 1e9:.4g} | {rows[s]['oop'][2]:.4g} | {rows[s]['ip'][2]:.4g} |")
    out += lat + detail + ["", f"Targets met: {met} of {total}.", ""]
    return "\n".join(out)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--fleet", required=True, help="roofline's fleet.json")
    ap.add_argument("--nccl-tests", required=True, dest="nccl", help="directory of nccl-tests outputs (<binary>.txt)")
    ap.add_argument("--machine", default="")
    ap.add_argument("--commits", default="", help="file whose nccl-tests line names the commit")
    ap.add_argument("--out", default="")
    a = ap.parse_args()
    if not os.path.isdir(a.nccl):
        die(f"--nccl-tests: {a.nccl} is not a directory")
    commits = ""
    if a.commits and os.path.exists(a.commits):
        with open(a.commits) as f:
            commits = next((l.strip() for l in f if l.startswith("nccl-tests ")), "")
    text = build_table(a.fleet, a.nccl, a.machine, commits)
    if a.out:
        with open(a.out, "w") as f:
            f.write(text)
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
