#include "backends/cuda/throttle_reasons.hpp"

#include <fmt/format.h>

namespace roofline::cuda {

const std::vector<throttle_reason>& throttle_reasons() {
  static const std::vector<throttle_reason> table = {
      {0x1, "gpu_idle", false},
      {0x2, "applications_clocks_setting", false},
      {0x4, "sw_power_cap", true},
      {0x8, "hw_slowdown", true},
      {0x10, "sync_boost", false},
      {0x20, "sw_thermal_slowdown", true},
      {0x40, "hw_thermal_slowdown", true},
      {0x80, "hw_power_brake_slowdown", true},
      {0x100, "display_clock_setting", false},
  };
  return table;
}

std::vector<std::string> decode_throttle_reasons(std::uint64_t mask) {
  std::vector<std::string> out;
  std::uint64_t known = 0;
  for (const auto& r : throttle_reasons()) {
    known |= r.bit;
    if (mask & r.bit) out.emplace_back(r.name);
  }
  for (int b = 0; b < 64; ++b) {
    const std::uint64_t bit = std::uint64_t{1} << b;
    if ((mask & bit) && !(known & bit)) out.push_back(fmt::format("unknown_{:#x}", bit));
  }
  return out;
}

bool is_throttled(std::uint64_t mask) {
  for (const auto& r : throttle_reasons())
    if (r.slowdown && (mask & r.bit)) return true;
  return false;
}

}  // namespace roofline::cuda
