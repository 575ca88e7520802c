#include "lookup.hpp"

#include <algorithm>
#include <cctype>

namespace roofline::detail {

namespace {
std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}
std::optional<double> to_mhz(const factor& f) {
  const std::string u = lower(f.unit);
  if (u == "ghz") return f.value * 1e3;
  if (u == "mhz") return f.value;
  if (u == "khz") return f.value * 1e-3;
  if (u == "hz") return f.value * 1e-6;
  return std::nullopt;
}
std::optional<double> clock_in(const std::vector<factor>& fs) {
  std::optional<double> any;
  for (const auto& f : fs) {
    const std::string n = lower(f.name);
    if (n.find("clock") == std::string::npos || n.find("mem") != std::string::npos) continue;
    const auto mhz = to_mhz(f);
    if (!mhz || *mhz <= 0) continue;
    if (n.find("boost") != std::string::npos || n.find("max") != std::string::npos) return mhz;
    if (!any) any = mhz;
  }
  return any;
}
}  // namespace

bool is_device_memory(const std::string& level) { return level == "dram" || level == "hbm"; }
bool is_gemm_engine(const std::string& engine) { return engine == "gemm" || engine == "tensor"; }

const nominal_peak* nominal_peak_for(const nominal_roofs& nom, const std::string& precision) {
  for (const char* engine : {"tensor", "vector", ""})
    for (const auto& p : nom.peaks)
      if (p.precision == precision && (*engine == 0 || p.engine == engine) && p.flops_per_s > 0) return &p;
  return nullptr;
}

const bandwidth_result* best_bandwidth(const measured_roofs& m, const std::string& level_kind,
                                       const std::string& pattern) {
  const bandwidth_result* best = nullptr;
  for (const auto& b : m.bandwidth) {
    const bool level_ok = level_kind == "dram" ? is_device_memory(b.level) : b.level == level_kind;
    if (b.rejected || !level_ok || (!pattern.empty() && b.pattern != pattern) || !(b.bytes_per_s > 0)) continue;
    if (!best || b.bytes_per_s > best->bytes_per_s) best = &b;
  }
  return best;
}

const compute_result* best_compute(const measured_roofs& m, const std::string& precision) {
  const compute_result* best = nullptr;
  for (int pass = 0; pass < 2 && !best; ++pass)
    for (const auto& c : m.compute) {
      if (c.precision != precision || !(c.flops_per_s > 0) || c.rejected) continue;
      if ((pass == 0) != is_gemm_engine(c.engine)) continue;
      if (!best || c.flops_per_s > best->flops_per_s) best = &c;
    }
  return best;
}

const compute_result* gemm_at(const measured_roofs& m, const std::string& precision, std::int64_t n) {
  const compute_result* best = nullptr;
  for (const auto& c : m.compute)
    if (c.precision == precision && is_gemm_engine(c.engine) && c.size && *c.size == n && c.flops_per_s > 0 && !c.rejected)
      if (!best || c.flops_per_s > best->flops_per_s) best = &c;
  return best;
}

std::optional<double> datasheet_clock_mhz(const nominal_roofs& nom, const nominal_peak* peak) {
  if (peak)
    if (auto c = clock_in(peak->factors)) return c;
  return clock_in(nom.factors);
}

std::optional<double> sm_count(const results& r) {
  const json& p = r.device.properties;
  for (const char* key : {"sms", "SMs", "multiprocessors"})
    if (p.is_object() && p.contains(key) && p.at(key).is_number() && p.at(key).get<double>() > 0)
      return p.at(key).get<double>();
  for (const auto& f : r.nominal.factors) {
    const std::string n = lower(f.name);
    if ((n == "sms" || n == "sm count" || n == "streaming multiprocessors") && f.value > 0) return f.value;
  }
  for (const auto& pk : r.nominal.peaks)
    for (const auto& f : pk.factors) {
      const std::string n = lower(f.name);
      if ((n == "sms" || n == "sm count" || n == "streaming multiprocessors") && f.value > 0) return f.value;
    }
  return std::nullopt;
}

json num_or_null(std::optional<double> v) { return v ? json(*v) : json(nullptr); }

}  // namespace roofline::detail
