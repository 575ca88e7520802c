#include "roofline/sanity.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace roofline {

namespace {

std::string human_bytes(double b) {
  const char* unit[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int i = 0;
  while (b >= 1024 && i < 4) { b /= 1024; ++i; }
  return fmt::format("{:.3g} {}", b, unit[i]);
}

void add_flag(std::vector<std::string>& flags, std::string f, int& count) {
  if (std::find(flags.begin(), flags.end(), f) != flags.end()) return;
  flags.push_back(std::move(f));
  ++count;
}

double llc_bytes(const results& r) {
  const json& p = r.device.properties;
  for (const char* k : {"l3_bytes", "llc_bytes", "l2_bytes"})
    if (p.contains(k) && p[k].is_number() && p[k].get<double>() > 0) {
      if (r.device.kind == "cpu" && std::string(k) == "l2_bytes") continue;  // per-core on CPUs
      return p[k].get<double>();
    }
  return 0;
}

double best_nominal(const nominal_roofs& n, const std::string& precision) {
  double best = 0;
  for (const auto& p : n.peaks)
    if (p.precision == precision) best = std::max(best, p.flops_per_s);
  return best;
}

void flag_telemetry(const std::optional<telemetry_summary>& t, std::vector<std::string>& flags, int& count) {
  if (!t || t->throttled_fraction <= 0) return;
  std::string reasons;
  for (const auto& s : t->throttle_reasons) reasons += (reasons.empty() ? "" : ", ") + s;
  add_flag(flags, fmt::format("throttled in {:.0f}% of samples ({})", 100 * t->throttled_fraction,
                              reasons.empty() ? "reason not reported" : reasons), count);
}

}  // namespace

int flag_results(results& r, const sanity_thresholds& t) {
  int count = 0;
  const double llc = llc_bytes(r);
  const auto nominal_bw = r.nominal.memory_bandwidth_bytes_per_s;
  for (auto& b : r.measured.bandwidth) {
    if ((b.level == "dram" || b.level == "hbm") && llc > 0 && b.working_set_bytes <= llc)
      add_flag(b.flags, fmt::format("working set ({}) fits in the last-level cache ({}): not a DRAM number",
                                    human_bytes(b.working_set_bytes), human_bytes(llc)), count);
    if ((b.level == "dram" || b.level == "hbm") && nominal_bw && b.bytes_per_s > *nominal_bw * (1 + t.above_nominal))
      add_flag(b.flags, fmt::format("{:.1f}% above the nominal memory bandwidth: check the byte count and the working set",
                                    100 * (b.bytes_per_s / *nominal_bw - 1)), count);
    if (b.spread > t.spread && !b.rejected)
      add_flag(b.flags, fmt::format("repeats disagree: IQR {:.0f}% of the median time", 100 * b.spread), count);
    flag_telemetry(b.telemetry, b.flags, count);
  }
  for (auto& c : r.measured.compute) {
    const double nom = best_nominal(r.nominal, c.precision);
    if (nom > 0 && c.flops_per_s > nom * (1 + t.above_nominal))
      add_flag(c.flags, fmt::format("{:.1f}% above the nominal {} peak: check synchronisation and the FLOP count",
                                    100 * (c.flops_per_s / nom - 1), c.precision), count);
    if (c.spread > t.spread && !c.rejected)
      add_flag(c.flags, fmt::format("repeats disagree: IQR {:.0f}% of the median time", 100 * c.spread), count);
    flag_telemetry(c.telemetry, c.flags, count);
  }
  return count;
}

}  // namespace roofline
