// Interference over timings too short to judge one by one: the op table's ops, the linear batch
// sweep's points and the whole steps of `roofline run` (a decode op on a CPU takes 10 µs – 10 ms; the
// CPU accounting ticks every 10 ms). Consecutive timings share a window until it has lasted at least
// interference_policy::min_wall_s; the window is then judged like a probe (interference_between,
// disturbed) and, when disturbed, every timing in it is kept out (keep_out_timing): the timing is
// recorded as disturbed_s, and every view treats it as not measured. Methodology: docs/methodology.md
// §"Interference".
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "roofline/interference.hpp"

namespace roofline {

class timing_windows {
 public:
  /// Runs when the window of a timing is judged disturbed, with the window's sample; true when it kept
  /// a time out (keep_out_timing), false when there was none to keep out.
  using keep_out_fn = std::function<bool(const interference_sample&)>;
  /// `judge` false (a GPU run, a fleet rank): nothing is read, judged or kept out. `read` reads the
  /// CPU accounting (read_cpu_accounting; a test's scripted readings); `pause` waits a little while a
  /// window shorter than the policy's min_wall_s is closed (a test's no-op).
  explicit timing_windows(bool judge, interference_policy policy = {},
                          std::function<cpu_accounting()> read = read_cpu_accounting,
                          std::function<void()> pause = nullptr);

  /// Before a timing: opens a window when none is open.
  void begin();
  /// After the timing `what` ("op 3/60: decode q_proj b1"): `keep_out` runs if its window is judged
  /// disturbed. The window is judged now when it has lasted at least policy.min_wall_s.
  void end(const std::string& what, keep_out_fn keep_out);
  /// Judges the open window now, first waiting out what it lacks of min_wall_s (a window shorter than
  /// the tick cannot be judged: what other processes take of the pause is what they took from it).
  void close();

  /// Every window judged, in order: probe = "N timing(s): first … last", verdict "clean" or
  /// "kept out: machine busy (…)".
  const std::vector<interference_sample>& windows() const { return windows_; }
  /// Timings kept out so far (keep_out_fn calls that returned true).
  int kept_out() const { return kept_out_; }

 private:
  void judge_open();
  bool judge_;
  interference_policy policy_;
  std::function<cpu_accounting()> read_;
  std::function<void()> pause_;
  bool open_ = false;
  cpu_accounting start_;
  std::vector<std::string> whats_;
  std::vector<keep_out_fn> pending_;
  std::vector<interference_sample> windows_;
  int kept_out_ = 0;
};

}  // namespace roofline
