#!/usr/bin/env python3
"""roofline's GEMM probe vs PyTorch from alternating sweeps (bench/gemm-interleaved.sh).

For each (precision, accumulate, n): each side's median rate in each sweep, their mean, and
ratio = roofline mean ÷ PyTorch mean (target >= 1.00 at n >= 2048 for fp16, bf16, tf32, fp8).
The per-sweep ratios are printed too, so the spread between sweeps shows beside the result.
    gemm_interleaved.py --roofline r1.json r2.json --torch t1.json t2.json --out table.md
"""
import argparse
import json
import statistics


def roofline_rows(path):
    r = json.load(open(path))
    out = {}
    for c in (r.get("measured") or {}).get("compute", []):
        if c.get("engine") != "gemm" or not c.get("verified") or c.get("rejected"):
            continue
        acc = next((f.split(" ", 1)[1] for f in c.get("flags", []) if f.startswith("accumulate ")), "?")
        out[(c["precision"], acc, c["size"])] = (c["median_flops_per_s"], c["flops_per_s"])
    return out, r


def torch_rows(path):
    t = json.load(open(path))
    return {(g["precision"], g["accumulate"], g["size"]): (g["median"], g["best"])
            for g in t.get("gemm", []) if "median" in g and g.get("verified", True)}, t


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--roofline", nargs="+", required=True)
    ap.add_argument("--torch", nargs="+", required=True)
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    R = [roofline_rows(p) for p in a.roofline]
    T = [torch_rows(p) for p in a.torch]
    dev = (R[0][1].get("device") or {}).get("name", "?")
    lines = [f"# GEMMs, roofline vs PyTorch, alternating sweeps on {dev}", "",
             f"- sweeps: roofline {len(R)}, PyTorch {len(T)}, run alternately (bench/gemm-interleaved.sh); "
             f"PyTorch {T[0][1].get('torch', '?')}, measured {T[0][1].get('timestamp', '?')}",
             "- per case: each sweep's median rate; mean over sweeps; ratio = roofline mean ÷ PyTorch mean", "",
             "| precision | accumulate | n | roofline medians (TFLOP/s) | PyTorch medians | per-sweep ratios | ratio of means | target |",
             "|---|---|---|---|---|---|---|---|"]
    met = missed = 0
    keys = sorted(set().union(*[set(r[0]) for r in R]), key=lambda k: (k[0], k[1], k[2]))
    for k in keys:
        rm = [r[0][k][0] for r in R if k in r[0]]
        tm = [t[0][k][0] for t in T if k in t[0]]
        if not rm or not tm:
            continue
        ratio = statistics.mean(rm) / statistics.mean(tm)
        per = [x / y for x, y in zip(rm, tm)]
        scope = k[2] >= 2048 and k[0] in ("fp16", "bf16", "tf32", "fp8")
        verdict = "—"
        if scope:
            verdict = "met" if ratio >= 1.0 else "**missed**"
            met += ratio >= 1.0
            missed += ratio < 1.0
        unit = 1e12
        lines.append(f"| {k[0]} | {k[1]} | {k[2]} | {', '.join(f'{x / unit:.1f}' for x in rm)} | "
                     f"{', '.join(f'{x / unit:.1f}' for x in tm)} | {', '.join(f'{p:.3f}' for p in per)} | "
                     f"{ratio:.3f}× | {verdict} |")
    lines += ["", f"Target (median ≥ 1.00× PyTorch at n ≥ 2048, fp16/bf16/tf32/fp8): {met} met, {missed} missed.", ""]
    open(a.out, "w").write("\n".join(lines))
    print("\n".join(lines))


if __name__ == "__main__":
    main()
