// Live detection of a CUDA GPU (CUDA runtime + NVML), with the reason for each value it cannot read.
#pragma once
#include <string>
#include <vector>

#include "roofline/json.hpp"
#include "roofline/spec.hpp"

namespace roofline::cuda {

struct detected_gpu {
  live_gpu gpu;
  std::string pci_bus_id;
  int driver_version = 0, runtime_version = 0;  ///< CUDA versions, 1000·major + 10·minor
  std::string nvml_driver;                       ///< NVML's driver string, e.g. "580.159.04"
  std::vector<std::string> notes;                ///< "max_sm_clock_mhz: from cudaDevAttrClockRate (NVML: …)", ...
  json properties() const;  ///< device_info.properties
};

/// Detects CUDA device `index` from cudaGetDeviceProperties and NVML loaded at run time (the sources of each
/// field: live_gpu in spec.hpp; `notes` where NVML could not say). Throws probe_error (naming the call).
detected_gpu detect_cuda_gpu_detailed(int index);

}  // namespace roofline::cuda
