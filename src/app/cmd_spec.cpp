// `roofline spec NAME [--json] | --device DEV [--json] | --list [--json]`: the nominal roofs of a
// table GPU (or of this machine's device), with the derivation (factor, value, unit, source), the
// dense peak per data type, the memory bandwidth and the ridge point (peak ÷ bandwidth, FLOP/byte).
#include <algorithm>
#include <cctype>
#include <cstdio>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "app/commands.hpp"
#include "roofline/backend.hpp"
#include "roofline/error.hpp"
#include "roofline/spec.hpp"
#include "report/units.hpp"
#include "roofline/units.hpp"
#include "spec/device_table.hpp"

namespace roofline::app {
namespace {

struct spec_options {
  std::string name, device;
  bool json = false, list = false;
};

// Peaks, bandwidths and ridges print through roofline/units.hpp, as in ops, mfu, place and the
// reports: the same value reads the same in every command (3 significant digits).
std::string peak_text(const nominal_peak& p) { return units::compute_rate(p.flops_per_s, p.precision); }

std::optional<double> ridge(const nominal_roofs& n, const nominal_peak& p) {
  if (!n.memory_bandwidth_bytes_per_s || *n.memory_bandwidth_bytes_per_s <= 0) return std::nullopt;
  return p.flops_per_s / *n.memory_bandwidth_bytes_per_s;
}

json to_spec_json(const nominal_roofs& n, const std::optional<ecc_ceiling>& ecc) {
  json j = n;
  j["name"] = n.device_name;
  if (ecc)
    j["ecc"] = {{"when", ecc->when}, {"bandwidth_factor", ecc->bandwidth_factor}, {"bandwidth_bytes_per_s", ecc->bandwidth_bytes_per_s},
                {"capacity_factor", ecc->capacity_factor}, {"memory_size_gb", ecc->memory_gb},
                {"bandwidth_source", ecc->bandwidth_source}, {"capacity_source", ecc->capacity_source}};
  json ridges = json::array();
  for (const auto& p : n.peaks)
    ridges.push_back({{"precision", p.precision}, {"accumulate", p.accumulate}, {"engine", p.engine},
                      {"flop_per_byte", ridge(n, p)}});
  j["ridge_points"] = ridges;
  return j;
}

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

std::string side_by_side(const nominal_roofs& n) {
  std::string out;
  std::vector<factor> live;
  for (const auto& f : n.factors) live.push_back(f);
  for (const auto& f : n.memory_factors) live.push_back(f);
  std::vector<std::string> seen;
  for (const auto& f : live) {
    const factor* t = table_counterpart(n, f.name);
    if (!t || std::find(seen.begin(), seen.end(), f.name) != seen.end()) continue;
    seen.push_back(f.name);
    out += fmt::format("  {:<34} {:>10g} {:>10g} {:<7}\n", f.name.substr(0, f.name.size() - 7), f.value, t->value, f.unit);
  }
  if (out.empty()) return out;
  return fmt::format("\nLive vs table\n  {:<34} {:>10} {:>10}\n", "factor", "live", "table") + out;
}

void print_text(const nominal_roofs& n) {
  std::string out = fmt::format("{} — nominal roofs (source: {})\n\nDerivation factors\n", n.device_name, n.source);
  out += fmt::format("  {:<52} {:>10} {:<7} {}\n", "factor", "value", "unit", "source");
  for (const auto& f : n.factors) out += fmt::format("  {:<52} {:>10g} {:<7} {}\n", f.name, f.value, f.unit, f.source);
  for (const auto& f : n.memory_factors)
    if (f.source.rfind("detected", 0) == 0 &&
        std::none_of(n.factors.begin(), n.factors.end(), [&](const factor& g) { return g.name == f.name; }))
      out += fmt::format("  {:<52} {:>10g} {:<7} {}\n", f.name, f.value, f.unit, f.source);

  out += side_by_side(n);

  out += "\nDense peaks (ridge = peak ÷ memory bandwidth)\n";
  out += fmt::format("  {:<6} {:<6} {:<7} {:>15} {:>14}   {}\n", "dtype", "accum", "engine", "peak", "ridge", "formula");
  for (const auto& p : n.peaks) {
    const auto r = ridge(n, p);
    out += fmt::format("  {:<6} {:<6} {:<7} {:>15} {:>14}   {}\n", p.precision, p.accumulate, p.engine, peak_text(p),
                       r ? (p.precision == "int8" ? units::intensity_ops(*r) : units::intensity(*r)) : std::string("unknown"), p.formula);
    if (p.sparse_flops_per_s)
      out += fmt::format("  {:<22} sparse (2:4, not a peak): {}\n", "", units::compute_rate(*p.sparse_flops_per_s, p.precision));
    if (!p.note.empty()) out += fmt::format("  {:<22} note: {}\n", "", p.note);
  }
  if (n.peaks.empty()) out += "  (none)\n";

  out += "\nMemory bandwidth: ";
  if (n.memory_bandwidth_bytes_per_s)
    out += fmt::format("{} = {}\n", units::rate_bytes(*n.memory_bandwidth_bytes_per_s), n.memory_bandwidth_formula);
  else
    out += "unknown (" + n.memory_bandwidth_reason + ")\n";
  if (!n.notes.empty()) {
    out += "\nNotes\n";
    for (const auto& s : n.notes) out += "  - " + s + "\n";
  }
  std::fputs(out.c_str(), stdout);
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

/// `spec --list`: key, name, the headline dense peaks (fp16 tensor, fp32 vector) and the memory
/// bandwidth of every table GPU; --json: the same as an array of objects.
void print_list(bool as_json) {
  const spec_detail::device_table t = spec_detail::load_default_table();
  json rows = json::array();
  std::string out = fmt::format("{:<18} {:<28} {:>16} {:>14} {:>12}\n", "key", "name", "fp16 dense", "fp32", "memory");
  for (const auto& s : t.skus) {
    const nominal_roofs n = gpu_nominal(s.name);
    std::optional<double> fp16, fp32;
    for (const auto& p : n.peaks) {
      if (p.precision == "fp16" && (!fp16 || p.flops_per_s > *fp16)) fp16 = p.flops_per_s;
      if (p.precision == "fp32" && p.engine == "vector") fp32 = p.flops_per_s;
    }
    const std::string key = gpu_key(s);
    rows.push_back({{"key", key}, {"name", s.name}, {"aliases", s.aliases},
                    {"fp16_dense_flops_per_s", fp16 ? json(*fp16) : json(nullptr)},
                    {"fp32_vector_flops_per_s", fp32 ? json(*fp32) : json(nullptr)},
                    {"memory_bandwidth_bytes_per_s", n.memory_bandwidth_bytes_per_s ? json(*n.memory_bandwidth_bytes_per_s) : json(nullptr)}});
    out += fmt::format("{:<18} {:<28} {:>16} {:>14} {:>12}\n", key, s.name, fp16 ? report::rate_flops(*fp16) : "—",
                       fp32 ? report::rate_flops(*fp32) : "—",
                       n.memory_bandwidth_bytes_per_s ? report::rate_bytes(*n.memory_bandwidth_bytes_per_s) : "—");
  }
  if (as_json) std::puts(rows.dump(2).c_str());
  else std::fputs(out.c_str(), stdout);
}

void run_spec(const spec_options& o) {
  const int modes = (!o.name.empty()) + (!o.device.empty()) + (o.list ? 1 : 0);
  if (modes != 1) throw input_error("", "spec", "give exactly one of NAME, --device DEV or --list");
  if (o.list) {
    print_list(o.json);
    return;
  }
  nominal_roofs n;
  std::optional<ecc_ceiling> ecc;
  if (!o.device.empty()) {
    n = make_backend(o.device)->nominal();
  } else {
    n = gpu_nominal(o.name);
    ecc = gpu_ecc_ceiling(o.name);
  }
  if (o.json) std::puts(to_spec_json(n, ecc).dump(2).c_str());
  else print_text(n);
}

}  // namespace

void add_spec(CLI::App& app, context&) {
  auto opt = std::make_shared<spec_options>();
  auto* sub = app.add_subcommand("spec", "Nominal peaks of a GPU from the device table (or of this machine's device), with the derivation");
  sub->add_option("name", opt->name, "GPU name; forgiving: t4, 'Tesla T4', h100-sxm, H200, 'a100 80gb'");
  sub->add_option("--device", opt->device, "derive for a device of this machine: cpu, cuda or cuda:N");
  sub->add_flag("--json", opt->json, "print JSON: {name, factors[], peaks[], memory_bandwidth_bytes_per_s, ridge_points[], notes}");
  sub->add_flag("--list", opt->list, "list the GPUs in the device table: key, name, headline peaks, memory bandwidth");
  sub->callback([opt] { run_spec(*opt); });
}

}  // namespace roofline::app
