#include "backends/cuda/telemetry_summary.hpp"

#include <algorithm>
#include <cmath>
#include <set>
#include <string>

#include "backends/cuda/throttle_reasons.hpp"
#include "roofline/measure.hpp"

namespace roofline::cuda {

std::optional<telemetry_summary> summarize_telemetry(const std::vector<telemetry_sample>& samples, double t0, double t1) {
  if (samples.empty()) return std::nullopt;
  std::vector<const telemetry_sample*> in;
  for (const auto& s : samples)
    if (s.t_s >= t0 && s.t_s <= t1) in.push_back(&s);
  if (in.empty()) {
    const double mid = 0.5 * (t0 + t1);
    const auto nearest = std::min_element(samples.begin(), samples.end(), [&](const auto& a, const auto& b) {
      return std::abs(a.t_s - mid) < std::abs(b.t_s - mid);
    });
    in.push_back(&*nearest);
  }
  telemetry_summary s;
  s.samples = static_cast<int>(in.size());
  if (in.size() > 1 && in.back()->t_s > in.front()->t_s)
    s.sample_hz = static_cast<double>(in.size() - 1) / (in.back()->t_s - in.front()->t_s);
  auto stat = [&](auto member) -> std::optional<stats_summary> {
    std::vector<double> xs;
    for (const auto* p : in)
      if ((p->*member).has_value()) xs.push_back(*(p->*member));
    if (xs.empty()) return std::nullopt;
    return summarize(xs);
  };
  s.sm_clock_mhz = stat(&telemetry_sample::sm_clock_mhz);
  s.mem_clock_mhz = stat(&telemetry_sample::mem_clock_mhz);
  s.power_w = stat(&telemetry_sample::power_w);
  s.temperature_c = stat(&telemetry_sample::temperature_c);
  std::uint64_t all = 0;
  int with_reasons = 0, throttled = 0;
  for (const auto* p : in) {
    if (!p->reasons) continue;
    ++with_reasons;
    all |= *p->reasons;
    if (is_throttled(*p->reasons)) ++throttled;
  }
  s.throttle_reasons = decode_throttle_reasons(all);
  s.throttled_fraction = with_reasons > 0 ? static_cast<double>(throttled) / with_reasons : 0.0;
  return s;
}

}  // namespace roofline::cuda
