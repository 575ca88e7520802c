// Measurement hygiene in one place: warm-up, repeats, statistics. Every probe (CPU and GPU) times
// itself through time_repeated(); nothing else decides how often to repeat or what to report.
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "roofline/results.hpp"

namespace roofline {

/// Median of xs (mean of the two middle values for even n). median({1,2,3,4}) == 2.5.
/// Throws std::invalid_argument on an empty input.
double median(std::vector<double> xs);

/// n, min, max, median, mean, spread = IQR / median (robust) and range = (max − min) / median
/// (both 0 when median == 0). Throws std::invalid_argument on an empty input.
stats_summary summarize(const std::vector<double>& xs);

/// The q-quantile of xs, q in [0, 1], linear interpolation between order statistics (Hyndman &
/// Fan 1996, type 7: numpy's and R's default). quantile({1,2,3,4}, 0.25) == 1.75.
/// Throws std::invalid_argument on an empty input or q outside [0, 1].
double quantile(std::vector<double> xs, double q);

/// Repeats disagree when the spread of their times (IQR / median) is above this: the one bound for
/// the noisy flag and for re-running a probe (docs/methodology.md §"Interference").
inline constexpr double noisy_spread = 0.10;

struct timing_options {
  int warmups = 2;           ///< untimed runs first (module load, page faults, clocks ramp)
  int min_repeats = 5;
  int max_repeats = 200;
  double min_time_s = 0.25;  ///< keep repeating until this many seconds have elapsed (host clock) ...
  double max_time_s = 2.0;   ///< ... but stop after this many
};

/// The window of back-to-back load a GPU burst rate covers (s): the first 0.1 s of a run started
/// after an idle pause (docs/methodology-gpu.md, burst vs sustained).
inline constexpr double burst_window_s = 0.1;
/// The idle pause before a GPU burst run (s), so that the power controller starts from rest.
inline constexpr double burst_idle_s = 0.5;

/// Quick (test) and default timing options.
timing_options quick_timing();
timing_options default_timing();
/// The model ops' timing (`roofline run`, not --quick): 1 warm-up, then at least 3 and at most 1000
/// timed runs until burst_window_s of them have elapsed, at most 1 s: every op is timed over the same
/// window of back-to-back load as the GEMM burst rates its prediction reads, whatever its length
/// (TinyLlama's 2048³ q_proj on the H200, capped at 50 runs of a 20-launch graph, was timed over
/// 25 ms of load and ran 24.9 µs; timed over 0.1 s, 28.9 µs: docs/methodology.md).
timing_options ops_timing();

/// Runs `once` warmups + repeats times; `once` returns the seconds of one timed run (host clock on
/// the CPU, CUDA events on the GPU), or of one call of a timed batch. The repeat budget (min_time_s,
/// max_time_s) counts elapsed host seconds from the first timed run, whatever unit `once` returns.
/// Returns the timed samples in order (seconds, all > 0).
/// Throws probe_error if a sample is not a positive finite number.
std::vector<double> time_repeated(const std::function<double()>& once, const timing_options& opt);

/// Seconds on a monotonic host clock.
double now_s();

/// Best (max) rate = work / min(time) and median rate = work / median(time), with spread of times.
struct rate_summary {
  double best = 0, median = 0, spread = 0;
  int repeats = 0;
};
rate_summary rates(double work, const std::vector<double>& seconds);

}  // namespace roofline
