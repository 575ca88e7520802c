#!/usr/bin/env python3
"""How NVML's energy counter updates, what that does to a 1 s energy window, and idle power against temperature.

    python3 bench/energy_counter.py [OUT_JSON]      (about 70 s on an H100; prints a summary, writes JSON)

roofline reads a step's energy as the increase of nvmlDeviceGetTotalEnergyConsumption (mJ) over a window of about
1 s, and the energy roofline's constant power π0 from the same counter over an idle pause before the probes
(Choi, Bedard, Fowler, Vuduc, "A roofline model of energy", IPDPS 2013). Two things can bias both, and this measures
them on the machine at hand (no clock or power setting is changed):
  cadence    the counter polled every ~0.2 ms at idle and under a steady memory-bound load (device-to-device copies
             replayed in a CUDA graph): the interval between its updates and the call's latency. A counter that moves
             every Δ seconds reads up to Δ·P stale at each end of a window, so a window of W seconds has up to ±Δ/W of
             error; the script replays 1.06 s windows at every start phase over the recorded trace, read (a) at their
             ends and (b) between the first and the last update inside them (edge-aligned), and prints both spreads.
  leakage    idle power against the GPU temperature: idle (the context open) while cold, then a 25 s fp16 GEMM load
             heats the die, then 25 s of idle read between counter updates while it cools, each with the
             temperature (nvmlDeviceGetTemperature): the slope W/°C is the part of π0 that depends on how hot the GPU is.
Needs PyTorch with CUDA and libnvidia-ml.so.1.
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


def temperature_c():
    t = ctypes.c_uint()
    return t.value if LIB.nvmlDeviceGetTemperature(DEV, 0, ctypes.byref(t)) == 0 else None


def sm_clock():
    c = ctypes.c_uint()
    return c.value if LIB.nvmlDeviceGetClockInfo(DEV, 1, ctypes.byref(c)) == 0 else None


def poll(seconds, busy=None):
    """(t, mJ) at every change of the counter over `seconds`, polling as fast as the call allows; `busy` is called
    between polls (to keep work queued). Returns the change points and the calls' mean latency."""
    pts, calls = [], 0
    t0 = time.perf_counter()
    last = energy_mj()
    pts.append((t0, last))
    while True:
        t = time.perf_counter()
        if t - t0 > seconds:
            break
        e = energy_mj()
        calls += 1
        if e != last:
            pts.append((time.perf_counter(), e))
            last = e
        if busy:
            busy()
    return pts[1:], (time.perf_counter() - t0) / max(calls, 1)


def reading_at(pts, t):
    """The counter as a read at time t would see it: the last update at or before t."""
    v = None
    for tp, e in pts:
        if tp > t:
            break
        v = e
    return v


def window_spread(pts, width):
    """1.06 s windows at start phases every 5 ms across the trace: power read at the ends vs between edges."""
    start, end = pts[0][0], pts[-1][0]
    naive, edge = [], []
    t = start + 0.001
    while t + width < end - 0.001:
        a, b = reading_at(pts, t), reading_at(pts, t + width)
        naive.append((b - a) / 1e3 / width)
        inside = [p for p in pts if t <= p[0] <= t + width]
        if len(inside) >= 2:
            (ta, ea), (tb, eb) = inside[0], inside[-1]
            edge.append((eb - ea) / 1e3 / (tb - ta))
        t += 0.005
    def summary(v):
        m = statistics.median(v)
        return {"median_w": m, "min_w": min(v), "max_w": max(v), "spread_pct": (max(v) - min(v)) / m * 100,
                "stdev_pct": statistics.pstdev(v) / m * 100, "windows": len(v)}
    return {"at_ends": summary(naive), "edge_aligned": summary(edge)}


def intervals(pts):
    d = [b[0] - a[0] for a, b in zip(pts, pts[1:])]
    return {"updates": len(pts), "median_ms": statistics.median(d) * 1e3, "min_ms": min(d) * 1e3, "max_ms": max(d) * 1e3}


def edge_power(pts):
    (ta, ea), (tb, eb) = pts[0], pts[-1]
    return (eb - ea) / 1e3 / (tb - ta)


