// Each timed repeat paired with the clock of its own window (roofline/repeat_clock.hpp;
// docs/methodology-gpu.md, "The clock of a repeat").
#include "roofline/repeat_clock.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

#include "roofline/energy.hpp"
#include "roofline/units.hpp"

namespace roofline {

window_clock clock_over(const std::vector<clock_point>& samples, double t0, double t1, double period_s) {
  window_clock out;
  std::vector<clock_point> s = samples;
  std::sort(s.begin(), s.end(), [](const clock_point& a, const clock_point& b) { return a.t_s < b.t_s; });
  // the samples used: the last at or before t0, those inside, the first at or after t1
  const auto after_start = std::upper_bound(s.begin(), s.end(), t0, [](double t, const clock_point& p) { return t < p.t_s; });
  const auto at_end = std::lower_bound(s.begin(), s.end(), t1, [](const clock_point& p, double t) { return p.t_s < t; });
  const bool before = after_start != s.begin(), after = at_end != s.end();
  const auto first = before ? after_start - 1 : after_start;
  const auto last = after ? at_end + 1 : at_end;
  std::vector<clock_point> used(first, last);
  if (used.empty()) {
    out.why = "no telemetry sample around the repeat";
    return out;
  }
  out.samples = static_cast<int>(used.size());
  const auto [lo, hi] = std::minmax_element(used.begin(), used.end(), [](const clock_point& a, const clock_point& b) { return a.mhz < b.mhz; });
  out.low_mhz = lo->mhz;
  out.high_mhz = hi->mhz;
  // the time-weighted clock: the trapezoid of integrate_power over the window, divided by its length
  std::vector<power_point> pts;
  for (const auto& p : used) pts.push_back({p.t_s, p.mhz});
  if (t1 > t0) {
    out.estimate_mhz = *integrate_power(pts, t0, t1) / (t1 - t0);
  } else {  // an empty window: the clock at its instant
    out.estimate_mhz = *integrate_power(pts, t0, t0 + 1e-9) / 1e-9;
  }
  double gap = 0;
  for (std::size_t i = 1; i < used.size(); ++i) gap = std::max(gap, used[i].t_s - used[i - 1].t_s);
  if (!before || !after) {
    out.why = fmt::format("no telemetry sample {} the repeat", !before ? "before" : "after");
  } else if (gap > max_sample_gap_periods * period_s) {
    out.why = fmt::format("the samples around the repeat are {} apart (sampling every {})", units::seconds(gap), units::seconds(period_s));
  } else if (out.high_mhz - out.low_mhz > clock_agreement * out.estimate_mhz) {
    out.why = fmt::format("the samples around the repeat read {}–{}, {} apart: the clock moved during it", units::plain(out.low_mhz),
                          units::value(out.high_mhz, "MHz"), units::percent((out.high_mhz - out.low_mhz) / out.estimate_mhz));
  } else {
    out.mhz = out.estimate_mhz;
  }
  return out;
}

repeat_clocks pair_repeat_clocks(double work, const std::vector<double>& seconds, const std::vector<host_window>& windows,
                                 const std::vector<clock_point>& samples, double period_s) {
  if (seconds.empty() || seconds.size() != windows.size())
    throw std::invalid_argument(fmt::format("pair_repeat_clocks: {} repeat times for {} windows", seconds.size(), windows.size()));
  repeat_clocks out;
  out.repeats = static_cast<int>(seconds.size());
  out.period_s = period_s;
  const auto fastest = static_cast<std::size_t>(std::min_element(seconds.begin(), seconds.end()) - seconds.begin());
  std::optional<std::size_t> fastest_resolved;
  std::optional<double> resolved_mhz;
  for (std::size_t i = 0; i < seconds.size(); ++i) {
    const window_clock c = clock_over(samples, windows[i].t0_s, windows[i].t1_s, period_s);
    if (c.mhz) {
      ++out.resolved;
      if (!fastest_resolved || seconds[i] < seconds[*fastest_resolved]) fastest_resolved = i, resolved_mhz = c.mhz;
    }
    if (i == fastest) {
      out.fastest_mhz = c.mhz;
      out.fastest_low_mhz = c.low_mhz;
      out.fastest_high_mhz = c.high_mhz;
      out.fastest_window_s = windows[i].t1_s - windows[i].t0_s;
      out.fastest_why = c.why;
    }
  }
  if (fastest_resolved && seconds[*fastest_resolved] > 0) {
    out.resolved_flops_per_s = work / seconds[*fastest_resolved];
    out.resolved_mhz = resolved_mhz;
  }
  return out;
}

}  // namespace roofline
