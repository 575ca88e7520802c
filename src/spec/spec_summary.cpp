// What `roofline spec` prints beside the derivation: the ridge of each nominal peak, the live
// factors beside the table's, and the --list rows (roofline/spec.hpp).
#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <utility>

#include "roofline/spec.hpp"
#include "roofline/vocabulary.hpp"
#include "spec/device_table.hpp"
#include "spec/name_match.hpp"

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

/// A generation's place in its vendor's line: NVIDIA compute capability "8.6" → (8, 6); AMD gfx
/// target "gfx942" → its hex digits (0x942), so gfx90a < gfx942 < gfx950.
std::pair<long, long> generation_of(const spec_detail::chip_rates& c) {
  if (c.compute_capabilities.empty()) return {0, 0};
  const std::string& cc = c.compute_capabilities.front();
  if (cc.rfind("gfx", 0) == 0) return {std::strtol(cc.c_str() + 3, nullptr, 16), 0};
  const auto dot = cc.find('.');
  return {std::strtol(cc.c_str(), nullptr, 10), dot == std::string::npos ? 0 : std::strtol(cc.c_str() + dot + 1, nullptr, 10)};
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
  // By vendor, then generation (oldest first), then the table's order within a generation.
  std::vector<const spec_detail::sku_row*> order;
  for (const auto& s : t.skus) order.push_back(&s);
  std::stable_sort(order.begin(), order.end(), [&](const spec_detail::sku_row* a, const spec_detail::sku_row* b) {
    const auto &ca = t.chip_of(*a), &cb = t.chip_of(*b);
    if (ca.vendor != cb.vendor) return ca.vendor < cb.vendor;
    return generation_of(ca) < generation_of(cb);
  });
  std::vector<spec_list_row> rows;
  for (const spec_detail::sku_row* sp : order) {
    const spec_detail::sku_row& s = *sp;
    const nominal_roofs n = gpu_nominal(s.name);
    spec_list_row r;
    r.key = spec_detail::gpu_key(s), r.name = s.name, r.aliases = s.aliases;
    const spec_detail::chip_rates& c = t.chip_of(s);
    // One file per architecture; AMD's CDNA file holds three generations (CDNA2, CDNA3, CDNA4): the chip says which.
    r.vendor = c.vendor, r.architecture = c.vendor == "AMD" && c.chip.rfind(c.architecture, 0) == 0 ? c.chip : c.architecture;
    r.memory_bandwidth = n.memory_bandwidth_bytes_per_s;
    if (const nominal_peak* p = peak_for(n, "fp16", peak_engine::highest)) r.fp16_dense = p->flops_per_s;
    if (const nominal_peak* p = peak_for(n, "fp32", peak_engine::vector)) r.fp32_vector = p->flops_per_s;
    rows.push_back(std::move(r));
  }
  return rows;
}

}  // namespace roofline
