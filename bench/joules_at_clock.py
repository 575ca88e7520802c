#!/usr/bin/env python3
"""What a FLOP and a byte cost at the clock a decode step runs at, against the power-capped roof GEMM's.

    python3 bench/joules_at_clock.py [OUT_JSON]      (about 40 s on an H100; prints a table, writes JSON)

roofline's energy roofline (Choi, Bedard, Fowler, Vuduc, IPDPS 2013) takes J/FLOP from the largest GEMM of the model's
precision, which on an H100 at 700 W runs under the power cap at 1300–1500 MHz, and J/B from a streaming read; a decode
step runs uncapped at the maximum clock, where dynamic energy per operation is higher (∝ V²). Each workload here runs
back to back for 2.5 s (a CUDA graph replayed, kept queued) and its power is read between the updates of NVML's energy
counter (as roofline reads it); the SM clock is sampled alongside. Printed per workload: rate, clock, power, and
(P − idle) ÷ rate. No clock or power setting is changed. Needs PyTorch with CUDA and libnvidia-ml.so.1.
  idle          the context open, nothing queued
  read          torch.sum over 4 GiB fp16 (a streaming read)
  gemm 8192     fp16 8192³ (the roof GEMM: under the power cap)
  gemm 4096/2048 fp16 n³ (smaller: fewer tiles, clocks stay higher)
  decode m=B    the 66 linear layers of TinyLlama-1.1B at batch B (m = B tokens × 2048…5632 weights, each its own
                weights: 2 GB streamed per pass), as a decode step's GEMMs, for B = 16, 128
"""
import ctypes
import json
import statistics
import sys
import time

import torch

import nvml_counter

LIB, DEV = None, None


def energy_mj():
    return nvml_counter.energy_mj(LIB, DEV)


def nvml_uint(fn, *args):
    v = ctypes.c_uint()
    return v.value if getattr(LIB, fn)(DEV, *args, ctypes.byref(v)) == 0 else None


def measure(name, graph, work, seconds=2.5):
    """Replays `graph` back to back for `seconds`; power between counter updates, rate from CUDA events."""
    s = torch.cuda.current_stream()
    for _ in range(3):
        graph.replay()
    torch.cuda.synchronize()
    queued, clocks, temps = [], [], []
    start_ev, end_ev = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    replays = 0
    t0 = time.perf_counter()
    last, ups, prev_mid, next_clock = energy_mj(), [], t0, t0
    start_ev.record(s)
    while time.perf_counter() - t0 < seconds:
        while len(queued) < 3:
            graph.replay()
            replays += 1
            ev = torch.cuda.Event()
            ev.record(s)
            queued.append(ev)
        while queued and queued[0].query():
            queued.pop(0)
        a = time.perf_counter()
        e = energy_mj()
        mid = 0.5 * (a + time.perf_counter())
        if e != last:
            ups.append((0.5 * (prev_mid + mid), e))
            last = e
        prev_mid = mid
        if mid >= next_clock:
            next_clock = mid + 0.05
            clocks.append(nvml_uint("nvmlDeviceGetClockInfo", 1))
            temps.append(nvml_uint("nvmlDeviceGetTemperature", 0))
    end_ev.record(s)
    torch.cuda.synchronize()
    gpu_s = start_ev.elapsed_time(end_ev) / 1e3
    ups = ups[1:]  # the first update may straddle the start
    watts = (ups[-1][1] - ups[0][1]) / 1e3 / (ups[-1][0] - ups[0][0]) if len(ups) >= 2 else None
    r = {"name": name, "watts": watts, "updates": len(ups) - 1, "sm_clock_mhz": statistics.median([c for c in clocks if c]),
         "temperature_c": statistics.median([t for t in temps if t is not None]), "gpu_s": gpu_s, "replays": replays}
    for k, v in work.items():
        r[k + "_per_s"] = v * replays / gpu_s
    return r


def idle(seconds=2.0):
    t0 = time.perf_counter()
    last, ups = energy_mj(), []
    while time.perf_counter() - t0 < seconds:
        e = energy_mj()
        if e != last:
            ups.append((time.perf_counter(), e))
            last = e
        time.sleep(0.001)
    return (ups[-1][1] - ups[0][1]) / 1e3 / (ups[-1][0] - ups[0][0])


