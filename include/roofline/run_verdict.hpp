// Whether a run's results stand: the exit status of `run` and `measure` (README: 1 when a measurement
// failed) and the first line of the terminal summary. A run fails when a roof it measured does not
// stand (every result of the main precision's compute, or of device memory, was rejected: by a
// physical rule, repeats that disagreed twice, or a busy machine) or when op or whole-step timings
// were taken while the machine was busy and kept out (results.interference). Decided from numbers
// only (decide_run), so a test feeds it numbers; judge_run reads them from the results.
#pragma once
#include <string>

namespace roofline {

struct results;

/// The numbers the verdict is decided on.
struct run_facts {
  std::string precision;       ///< the main precision (main_precision: fp32 on a CPU, fp16 on a GPU)
  int compute_rows = 0;        ///< compute results of that precision measured (GEMM and FMA chains)
  int compute_standing = 0;    ///< of them, not rejected
  int memory_rows = 0;         ///< device-memory bandwidth results measured (no transition level)
  int memory_standing = 0;     ///< of them, usable as a roof
  bool busy = false;           ///< results.interference.busy
  int ops_kept_out = 0;        ///< op timings taken while busy (results.interference.ops_kept_out)
  int steps_kept_out = 0;      ///< whole-step timings taken while busy
};

struct run_verdict {
  bool stands = true;           ///< exit 0; false: exit 1
  bool busy = false;
  bool no_compute_roof = false; ///< compute of the main precision was measured and none of it stands
  bool no_memory_roof = false;  ///< device memory was measured and none of it stands
  int ops_kept_out = 0, steps_kept_out = 0;
  std::string precision;
  std::string busy_summary;     ///< results.interference.summary, when busy
  /// When a roof does not stand: the reason of its first rejected result ("unreliable: machine busy
  /// while measured, twice (…)"); compute's first, else memory's.
  std::string rejection;
};

/// The verdict from numbers: a roof measured with none standing, or a timing kept out, fails the run.
/// A roof not measured at all (--only) fails nothing. Pure.
run_verdict decide_run(const run_facts& f);
/// The facts of `r` (its measured rows, results.interference), decided by decide_run.
run_verdict judge_run(const results& r);

}  // namespace roofline
