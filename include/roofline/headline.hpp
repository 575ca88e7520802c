// The three facts a report opens with, computed from the results (docs/formulas-analysis.md §6):
// how close the machine came to its nominal roofs and what held it back (the binding limit and its
// evidence), where each scenario's time goes by class, and the single most valuable next step.
// Typed here; report/headline.cpp turns them into sentences with the one formatter.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "roofline/clock_match.hpp"
#include "roofline/results.hpp"

namespace roofline {

/// A power cap binds a GEMM when its median power is at least this share of the enforced limit: a
/// GEMM held by the cap for its whole window draws the limit (the H200 run in
/// bench/results/h200/2026-12-03-d7a4aa3: its n = 16384 GEMMs read 690–698 W of 700 W, ≥ 98.6%).
/// A power throttle reason with the power well below the limit is not evidence of the cap.
inline constexpr double power_near_limit = 0.90;

/// Sentence 1: the main precision's roof GEMM and the device memory against their nominal values,
/// and the limit that binds the compute roof.
struct machine_verdict {
  std::string device, precision, engine;  ///< engine of the nominal peak ("tensor" | "vector")
  bool cpu = false;                       ///< a CPU: a core clock, no power telemetry
  std::optional<double> compute_nominal, compute_measured;  ///< FLOP/s (OP/s for int8)
  std::optional<std::int64_t> gemm_n;                       ///< size of the roof GEMM
  std::optional<double> bandwidth_nominal, bandwidth_measured;  ///< B/s
  std::string bandwidth_pattern;
  /// "power": a power-cap throttle reason in the roof GEMM's samples and its median power at or above
  /// power_near_limit × the limit; "power_reason": the reason reported but the GEMM's power below that,
  /// so the readings do not show the cap binding; "thermal" (a thermal reason), "clock" (the clock below
  /// the one the peak is computed at, no reason reported), "kernel" (at full clock: the GEMM itself),
  /// "" when no telemetry says.
  std::string limit;
  std::optional<double> clock_mhz, clock_nominal_mhz;  ///< median during the roof GEMM; the peak's clock
  /// The roof GEMM's rate against the peak at the clock of the same interval (its fastest repeat, else
  /// the fastest repeat whose clock the telemetry resolves; older files: the median clock): never above 100 %.
  clock_matched at_clock;
  std::optional<double> power_w, power_limit_w;        ///< median during the roof GEMM; the limit
  std::optional<double> power_max_w;                   ///< highest sample during the roof GEMM
  double throttled_fraction = 0;                        ///< share of its samples with a slowdown reason
  std::vector<std::string> throttle_reasons;
  /// The run's interference verdict (results.interference): the machine was busy while measuring,
  /// `busy_summary` its one line, `rejected_results` the results kept out of the roofs for it.
  bool busy = false;
  std::string busy_summary;
  int rejected_results = 0;
  int ops_kept_out = 0, steps_kept_out = 0;  ///< timings taken busy, kept out (results.interference)
};

/// Sentence 2, one per scenario (decode at each batch, prefill): the op time by class, the step time
/// and what the step's bytes alone would take at the measured bandwidth.
struct time_split {
  std::string phase;  ///< decode | prefill
  std::int64_t batch = 1, context = 0, seq = 0;
  double compute_s = 0, bandwidth_s = 0, latency_s = 0;  ///< Σ count × (measured, else predicted) time
  double unknown_s = 0;  ///< the same for ops whose bound is unknown (no roof to judge them against)
  int ops = 0, unknown_ops = 0;  ///< ops of the scenario; those with bound "unknown" (or none)
  double known_s() const { return compute_s + bandwidth_s + latency_s; }
  std::optional<double> step_s;  ///< the whole step measured, else Σ of the ops
  std::string step_source;       ///< "whole step" | "sum of ops"
  double bytes = 0, flops = 0;   ///< per step
  std::optional<double> bytes_alone_s;  ///< bytes ÷ the measured device-memory bandwidth
  /// Timings of this scenario taken while the machine was busy and kept out (op_result::disturbed_s,
  /// whole_step_result::disturbed_s): the scenario is then not headlined (no step time, no shares).
  int disturbed_ops = 0;
  bool step_disturbed = false;
  int timed_ops = 0;  ///< ops with a measured time
  /// On a busy machine (results.interference.busy), a scenario none of whose ops or whole step was
  /// timed: its "step" would be predictions alone, from roofs the busy machine left standing or none.
  bool untimed_on_busy = false;
  bool disturbed() const { return disturbed_ops > 0 || step_disturbed || untimed_on_busy; }
  double total_s() const { return known_s() + unknown_s; }
};

/// Sentence 3: the advice whose ops lose the largest share of their scenario's step above their roofs.
struct next_step {
  std::string phase;
  std::int64_t batch = 1, seq = 0;
  std::string advice;              ///< the class's words (op_result::advice)
  std::vector<std::string> ops;    ///< op names, in table order, unique
  double excess_s = 0;             ///< Σ count × (time − time at the roof)
  double step_s = 0;               ///< the scenario's step (time_split::step_s or total)
};

struct headline {
  machine_verdict machine;
  std::vector<time_split> time;  ///< in op-table order of scenarios
  std::optional<next_step> next;
  /// The next step when the machine was busy and a roof is missing or a scenario's timings were kept
  /// out: re-run on a quiet machine (results.interference.busy, and no compute or no memory roof
  /// stands, or time_split::disturbed()). Takes the place of `next`.
  bool rerun_quiet = false;
};

headline compute_headline(const results& r);

}  // namespace roofline
