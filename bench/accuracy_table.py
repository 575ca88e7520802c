#!/usr/bin/env python3
"""Prediction accuracy of one `roofline run`: every op's predicted and measured time as a markdown table.

    python3 bench/accuracy_table.py OUT/results.json > bench/results/<device>/<date>-<commit>/bench.md

Predicted = max(FLOPs / P(shape), bytes / BW(bytes)) + floor (docs/formulas-analysis.md §7: the
measured roofs, the per-kernel floor and the cold-read ramp of measured.small_work). Headline: the
median |predicted / measured - 1| over ALL measured ops (target <= 20 %); second column: over the ops
longer than 20 us (target <= 10 %); then every measured whole step (target: within 15 %).
"""
import json
import statistics
import sys

from tables import us


def main(path):
    r = json.load(open(path))
    dev = r["device"]["name"]
    roof = r["roofline"]
    print(f"# Prediction accuracy: {dev}\n")
    print(f"- results: `{path}`, measured {r['host']['timestamp']} on {r['host']['hostname']} "
          f"({r['host']['os']}), roofline {r['tool']['version']} ({r['tool']['build_type']})")
    print(f"- roofs used ({roof['precision']}): peak {roof['peak_measured'] / 1e12:.3g} TFLOP/s measured, "
          f"bandwidth {roof['bandwidth_measured'] / 1e9:.4g} GB/s measured, ridge {roof['ridge_measured']:.1f} FLOP/B")
    lat = (r.get("analysis") or {}).get("latency_model") or {}
    if lat:
        print(f"- small-work model: {lat.get('source')}; floor {us(lat.get('floor_s'))} per kernel")
    launch = r["measured"].get("launch") or {}
    if launch:
        print(f"- launch probe: {us(launch.get('graph_s'))} per empty kernel in a CUDA graph "
              f"(eager launch-to-sync: {us(launch.get('kernel_s'))})")
    print()
    print("| phase | batch | op | intensity (FLOP/B) | bound | predicted | measured | predicted ÷ measured | > 20 µs |")
    print("|---|---|---|---|---|---|---|---|---|")
    errs, long_errs = [], []
    for o in r["ops"]:
        m = o.get("measured_s")
        ratio = o["predicted_s"] / m if m else None
        is_long = bool(m and m > 20e-6)
        if ratio is not None:
            errs.append(abs(ratio - 1))
            if is_long:
                long_errs.append(abs(ratio - 1))
        print(f"| {o['phase']} | {o['batch']} | {o['name']} | {o['intensity']:.3g} | {o.get('bound', '')} | "
              f"{us(o['predicted_s'])} | {us(m)} | {'—' if ratio is None else f'{ratio:.2f}'} | "
              f"{'yes' if is_long else 'no'} |")
    print()
    print("| median abs(predicted ÷ measured − 1) | all ops (headline) | ops > 20 µs |")
    print("|---|---|---|")
    def cell(e, target):
        if not e:
            return "— (none measured)"
        med = statistics.median(e)
        return f"**{100 * med:.1f} %** over {len(e)} (target ≤ {100 * target:.0f} %: {'met' if med <= target else 'missed'})"
    print(f"| | {cell(errs, 0.20)} | {cell(long_errs, 0.10)} |")
    steps = [w for w in r.get("whole_step", [])]
    if steps:
        print()
        print("| whole step | batch | context/seq | predicted | measured | predicted ÷ measured | sum of isolated ops | note |")
        print("|---|---|---|---|---|---|---|---|")
        for w in steps:
            m = w.get("measured_s")
            ratio = w["predicted_s"] / m if m else None
            verdict = "" if ratio is None else (" (within 15 %)" if abs(ratio - 1) <= 0.15 else " (off by more than 15 %)")
            note = (w.get("note") or "").replace("|", "/")
            print(f"| {w['phase']} | {w['batch']} | {w.get('context') or w.get('seq')} | {us(w['predicted_s'])} | {us(m)} | "
                  f"{'—' if ratio is None else f'{ratio:.2f}'}{verdict} | {us(w.get('sum_of_ops_s'))} | {note[:120]} |")


if __name__ == "__main__":
    main(sys.argv[1])
