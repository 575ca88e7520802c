// Progress of a run on stderr: on a terminal one line rewritten in place ("\r"), elsewhere one plain
// line per step; in both the percent never goes backwards and an ETA follows once it can be told.
#pragma once
#include <functional>
#include <string>

namespace roofline::job {

class progress_meter {
 public:
  /// `tty`: rewrite one line; `now_s`: a clock in seconds (a test's fake one); `columns`: the
  /// terminal's width (the rewritten line is kept shorter, so "\r" returns to its start).
  progress_meter(bool tty, std::function<double()> now_s, std::size_t columns = 100);
  /// The text to write for step `what` at `fraction` (0..1) of the run: the percent shown is the
  /// largest reported so far. ETA = elapsed × (1 − f) ÷ f, f the fraction shown: the fractions are
  /// each probe's share of the run's time budget (5–60% the probes, 60–93% the ops, then the sweep,
  /// the whole steps and the analysis), so this extrapolates the budget spent so far; shown once f ≥
  /// 5% and 2 s have passed. A fraction of 1 ends the line on a terminal.
  std::string update(const std::string& what, double fraction);
  /// On a terminal: the text that ends a line left open ("\n"), "" otherwise or when none is open.
  std::string finish();
  double shown() const { return shown_; }

 private:
  bool tty_;
  std::function<double()> now_;
  std::size_t columns_;
  double start_ = 0, shown_ = 0;
  bool open_ = false;
};

}  // namespace roofline::job
