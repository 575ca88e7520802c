"""NVML through ctypes for the bench/ scripts that read the GPU's energy counter (active_power.py, energy_counter.py,
joules_at_clock.py): open the library and the current CUDA device, read nvmlDeviceGetTotalEnergyConsumption (mJ).
Needs PyTorch with CUDA (for the device index) and libnvidia-ml.so.1."""
import ctypes

import torch


def nvml():
    """(library, device handle) of the current CUDA device; exits naming the call that failed."""
    lib = ctypes.CDLL("libnvidia-ml.so.1")
    if lib.nvmlInit_v2() != 0:
        raise SystemExit("nvmlInit_v2 failed")
    h = ctypes.c_void_p()
    if lib.nvmlDeviceGetHandleByIndex_v2(torch.cuda.current_device(), ctypes.byref(h)) != 0:
        raise SystemExit("nvmlDeviceGetHandleByIndex_v2 failed")
    return lib, h


def energy_mj(lib, h):
    """The device's total-energy counter now (mJ since the driver loaded)."""
    e = ctypes.c_ulonglong()
    if lib.nvmlDeviceGetTotalEnergyConsumption(h, ctypes.byref(e)) != 0:
        raise SystemExit("nvmlDeviceGetTotalEnergyConsumption failed")
    return e.value


def start(settle_s):
    """A CUDA context opened, NVML on its device, `settle_s` seconds of rest: (library, handle, {device, date})."""
    import time
    torch.cuda.init()
    lib, h = nvml()
    torch.ones(1, device="cuda")
    torch.cuda.synchronize()
    time.sleep(settle_s)
    return lib, h, {"device": torch.cuda.get_device_name(0), "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())}
