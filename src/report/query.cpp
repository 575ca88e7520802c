#include "report/query.hpp"

#include <algorithm>
#include <array>

namespace roofline::report {

namespace {

int precision_rank(const std::string& p) {
  static const std::array<const char*, 7> order = {"fp64", "fp32", "tf32", "bf16", "fp16", "fp8", "int8"};
  for (std::size_t i = 0; i < order.size(); ++i)
    if (p == order[i]) return static_cast<int>(i);
  return 100;
}

void sort_precisions(std::vector<std::string>& v) {
  std::sort(v.begin(), v.end(), [](const std::string& a, const std::string& b) {
    const int ra = precision_rank(a), rb = precision_rank(b);
    return ra != rb ? ra < rb : a < b;
  });
  v.erase(std::unique(v.begin(), v.end()), v.end());
}

int level_rank(const std::string& l) {
  if (l == "l1") return 0;
  if (l == "l2") return 1;
  if (l == "l3") return 2;
  if (l == "llc") return 3;
  return 10;
}

std::optional<double> number_in(const json& obj, const std::vector<std::string>& keys) {
  if (!obj.is_object()) return std::nullopt;
  for (const auto& k : keys) {
    auto it = obj.find(k);
    if (it != obj.end() && it->is_number()) return it->get<double>();
  }
  return std::nullopt;
}

}  // namespace

bool is_device_memory(const std::string& level) {
  return level == "dram" || level == "hbm" || level == "gddr" || level == "device" || level == "memory";
}

bool is_transition_level(const std::string& level) {
  return level.find('+') != std::string::npos || level == "mixed" || level == "transition" || level.empty();
}

bool usable_as_roof(const bandwidth_result& b) { return !b.rejected && b.bytes_per_s > 0 && !is_transition_level(b.level); }

const bandwidth_result* best_device_bandwidth(const measured_roofs& m, const std::string& pattern) {
  const bandwidth_result* best = nullptr;
  for (const auto& b : m.bandwidth)
    if (usable_as_roof(b) && is_device_memory(b.level) && (pattern.empty() || b.pattern == pattern) &&
        (!best || b.bytes_per_s > best->bytes_per_s))
      best = &b;
  return best;
}

const bandwidth_result* best_level_bandwidth(const measured_roofs& m, const std::string& level) {
  const bandwidth_result* best = nullptr;
  for (const auto& b : m.bandwidth)
    if (usable_as_roof(b) && b.level == level && (!best || b.bytes_per_s > best->bytes_per_s)) best = &b;
  return best;
}

std::vector<std::string> cache_levels(const measured_roofs& m) {
  std::vector<std::string> v;
  for (const auto& b : m.bandwidth)
    if (usable_as_roof(b) && !is_device_memory(b.level)) v.push_back(b.level);
  std::sort(v.begin(), v.end(), [](const std::string& a, const std::string& b) {
    const int ra = level_rank(a), rb = level_rank(b);
    return ra != rb ? ra < rb : a < b;
  });
  v.erase(std::unique(v.begin(), v.end()), v.end());
  return v;
}

const compute_result* gemm_at(const measured_roofs& m, const std::string& precision, std::int64_t n) {
  const compute_result* best = nullptr;
  for (const auto& c : m.compute)
    if (c.precision == precision && c.engine != "vector" && c.size && *c.size == n && !c.rejected &&
        (!best || c.flops_per_s > best->flops_per_s))
      best = &c;
  return best;
}

const compute_result* best_compute(const measured_roofs& m, const std::string& precision) {
  const compute_result* best = nullptr;
  for (const auto& c : m.compute)
    if (c.precision == precision && c.flops_per_s > 0 && !c.rejected && (!best || c.flops_per_s > best->flops_per_s)) best = &c;
  return best;
}

std::vector<std::string> measured_precisions(const measured_roofs& m) {
  std::vector<std::string> v;
  for (const auto& c : m.compute)
    if (c.flops_per_s > 0) v.push_back(c.precision);
  sort_precisions(v);
  return v;
}

std::vector<std::string> nominal_precisions(const nominal_roofs& n) {
  std::vector<std::string> v;
  for (const auto& p : n.peaks)
    if (p.flops_per_s > 0) v.push_back(p.precision);
  sort_precisions(v);
  return v;
}

const nominal_peak* peak_for(const nominal_roofs& n, const std::string& precision) {
  const nominal_peak* vec = nullptr;
  for (const auto& p : n.peaks) {
    if (p.precision != precision || p.flops_per_s <= 0) continue;
    if (p.engine == "tensor") return &p;
    if (!vec) vec = &p;
  }
  return vec;
}

const nominal_peak* vector_peak_for(const nominal_roofs& n, const std::string& precision) {
  for (const auto& p : n.peaks)
    if (p.precision == precision && p.engine == "vector" && p.flops_per_s > 0) return &p;
  return nullptr;
}

std::string main_precision(const results& r) {
  if (!r.roofline.precision.empty()) return r.roofline.precision;
  return r.device.kind == "cpu" ? "fp32" : "fp16";
}

std::string second_precision(const results& r) { return r.device.kind == "cpu" ? "fp64" : "fp32"; }

const factor* nominal_clock_factor(const nominal_roofs& n, const nominal_peak* p) {
  auto scan = [](const std::vector<factor>& fs) -> const factor* {
    for (const auto& f : fs) {
      std::string name = f.name;
      std::transform(name.begin(), name.end(), name.begin(), [](unsigned char c) { return std::tolower(c); });
      if (name.find("clock") == std::string::npos && name.find("frequency") == std::string::npos) continue;
      if (name.find("mem") != std::string::npos) continue;
      if (f.unit == "MHz" || f.unit == "GHz" || f.unit == "Hz") return &f;
    }
    return nullptr;
  };
  if (p)
    if (const factor* f = scan(p->factors)) return f;
  return scan(n.factors);
}

std::optional<double> nominal_clock_mhz(const nominal_roofs& n, const nominal_peak* p) {
  const factor* f = nominal_clock_factor(n, p);
  if (!f) return std::nullopt;
  if (f->unit == "GHz") return f->value * 1e3;
  if (f->unit == "Hz") return f->value / 1e6;
  return f->value;
}

std::optional<double> property_number(const results& r, const std::vector<std::string>& keys) {
  if (auto v = number_in(r.measured.telemetry, keys)) return v;
  return number_in(r.device.properties, keys);
}

std::optional<std::string> ecc_state(const results& r) {
  for (const json* obj : {&r.measured.telemetry, &r.device.properties}) {
    if (!obj->is_object()) continue;
    for (const char* k : {"ecc", "ecc_enabled", "ecc_mode"}) {
      auto it = obj->find(k);
      if (it == obj->end() || it->is_null()) continue;
      if (it->is_boolean()) return it->get<bool>() ? "on" : "off";
      if (it->is_string()) {
        const std::string s = it->get<std::string>();
        if (s == "enabled" || s == "on" || s == "true") return std::string("on");
        if (s == "disabled" || s == "off" || s == "false") return std::string("off");
        return s;
      }
    }
  }
  return std::nullopt;
}

decode_step decode_batch1(const results& r) {
  decode_step d;
  for (const auto& op : r.ops) {
    if (op.phase != "decode" || op.batch != 1 || !op.alternative_to.empty()) continue;
    ++d.ops;
    d.flops += op.flops * static_cast<double>(op.count);
    d.bytes += op.bytes * static_cast<double>(op.count);
    if (op.measured_s) ++d.measured;
  }
  if (d.ops == 0) {
    d.why = "no decode ops at batch 1 in the results";
  } else if (d.measured < d.ops) {
    d.why = std::to_string(d.ops - d.measured) + " of " + std::to_string(d.ops) + " decode ops not run";
  } else {
    double t = 0;
    for (const auto& op : r.ops)
      if (op.phase == "decode" && op.batch == 1 && op.alternative_to.empty()) t += *op.measured_s * static_cast<double>(op.count);
    d.tpot_s = t;
  }
  return d;
}

ridge_pair ridge_for(const results& r, const std::string& precision) {
  ridge_pair rp;
  if (const nominal_peak* p = peak_for(r.nominal, precision)) rp.peak_nominal = p->flops_per_s;
  if (const compute_result* c = best_compute(r.measured, precision)) rp.peak_measured = c->flops_per_s;
  if (r.nominal.memory_bandwidth_bytes_per_s && *r.nominal.memory_bandwidth_bytes_per_s > 0)
    rp.bw_nominal = r.nominal.memory_bandwidth_bytes_per_s;
  if (const bandwidth_result* b = best_device_bandwidth(r.measured)) rp.bw_measured = b->bytes_per_s;
  // The roofs the ops were placed against (results.roofline) win, so every ridge in the report is
  // the one the op table used.
  if (r.roofline.precision == precision && r.roofline.peak_measured > 0 && r.roofline.bandwidth_measured > 0) {
    rp.peak_measured = r.roofline.peak_measured;
    rp.bw_measured = r.roofline.bandwidth_measured;
  }
  if (rp.peak_nominal && rp.bw_nominal) rp.nominal = *rp.peak_nominal / *rp.bw_nominal;
  if (rp.peak_measured && rp.bw_measured) rp.measured = *rp.peak_measured / *rp.bw_measured;
  return rp;
}

double achieved(double flops, double s) { return s > 0 ? flops / s : 0; }

}  // namespace roofline::report
