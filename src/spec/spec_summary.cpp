// What `roofline spec` prints beside the derivation: the ridge of each nominal peak, the live
// factors beside the table's, and the --list rows (roofline/spec.hpp).
#include <algorithm>
#include <cctype>
#include <utility>

#include "roofline/spec.hpp"
#include "roofline/vocabulary.hpp"
#include "spec/device_table.hpp"

namespace roofline {

std::optional<double> nominal_ridge(const nominal_roofs& n, const nominal_peak& p) {
  if (!n.memory_bandwidth_bytes_per_s || *n.memory_bandwidth_bytes_per_s <= 0) return std::nullopt;
  return p.flops_per_s / *n.memory_bandwidth_bytes_per_s;
}

namespace {

/// Live factor -> the table factor it is compared with (by name prefix).
const factor* table_counterpart(const nominal_roofs& n, const std::string& live_name) {
  static const std::pair<const char*, const char*> pairs[] = {
      {"SMs (live)", "SMs"},
      {"max SM clock (live)", "boost clock"},
      {"memory bus width (live)", "memory bus width"},
      {"memory data rate per pin (live)", "memory data rate per pin"},
      {"memory size (live)", "memory size"},
      {"L2 cache (live)", "L2 cache"},
      {"power limit (live)", "TDP"}};
  for (const auto& [live, table] : pairs) {
    if (live_name != live) continue;
    for (const auto& f : n.factors)
      if (f.name.rfind(table, 0) == 0 && f.source.rfind("table: ", 0) == 0) return &f;
  }
  return nullptr;
}

/// The short key a user types for a table GPU: its shortest alias (else its name), lower case,
/// spaces as '-' ("t4", "h100-sxm"); match_gpu_name accepts it.
std::string gpu_key(const spec_detail::sku_row& s) {
  std::string k = s.name;
  for (const auto& a : s.aliases)
    if (a.size() < k.size()) k = a;
  std::string o;
  for (unsigned char c : k) o += c == ' ' ? '-' : static_cast<char>(std::tolower(c));
  return o;
}

}  // namespace

std::vector<live_vs_table_factor> live_vs_table(const nominal_roofs& n) {
  std::vector<live_vs_table_factor> out;
  std::vector<factor> live;
  for (const auto& f : n.factors) live.push_back(f);
  for (const auto& f : n.memory_factors) live.push_back(f);
  std::vector<std::string> seen;
  for (const auto& f : live) {
    const factor* t = table_counterpart(n, f.name);
    if (!t || std::find(seen.begin(), seen.end(), f.name) != seen.end()) continue;
    seen.push_back(f.name);
    out.push_back({f.name.substr(0, f.name.size() - 7), f.value, t->value, f.unit});
  }
  return out;
}

std::vector<spec_list_row> spec_list() {
  const spec_detail::device_table t = spec_detail::load_default_table();
  std::vector<spec_list_row> rows;
  for (const auto& s : t.skus) {
    const nominal_roofs n = gpu_nominal(s.name);
    spec_list_row r{gpu_key(s), s.name, s.aliases, std::nullopt, std::nullopt, n.memory_bandwidth_bytes_per_s};
    if (const nominal_peak* p = peak_for(n, "fp16", peak_engine::highest)) r.fp16_dense = p->flops_per_s;
    if (const nominal_peak* p = peak_for(n, "fp32", peak_engine::vector)) r.fp32_vector = p->flops_per_s;
    rows.push_back(std::move(r));
  }
  return rows;
}

}  // namespace roofline
