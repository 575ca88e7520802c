// NVML loaded at run time (dlopen "libnvidia-ml.so.1"), without its header: the header is not
// installed everywhere the CUDA toolkit is. The typedefs and enum values below are NVIDIA's
// documented ABI, from the NVML API Reference (docs.nvidia.com/deploy/nvml-api, R550):
//   nvmlReturn_t: NVML_SUCCESS = 0 (4.2 "Error reporting");
//   nvmlClockType_t: NVML_CLOCK_GRAPHICS = 0, NVML_CLOCK_SM = 1, NVML_CLOCK_MEM = 2 (4.13 "Device Enums");
//   nvmlTemperatureSensors_t: NVML_TEMPERATURE_GPU = 0; nvmlEnableState_t: DISABLED = 0, ENABLED = 1;
//   power usage and power limits are in milliwatts, clocks in MHz, temperature in °C;
//   clock event (throttle) reason bits: see throttle_reasons.hpp;
//   nvmlProcessInfo_t (the v2 layout the _v2 and _v3 process queries fill, 5.41 "nvmlProcessInfo_t"):
//   pid, usedGpuMemory (bytes), gpuInstanceId, computeInstanceId; NVML_ERROR_INSUFFICIENT_SIZE = 7;
//   nvmlDeviceGetTotalEnergyConsumption(device, unsigned long long* energy): the energy used since the
//   driver was last reloaded, in millijoules, Volta and newer (4.16 "Device Queries");
//   nvmlDeviceGetFieldValues(device, count, nvmlFieldValue_t*) ("Field Value Queries") with
//   NVML_FI_DEV_POWER_INSTANT = 186: the current power in mW (value.uiVal), where
//   nvmlDeviceGetPowerUsage returns a 1 s average on Ampere (except GA100) and newer. nvmlFieldValue_t:
//   fieldId, scopeId (unsigned), timestamp, latencyUsec (long long), valueType, nvmlReturn (enums),
//   value (nvmlValue_t, an 8-byte union).
// Every call is checked: nvml_library::check() turns a non-zero nvmlReturn_t into a message naming the
// call, the code and nvmlErrorString().
#pragma once
#include <memory>
#include <optional>
#include <string>

namespace roofline::cuda {

using nvml_return = int;         // nvmlReturn_t
using nvml_device = void*;       // nvmlDevice_t (opaque pointer)
inline constexpr nvml_return nvml_success = 0;
inline constexpr int nvml_clock_graphics = 0;
inline constexpr int nvml_clock_sm = 1;
inline constexpr int nvml_clock_mem = 2;
inline constexpr int nvml_temperature_gpu = 0;
inline constexpr int nvml_feature_enabled = 1;
inline constexpr nvml_return nvml_error_insufficient_size = 7;
inline constexpr unsigned nvml_fi_dev_power_instant = 186;
struct nvml_field_value {  // nvmlFieldValue_t
  unsigned field_id;
  unsigned scope_id;
  long long timestamp;
  long long latency_usec;
  int value_type;
  nvml_return nvml_ret;
  union {
    double d;
    int si;
    unsigned ui;
    unsigned long ul;
    unsigned long long ull;
    long long sll;
    unsigned short us;
  } value;
};
struct nvml_process_info {  // nvmlProcessInfo_t
  unsigned pid;
  unsigned long long used_gpu_memory;
  unsigned gpu_instance_id;
  unsigned compute_instance_id;
};

/// The loaded library and the few functions roofline uses. Construct with open(); all function
/// pointers except the optional ones are non-null in an opened library.
class nvml_library {
 public:
  /// Loads libnvidia-ml.so.1 and calls nvmlInit_v2. Returns nullptr and sets `why` when it cannot
  /// (library absent, symbol missing, init failed); never throws.
  static std::shared_ptr<nvml_library> open(std::string& why);
  ~nvml_library();
  nvml_library(const nvml_library&) = delete;
  nvml_library& operator=(const nvml_library&) = delete;

  /// "nvmlDeviceGetPowerUsage: NVML error 3 (Not Supported)" for a failed call, "" for success.
  std::string describe(const char* call, nvml_return r) const;

  /// The NVML handle of the CUDA device with this PCI bus id ("0000:19:00.0", cudaDeviceGetPCIBusId),
  /// so NVML's and CUDA's device orders cannot be confused. Returns nullopt and sets `why` on failure.
  std::optional<nvml_device> device_by_pci_bus_id(const std::string& bus_id, std::string& why) const;
  /// device_by_pci_bus_id, falling back to nvmlDeviceGetHandleByIndex_v2(cuda_index) when the bus-id
  /// lookup fails (then `note` says so: the orders agree only without CUDA_VISIBLE_DEVICES reordering).
  std::optional<nvml_device> device_for_cuda(const std::string& bus_id, int cuda_index, std::string& why,
                                             std::string& note) const;

  // Raw entry points (C ABI, as documented). Optional ones may be null on older drivers.
  nvml_return (*init)() = nullptr;                                              // nvmlInit_v2
  nvml_return (*shutdown)() = nullptr;                                          // nvmlShutdown
  const char* (*error_string)(nvml_return) = nullptr;                           // nvmlErrorString
  nvml_return (*handle_by_pci_bus_id)(const char*, nvml_device*) = nullptr;     // nvmlDeviceGetHandleByPciBusId_v2
  nvml_return (*handle_by_index)(unsigned, nvml_device*) = nullptr;             // nvmlDeviceGetHandleByIndex_v2
  nvml_return (*clock_info)(nvml_device, int, unsigned*) = nullptr;             // nvmlDeviceGetClockInfo
  nvml_return (*max_clock_info)(nvml_device, int, unsigned*) = nullptr;         // nvmlDeviceGetMaxClockInfo
  nvml_return (*power_usage)(nvml_device, unsigned*) = nullptr;                 // nvmlDeviceGetPowerUsage (mW)
  nvml_return (*temperature)(nvml_device, int, unsigned*) = nullptr;            // nvmlDeviceGetTemperature (°C)
  nvml_return (*clocks_event_reasons)(nvml_device, unsigned long long*) = nullptr;  // ...EventReasons, else ...ThrottleReasons
  nvml_return (*ecc_mode)(nvml_device, int*, int*) = nullptr;                   // nvmlDeviceGetEccMode(current, pending)
  nvml_return (*enforced_power_limit)(nvml_device, unsigned*) = nullptr;        // nvmlDeviceGetEnforcedPowerLimit (mW)
  nvml_return (*driver_version)(char*, unsigned) = nullptr;                     // nvmlSystemGetDriverVersion
  nvml_return (*compute_processes)(nvml_device, unsigned*, nvml_process_info*) = nullptr;   // nvmlDeviceGetComputeRunningProcesses_v3, else _v2
  nvml_return (*graphics_processes)(nvml_device, unsigned*, nvml_process_info*) = nullptr;  // nvmlDeviceGetGraphicsRunningProcesses_v3, else _v2
  nvml_return (*process_name)(unsigned, char*, unsigned) = nullptr;             // nvmlSystemGetProcessName
  nvml_return (*total_energy)(nvml_device, unsigned long long*) = nullptr;      // nvmlDeviceGetTotalEnergyConsumption (mJ)
  nvml_return (*field_values)(nvml_device, int, nvml_field_value*) = nullptr;   // nvmlDeviceGetFieldValues
  std::string reasons_symbol;  ///< which clocks-reasons entry point was found

 private:
  nvml_library() = default;
  void* handle_ = nullptr;
  bool initialised_ = false;
};

}  // namespace roofline::cuda
