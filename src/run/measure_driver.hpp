// The probe loop of `run` and `measure`: runs every selected probe, judges each attempt for
// interference (other processes, steal) and for repeats that disagree, re-runs a disturbed probe
// once, keeps a still-disturbed result out of the roofs (rejected, with the reason), and with
// --repeat N takes the whole measurement N times and keeps, per roof, the run with the median best
// rate plus the spread across runs. Methodology: docs/methodology.md §"Interference" and §"Repeat".
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "roofline/backend.hpp"
#include "roofline/interference.hpp"
#include "roofline/results.hpp"

namespace roofline::job {

struct measure_plan {
  std::vector<std::string> only;   ///< --only: probe groups or names; empty = all
  int repeat = 1;                  ///< --repeat N
  bool judge_cpu_interference = false;  ///< CPU devices: judge /proc/stat interference
  /// The other processes on the device now (GPU: NVML); a probe with any, before or after it ran, is
  /// disturbed. Empty function: not judged.
  std::function<std::vector<std::string>()> device_users;
  interference_policy policy;
  /// Re-run, as it was, a probe whose repeats disagreed and that has no longer samples (run_longer).
  /// True on a CPU, where the disagreement can come from a neighbour the accounting missed; false on a
  /// GPU held by nobody else: the same probe on the same idle device repeats the same spread (H200:
  /// 5 of 6 such re-runs disagreed again) and costs the probe's whole time once more.
  bool rerun_identical = true;
  std::string fail_probe;          ///< test hook: a probe whose name contains this throws
  std::function<bool()> interrupted;    ///< polled between probes
  progress_fn progress;
  /// Called at once when the idle check before the probes finds the machine busy (CPU), with its
  /// sample: the run says so before the long probes, not only at the end.
  std::function<void(const interference_sample&)> on_busy_before;
};

/// True when `only` (--only: probe groups or names) is empty or names p's group or p itself.
bool probe_selected(const std::vector<std::string>& only, const probe& p);

/// Runs `probes` into r.measured (and r.errors, r.interference, r.repeat). Returns true when the
/// device was lost (the caller stops using it).
bool measure_probes(const std::vector<probe>& probes, const measure_plan& plan, results& r);

/// The rows of `m` whose repeats disagree: spread (IQR / median of the times) above `bound`, unless
/// the SM clock explains it (clock_explains_spread). Labels like "bandwidth read l1 48 KiB" or
/// "compute fp32 vector".
std::vector<std::string> noisy_rows(const measured_roofs& m, double bound);

/// True when a row's repeat spread is no wider than the range its SM clock moved through while it
/// ran ((max − min) ÷ median of the telemetry samples) and a slowdown reason was active: the power or
/// thermal controller lowering the clock under sustained load, not another process. (An H200 fp16
/// GEMM at n = 8192 ran its 1.5 s at 1140–1395 MHz under sw_power_cap: time spread 18.0 %, clock range
/// 18.5 %.) Such a row is kept, with a flag saying so.
bool clock_explains_spread(const std::optional<telemetry_summary>& t, double spread);

/// Marks every bandwidth and compute row of `m` rejected with `reason` (rows already rejected keep
/// their first reason). Returns the number of rows newly rejected.
int reject_all(measured_roofs& m, const std::string& reason);

/// Combines N whole measurements: for each roof (bandwidth: pattern, level, working set; compute:
/// precision, engine, size) the row of the run whose best rate is the median of the N (the lower
/// middle for even N), with across_runs = the summary of the N best rates. Rows measured in only
/// some runs are kept with the runs they have.
measured_roofs combine_runs(const std::vector<measured_roofs>& runs);

}  // namespace roofline::job
