#!/usr/bin/env python3
"""roofline's GEMM against PyTorch's, sample by sample in one process (bench/gemm-pair.sh).

For each case (roofline probe name: fp16, fp16-acc16, bf16, tf32, fp8, int8) and size n (M = N = K):
  1. PyTorch's GEMM is set up as bench/torch_reference.py sets it up (torch_gemm: rotated sets > 3x L2);
  2. roofline's GEMM probe chooses its algorithm (libroofline_gemm_pair.so -> gemm_choice: the probe's
     own buffer sets, candidates and selection rounds);
  3. both run untimed, alternately, for --warm seconds;
  4. timed: pairs of samples (each >= 2 ms of back-to-back GEMMs), roofline then PyTorch, then PyTorch
     then roofline, and so on, until each side has --seconds of samples (at least 20 pairs): the
     power-capped clock moves both alike;
  5. both outputs are checked (roofline: 16 entries against a double reference; PyTorch: a 64x64 corner).
Per case: each side's median and best rate, ratio of medians (roofline / PyTorch), the median of the
per-pair ratios, and the algorithm roofline chose. Target: ratio of medians >= 1.00 at n >= 2048 for
fp16, bf16, tf32 and fp8 (int8 and n < 2048 are listed, out of scope).
    gemm_pair.py --lib build/h200/libroofline_gemm_pair.so --out DIR
    gemm_pair.py --table DIR/gemm-pair.json        (the table again, no GPU needed)
"""
import argparse
import ctypes
import json
import math
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import torch_reference as tr  # noqa: E402
from tables import GEMM_TARGET_PRECISIONS  # noqa: E402

PROBE = {("fp16", "fp32"): "fp16", ("fp16", "fp16"): "fp16-acc16", ("bf16", "fp32"): "bf16",
         ("tf32", "fp32"): "tf32", ("fp8", "fp32"): "fp8", ("int8", "int32"): "int8"}
IN_SCOPE = GEMM_TARGET_PRECISIONS


def load(lib_path):
    lib = ctypes.CDLL(lib_path)
    lib.rl_gemm_open.restype = ctypes.c_void_p
    lib.rl_gemm_open.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_longlong, ctypes.c_char_p, ctypes.c_int]
    lib.rl_gemm_seconds.restype = ctypes.c_double
    lib.rl_gemm_seconds.argtypes = [ctypes.c_void_p, ctypes.c_int]
    lib.rl_gemm_config.restype = ctypes.c_int
    lib.rl_gemm_config.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_int]
    lib.rl_gemm_verify.restype = ctypes.c_int
    lib.rl_gemm_verify.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_int]
    lib.rl_gemm_close.restype = None
    lib.rl_gemm_close.argtypes = [ctypes.c_void_p]
    return lib


