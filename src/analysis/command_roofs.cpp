// Resolution of the roofs a command places work against (roofline/command_roofs.hpp): the peak, the
// bandwidth (with ECC as asked), the device memory a step may use, and the refusal of a roof the
// device does not have. Conventions: docs/formulas-model.md §8.1 (memory), docs/formulas-spec.md §2.0 (ECC).
#include "roofline/command_roofs.hpp"

#include <cmath>
#include <fmt/format.h>

#include "roofline/analysis.hpp"
#include "roofline/error.hpp"
#include "roofline/json.hpp"
#include "roofline/spec.hpp"
#include "roofline/units.hpp"
#include "roofline/vocabulary.hpp"

namespace roofline {

namespace {

bool has_peak(const roofline_summary& s) { return s.peak_nominal > 0 || s.peak_measured > 0; }

constexpr double gib = 1024.0 * 1024.0 * 1024.0;

const factor* factor_named(const std::vector<factor>& fs, const std::string& name) {
  for (const auto& f : fs)
    if (f.name == name) return &f;
  return nullptr;
}

/// A GPU's 16-bit and narrower work runs on its tensor cores: a vector-engine peak of such a precision
/// is not its roof, and no peak at all is said the same way. Returns why the nominal peak is refused
/// or missing ("" when a tensor-core peak is there, or the device is no GPU, or the precision is fp32/fp64).
std::string missing_tensor_reason(const command_roofs& r) {
  if (r.device_kind != "cuda" || r.precision == "fp32" || r.precision == "fp64") return "";
  const nominal_peak* roof = peak_for(r.nominal, r.precision);
  if (roof && roof->engine == "tensor") return "";
  std::string why;
  for (const auto& n : r.nominal.notes)
    if (n.find("tensor") != std::string::npos && n.find("unknown") != std::string::npos) why = n;
  return fmt::format("{} has no {} tensor-core peak{}{}", r.nominal.device_name, r.precision,
                     why.empty() ? " in the table" : " (" + why + ")",
                     roof ? fmt::format(": its {} {} rate ({}) is not the roof of tensor-core work", r.precision, roof->engine,
                                        units::compute_rate(roof->flops_per_s, r.precision))
                          : std::string());
}

/// --device: ECC as asked (or as the part ships), applied to the nominal bandwidth; the words say which.
/// Returns the capacity factor (1 unless ECC is on and the part's row states its cost).
double apply_ecc(command_roofs& r, const std::string& device, const std::string& asked) {
  const auto e = gpu_ecc_ceiling(device);
  if (!e) {
    if (!asked.empty())
      r.bandwidth_note = fmt::format("--ecc {}: the table states no ECC cost for {} (HBM keeps ECC bits side-band; "
                                     "for other parts it is not documented): the nominal bandwidth and size are used",
                                     asked, r.nominal.device_name);
    return 1;
  }
  const bool on = asked.empty() ? e->default_on : asked == "on";
  const std::string why = asked.empty() ? std::string(on ? "as the part ships" : "off as the part ships") + "; --ecc " +
                                              (on ? "off" : "on") + " for the other"
                                        : "--ecc " + asked;
  const double nominal = r.nominal.memory_bandwidth_bytes_per_s.value_or(0);
  if (!on) {
    r.bandwidth_note = fmt::format("ECC off ({}): the nominal {}", why, units::rate_bytes(nominal));
    return 1;
  }
  if (e->bandwidth_bytes_per_s) {
    r.nominal.memory_bandwidth_bytes_per_s = *e->bandwidth_bytes_per_s;
    r.nominal.memory_bandwidth_formula += fmt::format(" × {} (ECC on)", units::plain(*e->bandwidth_factor));
    r.bandwidth_note = fmt::format("ECC on ({}): {} = {} × {} ({})", why, units::rate_bytes(*e->bandwidth_bytes_per_s),
                                   units::rate_bytes(nominal), units::plain(*e->bandwidth_factor), e->bandwidth_source);
  } else {
    r.bandwidth_note = fmt::format("ECC on ({}): the nominal {}; the bandwidth cost of ECC is {}", why,
                                   units::rate_bytes(nominal), e->bandwidth_source);
  }
  return e->capacity_factor;
}

/// The device memory a step may use, and how it was found.
void resolve_memory(command_roofs& r, double ecc_capacity, double utilization) {
  if (r.file) {
    const json& p = r.file->device.properties;
    if (p.is_object() && p.contains("memory_bytes") && p["memory_bytes"].is_number() && p["memory_bytes"].get<double>() > 0) {
      r.memory_bytes = p["memory_bytes"].get<double>();
      r.memory_source = fmt::format("{} measured by the run (device.properties.memory_bytes)", units::bytes_binary(r.memory_bytes));
    } else if (const factor* live = factor_named(r.nominal.factors, "memory size (live)")) {
      r.memory_bytes = live->value * gib;
      r.memory_source = fmt::format("{} measured by the run ({})", units::bytes_binary(r.memory_bytes), live->source);
    }
  }
  if (r.memory_bytes <= 0)
    if (const factor* table = factor_named(r.nominal.factors, "memory size"); table && table->unit == "GB") {
      // DRAM parts are binary-sized: a datasheet's "80 GB" is 80 GiB (nvidia-smi 81559 MiB on an H100
      // SXM, the runtime 79.2 GiB after the driver's reserve; a T4's 16 GB shows 15360 MiB with ECC on).
      r.memory_bytes = table->value * gib * ecc_capacity;
      r.memory_source = fmt::format("the table's {} GB read as GiB, as the GPU reports its binary-sized DRAM{}",
                                    units::plain(table->value),
                                    ecc_capacity < 1 ? fmt::format(", × {} with ECC on", units::plain(ecc_capacity)) : "");
    }
  if (r.memory_bytes > 0 && utilization < 1) {
    r.memory_bytes *= utilization;
    r.memory_source += fmt::format("; × {} usable (--gpu-memory-utilization)", units::plain(utilization));
  }
}

}  // namespace

std::optional<command_roofs> resolve_roofs(const roofs_request& q) {
  if (!(q.memory_utilization > 0 && q.memory_utilization <= 1))
    throw input_error("", "--gpu-memory-utilization", fmt::format("must be in (0, 1], got {}", q.memory_utilization));
  if (!q.ecc.empty() && q.ecc != "on" && q.ecc != "off") throw input_error("", "--ecc", "'" + q.ecc + "': give on or off");
  command_roofs r;
  double ecc_capacity = 1;
  if (!q.results_file.empty()) {
    if (!q.ecc.empty())
      throw input_error("", "--ecc",
                        "applies to --device: the results file's roofs were measured with ECC as it was on that GPU");
    r.file = load_results(q.results_file);
    r.nominal = r.file->nominal;
    r.device_kind = r.file->device.kind;
    r.precision = q.precision.empty() ? main_precision(*r.file) : q.precision;
    r.source = q.results_file + " (" + r.file->device.name + ")";
  } else if (!q.device.empty()) {
    if (q.device == "cpu" || q.device == "auto" || q.device.rfind("cuda", 0) == 0)
      throw input_error("", "--device",
                        "'" + q.device +
                            "' names a device of this machine; here --device names a GPU of the spec table "
                            "(roofline spec --list). For this machine's own roofs use --results out/results.json from "
                            "`roofline run` or `roofline measure`");
    r.nominal = gpu_device_nominal(q.device, "--device");  // one device as the runtime counts them (a GCD of an MI250X)
    r.device_kind = "cuda";
    r.precision = q.precision.empty() ? default_precision(r.device_kind) : q.precision;
    r.source = r.nominal.device_name + " (spec table)";
    ecc_capacity = apply_ecc(r, q.device, q.ecc);
  } else {
    return std::nullopt;
  }
  resolve_memory(r, ecc_capacity, q.memory_utilization);
  r.missing_peak = missing_tensor_reason(r);
  r.summary = summarize_roofline(r.nominal, r.file ? r.file->measured : measured_roofs{}, r.precision);
  if (!r.missing_peak.empty()) {  // no silent fallback to the vector rate: the nominal peak is unknown
    r.summary.peak_nominal = 0;
    r.summary.ridge_nominal.reset();
  } else if (const nominal_peak* p = peak_for(r.nominal, r.precision)) {
    r.peak = *p;
  }
  if (!has_peak(r.summary) && r.file && q.fall_back && has_peak(r.file->roofline) && r.missing_peak.empty()) {
    r.source += " (no " + r.precision + " roof in the file: its " + r.file->roofline.precision + " roofs)";
    r.summary = r.file->roofline;
    r.precision = r.summary.precision;
    if (const nominal_peak* p = peak_for(r.nominal, r.precision)) r.peak = *p;
  }
  if (!has_peak(r.summary) && !q.allow_missing_peak)
    throw input_error(q.results_file, q.precision_flag,
                      r.missing_peak.empty() ? "no " + r.precision + " peak known for " + r.source
                                             : r.missing_peak + "; no measured " + r.precision + " roof either");
  if (r.missing_peak.empty() && !r.peak && !has_peak(r.summary)) r.missing_peak = "no " + r.precision + " peak known for " + r.source;
  return r;
}

std::optional<placement_roofs> resolve_placement_roofs(const roofs_request& q) {
  const auto c = resolve_roofs(q);
  if (!c) return std::nullopt;
  const roofline_summary& s = c->summary;
  const bool measured = s.peak_measured > 0 && s.bandwidth_measured > 0;
  placement_roofs r;
  r.peak = measured ? s.peak_measured : s.peak_nominal;
  r.bandwidth = measured ? s.bandwidth_measured : s.bandwidth_nominal.value_or(0);
  r.source = fmt::format("{}: {} {}", measured ? "measured" : "nominal", c->source, c->precision);
  r.precision = c->precision;
  r.lat = c->file ? latency_model_from(c->file->measured, c->device_kind, c->precision) : default_latency_model("gpu");
  r.memory_bytes = c->memory_bytes;
  r.memory_source = c->memory_source;
  r.bandwidth_note = c->bandwidth_note;
  if (c->device_kind == "cuda") r.gpu_name = c->file ? c->file->device.name : c->nominal.device_name;
  if (!(r.peak > 0) || !(r.bandwidth > 0))
    throw input_error(q.results_file, q.results_file.empty() ? "--device" : "roofline",
                      c->source + ": no peak FLOP/s and memory bandwidth to place ops against" +
                          (c->missing_peak.empty() ? "" : " (" + c->missing_peak + ")"));
  return r;
}

}  // namespace roofline
