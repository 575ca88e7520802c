#!/usr/bin/env python3
"""The decode step's energy over batch, kernel by kernel, as markdown (bench/step-energy.sh writes its inputs).

    python3 bench/step_energy.py --run OUT/w/run/results.json [--ncu OUT/w/ncu-b1.csv OUT/w/ncu-b2.csv ...]

From the run (roofline's own numbers, src/analysis/energy.cpp): per step-sweep batch the measured step, its
power, J/token measured and predicted, the error, and the implementation of each GEMM as the step ran it
(the whole step's note). From each Nsight Compute CSV (`--csv --page raw`, one whole decode step's kernels,
ROOFLINE_PROFILE_STEP): per kernel family the launches, summed duration, DRAM bytes, tensor-pipe ops, FP32
and FP16 FMA thread instructions and warp instructions, and the step's totals beside the model's FLOPs and
bytes of that step (results.json whole_step).
"""
import argparse
import csv
import json
import math
import os
import re
from collections import OrderedDict

from tables import DASH, die, ms, pct, si


def watts(x):
    return DASH if x is None else f"{x:.0f} W"


def joules_text(x):
    return DASH if x is None else f"{x * 1e3:.3g} mJ"


def sweep(r, label):
    a = r.get("analysis") or {}
    s = a.get("step_sweep") or {}
    steps = {(w.get("batch")): w for w in r.get("whole_step") or [] if w.get("phase") == "decode"
             and w.get("context") == s.get("context")}
    print(f"# Decode step energy over batch ({label}): {r['device']['name']}, context {s.get('context')}\n")
    e = a.get("energy") or {}
    if e:
        print(f"- energy roofline: idle {e.get('idle_w') or 0:.1f} W, {(e.get('joules_per_byte') or 0) * 1e12:.3g} pJ/B, "
              f"{(e.get('joules_per_flop') or 0) * 1e12:.3g} pJ/FLOP\n")
    print("| batch | step | power | read between | read at the ends | temperature | J/token measured | predicted | error "
          "| model FLOPs | model bytes |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for p in s.get("points") or []:
        w = steps.get(p["batch"]) or {}
        ew = w.get("energy") or {}
        err = p.get("energy_error")
        ends = ew.get("ends_j")
        between = f"{ew['counter_updates']} updates" if ew.get("counter_updates") else "the ends"
        temp = DASH if ew.get("temperature_c") is None else f"{ew['temperature_c']:.0f} °C"
        print(f"| {p['batch']} | {ms(p.get('measured_s'))} | {watts(p.get('power_w'))} | {between} | "
              f"{DASH if ends is None or not ew.get('window_s') else watts(ends / ew['window_s'])} | "
              f"{temp} | "
              f"{joules_text(p.get('j_per_token_measured'))} | {joules_text(p.get('j_per_token_predicted'))} | "
              f"{DASH if err is None else ('+' if err > 0 else '') + pct(err)} | "
              f"{DASH if w.get('flops') is None else si(w['flops'], 'FLOP')} | {DASH if w.get('bytes') is None else si(w['bytes'], 'B')} |")
    print("\n## What each step ran (the whole step's note)\n")
    for p in s.get("points") or []:
        w = steps.get(p["batch"]) or {}
        note = w.get("note", "")
        ran = note[note.find("ops as run: ") + len("ops as run: "):] if "ops as run: " in note else note
        gemms = [x for x in ran.split(" | ") if re.match(r"(q|k|v|o|gate|up|down)_proj|lm_head", x)]
        print(f"- batch {p['batch']}: " + ("; ".join(gemms) if gemms else ran[:400]))
    print()


def gemm_shapes(cfg):
    """(n, k, count) of a Llama-family decoder's linear layers, from results.model.config (parsed, typed)."""
    h, i, L = cfg["hidden"], cfg["intermediate"], cfg["layers"]
    kv = cfg["kv_heads"] * cfg["head_dim"]
    return {"q_proj": (cfg["heads"] * cfg["head_dim"], h, L), "k_proj": (kv, h, L), "v_proj": (kv, h, L),
            "o_proj": (h, cfg["heads"] * cfg["head_dim"], L), "gate_proj": (i, h, L), "up_proj": (i, h, L),
            "down_proj": (h, i, L), "lm_head": (cfg["vocab"], h, 1)}


def cuda_core_joules_per_flop(r, idle):
    """(P − idle) ÷ rate of the fp32 GEMM (CUDA cores) whose energy window is ≥ 1 s, and its words; None without one."""
    for c in r["measured"]["compute"]:
        e = c.get("energy") or {}
        if c["engine"] == "gemm" and c["precision"] == "fp32" and e.get("counter_j") and e.get("window_s", 0) >= 1.0:
            p = e["counter_j"] / e["window_s"]
            return (p - idle) / c["median_flops_per_s"], f"fp32 GEMM n = {c['size']}: {p:.0f} W at {c['median_flops_per_s'] / 1e12:.1f} TFLOP/s"
    return None, "no fp32 GEMM with a 1 s energy window in this run"


def linear_layers(r):
    """The decode step's linear layers replayed alone (results.step_sweep.linear_layers): the decode GEMMs' J/FLOP."""
    rows = (r.get("step_sweep") or {}).get("linear_layers") or []
    if not rows:
        return
    print("#### The decode step's linear layers alone (the decode GEMMs' J/FLOP, docs/formulas-analysis.md §10.3)\n")
    limit = ((r.get("analysis") or {}).get("energy") or {}).get("power_limit_w")
    print("| batch | replay | power | read between | temperature | bytes | tensor FLOPs | CUDA-core FLOPs |")
    print("|---|---|---|---|---|---|---|---|")
    for w in rows:
        ew = w.get("energy") or {}
        p = ew["counter_j"] / ew["window_s"] if ew.get("counter_j") and ew.get("window_s") else None
        capped = " (at the power cap: not used)" if p and limit and p >= 0.95 * limit else ""
        temp = DASH if ew.get("temperature_c") is None else f"{ew['temperature_c']:.0f} °C"
        print(f"| {w['batch']} | {ms(w.get('measured_s'))} | {watts(p)}{capped} | {ew.get('counter_updates') or 'the ends'} | {temp} | "
              f"{si(w.get('bytes') or 0, 'B')} | {si(w.get('flops_executed_tensor') or 0, 'FLOP')} | "
              f"{si(w.get('flops_executed_cuda_cores') or 0, 'FLOP')} |")
    print()


def by_engine(r, label, jv_other=None):
    """The energy roofline with each GEMM's FLOPs charged where they ran, recomputed from each step's note as a check
    of roofline's own charge (docs/formulas-analysis.md §10.2, from the runners' records; files before it charged the
    model's FLOPs at the tensor J/FLOP): a cuBLASLt GEMM executes its FLOPs tile-padded (the batch rounded up to the
    tile's N, the features to its M: layout TN, C is features × batch) at the tensor J/FLOP; our GEMV executes exactly
    its FLOPs on CUDA cores, at the fp32 GEMM's J/FLOP (taken from another run where this one has none)."""
    a = r.get("analysis") or {}
    e, s = a.get("energy") or {}, a.get("step_sweep") or {}
    cfg = (r.get("model") or {}).get("config") or {}
    if not e or not s or "hidden" not in cfg:
        return
    idle, jb, jf = e["idle_w"], e["joules_per_byte"], e["joules_per_flop"]
    jv, src = cuda_core_joules_per_flop(r, idle)
    own = (jv, src)
    if jv is None and jv_other:
        jv, src = jv_other[0], jv_other[1] + " (from the other run)"
    if jv is None:
        return
    if e.get("joules_per_flop_decode_tensor") or e.get("joules_per_flop_decode_cuda_cores"):
        # decode steps are charged at the decode GEMMs' own J/FLOP (docs/formulas-analysis.md §10.3)
        jf = e.get("joules_per_flop_decode_tensor") or jf
        jv = e.get("joules_per_flop_decode_cuda_cores") or jv
        src += "; the decode GEMMs' own, " + e.get("decode_source", "")
        linear_layers(r)
    shapes = gemm_shapes(cfg)
    steps = {w["batch"]: w for w in r.get("whole_step") or [] if w.get("phase") == "decode" and w.get("context") == s.get("context")}
    print(f"### {label}: FLOPs charged by engine (tensor {jf * 1e12:.3f} pJ/FLOP; CUDA cores {jv * 1e12:.2f} pJ/FLOP, {src})\n")
    print("| batch | J/token measured | roofline predicted | error | tensor FLOPs executed / model | CUDA-core FLOPs | predicted by engine | error |")
    print("|---|---|---|---|---|---|---|---|")
    for p in s.get("points") or []:
        b, w = p["batch"], steps.get(p["batch"])
        if not w or p.get("j_per_token_measured") is None or "ops as run: " not in w.get("note", ""):
            continue
        ran = dict(x.split(" — ", 1) for x in w["note"].split("ops as run: ")[1].split(" | ") if " — " in x)
        tens_model = tens_exec = vec = 0.0
        for op, (n, k, count) in shapes.items():
            impl, f = ran.get(op, ""), 2.0 * n * k * b * count
            if "GEMV" in impl:
                vec += f
                continue
            m = re.search(r"tile (\d+)x(\d+)", impl)
            tm, tn = (int(m.group(1)), int(m.group(2))) if m else (1, 1)
            tens_model += f
            tens_exec += 2.0 * k * math.ceil(n / tm) * tm * math.ceil(b / tn) * tn * count
        joules = idle * p["predicted_s"] + jb * w["bytes"] + jf * (w["flops"] - tens_model - vec + tens_exec) + jv * vec
        jm, jp = p["j_per_token_measured"], joules / b
        print(f"| {b} | {joules_text(jm)} | {joules_text(p['j_per_token_predicted'])} | {pct(p['energy_error'])} | "
              f"{tens_exec / 1e9:.1f} / {tens_model / 1e9:.1f} GFLOP | {vec / 1e9:.2f} GFLOP | {joules_text(jp)} | {pct(jp / jm - 1)} |")
    print()
    return own if own[0] is not None else jv_other


FAMILY = [("gemv_kernel", "our GEMV"), ("nvjet", "cuBLASLt nvjet"), ("xmma", "cuBLASLt xmma"), ("cutlass", "CUTLASS"),
          ("splitK", "split-K reduce"), ("attention", "attention"), ("flash", "attention"), ("cudnn", "cuDNN"),
          ("norm", "norm"), ("rope", "RoPE"), ("silu", "SiLU·mul"), ("embed", "embedding"), ("add", "add")]


def family(name):
    low = name.lower()
    for key, label in FAMILY:
        if key.lower() in low:
            return label
    return name.split("(")[0].split("<")[0][-40:]


def number(v):
    try:
        return float(v.replace(",", ""))
    except (ValueError, AttributeError):
        return None


def read_ncu(path):
    rows = [l for l in open(path, errors="replace") if l.startswith('"')]
    if len(rows) < 3:
        return None, []
    table = list(csv.reader(rows))
    head, units, data = table[0], table[1], table[2:]
    return dict(zip(head, units)), [dict(zip(head, d)) for d in data]


METRICS = [("gpu__time_duration.sum", "time"), ("dram__bytes_read.sum", "DRAM read"), ("dram__bytes_write.sum", "DRAM write"),
           ("lts__t_bytes.sum", "L2 bytes"), ("l1tex__t_bytes.sum", "L1 bytes"),
           ("sm__ops_path_tensor_src_fp16.sum", "tensor ops fp16"), ("sm__inst_executed_pipe_tensor.sum", "tensor inst"),
           ("smsp__sass_thread_inst_executed_op_conversion_pred_on.sum", "conversions (thread)"),
           ("smsp__sass_thread_inst_executed_op_ffma_pred_on.sum", "FFMA (thread)"),
           ("smsp__sass_thread_inst_executed_op_hfma_pred_on.sum", "HFMA (thread)"),
           ("smsp__inst_executed.sum", "warp instructions")]


def scale(unit):
    """The factor to seconds or bytes of an Nsight Compute unit (it writes "ns", "usecond", "byte", "Kbyte", ...)."""
    return {"ns": 1e-9, "nsecond": 1e-9, "us": 1e-6, "usecond": 1e-6, "ms": 1e-3, "msecond": 1e-3, "s": 1, "second": 1,
            "byte": 1, "Kbyte": 1e3, "Mbyte": 1e6, "Gbyte": 1e9}.get(unit, 1)


def ncu_tables(paths):
    for path in paths:
        units, rows = read_ncu(path)
        m = re.search(r"ncu-b(\d+)", path)
        print(f"## Nsight Compute: one whole decode step at batch {m.group(1) if m else '?'} ({len(rows)} kernels)\n")
        if not rows:
            print("no kernels in the file (the profiled range was empty)\n")
            continue
        have = [(k, label) for k, label in METRICS if k in units]
        if not have:
            print("none of the metrics in the file (not a `--page raw` export of step-energy.sh's metrics)\n")
            continue
        fams = OrderedDict()
        total = [0.0] * len(have)
        for r in rows:
            f = fams.setdefault(family(r.get("Kernel Name", "?")), [0] + [0.0] * len(have))
            f[0] += 1
            for i, (k, _) in enumerate(have):
                v = number(r.get(k))
                if v is not None:
                    f[i + 1] += v * scale(units[k])
                    total[i] += v * scale(units[k])
        print("| kernels | launches | " + " | ".join(label for _, label in have) + " |")
        print("|---|---|" + "---|" * len(have))
        for name, f in sorted(fams.items(), key=lambda x: -x[1][1]):
            print(f"| {name} | {f[0]} | " + " | ".join(cell(k, v) for (k, _), v in zip(have, f[1:])) + " |")
        print(f"| **step** | {len(rows)} | " + " | ".join(cell(k, v) for (k, _), v in zip(have, total)) + " |\n")


def cell(key, v):
    if key.startswith("gpu__time"):
        return f"{v * 1e6:,.1f} µs"
    if key.startswith(("dram", "lts", "l1tex")):
        return si(v, "B")
    return si(v, "")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--run", nargs="*", default=[])
    ap.add_argument("--ncu", nargs="*", default=[])
    a = ap.parse_args()
    loaded = []
    for path in a.run:
        try:
            loaded.append((json.load(open(path)), os.path.basename(os.path.dirname(os.path.abspath(path)))))
        except (OSError, ValueError) as e:
            die("step_energy.py", f"{path}: {e}")
    for r, label in loaded:
        sweep(r, label)
    jv = None
    for r, label in sorted(loaded, key=lambda x: cuda_core_joules_per_flop(x[0], x[0]["analysis"]["energy"]["idle_w"])[0] is None):
        jv = by_engine(r, label, jv) or jv
    ncu_tables(a.ncu)


if __name__ == "__main__":
    main()
