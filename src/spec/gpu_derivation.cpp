// GPU nominal peaks, multiplied out from their factors (never typed in).
// Sources of every factor are in data/devices/*.json; the formulas are in docs/formulas-spec.md.
#include "spec/gpu_derivation.hpp"

#include <cctype>
#include <fmt/format.h>
#include <optional>

#include "roofline/error.hpp"
#include "roofline/spec.hpp"
#include "roofline/units.hpp"
#include "spec/name_match.hpp"

namespace roofline::spec_detail {

std::string num(double v) { return fmt::format("{:g}", v); }

namespace {

const factor flop_per_fma{"FLOP per FMA", 2, "FLOP", "definition: one fused multiply-add is 2 FLOP"};
const factor op_per_mac{"OP per MAC", 2, "OP", "definition: one integer multiply-accumulate is 2 OP"};

factor table_factor(const std::string& name, const sourced& s, const std::string& unit) {
  return {name, s.value, unit, "table: " + s.source};
}

nominal_peak tensor_peak(const chip_rates& c, const tensor_rate& r, const gpu_factors& g, const std::string& pre) {
  nominal_peak p;
  p.precision = r.precision;
  p.accumulate = r.accumulate;
  p.engine = "tensor";
  const factor tc{"tensor cores per SM", c.tensor_cores_per_sm.value, "", pre + c.tensor_cores_per_sm.source};
  const factor fma{"dense FMA per tensor core per clock (" + r.precision + ", " + r.accumulate + " accumulate)",
                   r.fma_per_tc_per_clock, "FMA/clk", pre + r.source};
  const bool tensor_clock = g.tensor_clock_mhz && !r.at_boost_clock;
  const factor clock = tensor_clock ? *g.tensor_clock_mhz : g.boost_clock_mhz;
  p.factors = {g.sms, tc, fma};
  double rate = g.sms.value * tc.value * fma.value;
  std::string formula = fmt::format("{} SM × {} TC × {} FMA/clk", num(g.sms.value), num(tc.value), num(fma.value));
  if (g.geforce && r.accumulate == "fp32" && c.geforce_fp32_accumulate_factor) {
    const auto& f = *c.geforce_fp32_accumulate_factor;
    p.factors.push_back({"GeForce fp32-accumulate rate", f.value, "", pre + f.source});
    rate *= f.value;
    formula += fmt::format(" × {} (GeForce fp32 accumulate)", num(f.value));
    p.note = "GeForce product: tensor math with fp32 accumulate runs at " + num(f.value) + "× the fp16-accumulate rate";
  }
  if (g.fp32_accumulate_factor && r.accumulate == "fp32") {
    p.factors.push_back(*g.fp32_accumulate_factor);
    rate *= g.fp32_accumulate_factor->value;
    formula += fmt::format(" × {} (product fp32-accumulate rate)", num(g.fp32_accumulate_factor->value));
    p.note += (p.note.empty() ? "" : "; ") + std::string("fp32-accumulate tensor math at ") + num(g.fp32_accumulate_factor->value) +
              "× the chip's rate on this product";
  }
  if (g.tensor_rate_factor) {
    p.factors.push_back(*g.tensor_rate_factor);
    rate *= g.tensor_rate_factor->value;
    formula += fmt::format(" × {} (product tensor rate)", num(g.tensor_rate_factor->value));
  }
  const bool integer = r.precision.rfind("int", 0) == 0;
  p.factors.push_back(integer ? op_per_mac : flop_per_fma);
  p.factors.push_back(clock);
  p.flops_per_s = rate * 2 * clock.value * 1e6;
  p.formula = formula + fmt::format(" × 2 {} × {} GHz", integer ? "OP/MAC" : "FLOP/FMA", num(clock.value / 1e3));
  if (tensor_clock && !g.tensor_clock_note.empty())
    p.note += (p.note.empty() ? "" : "; ") + g.tensor_clock_note;
  if (c.structured_sparsity && r.precision != "fp64") p.sparse_flops_per_s = 2 * p.flops_per_s;
  return p;
}

nominal_peak vector_peak(const std::string& precision, const std::string& accumulate, const sourced& lanes,
                         const std::string& lane_name, const gpu_factors& g, const std::string& pre) {
  nominal_peak p;
  p.precision = precision;
  p.accumulate = accumulate;
  p.engine = "vector";
  const factor l{lane_name, lanes.value, "FMA/clk", pre + lanes.source};
  p.factors = {g.sms, l, flop_per_fma, g.boost_clock_mhz};
  p.flops_per_s = g.sms.value * lanes.value * 2 * g.boost_clock_mhz.value * 1e6;
  p.formula = fmt::format("{} SM × {} {} × 2 FLOP/FMA × {} GHz", num(g.sms.value), num(lanes.value), lane_name,
                          num(g.boost_clock_mhz.value / 1e3));
  return p;
}

}  // namespace

std::vector<nominal_peak> derive_peaks(const chip_rates& c, const gpu_factors& g, const std::string& pre) {
  std::vector<nominal_peak> peaks;
  for (const auto& r : c.tensor_rates) peaks.push_back(tensor_peak(c, r, g, pre));
  if (c.fp64_lanes_per_sm) peaks.push_back(vector_peak("fp64", "fp64", *c.fp64_lanes_per_sm, "FP64 lanes/SM", g, pre));
  peaks.push_back(vector_peak("fp32", "fp32", c.fp32_lanes_per_sm, "FP32 lanes/SM", g, pre));
  if (c.fp16_vector_fma_per_sm)
    peaks.push_back(vector_peak("fp16", "fp16", *c.fp16_vector_fma_per_sm, "FP16 FMA/SM (half2)", g, pre));
  return peaks;
}

void apply_peak_caps(std::vector<nominal_peak>& peaks, const std::vector<peak_cap>& caps, const std::string& pre) {
  for (const auto& c : caps)
    for (auto& p : peaks) {
      if (p.precision != c.precision || p.engine != c.engine || !(c.tflops * 1e12 < p.flops_per_s)) continue;
      p.factors.push_back({"product throughput cap (" + c.precision + " " + c.engine + ")", c.tflops, "TFLOP/s", pre + c.source});
      p.formula = fmt::format("min({} = {} TFLOP/s, product cap {} TFLOP/s)", p.formula, num(p.flops_per_s / 1e12), num(c.tflops));
      p.flops_per_s = c.tflops * 1e12;
      if (p.sparse_flops_per_s) p.sparse_flops_per_s = 2 * p.flops_per_s;
      p.note += (p.note.empty() ? "" : "; ") + std::string("capped by the product below what its SMs and clock would give");
    }
}

double derive_bandwidth(double bus_bits, double rate_gbps, std::string& formula) {
  formula = fmt::format("{} bit / 8 × {} Gbit/s per pin", num(bus_bits), num(rate_gbps));
  return bus_bits / 8 * rate_gbps * 1e9;
}

nominal_roofs derive_table_row(const device_table& t, const sku_row& s) {
  const chip_rates& c = t.chip_of(s);
  nominal_roofs n;
  n.device_name = s.name;
  n.source = "table";
  gpu_factors g;
  g.sms = table_factor("SMs", s.sms, "");
  g.boost_clock_mhz = table_factor("boost clock", s.boost_clock_mhz, "MHz");
  if (s.tensor_clock_mhz) {
    g.tensor_clock_mhz = table_factor("tensor clock (datasheet's tensor peaks)", *s.tensor_clock_mhz, "MHz");
    g.tensor_clock_note = s.tensor_clock_mhz->note;
  }
  g.geforce = s.product_class == "geforce";
  if (s.fp32_accumulate_factor) {
    g.fp32_accumulate_factor = table_factor("product fp32-accumulate tensor rate factor", *s.fp32_accumulate_factor, "");
    if (!s.fp32_accumulate_factor->note.empty()) g.fp32_accumulate_factor->source += " (" + s.fp32_accumulate_factor->note + ")";
  }
  if (s.tensor_rate_factor) {
    g.tensor_rate_factor = table_factor("product tensor rate factor", *s.tensor_rate_factor, "");
    if (!s.tensor_rate_factor->note.empty()) g.tensor_rate_factor->source += " (" + s.tensor_rate_factor->note + ")";
  }

  n.factors = {g.sms,
               table_factor("tensor cores per SM", c.tensor_cores_per_sm, ""),
               table_factor("FP32 lanes per SM", c.fp32_lanes_per_sm, "FMA/clk")};
  if (c.fp64_lanes_per_sm) n.factors.push_back(table_factor("FP64 lanes per SM", *c.fp64_lanes_per_sm, "FMA/clk"));
  else n.notes.push_back("fp64 vector peak: unknown (" + c.fp64_reason + ")");
  if (c.fp16_vector_fma_per_sm) n.factors.push_back(table_factor("FP16 FMA per SM (half2)", *c.fp16_vector_fma_per_sm, "FMA/clk"));
  n.factors.push_back(g.boost_clock_mhz);
  if (g.tensor_clock_mhz) n.factors.push_back(*g.tensor_clock_mhz);
  const factor bus = table_factor("memory bus width (" + s.memory_type + ")", s.bus_width_bits, "bit");
  const factor rate = table_factor("memory data rate per pin (" + s.memory_type + ")", s.data_rate_gbps, "Gbit/s");
  n.factors.push_back(bus);
  n.factors.push_back(rate);
  n.factors.push_back(table_factor("memory size", s.memory_size_gb, "GB"));
  if (s.l2_mib) n.factors.push_back(table_factor("L2 cache", *s.l2_mib, "MiB"));
  else n.notes.push_back("L2 cache: unknown (" + s.l2_reason + ")");
  n.factors.push_back(table_factor("TDP", s.tdp_w, "W"));
  if (s.pcie)
    n.factors.push_back({"PCIe bandwidth (Gen" + std::to_string(s.pcie->generation) + " x" + std::to_string(s.pcie->lanes) +
                             ", both directions)",
                         s.pcie->gb_per_s, "GB/s", "table: " + s.pcie->source});
  else
    n.notes.push_back("PCIe: none (" + s.pcie_reason + ")");
  if (s.nvlink) {
    n.factors.push_back({"NVLink links", static_cast<double>(s.nvlink->links), "", "table: " + s.nvlink->source});
    n.factors.push_back({"NVLink bandwidth per link (both directions)", s.nvlink->gb_per_s_per_link, "GB/s", "table: " + s.nvlink->source});
  } else {
    n.notes.push_back("NVLink: none on this product");
  }

  n.peaks = derive_peaks(c, g, "table: ");
  apply_peak_caps(n.peaks, s.peak_caps, "table: ");
  // A part no vendor datasheet covers: every peak says what it rests on (`mfu` prints it beside the MFU).
  if (s.datasheet.source.rfind("none: ", 0) == 0)
    for (auto& p : n.peaks) {
      std::string basis = s.datasheet.source.substr(6);
      if (p.engine == "tensor" && s.tensor_rate_factor && !s.tensor_rate_factor->note.empty()) basis = s.tensor_rate_factor->note;
      if (p.engine == "tensor" && p.accumulate == "fp32" && s.fp32_accumulate_factor && !s.fp32_accumulate_factor->note.empty())
        basis = s.fp32_accumulate_factor->note;
      p.note += (p.note.empty() ? "" : "; ") + ("uncertain, no vendor datasheet: " + basis);
    }
  for (const auto& u : s.unknown_peaks) {  // a rate the chip has but this product's figure is unpublished
    std::erase_if(n.peaks, [&](const nominal_peak& p) {
      return p.engine == u.engine && (u.precision == "*" || p.precision == u.precision);
    });
    n.notes.push_back(u.precision == "*" ? fmt::format("{} peaks (every precision): unknown ({})", u.engine, u.reason)
                                         : fmt::format("{} {} peak: unknown ({})", u.precision, u.engine, u.reason));
  }
  if (c.vendor == "AMD")
    n.notes.push_back("AMD part: an \"SM\" in the formulas is a Compute Unit and a \"tensor core\" a Matrix Core; spec only "
                      "(derivation, compare, mfu): roofline measures CUDA GPUs");
  n.memory_factors = {bus, rate};
  n.memory_bandwidth_bytes_per_s = derive_bandwidth(s.bus_width_bits.value, s.data_rate_gbps.value, n.memory_bandwidth_formula);

  n.notes.push_back(fmt::format("architecture: {} {} ({}), compute capability {}", c.vendor, c.architecture, c.chip,
                                c.compute_capabilities.empty() ? "?" : c.compute_capabilities.front()));
  if (g.geforce && c.geforce_fp32_accumulate_factor)
    n.notes.push_back("GeForce product: tensor math with fp32 accumulate runs at " + num(c.geforce_fp32_accumulate_factor->value) +
                      "× rate (" + c.geforce_fp32_accumulate_factor->source + ")");
  if (s.tensor_clock_mhz && !s.tensor_clock_mhz->note.empty()) n.notes.push_back("tensor clock: " + s.tensor_clock_mhz->note);
  if (c.structured_sparsity) n.notes.push_back("sparse figures (2:4 structured sparsity) are shown labelled sparse and never used as a peak");
  for (const auto& [field, text] : s.notes) n.notes.push_back(field + ": " + text);
  if (s.ecc) {
    const ecc_cost& e = *s.ecc;
    if (e.bandwidth_factor)
      n.factors.push_back(table_factor("ECC-on bandwidth factor (" + s.memory_type + ", in-band ECC bits)", *e.bandwidth_factor, ""));
    n.factors.push_back(table_factor("ECC-on capacity factor (" + s.memory_type + ", in-band ECC bits)", e.capacity_factor, ""));
    const std::string bandwidth =
        e.bandwidth_factor ? fmt::format("bandwidth ceiling {} × {} = {}", units::rate_bytes(*n.memory_bandwidth_bytes_per_s),
                                         num(e.bandwidth_factor->value),
                                         units::rate_bytes(*n.memory_bandwidth_bytes_per_s * e.bandwidth_factor->value))
                           : "bandwidth cost not documented for this part (" + e.bandwidth_reason + ")";
    n.notes.push_back(fmt::format("ECC: with {} (on by default: {}): {}, capacity {} GB × {} = {} GB (derived; the nominal "
                                  "above is the datasheet's, ECC off)",
                                  e.when, e.default_state == "on" ? "yes" : "no", bandwidth, num(s.memory_size_gb.value),
                                  num(e.capacity_factor.value), num(s.memory_size_gb.value * e.capacity_factor.value)));
  }
  if (s.gcds)
    n.notes.push_back(fmt::format("GCDs: the runtime (ROCm) shows each of the {} GCDs as its own device: {} CUs, {} GB, {} each "
                                  "(roofline spec '{} GCD'); ops, place and mfu --gpus count GCDs",
                                  num(s.gcds->value), num(s.sms.value / s.gcds->value), num(s.memory_size_gb.value / s.gcds->value),
                                  units::rate_bytes(*n.memory_bandwidth_bytes_per_s / s.gcds->value), s.name));
  return n;
}

}  // namespace roofline::spec_detail