def graph_of(fn, n):
    g = torch.cuda.CUDAGraph()
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        fn()
    torch.cuda.current_stream().wait_stream(s)
    with torch.cuda.graph(g):
        for _ in range(n):
            fn()
    return g


def main():
    global LIB, DEV
    out = sys.argv[1] if len(sys.argv) > 1 else None
    LIB, DEV, res = nvml_counter.start(1.0)
    pi0 = idle()
    res["idle_w"] = pi0
    rows = []

    x = torch.randn(2 * 2**30, dtype=torch.float16, device="cuda")
    acc = torch.empty((), dtype=torch.float32, device="cuda")
    g = graph_of(lambda: torch.sum(x, dim=(0,), dtype=torch.float32, out=acc), 4)
    rows.append(measure("read 4 GiB", g, {"bytes": 4 * x.numel() * 2}))
    del x, g

    for n, reps in ((8192, 8), (4096, 40), (2048, 200)):
        a = torch.randn(n, n, dtype=torch.float16, device="cuda")
        b = torch.randn(n, n, dtype=torch.float16, device="cuda")
        c = torch.empty(n, n, dtype=torch.float16, device="cuda")
        g = graph_of(lambda: torch.mm(a, b, out=c), reps)
        rows.append(measure(f"gemm fp16 {n}", g, {"flops": 2 * n**3 * reps, "bytes": 3 * n * n * 2 * reps}))
        del a, b, c, g

    shapes = [(2048, 2048), (256, 2048), (256, 2048), (2048, 2048), (5632, 2048), (5632, 2048), (2048, 5632)] * 22
    ws = [torch.randn(o, i, dtype=torch.float16, device="cuda") for o, i in shapes]
    wbytes = sum(w.numel() * 2 for w in ws)
    for m in (16, 128):
        xs = {i: torch.randn(m, i, dtype=torch.float16, device="cuda") for i in (2048, 5632)}
        ys = [torch.empty(m, o, dtype=torch.float16, device="cuda") for o, _ in shapes]

        def layers():
            for w, y in zip(ws, ys):
                torch.mm(xs[w.shape[1]], w.t(), out=y)
        g = graph_of(layers, 2)
        flops = 2 * m * sum(o * i for o, i in shapes) * 2
        rows.append(measure(f"decode linears m={m}", g, {"flops": flops, "bytes": 2 * wbytes}))
        del g, xs, ys
    for r in rows:
        f, bts = r.get("flops_per_s"), r.get("bytes_per_s")
        dyn = (r["watts"] - pi0) if r["watts"] else None
        r["pj_per_flop_all"] = dyn / f * 1e12 if dyn and f else None
        r["pj_per_byte_all"] = dyn / bts * 1e12 if dyn and bts and not f else None
    read = rows[0]
    jb = read["pj_per_byte_all"]
    for r in rows[1:]:
        # the FLOPs' share once the bytes are charged at the read's J/B
        if r["watts"] and r.get("flops_per_s"):
            r["pj_per_flop_after_bytes"] = (r["watts"] - pi0 - jb * 1e-12 * r["bytes_per_s"]) / r["flops_per_s"] * 1e12
    res["rows"] = rows
    if out:
        with open(out, "w") as fh:
            fh.write(json.dumps(res, indent=1) + "\n")
    print(f"idle {pi0:.1f} W")
    print("| workload | rate | SM clock | temperature | power | (P − idle) ÷ rate | FLOPs after bytes at the read's J/B |")
    print("|---|---|---|---|---|---|---|")
    for r in rows:
        rate = f"{r['flops_per_s'] / 1e12:.0f} TFLOP/s, {r['bytes_per_s'] / 1e12:.2f} TB/s" if r.get("flops_per_s") \
            else f"{r['bytes_per_s'] / 1e12:.2f} TB/s"
        per = f"{r['pj_per_flop_all']:.3f} pJ/FLOP" if r.get("pj_per_flop_all") else f"{r['pj_per_byte_all']:.1f} pJ/B"
        after = f"{r['pj_per_flop_after_bytes']:.3f} pJ/FLOP" if r.get("pj_per_flop_after_bytes") is not None else "—"
        print(f"| {r['name']} | {rate} | {r['sm_clock_mhz']} MHz | {r['temperature_c']} °C | {r['watts']:.0f} W "
              f"({r['updates']} updates) | {per} | {after} |")


if __name__ == "__main__":
    main()
