// Energy counter arithmetic (roofline/energy.hpp): a counter's increase across its wrap, power
// samples integrated over a window (docs/formulas-analysis.md §10).
#include "roofline/energy.hpp"

#include <algorithm>

namespace roofline {

std::uint64_t counter_delta(std::uint64_t before, std::uint64_t after, std::uint64_t range) {
  if (range == 0) return after - before;  // unsigned arithmetic: modulo 2^64
  if (after >= before) return after - before;
  return (range - std::min(before, range)) + after;  // one wrap (a window is far shorter than a full turn)
}

std::optional<double> integrate_power(const std::vector<power_point>& samples, double t0, double t1) {
  if (!(t1 > t0) || samples.empty()) return std::nullopt;
  std::vector<power_point> s = samples;
  std::sort(s.begin(), s.end(), [](const power_point& a, const power_point& b) { return a.t_s < b.t_s; });
  // P(t): held at the first reading before it, linear between readings, held at the last after it.
  const auto power_at = [&](double t) {
    if (t <= s.front().t_s) return s.front().watts;
    if (t >= s.back().t_s) return s.back().watts;
    const auto hi = std::upper_bound(s.begin(), s.end(), t, [](double x, const power_point& p) { return x < p.t_s; });
    const auto lo = hi - 1;
    const double w = (t - lo->t_s) / (hi->t_s - lo->t_s);
    return lo->watts + w * (hi->watts - lo->watts);
  };
  // the breakpoints: t0, every sample strictly inside (t0, t1), t1
  std::vector<double> ts{t0};
  for (const auto& p : s)
    if (p.t_s > t0 && p.t_s < t1) ts.push_back(p.t_s);
  ts.push_back(t1);
  double e = 0;
  for (std::size_t i = 1; i < ts.size(); ++i) e += 0.5 * (power_at(ts[i - 1]) + power_at(ts[i])) * (ts[i] - ts[i - 1]);
  return e;
}

std::optional<power_between_updates> power_from_updates(const std::vector<counter_update>& updates, double t0, double t1,
                                                        double unit_j, std::uint64_t range, double min_fraction) {
  if (!(t1 > t0)) return std::nullopt;
  const counter_update* first = nullptr;
  const counter_update* last = nullptr;
  int inside = 0;
  for (const auto& u : updates) {
    if (u.t_s < t0 || u.t_s > t1) continue;
    if (!first || u.t_s < first->t_s) first = &u;
    if (!last || u.t_s > last->t_s) last = &u;
    ++inside;
  }
  if (inside < 2 || !first || !last) return std::nullopt;
  const double span = last->t_s - first->t_s;
  if (!(span > 0) || span < min_fraction * (t1 - t0)) return std::nullopt;
  power_between_updates p;
  p.watts = static_cast<double>(counter_delta(first->raw, last->raw, range)) * unit_j / span;
  p.span_s = span;
  p.intervals = inside - 1;
  return p;
}

}  // namespace roofline
