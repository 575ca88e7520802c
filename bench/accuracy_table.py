#!/usr/bin/env python3
"""Prediction accuracy of one `roofline run`: every op's predicted and measured time as a markdown table.

    python3 bench/accuracy_table.py OUT/results.json > bench/results/accuracy-<machine>-<date>.md

Predicted = max(FLOPs / measured peak, bytes / measured bandwidth) + launch floor (results.json
roofline + measured.launch); the target of issue 6 is a median |predicted / measured - 1| <= 15 %
over the ops longer than 20 us.
"""
import json
import statistics
import sys


def us(s):
    return "—" if s is None else f"{s * 1e6:,.1f} µs"


def main(path):
    r = json.load(open(path))
    dev = r["device"]["name"]
    roof = r["roofline"]
    print(f"# Prediction accuracy: {dev}\n")
    print(f"- results: `{path}`, measured {r['host']['timestamp']} on {r['host']['hostname']} "
          f"({r['host']['os']}), roofline {r['tool']['version']} ({r['tool']['build_type']})")
    print(f"- roofs used ({roof['precision']}): peak {roof['peak_measured'] / 1e12:.3g} TFLOP/s measured, "
          f"bandwidth {roof['bandwidth_measured'] / 1e9:.4g} GB/s measured, ridge {roof['ridge_measured']:.1f} FLOP/B")
    launch = r["measured"].get("launch") or {}
    if launch:
        print(f"- launch floor added to each prediction: {us(launch.get('graph_s') or launch.get('kernel_s'))} "
              f"(eager launch-to-sync: {us(launch.get('kernel_s'))})")
    print()
    print("| phase | batch | op | intensity (FLOP/B) | predicted | measured | predicted ÷ measured | counted (> 20 µs) |")
    print("|---|---|---|---|---|---|---|---|")
    errs = []
    for o in r["ops"]:
        m = o.get("measured_s")
        ratio = o["predicted_s"] / m if m else None
        counted = bool(m and m > 20e-6)
        if counted:
            errs.append(abs(ratio - 1))
        print(f"| {o['phase']} | {o['batch']} | {o['name']} | {o['intensity']:.3g} | {us(o['predicted_s'])} | {us(m)} | "
              f"{'—' if ratio is None else f'{ratio:.2f}'} | {'yes' if counted else 'no'} |")
    print()
    if errs:
        med = statistics.median(errs)
        print(f"**Median |predicted ÷ measured − 1| over the {len(errs)} ops longer than 20 µs: {100 * med:.1f} %** "
              f"(target ≤ 15 %: {'met' if med <= 0.15 else 'missed'}).")
    else:
        print("No op longer than 20 µs was measured.")


if __name__ == "__main__":
    main(sys.argv[1])