def main():
    global LIB, DEV
    out = sys.argv[1] if len(sys.argv) > 1 else None
    LIB, DEV, res = nvml_counter.start(2.0)

    # cadence at idle
    idle_pts, lat = poll(2.5)
    res["idle"] = {"cadence": intervals(idle_pts), "call_latency_us": lat * 1e6, "power_w": edge_power(idle_pts),
                   "temperature_c": temperature_c(), "sm_clock_mhz": sm_clock()}

    # cadence under a steady memory-bound load: a graph of 20 copies of 512 MiB, kept queued
    src = torch.empty(256 * 2**20, dtype=torch.float16, device="cuda")
    dst = torch.empty_like(src)
    s = torch.cuda.Stream()
    g = torch.cuda.CUDAGraph()
    with torch.cuda.stream(s):
        dst.copy_(src)
        torch.cuda.synchronize()
        with torch.cuda.graph(g, stream=s):
            for _ in range(20):
                dst.copy_(src)
    queued = []

    def keep_queued():
        # at most ~4 graphs (≈ 4 × 20 × 0.33 ms) ahead of the GPU
        while len(queued) < 4:
            g.replay()
            ev = torch.cuda.Event()
            ev.record(s)
            queued.append(ev)
        while queued and queued[0].query():
            queued.pop(0)

    with torch.cuda.stream(s):
        for _ in range(10):
            keep_queued()
            time.sleep(0.05)
        load_pts, lat_load = poll(7.0, keep_queued)
        torch.cuda.synchronize()
    res["copy_load"] = {"cadence": intervals(load_pts), "call_latency_us": lat_load * 1e6, "power_w": edge_power(load_pts),
                        "windows_1p06s": window_spread(load_pts, 1.06), "temperature_c": temperature_c()}
    del src, dst, g

    # leakage: idle cold (above), a 25 s GEMM load, then idle while cooling, read between counter updates
    a = torch.randn(8192, 8192, dtype=torch.float16, device="cuda")
    b = torch.randn(8192, 8192, dtype=torch.float16, device="cuda")
    t_end = time.perf_counter() + 25.0
    while time.perf_counter() < t_end:
        for _ in range(20):
            torch.mm(a, b)
        torch.cuda.synchronize()
    hot = {"temperature_c": temperature_c(), "sm_clock_mhz": sm_clock()}
    cooling = []
    t_end = time.perf_counter() + 25.0
    while time.perf_counter() < t_end:
        t_before = temperature_c()
        pts, _ = poll(0.6)
        if len(pts) >= 2:
            cooling.append({"t_s": pts[0][0], "power_w": edge_power(pts), "temperature_c": (t_before + temperature_c()) / 2,
                            "sm_clock_mhz": sm_clock()})
    # least-squares slope of power on temperature over the cooling curve and the cold idle
    xs = [c["temperature_c"] for c in cooling] + [res["idle"]["temperature_c"]]
    ys = [c["power_w"] for c in cooling] + [res["idle"]["power_w"]]
    mx, my = statistics.fmean(xs), statistics.fmean(ys)
    sxx = sum((x - mx) ** 2 for x in xs)
    slope = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sxx if sxx > 0 else None
    res["leakage"] = {"after_gemm": hot, "cooling": cooling, "slope_w_per_c": slope,
                      "intercept_w_at_mean": my, "mean_c": mx}

    s = json.dumps(res, indent=1)
    if out:
        with open(out, "w") as f:
            f.write(s + "\n")
    i, L = res["idle"], res["copy_load"]
    print(f"idle: counter updates every {i['cadence']['median_ms']:.1f} ms (min {i['cadence']['min_ms']:.1f}, max "
          f"{i['cadence']['max_ms']:.1f}), call {i['call_latency_us']:.0f} us; {i['power_w']:.1f} W at {i['temperature_c']} C")
    print(f"copy load: every {L['cadence']['median_ms']:.1f} ms; {L['power_w']:.1f} W; 1.06 s windows read at their ends "
          f"spread {L['windows_1p06s']['at_ends']['spread_pct']:.1f} % (stdev {L['windows_1p06s']['at_ends']['stdev_pct']:.2f} %), "
          f"edge-aligned {L['windows_1p06s']['edge_aligned']['spread_pct']:.1f} % (stdev "
          f"{L['windows_1p06s']['edge_aligned']['stdev_pct']:.2f} %)")
    print(f"after the GEMM: {hot['temperature_c']} C; cooling: " +
          ", ".join(f"{c['temperature_c']:.0f} C {c['power_w']:.1f} W" for c in cooling[::4]))
    print(f"idle power against temperature: {slope:.2f} W/C" if slope is not None else "no slope")


if __name__ == "__main__":
    main()
