#!/usr/bin/env python3
"""Every number true at any clock and any input, on the GPU: one table per "Done when", from the runs of
bench/truth-gpu.sh.

    python3 bench/truth_gpu.py --runs OUT/w/run1 OUT/w/run2 OUT/w/run3 [--place OUT/w/place-*.json]

Every number is roofline's own; this script lays them out and checks the bounds the issue sets:
1. the roof GEMM's "% of the peak at that clock" in the opening sentence (report.md) and in the record table
   (analysis.record_table, row gemm_at_clock: the rate of an interval over the nominal peak at the SM clock of
   the same interval) at most 100 % in every run; and in `roofline place` on the shared Nsight Compute exports
   no clock-scaled compute roof above the nominal peak at the kernel's clock (the clock read from clock_note,
   the peak and its clock from the results' nominal roofs: a check, not a number roofline prints);
2. the record table's GEMM rows on random and on all-zero inputs, with their clock and power, and the power-cap
   story (analysis.energy.power_cap);
3. J/token measured at every batch of the step sweep, and predicted within ±15 % (analysis.step_sweep).
Exit status 0; a bound missed is a row marked "NO", not an error.
"""
import argparse
import json
import re
import sys

from tables import DASH, die, ms, pct

# the opening sentence's "% of the peak at that clock", in each of its wordings (src/report/headline.cpp)
AT_CLOCK = [re.compile(r"of which (?:the GEMM|it) reached ([0-9.]+)%"),
            re.compile(r"([0-9.]+)% of the [0-9.,]+ [kMGTP]?(?:FLOP|OP)/s peak at that clock")]


def load(path):
    try:
        return json.load(open(path))
    except (OSError, ValueError) as e:
        die("truth_gpu.py", f"{path}: {e}")


def headline(run_dir):
    """The opening sentence of report.md (its first bold paragraph); "" when absent."""
    try:
        for line in open(f"{run_dir}/report.md"):
            if line.startswith("**"):
                return line.strip().strip("*")
    except OSError:
        pass
    return ""


def mj(x):
    return DASH if x is None else f"{x * 1e3:.3g} mJ"


def tflops(x):
    return DASH if x is None else f"{x / 1e12:.1f} TFLOP/s"


def yes(ok):
    return DASH if ok is None else ("yes" if ok else "NO")


def clocks(runs):
    print("## 1. The roof GEMM at the clock of its own interval (≤ 100 % in every run)\n")
    print("| run | roof GEMM | rate | clock of its interval | interval | peak at that clock | table % | sentence % | ≤ 100 % |")
    print("|---|---|---|---|---|---|---|---|---|")
    notes = []
    for d in runs:
        r = load(f"{d}/results.json")
        rows = {x["key"]: x for x in (r.get("analysis") or {}).get("record_table") or []}
        at = rows.get("gemm_at_clock")
        s1 = headline(d)
        said = [float(x) for p in AT_CLOCK for x in p.findall(s1)]
        table = at.get("ratio") if at else None
        label = at["label"] if at else "no gemm_at_clock row (no per-repeat clock recorded)"
        m = re.search(r"\(([0-9.]+ MHz)\)$", label)
        interval = "fastest repeat the telemetry resolves" if "resolves" in label else "fastest repeat" if m else "uncertain"
        ok = all(x <= 100.0 for x in said) and (table is None or table <= 1.0)
        print(f"| {d.rstrip('/').split('/')[-1]} | {label.split(',')[0] if at else DASH} "
              f"| {tflops(at.get('measured') if at else None)} "
              f"| {m.group(1) if m else DASH} | {interval} "
              f"| {tflops(at.get('nominal') if at else None)} "
              f"| {pct(table)} | {', '.join(f'{x:.1f} %' for x in said) or DASH} | {yes(ok)} |")
        if at and at.get("measured_note"):
            notes.append(f"- {d.rstrip('/').split('/')[-1]}, the table's note: {at['measured_note']}")
    print()
    for n in notes:
        print(n)
    for d in runs:
        print(f"- {d.rstrip('/').split('/')[-1]}: {headline(d) or '(no report.md)'}")
    print()


def nominal_at(results, precision, engine, mhz):
    """The nominal peak of `precision` at `mhz`: the highest dense peak (vector: the vector one) × mhz ÷ its clock."""
    peaks = [p for p in results["nominal"]["peaks"] if p["precision"] == precision and p.get("flops_per_s", 0) > 0]
    if engine == "vector":
        peaks = [p for p in peaks if p["engine"] == "vector"]
    if not peaks:
        return None
    p = max(peaks, key=lambda p: p["flops_per_s"])
    for f in list(p.get("factors") or []) + list(results["nominal"].get("factors") or []):
        name, unit = f["name"].lower(), f.get("unit", "").lower()
        if ("clock" in name or "frequency" in name) and "mem" not in name and unit == "mhz" and f["value"] > 0:
            return p["flops_per_s"] * mhz / f["value"]
    return None


