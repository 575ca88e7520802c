#include <algorithm>
#include <chrono>
#include <cmath>
#include <numeric>
#include <stdexcept>

#include "roofline/error.hpp"
#include "roofline/measure.hpp"

namespace roofline {

double median(std::vector<double> xs) {
  if (xs.empty()) throw std::invalid_argument("median of an empty sample");
  std::sort(xs.begin(), xs.end());
  const std::size_t n = xs.size();
  return n % 2 ? xs[n / 2] : 0.5 * (xs[n / 2 - 1] + xs[n / 2]);
}

stats_summary summarize(const std::vector<double>& xs) {
  if (xs.empty()) throw std::invalid_argument("summary of an empty sample");
  stats_summary s;
  s.n = static_cast<int>(xs.size());
  const auto [lo, hi] = std::minmax_element(xs.begin(), xs.end());
  s.min = *lo;
  s.max = *hi;
  s.median = median(xs);
  s.mean = std::accumulate(xs.begin(), xs.end(), 0.0) / xs.size();
  s.range = s.median != 0 ? (s.max - s.min) / std::abs(s.median) : 0.0;
  s.spread = s.median != 0 ? (quantile(xs, 0.75) - quantile(xs, 0.25)) / std::abs(s.median) : 0.0;
  return s;
}

double quantile(std::vector<double> xs, double q) {
  if (xs.empty()) throw std::invalid_argument("quantile of an empty sample");
  if (!(q >= 0 && q <= 1)) throw std::invalid_argument("quantile outside [0, 1]");
  std::sort(xs.begin(), xs.end());
  const double h = (xs.size() - 1) * q;  // Hyndman & Fan (1996) type 7, as numpy and R default
  const std::size_t lo = static_cast<std::size_t>(std::floor(h));
  const std::size_t hi = std::min(lo + 1, xs.size() - 1);
  return xs[lo] + (h - lo) * (xs[hi] - xs[lo]);
}

timing_options quick_timing() { return {1, 3, 20, 0.02, 0.15}; }
timing_options default_timing() { return {}; }
timing_options ops_timing() { return {1, 3, 1000, burst_window_s, 1.0}; }

double now_s() {
  using clock = std::chrono::steady_clock;
  return std::chrono::duration<double>(clock::now().time_since_epoch()).count();
}

std::vector<double> time_repeated(const std::function<double()>& once, const timing_options& opt) {
  for (int i = 0; i < opt.warmups; ++i) once();
  std::vector<double> samples;
  // The budget counts elapsed seconds, whatever unit `once` returns: a probe that returns the time
  // per call of a batch of 78 GEMMs used to count 1/78 of each sample, so it ran to max_repeats and
  // timed 0.4 s where 0.25 s was meant (under a power cap a longer run has a lower median clock).
  const double start = now_s();
  double total = 0;
  while (static_cast<int>(samples.size()) < opt.max_repeats) {
    const double t = once();
    if (!(t > 0) || !std::isfinite(t)) throw probe_error("timer returned a non-positive time");
    samples.push_back(t);
    total = now_s() - start;
    const bool enough = static_cast<int>(samples.size()) >= opt.min_repeats && total >= opt.min_time_s;
    if (enough || (total >= opt.max_time_s && static_cast<int>(samples.size()) >= 1)) break;
  }
  return samples;
}

rate_summary rates(double work, const std::vector<double>& seconds) {
  const stats_summary s = summarize(seconds);
  return {work / s.min, work / s.median, s.spread, s.n};
}

}  // namespace roofline
