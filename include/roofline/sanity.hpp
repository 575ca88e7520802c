// Sanity checks before publication: a number that looks wrong is flagged in the results
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
  double level_tolerance = 0.05;  ///< noise allowed when one memory level's rate is compared with another's
  /// A cache level whose read rate reaches (1 − level_margin) × the level above it was served by that level:
  /// published hierarchies are far apart (L2/L1 ≤ 0.6, LLC/L2 ≤ 0.6, docs/methodology.md "Physical rules").
  double level_margin = 0.25;
};

/// The physical rules for bandwidth points, as hard rules: a point that breaks one gets
/// `rejected = true` and `rejected_reason` (and a flag "rejected: …"), and is never a roof. Levels are
/// ordered l1 < l2 < l3/llc < dram/hbm (nearest the core first) and compared per pattern:
///  1. device memory (dram/hbm): a working set that fits in the last-level cache (device.properties
///     "l3_bytes" on CPUs, "l2_bytes" on GPUs), or a rate above the nominal memory bandwidth by more
///     than `above_nominal`;
///  2. a cache level (l2, l3/llc) faster than the nearest measured level above it × (1 + level_tolerance),
///     or, for reads, within `level_margin` of it (e.g. an L1 point labelled L2; writes and copies move
///     lines both ways and can be bound by the same path at two levels, so only reads);
///  3. device memory faster than the level above it × (1 + level_tolerance): every device-memory byte
///     passes through that cache, so it is the cache's points (slower than device memory) that are
///     rejected, not the device memory's;
///  4. a transition "a+b" above the best of level a, or below the slowest point of level b, by more
///     than max(level_tolerance, its own spread).
/// Each level's best is taken over its points not rejected. Idempotent. Returns the number of points
/// newly rejected.
int reject_impossible(results& r, const sanity_thresholds& t = {});

/// Applies reject_impossible, then flags, in place:
///  - a DRAM/HBM bandwidth whose working set fits in the last-level cache (device.properties
///    "l3_bytes" on CPUs, "l2_bytes" on GPUs): "working set (X) fits in the LLC (Y): not a DRAM number";
///  - a bandwidth above the nominal memory bandwidth, or a compute rate above the nominal peak of
///    its precision (any engine), by more than `above_nominal`;
///  - a spread above `spread`;
///  - samples taken while the GPU reported a slowdown reason.
/// Returns the number of flags added.
int flag_results(results& r, const sanity_thresholds& t = {});

}  // namespace roofline