def place(files, results):
    print("## 1b. `roofline place` on the shared Nsight Compute exports: clock-scaled roofs ≤ the nominal peak at the "
          "kernel's clock\n")
    print("| export | kernels | clock-scaled | capped | highest roof ÷ nominal at its clock | ≤ 100 % |")
    print("|---|---|---|---|---|---|")
    for f in files:
        p = load(f)
        ks = p.get("kernels") or p.get("verdicts") or []
        scaled = capped = 0
        worst = None
        for k in ks:
            if k.get("clock_scale") is None or k.get("compute_roof_flops_per_s") is None:
                continue
            scaled += 1
            capped += "capped" in (k.get("clock_note") or "")
            m = re.search(r"SM clock ÷ the roof's: ([0-9.,]+) MHz", k.get("clock_note") or "")
            bound = m and nominal_at(results, k.get("precision"), k.get("engine"), float(m.group(1).replace(",", "")))
            if bound:
                x = k["compute_roof_flops_per_s"] / bound
                worst = x if worst is None else max(worst, x)
        print(f"| {f.split('/')[-1]} | {len(ks)} | {scaled} | {capped} | {pct(worst, '.2f')} "
              f"| {yes(None if worst is None else worst <= 1 + 1e-9)} |")
    print()


def inputs(runs):
    print("## 2. The GEMM roof on random and on all-zero inputs, with clock and power\n")
    print("| run | row | measured | of nominal | note |")
    print("|---|---|---|---|---|")
    for d in runs:
        r = load(f"{d}/results.json")
        rows = (r.get("analysis") or {}).get("record_table") or []
        name = d.rstrip('/').split('/')[-1]
        main = (r.get("roofline") or {}).get("precision") or ""
        shown = [x for x in rows if x["key"].startswith("gemm_sustained") or
                 (x["key"].startswith(f"gemm_{main}_") and "the roof" in x["label"])]
        for x in shown:
            print(f"| {name} | {x['label']} | {tflops(x.get('measured'))} | {pct(x.get('ratio'))} "
                  f"| {x.get('measured_note') or ''} |")
        if not any(x["key"].startswith("gemm_sustained") for x in rows):
            print(f"| {name} | no sustained runs by input | {DASH} | {DASH} | |")
        for c in ((r.get("analysis") or {}).get("energy") or {}).get("power_cap") or []:
            if "sustained:" in c:
                print(f"\n- {name}: {c}")
        print()


def energy(runs):
    print("## 3. J/token at every batch of the step sweep, predicted within ±15 %\n")
    print("| run | batch | step measured | window | J/token measured | J/token predicted | error | within ±15 % | note |")
    print("|---|---|---|---|---|---|---|---|---|")
    for d in runs:
        r = load(f"{d}/results.json")
        s = (r.get("analysis") or {}).get("step_sweep")
        if not s:
            continue
        name = d.rstrip('/').split('/')[-1]
        windows = {w["batch"]: (w.get("energy") or {}).get("window_s") for w in r.get("whole_step") or [] if w.get("phase") == "decode"}
        pts = s.get("points") or []
        measured = within = 0
        for p in pts:
            j, q, e = p.get("j_per_token_measured"), p.get("j_per_token_predicted"), p.get("energy_error")
            measured += j is not None
            within += e is not None and abs(e) <= 0.15
            win = windows.get(p["batch"])
            print(f"| {name} | {p['batch']} | {ms(p.get('measured_s'))} | {DASH if win is None else format(win, '.2f') + ' s'} "
                  f"| {mj(j)} | {mj(q)} | {DASH if e is None else format(100 * e, '+.1f') + ' %'} "
                  f"| {yes(None if e is None else abs(e) <= 0.15)} | {p.get('note') or ''} |")
        print(f"\n{name}: J/token measured at {measured} of {len(pts)} batches; predicted within ±15 % at {within} of {len(pts)}.\n")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", nargs="+", required=True, help="run folders (results.json, report.md)")
    ap.add_argument("--place", nargs="*", default=[], help="`roofline place --json` outputs against the first run's roofs")
    a = ap.parse_args()
    first = load(f"{a.runs[0]}/results.json")
    print(f"# Every number true at any clock and input: {first['device']['name']}\n")
    clocks(a.runs)
    if a.place:
        place(a.place, first)
    inputs(a.runs)
    energy(a.runs)


if __name__ == "__main__":
    main()
