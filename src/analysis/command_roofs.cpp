// Resolution of the roofs a command places work against (roofline/command_roofs.hpp).
#include "roofline/command_roofs.hpp"

#include <fmt/format.h>

#include "roofline/analysis.hpp"
#include "roofline/error.hpp"
#include "roofline/spec.hpp"
#include "roofline/vocabulary.hpp"

namespace roofline {

namespace {
bool has_peak(const roofline_summary& s) { return s.peak_nominal > 0 || s.peak_measured > 0; }
}  // namespace

std::optional<command_roofs> resolve_roofs(const roofs_request& q) {
  command_roofs r;
  if (!q.results_file.empty()) {
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
  } else {
    return std::nullopt;
  }
  r.summary = summarize_roofline(r.nominal, r.file ? r.file->measured : measured_roofs{}, r.precision);
  if (!has_peak(r.summary) && r.file && q.fall_back && has_peak(r.file->roofline)) {
    r.source += " (no " + r.precision + " roof in the file: its " + r.file->roofline.precision + " roofs)";
    r.summary = r.file->roofline;
    r.precision = r.summary.precision;
  }
  if (!has_peak(r.summary))
    throw input_error(q.results_file, q.precision_flag, "no " + r.precision + " peak known for " + r.source);
  return r;
}

std::optional<placement_roofs> resolve_placement_roofs(const roofs_request& q) {
  const auto c = resolve_roofs(q);
  if (!c) return std::nullopt;
  const roofline_summary& s = c->summary;
  const bool measured = s.peak_measured > 0 && s.bandwidth_measured > 0;
  placement_roofs r{
      measured ? s.peak_measured : s.peak_nominal,
      measured ? s.bandwidth_measured : s.bandwidth_nominal.value_or(0),
      0,
      fmt::format("{}: {} {}", measured ? "measured" : "nominal", c->source, c->precision),
      c->precision,
      c->file ? latency_model_from(c->file->measured, c->device_kind, c->precision) : default_latency_model("gpu")};
  if (!(r.peak > 0) || !(r.bandwidth > 0))
    throw input_error(q.results_file, q.results_file.empty() ? "--device" : "roofline",
                      c->source + ": no peak FLOP/s and memory bandwidth to place ops against");
  for (const auto& f : c->nominal.factors)
    if (f.name == "memory size" && f.unit == "GB") r.memory_bytes = f.value * 1e9;
  return r;
}

}  // namespace roofline
