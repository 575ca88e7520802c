#!/usr/bin/env python3
"""The GPU's constant power in each busy state a decode step passes through, from NVML's energy counter.

    python3 bench/active_power.py [SECONDS]      (default 1.5 s a window; prints one JSON line a state)

The energy roofline (Choi, Bedard, Fowler, Vuduc, "A roofline model of energy", IPDPS 2013, §II) charges a constant
power for every second a step runs. roofline takes it from the counter over an idle pause; a step at small batch keeps
the clocks up and the SMs waiting on latency and launches, which may draw more. This measures, each over a window of
SECONDS read by nvmlDeviceGetTotalEnergyConsumption (mJ) with the SM clock sampled every 20 ms:
  idle         nothing launched (the context open)
  spin-1       one single-thread spin kernel at a time (torch.cuda._sleep): clocks up, one SM busy, no bytes
  tiny-launch  back-to-back 1-element adds: the launch-bound state of a small decode step
  spin-all     one spin kernel per SM on as many streams: every SM busy, no bytes
No clock or power setting is changed. Needs PyTorch with CUDA and libnvidia-ml.so.1.
"""
import ctypes
import json
import sys
import threading
import time

import torch

from nvml_counter import energy_mj, nvml

NVML_CLOCK_SM = 1


def window(lib, h, name, seconds, work):
    clocks, power, stop = [], [], threading.Event()

    def sample():
        c, p = ctypes.c_uint(), ctypes.c_uint()
        while not stop.is_set():
            if lib.nvmlDeviceGetClockInfo(h, NVML_CLOCK_SM, ctypes.byref(c)) == 0:
                clocks.append(c.value)
            if lib.nvmlDeviceGetPowerUsage(h, ctypes.byref(p)) == 0:
                power.append(p.value / 1000)
            time.sleep(0.02)

    torch.cuda.synchronize()
    t = threading.Thread(target=sample)
    e0, t0 = energy_mj(lib, h), time.perf_counter()
    t.start()
    n = 0
    while time.perf_counter() - t0 < seconds:
        work()
        n += 1
    torch.cuda.synchronize()
    e1, t1 = energy_mj(lib, h), time.perf_counter()
    stop.set()
    t.join()
    med = lambda v: sorted(v)[len(v) // 2] if v else None
    print(json.dumps({"state": name, "window_s": round(t1 - t0, 3), "power_w": round((e1 - e0) / 1000 / (t1 - t0), 1),
                      "sampled_power_median_w": med(power), "sm_clock_median_mhz": med(clocks), "iterations": n}),
          flush=True)


def main():
    seconds = float(sys.argv[1]) if len(sys.argv) > 1 else 1.5
    lib, h = nvml()
    props = torch.cuda.get_device_properties(0)
    print(json.dumps({"gpu": props.name, "sms": props.multi_processor_count}), flush=True)
    a = torch.zeros(1, device="cuda")
    streams = [torch.cuda.Stream() for _ in range(props.multi_processor_count)]

    def spin_all():
        for s in streams:
            with torch.cuda.stream(s):
                torch.cuda._sleep(1_000_000)
        torch.cuda.synchronize()

    time.sleep(1.0)
    window(lib, h, "idle", seconds, lambda: time.sleep(0.05))
    window(lib, h, "spin-1", seconds, lambda: (torch.cuda._sleep(1_000_000), torch.cuda.synchronize()))
    window(lib, h, "tiny-launch", seconds, lambda: [a.add_(1) for _ in range(100)])
    window(lib, h, "spin-all", seconds, spin_all)
    time.sleep(1.0)
    window(lib, h, "idle-after", seconds, lambda: time.sleep(0.05))


if __name__ == "__main__":
    main()
