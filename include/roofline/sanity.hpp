// Sanity checks before publication (issue 9): a number that looks wrong is flagged in the results
// (bandwidth_result::flags / compute_result::flags, and results.errors for the worst), never
// silently published. Pure functions of the results.
#pragma once
#include <string>

#include "roofline/measure.hpp"
#include "roofline/results.hpp"

namespace roofline {

struct sanity_thresholds {
  double above_nominal = 0.05;   ///< measured > nominal × (1 + this) is flagged "above nominal"
  double spread = noisy_spread;  ///< IQR / median of the timed samples above this is flagged "noisy"
  double throttled_fraction = 0.0;  ///< any throttled sample is flagged with its NVML reasons
};

/// Flags, in place:
///  - a DRAM/HBM bandwidth whose working set fits in the last-level cache (device.properties
///    "l3_bytes" on CPUs, "l2_bytes" on GPUs): "working set (X) fits in the LLC (Y): not a DRAM number";
///  - a bandwidth above the nominal memory bandwidth, or a compute rate above the nominal peak of
///    its precision (any engine), by more than `above_nominal`;
///  - a spread above `spread`;
///  - samples taken while the GPU reported a slowdown reason.
/// Returns the number of flags added.
int flag_results(results& r, const sanity_thresholds& t = {});

}  // namespace roofline