namespace roofline {

namespace {

/// "NVIDIA A100-SXM4-40GB MIG 1g.5gb" (as cudaDeviceProp::name and nvidia-smi print a MIG device):
/// the base name and the profile, or nullopt without a " MIG " suffix.
std::optional<std::pair<std::string, std::string>> split_mig(const std::string& name) {
  std::string lower = name;
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  const auto at = lower.rfind(" mig ");
  if (at == std::string::npos) return std::nullopt;
  std::string profile = lower.substr(at + 5);
  profile.erase(0, profile.find_first_not_of(' '));
  profile.erase(profile.find_last_not_of(' ') + 1);
  return std::make_pair(name.substr(0, at), profile);
}

/// A MIG instance of a table SKU: its profile's SMs, and its memory slices' share of the bus (each
/// slice has its own memory controllers and DRAM: the bandwidth and capacity scale with the slices),
/// of the memory size and of the L2 (NVIDIA Multi-Instance GPU User Guide, 'Supported MIG Profiles').
spec_detail::sku_row mig_instance(const spec_detail::sku_row& s, const std::string& profile, const std::string& field) {
  for (const auto& m : s.mig_profiles) {
    if (m.name != profile) continue;
    spec_detail::sku_row r = s;
    const double f = double(m.memory_slices) / double(m.memory_slices_total);
    const std::string slices = fmt::format("{}/{} memory slices", m.memory_slices, m.memory_slices_total);
    r.name = s.name + " MIG " + m.name;
    r.sms = {double(m.sms), fmt::format("MIG {}: {}", m.name, m.source), ""};
    r.bus_width_bits = {s.bus_width_bits.value * f, fmt::format("MIG {}: {} of {} bit ({}); {}", m.name, slices,
                                                                s.bus_width_bits.value, s.bus_width_bits.source, m.source), ""};
    r.memory_size_gb = {s.memory_size_gb.value * f, fmt::format("MIG {}: {} of {} GB; {}", m.name, slices, s.memory_size_gb.value, m.source), ""};
    if (r.l2_mib) r.l2_mib = spec_detail::sourced{s.l2_mib->value * f, fmt::format("MIG {}: {} of the L2; {}", m.name, slices, m.source), ""};
    r.nvlink.reset();  // MIG instances do not use NVLink or GPU peer-to-peer (MIG User Guide, 'Supported Configurations')
    r.notes.emplace_back("MIG", fmt::format("{} of {}: {} SMs of {}, {} (peaks and bandwidth of the instance, not of the GPU)",
                                            m.name, s.name, m.sms, s.sms.value, slices));
    r.datasheet = {};  // the datasheet's figures are the whole GPU's
    r.datasheet.source = "none for a MIG instance: " + s.datasheet.source + " is the whole GPU";
    return r;
  }
  std::string known;
  for (const auto& m : s.mig_profiles) known += (known.empty() ? "" : ", ") + m.name;
  throw input_error("", field, s.mig_profiles.empty() ? fmt::format("{} has no MIG profiles in the table", s.name)
                                                      : fmt::format("MIG profile '{}' is not one of {}'s: {}", profile, s.name, known));
}

/// "AMD Instinct MI250X GCD": the base name, or nullopt without a trailing " GCD" word.
std::optional<std::string> split_gcd(const std::string& name) {
  std::string lower = name;
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  while (!lower.empty() && lower.back() == ' ') lower.pop_back();
  if (lower.size() < 5 || lower.compare(lower.size() - 4, 4, " gcd") != 0) return std::nullopt;
  return name.substr(0, lower.size() - 4);
}

/// One GCD of a multi-die module (MI250X: 2 GCDs, each its own ROCm device): the module's CUs,
/// bus, capacity and L2 divided by the GCDs (AMD ROCm documentation, 'AMD Instinct MI250
/// microarchitecture': each GCD has its own HBM stacks and L2; MI250 GCD 104 CUs, 1.6 TB/s).
spec_detail::sku_row gcd_instance(const spec_detail::sku_row& s, const std::string& field) {
  if (!s.gcds) throw input_error("", field, s.name + " is one device (no GCDs in the table); drop ' GCD'");
  const double k = s.gcds->value;
  spec_detail::sku_row r = s;
  const std::string share = fmt::format("1 of {} GCDs ({})", spec_detail::num(k), s.gcds->source);
  r.name = s.name + " GCD";
  r.sms = {s.sms.value / k, fmt::format("{} of {}: {}; {}", spec_detail::num(s.sms.value / k), spec_detail::num(s.sms.value), s.sms.source, share), ""};
  r.bus_width_bits = {s.bus_width_bits.value / k, fmt::format("{} of {} bit: {}; {}", spec_detail::num(s.bus_width_bits.value / k),
                                                              spec_detail::num(s.bus_width_bits.value), s.bus_width_bits.source, share), ""};
  r.memory_size_gb = {s.memory_size_gb.value / k, fmt::format("{} of {} GB: {}; {}", spec_detail::num(s.memory_size_gb.value / k),
                                                              spec_detail::num(s.memory_size_gb.value), s.memory_size_gb.source, share), ""};
  if (r.l2_mib) r.l2_mib = spec_detail::sourced{s.l2_mib->value / k, fmt::format("{}; {}", s.l2_mib->source, share), ""};
  r.tdp_w.source = "the whole module's (not a per-GCD limit): " + s.tdp_w.source;
  r.notes.emplace_back("GCD", fmt::format("one of the {} GCDs of {}, as the runtime shows it: {} CUs of {} (peaks and bandwidth "
                                          "of one device; --gpus counts GCDs)",
                                          spec_detail::num(k), s.name, spec_detail::num(s.sms.value / k), spec_detail::num(s.sms.value)));
  r.datasheet = {};
  r.datasheet.source = "none for one GCD: " + s.datasheet.source + " is the whole module";
  r.gcds.reset();
  return r;
}

}  // namespace

nominal_roofs gpu_nominal(const std::string& name, const std::string& field) {
  const auto t = spec_detail::load_default_table();
  if (const auto mig = split_mig(name)) {
    const spec_detail::sku_row inst = mig_instance(spec_detail::match_forgiving(t, mig->first, field), mig->second, field);
    return spec_detail::derive_table_row(t, inst);
  }
  if (const auto base = split_gcd(name))
    return spec_detail::derive_table_row(t, gcd_instance(spec_detail::match_forgiving(t, *base, field), field));
  return spec_detail::derive_table_row(t, spec_detail::match_forgiving(t, name, field));
}

nominal_roofs gpu_device_nominal(const std::string& name, const std::string& field) {
  if (!split_mig(name) && !split_gcd(name)) {
    const auto t = spec_detail::load_default_table();
    const auto& s = spec_detail::match_forgiving(t, name, field);
    if (s.gcds) return spec_detail::derive_table_row(t, gcd_instance(s, field));
  }
  return gpu_nominal(name, field);
}

std::optional<ecc_ceiling> gpu_ecc_ceiling(const std::string& name) {
  if (split_mig(name) || split_gcd(name)) return std::nullopt;  // HBM parts: ECC costs them nothing the table states
  const auto t = spec_detail::load_default_table();
  const auto& s = spec_detail::match_forgiving(t, name);
  if (!s.ecc) return std::nullopt;
  ecc_ceiling e;
  e.when = s.ecc->when;
  e.default_on = s.ecc->default_state == "on";
  e.capacity_factor = s.ecc->capacity_factor.value;
  e.capacity_source = s.ecc->capacity_factor.source;
  std::string formula;
  const double nominal = spec_detail::derive_bandwidth(s.bus_width_bits.value, s.data_rate_gbps.value, formula);
  if (s.ecc->bandwidth_factor) {
    e.bandwidth_factor = s.ecc->bandwidth_factor->value;
    e.bandwidth_source = s.ecc->bandwidth_factor->source;
    e.bandwidth_bytes_per_s = nominal * *e.bandwidth_factor;
  } else {
    e.bandwidth_source = "not documented for this part (" + s.ecc->bandwidth_reason + ")";
  }
  e.memory_gb = s.memory_size_gb.value * e.capacity_factor;
  return e;
}

datasheet_values gpu_datasheet(const std::string& name) {
  const auto t = spec_detail::load_default_table();
  const auto& s = spec_detail::match_forgiving(t, name);
  datasheet_values d;
  d.source = s.datasheet.source;
  for (const auto& p : s.datasheet.tensor) d.tensor.push_back({p.precision, p.accumulate, p.tflops * 1e12});
  d.fp32_flops_per_s = s.datasheet.fp32_tflops * 1e12;
  d.bandwidth_bytes_per_s = s.datasheet.bandwidth_gb_per_s * 1e9;
  d.notes = s.notes;
  return d;
}

gpu_link_info gpu_links(const std::string& name) {
  const auto t = spec_detail::load_default_table();
  const auto& s = spec_detail::match_forgiving(t, name);
  gpu_link_info l;
  if (s.pcie) {
    l.pcie_generation = s.pcie->generation;
    l.pcie_lanes = s.pcie->lanes;
    l.pcie_bytes_per_s = s.pcie->gb_per_s * 1e9;
    l.pcie_source = s.pcie->source;
  } else {
    l.pcie_source = "none: " + s.pcie_reason;  // generation, lanes and bandwidth stay 0
  }
  if (s.nvlink) {
    l.nvlink_links = s.nvlink->links;
    l.nvlink_bytes_per_s_per_link = s.nvlink->gb_per_s_per_link * 1e9;
    l.nvlink_source = s.nvlink->source;
  }
  return l;
}

}  // namespace roofline
