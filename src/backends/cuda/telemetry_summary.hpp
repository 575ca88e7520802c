// Telemetry samples (one NVML reading of clocks, power, temperature and clock-event reasons) and
// their summary over a probe's time window. Pure host code, unit-tested in tests/cudahost.
#pragma once
#include <cstdint>
#include <optional>
#include <vector>

#include "roofline/results.hpp"

namespace roofline::cuda {

struct telemetry_sample {
  double t_s = 0;  ///< now_s() (steady clock) when the reading was taken
  std::optional<double> sm_clock_mhz, mem_clock_mhz, power_w, temperature_c;
  /// NVML_FI_DEV_POWER_INSTANT (W): the current power, where power_w is a 1 s average on Ampere
  /// (except GA100) and newer; absent where the field is unsupported.
  std::optional<double> instant_power_w;
  std::optional<std::uint64_t> reasons;  ///< NVML clock-event reason mask
};

/// Summary of the samples with t0 <= t_s <= t1: count, rate (samples / window), min/max/median/mean of
/// each quantity present, the union of reason names, and the share of samples (with a reason mask) whose
/// mask has a slowdown bit (is_throttled). When no sample falls in a window shorter than one sampling
/// period, the one sample nearest the window's middle is used, so a short probe still gets a reading.
/// Returns nullopt when `samples` is empty.
std::optional<telemetry_summary> summarize_telemetry(const std::vector<telemetry_sample>& samples, double t0, double t1);

}  // namespace roofline::cuda
