#include "roofline/timing_windows.hpp"

#include <unistd.h>

#include <fmt/format.h>

namespace roofline {

timing_windows::timing_windows(bool judge, interference_policy policy, std::function<cpu_accounting()> read,
                               std::function<void()> pause)
    : judge_(judge), policy_(policy), read_(std::move(read)), pause_(std::move(pause)) {
  if (!pause_) pause_ = [] { ::usleep(5000); };
}

void timing_windows::begin() {
  if (!judge_ || open_) return;
  start_ = read_();
  open_ = true;
}

void timing_windows::end(const std::string& what, keep_out_fn keep_out) {
  if (!judge_) return;
  if (!open_) begin();  // an end without its begin: the window starts here
  whats_.push_back(what);
  pending_.push_back(std::move(keep_out));
  const cpu_accounting now = read_();
  if (now.wall_s - start_.wall_s >= policy_.min_wall_s) judge_open();
}

void timing_windows::close() {
  if (!judge_ || !open_) return;
  if (pending_.empty()) {
    open_ = false;
    return;
  }
  judge_open();
}

void timing_windows::judge_open() {
  cpu_accounting now = read_();
  // A window shorter than the judging window is judged over it, as a short probe is (run_judged).
  for (int i = 0; i < 10000 && now.valid && now.wall_s < start_.wall_s + policy_.min_wall_s; ++i) {
    pause_();
    now = read_();
  }
  interference_sample s = interference_between(start_, now);
  s.probe = fmt::format("{} timing(s): {}{}", whats_.size(), whats_.front(), whats_.size() > 1 ? " … " + whats_.back() : "");
  const bool busy = disturbed(s, policy_);
  s.verdict = busy ? "kept out: machine busy (" + describe_interference(s) + ")" : "clean";
  if (busy)
    for (const auto& k : pending_) kept_out_ += k && k(s);
  windows_.push_back(std::move(s));
  whats_.clear();
  pending_.clear();
  open_ = false;
}

}  // namespace roofline