def run_case(torch, lib, precision, acc, dtype, n, l2, a):
    probe = PROBE[(precision, acc)]
    row = {"precision": precision, "accumulate": acc, "size": n, "probe": f"gemm/{probe}",
           "torch_op": tr.gemm_op_name(precision)}
    g, why = tr.torch_gemm(torch, precision, acc, dtype, n, l2)
    if g is None:
        row["skipped"] = f"PyTorch: {why}"
        return row
    call, check, sets = g
    row["torch_sets"] = sets
    err = ctypes.create_string_buffer(4096)
    h = lib.rl_gemm_open(0, probe.encode(), n, err, len(err))
    if not h:
        row["skipped"] = "roofline: " + err.value.decode(errors="replace")
        return row
    try:
        buf = ctypes.create_string_buffer(8192)
        if lib.rl_gemm_config(h, buf, len(buf)) > 0:
            row["roofline_algo"] = json.loads(buf.value.decode())
        t_r = lib.rl_gemm_seconds(h, 1)
        inner_r = max(1, min(128, math.ceil(2e-3 / max(t_r, 1e-7))))
        inner_t = tr.inner_for(torch, call)
        t_end = time.time() + a.warm
        while time.time() < t_end:
            lib.rl_gemm_seconds(h, inner_r)
            tr.batch_seconds(torch, call, inner_t)
        rs, ts = [], []
        while True:
            i = len(rs)
            if i % 2 == 0:
                r = lib.rl_gemm_seconds(h, inner_r)
                t = tr.batch_seconds(torch, call, inner_t)
            else:
                t = tr.batch_seconds(torch, call, inner_t)
                r = lib.rl_gemm_seconds(h, inner_r)
            if r <= 0:
                row["skipped"] = "roofline: a timed sample failed (CUDA error)"
                return row
            rs.append(r)
            ts.append(t)
            done = (len(rs) >= 20 and sum(rs) * inner_r >= a.seconds and sum(ts) * inner_t >= a.seconds)
            if done or len(rs) >= 1000:
                break
        flops = 2.0 * n ** 3
        rv = lib.rl_gemm_verify(h, err, len(err))
        t_err, t_tol = check()
        ratios = [t / r for r, t in zip(rs, ts)]  # rate ratio roofline / PyTorch of each pair
        row.update({
            "pairs": len(rs), "inner_roofline": inner_r, "inner_torch": inner_t,
            "roofline_median": flops / statistics.median(rs), "roofline_best": flops / min(rs),
            "torch_median": flops / statistics.median(ts), "torch_best": flops / min(ts),
            "ratio_of_medians": statistics.median(ts) / statistics.median(rs),
            "median_pair_ratio": statistics.median(ratios),
            "pair_ratio_q1_q3": [statistics.quantiles(ratios, n=4)[0], statistics.quantiles(ratios, n=4)[2]],
            "roofline_spread": (max(rs) - min(rs)) / min(rs), "torch_spread": (max(ts) - min(ts)) / min(ts),
            "roofline_verified": rv == 0, "torch_verified": t_err <= t_tol + 1e-12, "torch_rel_error": t_err,
        })
        if rv != 0:
            row["roofline_verify_error"] = err.value.decode(errors="replace")
        return row
    finally:
        lib.rl_gemm_close(h)
        g = call = check = None
        torch.cuda.empty_cache()


