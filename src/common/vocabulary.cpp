#include "roofline/json.hpp"
#include "roofline/vocabulary.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <set>

#include "roofline/error.hpp"

#include "roofline/text.hpp"

namespace roofline {

namespace {


int precision_rank(const std::string& p) {
  const auto& order = known_precisions();
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

/// Cache levels first, nearest the core first (l1, l2, l3, llc); every other name after them.
int cache_order(const std::string& l) {
  const memory_tier t = memory_tier_of(l);
  return t < memory_tier::device ? static_cast<int>(t) : 10;
}

std::optional<double> to_mhz(const factor& f) {
  const std::string u = lowercase(f.unit);
  if (u == "ghz") return f.value * 1e3;
  if (u == "mhz") return f.value;
  if (u == "khz") return f.value * 1e-3;
  if (u == "hz") return f.value * 1e-6;
  return std::nullopt;
}

const factor* clock_in(const std::vector<factor>& fs) {
  const factor* any = nullptr;
  for (const auto& f : fs) {
    const std::string n = lowercase(f.name);
    if ((n.find("clock") == std::string::npos && n.find("frequency") == std::string::npos) ||
        n.find("mem") != std::string::npos)
      continue;
    const auto mhz = to_mhz(f);
    if (!mhz || *mhz <= 0) continue;
    if (n.find("boost") != std::string::npos || n.find("max") != std::string::npos) return &f;
    if (!any) any = &f;
  }
  return any;
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

const std::vector<memory_level_name> memory_level_names = {
    {"l1", memory_tier::l1, "L1"},         {"l2", memory_tier::l2, "L2"},
    {"l3", memory_tier::l3, "L3"},         {"llc", memory_tier::llc, "LLC"},
    {"dram", memory_tier::device, "DRAM"}, {"hbm", memory_tier::device, "HBM"},
    {"gddr", memory_tier::device, "GDDR"}, {"device", memory_tier::device, "device memory"},
    {"memory", memory_tier::device, "device memory"},
};

memory_tier memory_tier_of(const std::string& level) {
  for (const auto& n : memory_level_names)
    if (level == n.key) return n.tier;
  return memory_tier::unknown;
}

std::string memory_level_label(const std::string& level) {
  for (const auto& n : memory_level_names)
    if (level == n.key) return n.label;
  std::string up = level;
  std::transform(up.begin(), up.end(), up.begin(), [](unsigned char c) { return std::toupper(c); });
  return up;
}

bool is_device_memory(const std::string& level) { return memory_tier_of(level) == memory_tier::device; }

bool is_transition_level(const std::string& level) {
  return level.empty() || level.find('+') != std::string::npos || level == "mixed" || level == "transition";
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

const bandwidth_result* rejected_device_bandwidth(const measured_roofs& m, const std::string& pattern) {
  for (const auto& b : m.bandwidth)
    if (b.pattern == pattern && b.rejected && is_device_memory(b.level)) return &b;
  return nullptr;
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
    const int ra = cache_order(a), rb = cache_order(b);
    return ra != rb ? ra < rb : a < b;
  });
  v.erase(std::unique(v.begin(), v.end()), v.end());
  return v;
}

bool is_gemm_engine(const std::string& engine) { return engine == "gemm" || engine == "tensor"; }

namespace {
/// The fastest non-rejected result of `precision` that `keep` accepts (nullptr when none).
template <class Keep>
const compute_result* best_compute_where(const measured_roofs& m, const std::string& precision, Keep keep) {
  const compute_result* best = nullptr;
  for (const auto& c : m.compute)
    if (c.precision == precision && !c.rejected && c.flops_per_s > 0 && keep(c) && (!best || c.flops_per_s > best->flops_per_s))
      best = &c;
  return best;
}
}  // namespace

const compute_result* best_compute(const measured_roofs& m, const std::string& precision) {
  if (const compute_result* g = best_compute_where(m, precision, [](const compute_result& c) { return is_gemm_engine(c.engine); }))
    return g;
  return best_compute_where(m, precision, [](const compute_result& c) { return c.engine == "vector"; });
}

const compute_result* best_compute_on(const measured_roofs& m, const std::string& precision, const std::string& engine) {
  if (engine.empty()) return best_compute(m, precision);
  if (is_gemm_engine(engine))
    return best_compute_where(m, precision, [](const compute_result& c) { return is_gemm_engine(c.engine); });
  return best_compute_where(m, precision, [&engine](const compute_result& c) { return c.engine == engine; });
}

const compute_result* gemm_at(const measured_roofs& m, const std::string& precision, std::int64_t n) {
  return best_compute_where(m, precision, [n](const compute_result& c) { return is_gemm_engine(c.engine) && c.size && *c.size == n; });
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

const nominal_peak* peak_for(const nominal_roofs& n, const std::string& precision, peak_engine which) {
  const nominal_peak *tensor = nullptr, *other = nullptr, *vector = nullptr, *highest = nullptr;
  for (const auto& p : n.peaks) {
    if (p.precision != precision || !(p.flops_per_s > 0)) continue;
    if (p.engine == "tensor") {
      if (!tensor) tensor = &p;
    } else if (!other) {
      other = &p;
    }
    if (p.engine == "vector" && !vector) vector = &p;
    if (!highest || p.flops_per_s > highest->flops_per_s) highest = &p;
  }
  switch (which) {
    case peak_engine::tensor: return tensor;
    case peak_engine::vector: return vector;
    case peak_engine::highest: return highest;
    case peak_engine::roof: break;
  }
  return tensor ? tensor : other;
}

const factor* nominal_clock_factor(const nominal_roofs& n, const nominal_peak* p) {
  if (p)
    if (const factor* f = clock_in(p->factors)) return f;
  return clock_in(n.factors);
}

std::optional<double> nominal_clock_mhz(const nominal_roofs& n, const nominal_peak* p) {
  const factor* f = nominal_clock_factor(n, p);
  return f ? to_mhz(*f) : std::nullopt;
}

std::optional<double> sm_count(const results& r) {
  if (auto v = number_in(r.device.properties, {"sms", "SMs", "multiprocessors"}); v && *v > 0) return v;
  auto scan = [](const std::vector<factor>& fs) -> std::optional<double> {
    for (const auto& f : fs) {
      const std::string n = lowercase(f.name);
      if ((n == "sms" || n == "sm count" || n == "streaming multiprocessors") && f.value > 0) return f.value;
    }
    return std::nullopt;
  };
  if (auto v = scan(r.nominal.factors)) return v;
  for (const auto& pk : r.nominal.peaks)
    if (auto v = scan(pk.factors)) return v;
  return std::nullopt;
}

const std::vector<std::string>& known_precisions() {
  static const std::vector<std::string> order = {"fp64", "fp32", "tf32", "bf16", "fp16", "fp8", "int8"};
  return order;
}

std::string default_precision(const std::string& device_kind) { return device_kind == "cpu" ? "fp32" : "fp16"; }

std::string main_precision(const results& r) {
  return r.roofline.precision.empty() ? default_precision(r.device.kind) : r.roofline.precision;
}

std::string second_precision(const std::string& device_kind) { return device_kind == "cpu" ? "fp64" : "fp32"; }

device_arg parse_device(const std::string& d) {
  if (d == "auto") return {device_arg::kind::auto_select, 0};
  if (d == "cpu") return {device_arg::kind::cpu, 0};
  if (d == "cuda") return {device_arg::kind::cuda, 0};
  if (d.rfind("cuda:", 0) == 0) {
    const std::string num = d.substr(5);
    if (num.empty() || num.size() > 4 || num.find_first_not_of("0123456789") != std::string::npos)
      throw input_error("", "--device", "bad GPU index in '" + d + "' (expected cuda:N)");
    return {device_arg::kind::cuda, std::stoi(num)};
  }
  throw input_error("", "--device", "unknown device '" + d + "' (expected auto, cpu or cuda:N)");
}

std::optional<double> property_number(const results& r, const std::vector<std::string>& keys) {
  if (auto v = number_in(r.measured.telemetry, keys)) return v;
  return number_in(r.device.properties, keys);
}

std::optional<std::string> ecc_state(const results& r, std::string* source) {
  const std::pair<const json*, const char*> places[] = {{&*r.measured.telemetry, "measured.telemetry."},
                                                        {&*r.device.properties, "device.properties."}};
  for (const auto& [obj, prefix] : places) {
    if (!obj->is_object()) continue;
    for (const char* k : {"ecc", "ecc_enabled", "ecc_mode"}) {
      auto it = obj->find(k);
      if (it == obj->end() || it->is_null()) continue;
      if (source) *source = std::string(prefix) + k;
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

ridge_pair ridge_for(const results& r, const std::string& precision) {
  ridge_pair rp;
  if (const nominal_peak* p = peak_for(r.nominal, precision)) rp.peak_nominal = p->flops_per_s;
  if (const compute_result* c = best_compute(r.measured, precision)) rp.peak_measured = c->flops_per_s;
  if (r.nominal.memory_bandwidth_bytes_per_s && *r.nominal.memory_bandwidth_bytes_per_s > 0)
    rp.bw_nominal = r.nominal.memory_bandwidth_bytes_per_s;
  if (const bandwidth_result* b = best_device_bandwidth(r.measured)) rp.bw_measured = b->bytes_per_s;
  if (r.roofline.precision == precision && r.roofline.peak_measured > 0 && r.roofline.bandwidth_measured > 0) {
    rp.peak_measured = r.roofline.peak_measured;
    rp.bw_measured = r.roofline.bandwidth_measured;
  }
  if (rp.peak_nominal && rp.bw_nominal) rp.nominal = *rp.peak_nominal / *rp.bw_nominal;
  if (rp.peak_measured && rp.bw_measured) rp.measured = *rp.peak_measured / *rp.bw_measured;
  return rp;
}

std::vector<std::int64_t> decode_batches(const results& r) {
  std::set<std::int64_t> b;
  for (const auto& op : r.ops)
    if (op.phase == "decode") b.insert(op.batch);
  return {b.begin(), b.end()};
}

decode_step decode_step_at(const results& r, std::int64_t batch) {
  decode_step d;
  d.batch = batch;
  double sum = 0;
  int kept_out = 0;  // timed while the machine was busy (op_result::disturbed_s)
  for (const auto& op : r.ops) {
    if (op.phase != "decode" || op.batch != batch || !op.alternative_to.empty()) continue;
    const double c = static_cast<double>(op.count);
    ++d.ops;
    kept_out += op.disturbed_s.has_value();
    d.flops += op.flops * c;
    d.bytes += op.bytes * c;
    d.predicted_s += op.predicted_s * c;
    d.context = std::max(d.context, op.context);
    if (op.measured_s) {
      ++d.measured;
      sum += *op.measured_s * c;
    }
  }
  if (d.ops > 0 && d.measured == d.ops && sum > 0) d.sum_of_ops_s = sum;
  for (const auto& w : r.whole_step)
    if (w.phase == "decode" && w.batch == batch && w.measured_s && *w.measured_s > 0) {
      d.whole_step_s = w.measured_s;
      d.whole_step_predicted_s = w.predicted_s;
    }
  std::optional<double> user;
  if (batch == 1 && r.analysis.tpot_input && r.analysis.tpot_input->tpot_s > 0) user = r.analysis.tpot_input->tpot_s;
  if (d.ops == 0) {
    d.why = "no decode ops at batch " + std::to_string(batch) + " in the results";
  } else if (user) {
    d.tpot_s = user, d.tpot_source = "--tpot";
  } else if (d.whole_step_s) {
    d.tpot_s = d.whole_step_s, d.tpot_source = "whole step";
  } else if (d.sum_of_ops_s) {
    d.tpot_s = d.sum_of_ops_s, d.tpot_source = "sum of isolated ops";
  } else {
    const int not_run = d.ops - d.measured - kept_out;
    if (kept_out == 0) d.why = std::to_string(not_run) + " of " + std::to_string(d.ops) + " decode ops not run";
    else
      d.why = std::to_string(kept_out) + " of " + std::to_string(d.ops) + " decode op timings kept out (taken while the machine was busy)" +
              (not_run > 0 ? ", " + std::to_string(not_run) + " not run" : "");
  }
  return d;
}

std::string why_missing(const results& r, const std::vector<std::string>& words, const std::string& fallback) {
  auto matches = [&](const std::string& probe) {
    const std::string p = lowercase(probe);
    return std::all_of(words.begin(), words.end(), [&](const std::string& w) { return p.find(lowercase(w)) != std::string::npos; });
  };
  for (const auto& sk : r.measured.skipped)
    if (matches(sk.probe)) return sk.status + ": " + sk.reason;
  for (const auto& e : r.errors)
    if (matches(e.probe)) return "failed: " + e.message;
  return fallback;
}

json num_or_null(std::optional<double> v) { return v ? json(*v) : json(nullptr); }

}  // namespace roofline
