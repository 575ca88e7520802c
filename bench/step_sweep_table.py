#!/usr/bin/env python3
"""The decode step over batch and its energy, from one `roofline run`, as a markdown table.

    python3 bench/step_sweep_table.py OUT/results.json >> bench/results/<device>/<date>-<commit>/bench.md

Every number is roofline's own (results.analysis.step_sweep and results.analysis.energy, computed by
src/analysis/energy.cpp; docs/formulas-analysis.md §8.1 and §10); this script only lays them out:
batch, measured step (TPOT), predicted step, error, tokens/s, J/token measured (NVML/RAPL counter),
J/token predicted (the energy roofline), error, and the integrated power samples against the counter.
"""
import json
import sys

from tables import DASH, die, ms, pct, si


def signed(x):
    return DASH if x is None else ("+" if x > 0 else "") + pct(x)


def joules(x):
    return DASH if x is None else si(x, "J") if x >= 1 else f"{x * 1e3:.3g} mJ"


def main(path):
    r = json.load(open(path))
    a = r.get("analysis") or {}
    s = a.get("step_sweep")
    if not s:
        die("step_sweep_table.py", f"{path}: no analysis.step_sweep (a run without the step sweep, or an older roofline)")
    e = a.get("energy") or {}
    print(f"# Decode step over batch: {r['device']['name']}, context {s['context']}\n")
    kv = s.get("kv_capacity_batch")
    print(f"- KV-cache capacity: {kv if kv is not None else DASH} sequences")
    knee_m, knee_p = s.get("knee_measured"), s.get("knee_predicted")
    print(f"- knee (leaves the bandwidth slope): measured batch {DASH if knee_m is None else f'{knee_m:.3g}'}, "
          f"predicted batch {DASH if knee_p is None else f'{knee_p:.3g}'}")
    if s.get("tpot_target_s") is not None:
        print(f"- largest batch within TPOT {ms(s['tpot_target_s'])}: measured {s.get('largest_batch_measured') or DASH}, "
              f"predicted {s.get('largest_batch_predicted') or DASH}")
    if e:
        idle, jb, jf, lim = e.get("idle_w"), e.get("joules_per_byte"), e.get("joules_per_flop"), e.get("power_limit_w")
        print(f"- energy roofline: idle {DASH if idle is None else f'{idle:.1f} W'}, "
              f"{DASH if jb is None else f'{jb * 1e12:.3g} pJ/B'}, {DASH if jf is None else f'{jf * 1e12:.3g} pJ/FLOP'}; "
              f"power limit {DASH if lim is None else f'{lim:.0f} W'}")
        for k in ("idle_source", "bytes_source", "flops_source"):
            if e.get(k):
                print(f"  - {k.split('_')[0]}: {e[k]}")
        probes = [q for q in e.get("probes") or [] if q.get("power_w") is not None]
        if probes:
            print("  - probe windows of at least 1 s, integrated power samples vs the counter: " + "; ".join(
                f"{q['probe']} {q['power_w']:.0f} W ({signed(q.get('counter_vs_integrated'))})" for q in probes))
        for c in e.get("power_cap") or []:
            print(f"- {c}")
        for n in e.get("notes") or []:
            print(f"- {n}")
    for n in s.get("notes") or []:
        print(f"- {n}")
    print()
    print("| batch | measured step | predicted step | error | tokens/s | power | J/token measured | J/token predicted "
          "| error | integrated power vs counter |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for p in s["points"]:
        tps = p.get("measured_tokens_per_s")
        w = p.get("power_w")
        print(f"| {p['batch']} | {ms(p.get('measured_s'))} | {ms(p.get('predicted_s'))} | {signed(p.get('error'))} "
              f"| {DASH if tps is None else f'{tps:,.0f}'} | {DASH if w is None else f'{w:.0f} W'} "
              f"| {joules(p.get('j_per_token_measured'))} | {joules(p.get('j_per_token_predicted'))} "
              f"| {signed(p.get('energy_error'))} | {signed(p.get('counter_vs_integrated'))} |")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        die("step_sweep_table.py", "usage: step_sweep_table.py results.json")
    main(sys.argv[1])
