// NVML clock event ("throttle") reasons: decoding the bit mask returned by
// nvmlDeviceGetCurrentClocksEventReasons. Bit values from the NVML API Reference R550, 4.31
// "NvmlClocksEventReasons" (docs.nvidia.com/deploy/archive/R550/nvml-api/group__nvmlClocksEventReasons.html).
// Pure host code (no CUDA/NVML header), unit-tested in tests/cudahost.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace roofline::cuda {

struct throttle_reason {
  std::uint64_t bit;
  const char* name;  ///< snake_case name used in results.json
  bool slowdown;     ///< true when it lowers clocks below what the work asks for
};

/// The documented reasons, in bit order:
/// gpu_idle 0x1, applications_clocks_setting 0x2, sw_power_cap 0x4, hw_slowdown 0x8, sync_boost 0x10,
/// sw_thermal_slowdown 0x20, hw_thermal_slowdown 0x40, hw_power_brake_slowdown 0x80,
/// display_clock_setting 0x100.
const std::vector<throttle_reason>& throttle_reasons();

/// Names of the bits set in `mask`, in bit order; unknown bits as "unknown_0x…". decode(0x5) ==
/// {"gpu_idle", "sw_power_cap"}.
std::vector<std::string> decode_throttle_reasons(std::uint64_t mask);

/// True when any slowdown reason (power cap, thermal, hardware slowdown, power brake) is set; idle,
/// application-clock, sync-boost and display settings do not count.
bool is_throttled(std::uint64_t mask);

}  // namespace roofline::cuda
