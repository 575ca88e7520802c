// A rate set against the nominal peak at the clock of the same interval (docs/formulas-analysis.md §6,
// "The peak at that clock"): the one place that scales a nominal peak to a clock, for the opening
// sentence, the record table and the clock-matched roofs of `place`.
#pragma once
#include <optional>
#include <string>

#include "roofline/results.hpp"

namespace roofline {

/// The nominal peak `p` at an SM clock of `mhz`: p.flops_per_s × mhz ÷ the clock the peak is computed
/// at (nominal_clock_mhz) — a dense peak is units × work per unit per clock × clock (docs/formulas-spec.md
/// §1), so at another clock it scales with the clock. nullopt when the peak names no clock or mhz ≤ 0.
/// Worked: H100 SXM fp16 989.43 TFLOP/s at 1830 MHz → 721.8 TFLOP/s at 1335 MHz.
std::optional<double> peak_at_clock(const nominal_roofs& n, const nominal_peak& p, double mhz);

/// Which interval a clock-matched rate describes.
enum class clock_interval {
  fastest_repeat,   ///< the repeat the roof comes from, at its own time-weighted clock
  resolved_repeat,  ///< the fastest repeat whose clock the samples resolve (the roof's own is uncertain)
  timed_runs,       ///< a file with no per-repeat clock: the median clock over all timed runs
};

/// A GEMM's rate, the clock of the same interval, and the nominal peak at that clock.
struct clock_matched {
  std::optional<double> rate;       ///< FLOP/s (OP/s) of the interval
  std::optional<double> clock_mhz;  ///< its SM clock
  std::optional<double> peak;       ///< the nominal peak at that clock (peak_at_clock)
  std::optional<double> fraction;   ///< rate ÷ peak, never above 1 (above it, the clock is uncertain)
  clock_interval interval = clock_interval::fastest_repeat;
  /// Why the roof's own repeat has no clock matched (its samples did not resolve it, or its rate is above
  /// the peak at the clock they read); set also when a resolved repeat stands in for it.
  std::string fastest_uncertain;
  /// Why no fraction is given at all (empty when `fraction` is set).
  std::string uncertain;
};

/// `c`'s rate against `p` at the clock of the same interval: the fastest repeat at its own clock; where
/// the samples do not resolve that clock, or the rate would be above the peak at the clock they read
/// (the clock rose between samples), the fastest repeat whose clock is resolved; a file without
/// per-repeat clocks (compute_result::repeat_clock absent): the median clock of the timed runs, as long as
/// the rate is not above the peak at it. Whatever interval stands, `fraction` ≤ 1; otherwise no fraction,
/// and `uncertain` says why.
/// Worked (an H100 run): 746 TFLOP/s with only a median clock of 1335 MHz → 746 ÷ 721.8 =
/// 103.4 %: no fraction, the clock is uncertain.
clock_matched match_clock(const nominal_roofs& n, const nominal_peak* p, const compute_result& c);

}  // namespace roofline
