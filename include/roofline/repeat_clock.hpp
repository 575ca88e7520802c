// The clock of each timed repeat (docs/methodology-gpu.md, "The clock of a repeat"): a probe's repeats
// are timed on the device (CUDA events), its clock is sampled by a telemetry thread every ~20 ms, and
// a rate is only as true as the clock printed beside it. Each repeat is paired with the clock of the
// samples around its own host window, time-weighted over that window; where those samples disagree
// the clock is uncertain and no clock is given. Pure arithmetic on samples; the backends read them.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "roofline/results.hpp"

namespace roofline {

/// One SM-clock reading (MHz) at host time t_s (now_s()).
struct clock_point {
  double t_s = 0;
  double mhz = 0;
};

/// The host window of one timed repeat: now_s() just before it was enqueued and just after the
/// device finished it (the device interval lies inside).
struct host_window {
  double t0_s = 0, t1_s = 0;
};

/// The samples around a repeat resolve its clock when their highest and lowest differ by at most this
/// share of the time-weighted clock: 2 %, two 15 MHz steps of a Hopper clock at 1.4–1.5 GHz. A clock
/// that moved more than that between two samples 20 ms apart may have held any value between them (or
/// beyond) during a repeat of a few milliseconds.
inline constexpr double clock_agreement = 0.02;

/// Samples more than this many sampling periods apart around a repeat (a telemetry thread that fell
/// behind) do not resolve its clock.
inline constexpr double max_sample_gap_periods = 2.5;

/// The clock over one window from the samples around it: the last sample at or before t0, every
/// sample inside (t0, t1), the first sample at or after t1.
struct window_clock {
  std::optional<double> mhz;  ///< the time-weighted clock, when resolved
  double estimate_mhz = 0;    ///< the time-weighted clock (also when not resolved; 0 without samples)
  double low_mhz = 0, high_mhz = 0;  ///< lowest and highest sample used
  int samples = 0;                   ///< samples used
  std::string why;                   ///< why not resolved (empty when resolved)
};

/// The clock of window [t0, t1] from `samples` (any order). Time-weighted: the samples joined by straight
/// lines (held flat before the first and after the last) and averaged over the window, the trapezoid
/// of integrate_power (roofline/energy.hpp). Resolved when a sample lies at or before t0 and at or after
/// t1, no two neighbouring samples used are more than max_sample_gap_periods × period_s apart, and
/// high − low ≤ clock_agreement × the time-weighted clock.
/// Worked: samples (0 ms, 1410), (20 ms, 1425) and a window [5, 8] ms → 1410 + 15 × 6.5 ÷ 20 =
/// 1414.875 MHz, resolved (15 MHz is 1.06 % of it); samples (0 ms, 1335), (20 ms, 1485) and the same
/// window → estimate 1383.75 MHz, uncertain (150 MHz apart is 10.8 % of it).
window_clock clock_over(const std::vector<clock_point>& samples, double t0, double t1, double period_s);

/// Pairs every timed repeat with its own clock (clock_over of its window) and keeps what the reports
/// read: the fastest repeat's clock, and the fastest repeat whose clock is resolved, as a rate of `work`
/// (FLOP or bytes) per second. `seconds[i]` is repeat i's time per call (time_repeated's samples) and
/// `windows[i]` its host window. Throws std::invalid_argument when the two differ in length or are empty.
/// Worked: repeats of 1.60, 1.50 and 1.55 ms of 2·8192³ FLOP, the 1.50 ms one between samples 1335 and
/// 1485 MHz, the 1.55 ms one between 1470 and 1470 MHz → fastest 733 TFLOP/s with no clock (uncertain),
/// resolved 709 TFLOP/s at 1470 MHz.
repeat_clocks pair_repeat_clocks(double work, const std::vector<double>& seconds, const std::vector<host_window>& windows,
                                 const std::vector<clock_point>& samples, double period_s);

}  // namespace roofline
