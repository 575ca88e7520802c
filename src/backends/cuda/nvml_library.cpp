#include "backends/cuda/nvml_library.hpp"

#include <dlfcn.h>
#include <fmt/format.h>

#include <mutex>

namespace roofline::cuda {

namespace {

template <class F>
bool load(void* h, const char* name, F& out) {
  out = reinterpret_cast<F>(dlsym(h, name));
  return out != nullptr;
}

}  // namespace

std::shared_ptr<nvml_library> nvml_library::open(std::string& why) {
  // One library per process: NVML init/shutdown are reference counted by NVML itself, but the
  // sampler and detection share one handle to keep the order simple.
  static std::mutex mu;
  static std::weak_ptr<nvml_library> cached;
  static std::string cached_why;
  std::lock_guard<std::mutex> lock(mu);
  if (auto lib = cached.lock()) return lib;

  std::shared_ptr<nvml_library> lib(new nvml_library());
  lib->handle_ = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!lib->handle_) {
    const char* e = dlerror();
    why = fmt::format("dlopen(libnvidia-ml.so.1) failed: {}", e ? e : "unknown error");
    return nullptr;
  }
  void* h = lib->handle_;
  struct required {
    const char* name;
    bool ok;
  };
  const required req[] = {
      {"nvmlInit_v2", load(h, "nvmlInit_v2", lib->init)},
      {"nvmlShutdown", load(h, "nvmlShutdown", lib->shutdown)},
      {"nvmlErrorString", load(h, "nvmlErrorString", lib->error_string)},
      {"nvmlDeviceGetHandleByPciBusId_v2", load(h, "nvmlDeviceGetHandleByPciBusId_v2", lib->handle_by_pci_bus_id)},
      {"nvmlDeviceGetClockInfo", load(h, "nvmlDeviceGetClockInfo", lib->clock_info)},
      {"nvmlDeviceGetMaxClockInfo", load(h, "nvmlDeviceGetMaxClockInfo", lib->max_clock_info)},
  };
  for (const auto& r : req) {
    if (!r.ok) {
      why = fmt::format("libnvidia-ml.so.1 lacks {}", r.name);
      return nullptr;
    }
  }
  // Optional: each missing one only removes one column of telemetry.
  load(h, "nvmlDeviceGetHandleByIndex_v2", lib->handle_by_index);
  load(h, "nvmlDeviceGetPowerUsage", lib->power_usage);
  load(h, "nvmlDeviceGetTemperature", lib->temperature);
  load(h, "nvmlDeviceGetEccMode", lib->ecc_mode);
  load(h, "nvmlDeviceGetEnforcedPowerLimit", lib->enforced_power_limit);
  load(h, "nvmlSystemGetDriverVersion", lib->driver_version);
  if (!load(h, "nvmlDeviceGetComputeRunningProcesses_v3", lib->compute_processes))
    load(h, "nvmlDeviceGetComputeRunningProcesses_v2", lib->compute_processes);
  if (!load(h, "nvmlDeviceGetGraphicsRunningProcesses_v3", lib->graphics_processes))
    load(h, "nvmlDeviceGetGraphicsRunningProcesses_v2", lib->graphics_processes);
  load(h, "nvmlSystemGetProcessName", lib->process_name);
  load(h, "nvmlDeviceGetTotalEnergyConsumption", lib->total_energy);
  load(h, "nvmlDeviceGetFieldValues", lib->field_values);
  if (load(h, "nvmlDeviceGetCurrentClocksEventReasons", lib->clocks_event_reasons))
    lib->reasons_symbol = "nvmlDeviceGetCurrentClocksEventReasons";
  else if (load(h, "nvmlDeviceGetCurrentClocksThrottleReasons", lib->clocks_event_reasons))
    lib->reasons_symbol = "nvmlDeviceGetCurrentClocksThrottleReasons";

  const nvml_return r = lib->init();
  if (r != nvml_success) {
    why = lib->describe("nvmlInit_v2", r);
    return nullptr;
  }
  lib->initialised_ = true;
  cached = lib;
  return lib;
}

nvml_library::~nvml_library() {
  if (initialised_ && shutdown) shutdown();
  if (handle_) dlclose(handle_);
}

std::string nvml_library::describe(const char* call, nvml_return r) const {
  if (r == nvml_success) return "";
  const char* s = error_string ? error_string(r) : nullptr;
  return fmt::format("{}: NVML error {} ({})", call, r, s ? s : "no error string");
}

std::optional<nvml_device> nvml_library::device_by_pci_bus_id(const std::string& bus_id, std::string& why) const {
  nvml_device dev = nullptr;
  const nvml_return r = handle_by_pci_bus_id(bus_id.c_str(), &dev);
  if (r != nvml_success) {
    why = describe("nvmlDeviceGetHandleByPciBusId_v2", r) + " for bus id " + bus_id;
    return std::nullopt;
  }
  return dev;
}

std::optional<nvml_device> nvml_library::device_for_cuda(const std::string& bus_id, int cuda_index, std::string& why,
                                                        std::string& note) const {
  std::string bus_why;
  if (auto d = device_by_pci_bus_id(bus_id, bus_why)) return d;
  if (!handle_by_index) {
    why = bus_why;
    return std::nullopt;
  }
  nvml_device dev = nullptr;
  const nvml_return r = handle_by_index(static_cast<unsigned>(cuda_index), &dev);
  if (r != nvml_success) {
    why = bus_why + "; " + describe("nvmlDeviceGetHandleByIndex_v2", r);
    return std::nullopt;
  }
  note = fmt::format("NVML device found by index {} ({}); its order matches CUDA's only without CUDA_VISIBLE_DEVICES "
                     "reordering",
                     cuda_index, bus_why);
  return dev;
}

}  // namespace roofline::cuda