def table(result):
    lines = [f"# GEMMs, roofline and PyTorch timed in alternation in one process, {result['device']}", "",
             f"- PyTorch {result['torch']} (CUDA {result['cuda']}), {result['timestamp']}; "
             f"warm-up {result['warm_s']} s alternating, then ≥ {result['seconds_s']} s of samples per side; "
             "each sample ≥ 2 ms of back-to-back GEMMs on rotated buffer sets (> 3× L2); pairs alternate their order",
             "- ratio = roofline median ÷ PyTorch median (rates); pair ratio = median over pairs of roofline ÷ PyTorch "
             "(interquartile range beside it)", "",
             "| precision | accumulate | n | roofline median (TFLOP/s) | PyTorch median | ratio of medians | median pair ratio (IQR) "
             "| bests (roofline / PyTorch) | roofline's algorithm | pairs | target |",
             "|---|---|---|---|---|---|---|---|---|---|---|"]
    met, missed, misses, not_run = 0, 0, [], []
    for r in result["cases"]:
        key = f"| {r['precision']} | {r['accumulate']} | {r['size']} |"
        if "skipped" in r:
            scope = r["size"] >= 2048 and r["precision"] in IN_SCOPE
            if scope:
                not_run.append(f"{r['precision']}/{r['accumulate']} n={r['size']}")
            lines.append(f"{key} — | — | — | — | — | not run: {r['skipped']} | — | {'**not run**' if scope else '—'} |")
            continue
        al = r.get("roofline_algo", {})
        algo = f"{al.get('layout', '?')} tile {al.get('tile', '?')}, rank {al.get('heuristic_rank', '?')}"
        scope = r["size"] >= 2048 and r["precision"] in IN_SCOPE
        ok = r["roofline_verified"] and r["torch_verified"]
        verdict = "—"
        if scope:
            hit = ok and r["ratio_of_medians"] >= 1.0
            verdict = "met" if hit else "**missed**"
            met += hit
            missed += not hit
            if not hit:
                misses.append(f"{r['precision']}/{r['accumulate']} n={r['size']} ({r['ratio_of_medians']:.3f}×)")
        if not ok:
            verdict += " (output check failed)"
        q = r["pair_ratio_q1_q3"]
        lines.append(f"{key} {r['roofline_median'] / 1e12:.1f} | {r['torch_median'] / 1e12:.1f} | "
                     f"{r['ratio_of_medians']:.3f}× | {r['median_pair_ratio']:.3f} ({q[0]:.3f}–{q[1]:.3f}) | "
                     f"{r['roofline_best'] / 1e12:.1f} / {r['torch_best'] / 1e12:.1f} | {algo} | {r['pairs']} | {verdict} |")
    lines += ["", f"Target (ratio of medians ≥ 1.00 at n ≥ 2048, fp16/bf16/tf32/fp8): {met} met, {missed} missed"
              + (f": {', '.join(misses)}" if misses else "")
              + (f"; {len(not_run)} not run: {', '.join(not_run)}" if not_run else "") + ".", ""]
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--lib", help="libroofline_gemm_pair.so (built with the CUDA backend)")
    ap.add_argument("--out", help="directory for gemm-pair.json and gemm-pair.md")
    ap.add_argument("--table", metavar="JSON", help="only print the table of an earlier gemm-pair.json (no GPU)")
    ap.add_argument("--sizes", type=int, nargs="+", default=[1024, 2048, 4096, 8192, 16384])
    ap.add_argument("--only", default="", help="comma-separated roofline probe names (default: all PyTorch runs)")
    ap.add_argument("--warm", type=float, default=0.3, help="seconds of untimed alternation first")
    ap.add_argument("--seconds", type=float, default=1.0, help="seconds of samples per side")
    a = ap.parse_args()
    if a.table:
        try:
            print(table(json.load(open(a.table))))
        except (OSError, ValueError, KeyError, TypeError) as e:
            print(f"gemm_pair.py: --table {a.table}: {e}", file=sys.stderr)
            sys.exit(2)
        return
    if not a.lib or not a.out:
        ap.error("--lib and --out are required (or --table JSON)")
    import torch
    if not torch.cuda.is_available():
        sys.exit("gemm_pair.py: PyTorch sees no CUDA device")
    lib = load(a.lib)
    torch.manual_seed(0)
    props = torch.cuda.get_device_properties(0)
    l2 = getattr(props, "L2_cache_size", 60 * tr.MiB)
    only = set(filter(None, a.only.split(",")))
    result = {"device": props.name, "torch": torch.__version__, "cuda": torch.version.cuda,
              "timestamp": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "warm_s": a.warm,
              "seconds_s": a.seconds, "cases": []}
    os.makedirs(a.out, exist_ok=True)
    for precision, acc, dtype in tr.gemm_cases(torch):
        if only and PROBE[(precision, acc)] not in only:
            continue
        for n in a.sizes:
            t0 = time.time()
            try:
                row = run_case(torch, lib, precision, acc, dtype, n, l2, a)
            except (RuntimeError, torch.cuda.OutOfMemoryError) as e:
                row = {"precision": precision, "accumulate": acc, "size": n, "skipped": str(e).splitlines()[0][:200]}
            result["cases"].append(row)
            msg = row.get("skipped") or (f"roofline {row['roofline_median'] / 1e12:.1f} vs PyTorch "
                                         f"{row['torch_median'] / 1e12:.1f} TFLOP/s median: {row['ratio_of_medians']:.3f}×")
            print(f"[{time.strftime('%H:%M:%S')}] {precision}/{acc} n={n}: {msg} ({time.time() - t0:.1f} s)", flush=True)
            with open(os.path.join(a.out, "gemm-pair.json"), "w") as f:
                json.dump(result, f, indent=1)
    torch.backends.cuda.matmul.allow_tf32 = False
    md = table(result)
    with open(os.path.join(a.out, "gemm-pair.md"), "w") as f:
        f.write(md)
    print(md)


if __name__ == "__main__":
    main()
