// Loading and validating the device table (data/devices/*.json). Each error names the file and
// the field ("skus[3].memory.data_rate_gbps.value") so a bad row is found in one look.
#include "spec/device_table.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "roofline/error.hpp"
#include "roofline/json.hpp"
#include "roofline/spec.hpp"

namespace roofline::spec_detail {
namespace {

namespace fs = std::filesystem;

/// Field access with errors that name the file and the JSON path.
struct reader {
  std::string file;

  const json& get(const json& j, const std::string& key, const std::string& path) const {
    if (!j.is_object() || !j.contains(key)) throw input_error(file, path + key, "missing required field");
    return j.at(key);
  }
  std::string str(const json& j, const std::string& key, const std::string& path) const {
    const json& v = get(j, key, path);
    if (!v.is_string()) throw input_error(file, path + key, std::string("expected string, got ") + v.type_name());
    if (v.get<std::string>().empty()) throw input_error(file, path + key, "must not be empty");
    return v.get<std::string>();
  }
  double positive(const json& v, const std::string& where) const {
    if (!v.is_number()) throw input_error(file, where, std::string("expected number, got ") + v.type_name());
    const double x = v.get<double>();
    if (!std::isfinite(x) || x <= 0) throw input_error(file, where, "must be a finite number > 0");
    return x;
  }
  double num(const json& j, const std::string& key, const std::string& path) const {
    return positive(get(j, key, path), path + key);
  }
  int integer(const json& j, const std::string& key, const std::string& path) const {
    const json& v = get(j, key, path);
    if (!v.is_number_integer()) throw input_error(file, path + key, std::string("expected integer, got ") + v.type_name());
    if (v.get<long long>() <= 0) throw input_error(file, path + key, "must be > 0");
    return v.get<int>();
  }
  bool boolean(const json& j, const std::string& key, const std::string& path) const {
    const json& v = get(j, key, path);
    if (!v.is_boolean()) throw input_error(file, path + key, std::string("expected boolean, got ") + v.type_name());
    return v.get<bool>();
  }
  const json& array(const json& j, const std::string& key, const std::string& path) const {
    const json& v = get(j, key, path);
    if (!v.is_array()) throw input_error(file, path + key, std::string("expected array, got ") + v.type_name());
    return v;
  }
  const json& object(const json& j, const std::string& key, const std::string& path) const {
    const json& v = get(j, key, path);
    if (!v.is_object()) throw input_error(file, path + key, std::string("expected object, got ") + v.type_name());
    return v;
  }
  /// {"value": number > 0, "source": "citation", "note": optional}
  sourced factor(const json& j, const std::string& key, const std::string& path) const {
    const json& o = object(j, key, path);
    const std::string p = path + key + ".";
    sourced s;
    s.value = num(o, "value", p);
    s.source = str(o, "source", p);
    if (o.contains("note")) s.note = str(o, "note", p);
    return s;
  }
  std::optional<sourced> optional_factor(const json& j, const std::string& key, const std::string& path) const {
    if (!j.contains(key)) return std::nullopt;
    return factor(j, key, path);
  }
};

tensor_rate parse_rate(const reader& r, const json& j, const std::string& p) {
  tensor_rate t;
  t.precision = r.str(j, "precision", p);
  t.accumulate = r.str(j, "accumulate", p);
  t.fma_per_tc_per_clock = r.num(j, "dense_fma_per_tc_per_clock", p);
  const std::string clock = r.str(j, "clock", p);
  if (clock != "tensor" && clock != "boost") throw input_error(r.file, p + "clock", "must be \"tensor\" or \"boost\"");
  t.at_boost_clock = clock == "boost";
  t.source = r.str(j, "source", p);
  return t;
}

chip_rates parse_chip(const reader& r, const json& j, const std::string& p) {
  chip_rates c;
  c.chip = r.str(j, "chip", p);
  const json& ccs = r.array(j, "compute_capability", p);
  for (std::size_t i = 0; i < ccs.size(); ++i) {
    if (!ccs[i].is_string())
      throw input_error(r.file, p + "compute_capability[" + std::to_string(i) + "]", "expected string like \"9.0\"");
    c.compute_capabilities.push_back(ccs[i].get<std::string>());
  }
  c.tensor_cores_per_sm = r.factor(j, "tensor_cores_per_sm", p);
  c.fp32_lanes_per_sm = r.factor(j, "fp32_lanes_per_sm", p);
  const json& f64 = r.object(j, "fp64_lanes_per_sm", p);
  if (f64.contains("value") && f64.at("value").is_null())
    c.fp64_reason = r.str(f64, "reason", p + "fp64_lanes_per_sm.");
  else
    c.fp64_lanes_per_sm = r.factor(j, "fp64_lanes_per_sm", p);
  c.fp16_vector_fma_per_sm = r.optional_factor(j, "fp16_vector_fma_per_sm", p);
  c.structured_sparsity = r.boolean(j, "structured_sparsity", p);
  c.geforce_fp32_accumulate_factor = r.optional_factor(j, "geforce_fp32_accumulate_factor", p);
  const json& rates = r.array(j, "tensor_rates", p);
  for (std::size_t i = 0; i < rates.size(); ++i)
    c.tensor_rates.push_back(parse_rate(r, rates[i], p + "tensor_rates[" + std::to_string(i) + "]."));
  return c;
}

printed_values parse_datasheet(const reader& r, const json& j, const std::string& p) {
  printed_values d;
  d.source = r.str(j, "source", p);
  const json& t = r.array(j, "tensor_tflops", p);
  for (std::size_t i = 0; i < t.size(); ++i) {
    const std::string q = p + "tensor_tflops[" + std::to_string(i) + "].";
    d.tensor.push_back({r.str(t[i], "precision", q), r.str(t[i], "accumulate", q), r.num(t[i], "tflops", q)});
  }
  d.fp32_tflops = r.num(j, "fp32_tflops", p);
  d.bandwidth_gb_per_s = r.num(j, "bandwidth_gb_per_s", p);
  return d;
}

sku_row parse_sku(const reader& r, const json& j, const std::string& p) {
  sku_row s;
  s.file = r.file;
  s.name = r.str(j, "name", p);
  s.chip = r.str(j, "chip", p);
  s.product_class = r.str(j, "product_class", p);
  if (s.product_class != "datacenter" && s.product_class != "workstation" && s.product_class != "geforce" &&
      s.product_class != "embedded")
    throw input_error(r.file, p + "product_class", "must be \"datacenter\", \"workstation\", \"geforce\" or \"embedded\"");
  const json& al = r.array(j, "aliases", p);
  for (std::size_t i = 0; i < al.size(); ++i) {
    if (!al[i].is_string()) throw input_error(r.file, p + "aliases[" + std::to_string(i) + "]", "expected string");
    s.aliases.push_back(al[i].get<std::string>());
  }
  s.sms = r.factor(j, "sms", p);
  s.boost_clock_mhz = r.factor(j, "boost_clock_mhz", p);
  s.tensor_clock_mhz = r.optional_factor(j, "tensor_clock_mhz", p);
  s.tensor_rate_factor = r.optional_factor(j, "tensor_rate_factor", p);
  if (s.tensor_rate_factor && s.tensor_rate_factor->value > 1)
    throw input_error(r.file, p + "tensor_rate_factor.value", "must be <= 1 (a product cannot beat its chip's rate)");
  s.fp32_accumulate_factor = r.optional_factor(j, "fp32_accumulate_factor", p);
  if (s.fp32_accumulate_factor && s.fp32_accumulate_factor->value > 1)
    throw input_error(r.file, p + "fp32_accumulate_factor.value", "must be <= 1 (a product cannot beat its chip's rate)");
  if (j.contains("peak_caps")) {
    const json& caps = r.array(j, "peak_caps", p);
    for (std::size_t i = 0; i < caps.size(); ++i) {
      const std::string q = p + "peak_caps[" + std::to_string(i) + "].";
      peak_cap c{r.str(caps[i], "precision", q), r.str(caps[i], "engine", q), r.num(caps[i], "tflops", q),
                 r.str(caps[i], "source", q)};
      if (c.engine != "tensor" && c.engine != "vector") throw input_error(r.file, q + "engine", "must be \"tensor\" or \"vector\"");
      s.peak_caps.push_back(std::move(c));
    }
  }
  if (j.contains("unknown_peaks")) {
    const json& u = r.array(j, "unknown_peaks", p);
    for (std::size_t i = 0; i < u.size(); ++i) {
      const std::string q = p + "unknown_peaks[" + std::to_string(i) + "].";
      unknown_peak k{r.str(u[i], "precision", q), r.str(u[i], "engine", q), r.str(u[i], "reason", q)};
      if (k.engine != "tensor" && k.engine != "vector") throw input_error(r.file, q + "engine", "must be \"tensor\" or \"vector\"");
      s.unknown_peaks.push_back(std::move(k));
    }
  }
  const json& mem = r.object(j, "memory", p);
  const std::string mp = p + "memory.";
  s.memory_type = r.str(mem, "type", mp);
  s.bus_width_bits = r.factor(mem, "bus_width_bits", mp);
  s.data_rate_gbps = r.factor(mem, "data_rate_gbps", mp);
  s.memory_size_gb = r.factor(mem, "size_gb", mp);
  if (mem.contains("ecc")) {
    const json& e = r.object(mem, "ecc", mp);
    const std::string ep = mp + "ecc.";
    ecc_cost c;
    const json& bw = r.object(e, "bandwidth_factor", ep);
    if (bw.contains("value") && bw.at("value").is_null())
      c.bandwidth_reason = r.str(bw, "reason", ep + "bandwidth_factor.");
    else
      c.bandwidth_factor = r.factor(e, "bandwidth_factor", ep);
    c.capacity_factor = r.factor(e, "capacity_factor", ep);
    c.when = r.str(e, "when", ep);
    c.default_state = r.str(e, "default", ep);
    if (c.default_state != "on" && c.default_state != "off") throw input_error(r.file, ep + "default", "must be \"on\" or \"off\"");
    s.ecc = std::move(c);
    if (s.ecc->bandwidth_factor && s.ecc->bandwidth_factor->value > 1)
      throw input_error(r.file, ep + "bandwidth_factor.value", "must be <= 1");
    if (s.ecc->capacity_factor.value > 1) throw input_error(r.file, ep + "capacity_factor.value", "must be <= 1");
  }
  const json& l2 = r.object(j, "l2_mib", p);
  if (l2.contains("value") && l2.at("value").is_null()) {
    s.l2_reason = r.str(l2, "reason", p + "l2_mib.");
  } else {
    s.l2_mib = r.factor(j, "l2_mib", p);
  }
  s.tdp_w = r.factor(j, "tdp_w", p);
  const json& links = r.object(j, "links", p);
  const std::string lp = p + "links.";
  const json& pc = r.get(links, "pcie", lp);
  if (pc.is_null()) {
    s.pcie_reason = r.str(links, "pcie_reason", lp);  // an integrated GPU: say so
  } else {
    if (!pc.is_object()) throw input_error(r.file, lp + "pcie", "expected object or null");
    s.pcie = pcie_link{r.integer(pc, "generation", lp + "pcie."), r.integer(pc, "lanes", lp + "pcie."),
                       r.num(pc, "gb_per_s", lp + "pcie."), r.str(pc, "source", lp + "pcie.")};
  }
  const json& nv = r.get(links, "nvlink", lp);
  if (!nv.is_null()) {
    if (!nv.is_object()) throw input_error(r.file, lp + "nvlink", "expected object or null");
    s.nvlink = nvlink_link{r.integer(nv, "links", lp + "nvlink."), r.num(nv, "gb_per_s_per_link", lp + "nvlink."),
                           r.str(nv, "source", lp + "nvlink.")};
  }
  if (j.contains("notes")) {
    const json& notes = r.array(j, "notes", p);
    for (std::size_t i = 0; i < notes.size(); ++i) {
      const std::string q = p + "notes[" + std::to_string(i) + "].";
      s.notes.emplace_back(r.str(notes[i], "field", q), r.str(notes[i], "text", q));
    }
  }
  if (r.get(j, "datasheet", p).is_null())  // no datasheet prints the part's figures: say why
    s.datasheet.source = "none: " + r.str(j, "datasheet_reason", p);
  else
    s.datasheet = parse_datasheet(r, r.object(j, "datasheet", p), p + "datasheet.");
  s.gcds = r.optional_factor(j, "gcds", p);
  if (s.gcds && (s.gcds->value != std::floor(s.gcds->value) || s.gcds->value < 2 ||
                 s.sms.value / s.gcds->value != std::floor(s.sms.value / s.gcds->value)))
    throw input_error(r.file, p + "gcds.value", "must be an integer >= 2 that divides sms");
  if (j.contains("mig_profiles")) {
    const json& m = r.array(j, "mig_profiles", p);
    for (std::size_t i = 0; i < m.size(); ++i) {
      const std::string q = p + "mig_profiles[" + std::to_string(i) + "].";
      mig_profile g{r.str(m[i], "name", q), r.integer(m[i], "sms", q), r.integer(m[i], "memory_slices", q),
                    r.integer(m[i], "memory_slices_total", q), r.str(m[i], "source", q)};
      if (g.sms < 1 || g.sms > s.sms.value) throw input_error(r.file, q + "sms", "must be 1..the SKU's SMs");
      if (g.memory_slices < 1 || g.memory_slices > g.memory_slices_total)
        throw input_error(r.file, q + "memory_slices", "must be 1..memory_slices_total");
      s.mig_profiles.push_back(std::move(g));
    }
  }
  return s;
}

void parse_file(const std::string& path, device_table& t) {
  std::ifstream in(path);
  if (!in) throw input_error(path, "", "cannot read the device table file");
  std::stringstream ss;
  ss << in.rdbuf();
  parse_table_text(ss.str(), path, t);
}

}  // namespace

void parse_table_text(const std::string& text, const std::string& path, device_table& t) {
  json j;
  try {
    j = json::parse(text);
  } catch (const json::exception& e) {  // parse_error, or out_of_range for a number that overflows a double
    throw input_error(path, "", std::string("not valid JSON: ") + e.what());
  }
  const reader r{path};
  if (!j.is_object()) throw input_error(path, "", "top level must be an object");
  const std::string vendor = r.str(j, "vendor", "");
  const std::string arch = r.str(j, "architecture", "");
  const json& chips = r.array(j, "chips", "");
  const std::size_t first_chip = t.chips.size();
  for (std::size_t i = 0; i < chips.size(); ++i) {
    chip_rates c = parse_chip(r, chips[i], "chips[" + std::to_string(i) + "].");
    c.file = path;
    c.vendor = vendor;
    c.architecture = arch;
    t.chips.push_back(std::move(c));
  }
  const json& skus = r.array(j, "skus", "");
  for (std::size_t i = 0; i < skus.size(); ++i) {
    const std::string p = "skus[" + std::to_string(i) + "].";
    sku_row s = parse_sku(r, skus[i], p);
    const bool known = std::any_of(t.chips.begin() + static_cast<std::ptrdiff_t>(first_chip), t.chips.end(),
                                   [&](const chip_rates& c) { return c.chip == s.chip; });
    if (!known) throw input_error(path, p + "chip", "'" + s.chip + "' is not one of this file's chips[]");
    if (t.find(s.name)) throw input_error(path, p + "name", "'" + s.name + "' is already in the table");
    t.skus.push_back(std::move(s));
  }
}

const chip_rates& device_table::chip_of(const sku_row& s) const {
  for (const auto& c : chips)
    if (c.chip == s.chip && c.file == s.file) return c;
  throw input_error(s.file, "chip", "unknown chip '" + s.chip + "'");
}

const chip_rates* device_table::chip_for_cc(const std::string& cc) const {
  for (const auto& c : chips)
    if (std::find(c.compute_capabilities.begin(), c.compute_capabilities.end(), cc) != c.compute_capabilities.end())
      return &c;
  return nullptr;
}

const sku_row* device_table::find(const std::string& canonical_name) const {
  for (const auto& s : skus)
    if (s.name == canonical_name) return &s;
  return nullptr;
}

device_table load_table(const std::string& dir) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec))
    throw input_error(dir, "", "device table directory not found (set ROOFLINE_DATA_DIR to the folder holding devices/)");
  std::vector<std::string> files;
  for (const auto& e : fs::directory_iterator(dir, ec))
    if (e.is_regular_file() && e.path().extension() == ".json") files.push_back(e.path().string());
  std::sort(files.begin(), files.end());
  if (files.empty()) throw input_error(dir, "", "no *.json device table files");
  device_table t;
  for (const auto& f : files) parse_file(f, t);
  return t;
}

device_table load_default_table() { return load_table(device_table_dir()); }

}  // namespace roofline::spec_detail

namespace roofline {

std::string device_table_dir() {
  if (const char* d = std::getenv("ROOFLINE_DATA_DIR"); d && *d) return std::string(d) + "/devices";
  return std::string(ROOFLINE_SOURCE_DIR) + "/data/devices";
}

std::vector<std::string> load_device_table_names(const std::string& dir) {
  std::vector<std::string> names;
  for (const auto& s : spec_detail::load_table(dir).skus) names.push_back(s.name);
  return names;
}

std::vector<std::string> gpu_names() { return load_device_table_names(device_table_dir()); }

}  // namespace roofline
