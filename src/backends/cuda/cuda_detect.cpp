#include "backends/cuda/cuda_detect.hpp"

#include "backends/cuda/cudnn_sdpa.hpp"

#include <cuda_runtime.h>
#include <fmt/format.h>

#include "backends/cuda/cuda_check.hpp"
#include "backends/cuda/nvml_library.hpp"
#include "roofline/json.hpp"

namespace roofline::cuda {

namespace {

std::string version_string(int v) { return fmt::format("{}.{}", v / 1000, (v % 1000) / 10); }

}  // namespace

detected_gpu detect_cuda_gpu_detailed(int index) {
  detected_gpu d;
  cudaDeviceProp p{};
  ROOFLINE_CUDA_CALL(cudaGetDeviceProperties(&p, index));
  live_gpu& g = d.gpu;
  g.name = p.name;
  g.cc_major = p.major;
  g.cc_minor = p.minor;
  g.sms = p.multiProcessorCount;
  g.l2_bytes = static_cast<double>(p.l2CacheSize);
  g.memory_bytes = static_cast<double>(p.totalGlobalMem);
  if (p.memoryBusWidth > 0) g.bus_width_bits = p.memoryBusWidth;
  else d.notes.push_back("bus_width_bits: unknown (cudaDeviceProp::memoryBusWidth is 0)");
  ROOFLINE_CUDA_CALL(cudaDriverGetVersion(&d.driver_version));
  ROOFLINE_CUDA_CALL(cudaRuntimeGetVersion(&d.runtime_version));
  char bus[32] = {0};
  ROOFLINE_CUDA_CALL(cudaDeviceGetPCIBusId(bus, sizeof bus, index));
  d.pci_bus_id = bus;

  std::string why;
  const auto lib = nvml_library::open(why);
  std::optional<nvml_device> dev;
  std::string note;
  if (lib) dev = lib->device_for_cuda(d.pci_bus_id, index, why, note);
  if (!note.empty()) d.notes.push_back("nvml: " + note);
  if (lib && dev) {
    unsigned v = 0;
    nvml_return r = lib->max_clock_info(*dev, nvml_clock_sm, &v);
    if (r == nvml_success) g.max_sm_clock_mhz = v;
    else d.notes.push_back("max_sm_clock_mhz: " + lib->describe("nvmlDeviceGetMaxClockInfo(SM)", r));
    r = lib->max_clock_info(*dev, nvml_clock_mem, &v);
    if (r == nvml_success) g.max_mem_clock_mhz = v;
    else d.notes.push_back("max_mem_clock_mhz: " + lib->describe("nvmlDeviceGetMaxClockInfo(MEM)", r));
    if (lib->ecc_mode) {
      int cur = 0, pend = 0;
      r = lib->ecc_mode(*dev, &cur, &pend);
      if (r == nvml_success) g.ecc_enabled = cur == nvml_feature_enabled;
      else d.notes.push_back("ecc: " + lib->describe("nvmlDeviceGetEccMode", r));
    }
    if (lib->enforced_power_limit) {
      r = lib->enforced_power_limit(*dev, &v);
      if (r == nvml_success) g.power_limit_w = v / 1000.0;
      else d.notes.push_back("power_limit_w: " + lib->describe("nvmlDeviceGetEnforcedPowerLimit", r));
    } else {
      d.notes.push_back("power_limit_w: unknown (nvmlDeviceGetEnforcedPowerLimit not exported)");
    }
    if (lib->driver_version) {
      char buf[96] = {0};
      if (lib->driver_version(buf, sizeof buf) == nvml_success) d.nvml_driver = buf;
    }
  } else {
    d.notes.push_back("nvml: unavailable (" + why + ")");
  }
  // Fallbacks from the CUDA runtime (peak clocks in kHz) where NVML gave nothing.
  if (!g.max_sm_clock_mhz) {
    int khz = 0;
    if (cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, index) == cudaSuccess && khz > 0) {
      g.max_sm_clock_mhz = khz / 1000.0;
      d.notes.push_back("max_sm_clock_mhz: from cudaDevAttrClockRate (NVML gave none)");
    } else {
      (void)cudaGetLastError();
    }
  }
  if (!g.max_mem_clock_mhz) {
    int khz = 0;
    if (cudaDeviceGetAttribute(&khz, cudaDevAttrMemoryClockRate, index) == cudaSuccess && khz > 0) {
      g.max_mem_clock_mhz = khz / 1000.0;
      d.notes.push_back("max_mem_clock_mhz: from cudaDevAttrMemoryClockRate (NVML gave none)");
    } else {
      (void)cudaGetLastError();
    }
  }
  if (!g.ecc_enabled) {
    g.ecc_enabled = p.ECCEnabled != 0;
    d.notes.push_back("ecc: from cudaDeviceProp::ECCEnabled");
  }
  return d;
}

json detected_gpu::properties() const {
  auto opt = [](const auto& v, const char* what) -> json {
    if (v) return json(*v);
    return json(std::string("unknown (") + what + ")");
  };
  json j;
  j["sms"] = gpu.sms;
  j["cc"] = fmt::format("{}.{}", gpu.cc_major, gpu.cc_minor);
  j["l2_bytes"] = opt(gpu.l2_bytes, "cudaDeviceProp");
  j["memory_bytes"] = opt(gpu.memory_bytes, "cudaDeviceProp");
  j["bus_width_bits"] = opt(gpu.bus_width_bits, "cudaDeviceProp::memoryBusWidth is 0");
  j["max_sm_clock_mhz"] = opt(gpu.max_sm_clock_mhz, "NVML and cudaDevAttrClockRate gave none");
  j["max_mem_clock_mhz"] = opt(gpu.max_mem_clock_mhz, "NVML and cudaDevAttrMemoryClockRate gave none");
  j["ecc"] = opt(gpu.ecc_enabled, "NVML and cudaDeviceProp gave none");
  j["power_limit_w"] = opt(gpu.power_limit_w, "NVML unavailable");
  j["driver_version"] = nvml_driver.empty() ? version_string(driver_version)
                                            : fmt::format("{} (CUDA {})", nvml_driver, version_string(driver_version));
  j["runtime_version"] = version_string(runtime_version);
  j["pci_bus_id"] = pci_bus_id;
  std::string cudnn_why;
  const std::string cudnn = cudnn_available(cudnn_why);  // attention's second candidate (cudnn_sdpa.hpp)
  j["cudnn"] = cudnn.empty() ? "unavailable (" + cudnn_why + ")" : cudnn;
  if (!notes.empty()) j["notes"] = notes;
  return j;
}

}  // namespace roofline::cuda
