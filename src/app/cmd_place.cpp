// `roofline place`: the user's own kernels (FLOPs, bytes and time from a profiler) on the roofline:
// one by hand (--flops --bytes --time) or many from a CSV (--csv FILE, also an Nsight Compute export).
#include <cstdio>
#include <fmt/format.h>
#include <memory>

#include "app/commands.hpp"
#include "app/options.hpp"
#include "app/place_csv.hpp"
#include "roofline/units.hpp"
#include "roofline/io.hpp"
#include "roofline/analysis.hpp"
#include "roofline/error.hpp"
#include "roofline/report.hpp"
#include "roofline/vocabulary.hpp"

namespace roofline::app {

namespace {

struct place_options {
  double flops = 0, bytes = 0, seconds = 0;
  std::string device, results_file, precision;
  std::string csv_in;  ///< --csv FILE: many kernels (roofline's CSV or an Nsight Compute export)
  std::string out;     ///< --out DIR (with --csv): place.svg and place.csv
  bool json_out = false;
};

std::string pct(std::optional<double> f) { return f ? fmt::format("{:.1f}%", 100.0 * *f) : "unknown"; }

json placement_json(const kernel_placement& k) {
  return {{"flops", k.flops}, {"bytes", k.bytes}, {"seconds", k.seconds}, {"intensity", k.intensity},
          {"achieved_flops_per_s", k.achieved_flops_per_s}, {"achieved_bytes_per_s", k.achieved_bytes_per_s},
          {"attainable_measured_flops_per_s", num_or_null(k.attainable_measured)},
          {"attainable_nominal_flops_per_s", num_or_null(k.attainable_nominal)},
          {"fraction_of_measured_roof", num_or_null(k.fraction_measured)},
          {"fraction_of_nominal_roof", num_or_null(k.fraction_nominal)},
          {"bound", k.bound}, {"advice", k.advice}, {"plausible", k.plausible}, {"causes", k.causes}};
}

/// `place --csv FILE`: every kernel of the file placed; a table (or --json), and with --out DIR the
/// figure place.svg (the kernels on the roofs: measured ones from --results) and place.csv.
void run_place_many(const place_options& o, const command_roofs& c, const std::string& source) {
  const roofline_summary& roofs = c.summary;
  if (!o.out.empty()) check_output_dir(o.out);
  const auto kernels = read_kernel_csv(o.csv_in);
  json rows = json::array();
  std::vector<kernel_placement> placed;
  for (std::size_t i = 0; i < kernels.size(); ++i) {
    const auto& kr = kernels[i];
    kernel_placement k;
    try {
      k = place_kernel(kr.flops, kr.bytes, kr.seconds, roofs);
    } catch (const input_error& e) {
      throw input_error(o.csv_in, "", fmt::format("kernel {} '{}': {}", i + 1, kr.name, e.what()));
    }
    json j = placement_json(k);
    j["number"] = i + 1;
    j["name"] = kr.name;
    j["note"] = kr.note;
    rows.push_back(j);
    placed.push_back(k);
  }
  if (o.json_out) {
    std::printf("%s\n", json{{"roofs", roofs}, {"source", source}, {"kernels", rows}}.dump(2).c_str());
  } else {
    std::string out = fmt::format("roofline place: {} kernel(s) from {} against {} ({})\n", kernels.size(), o.csv_in, source, roofs.precision);
    out += fmt::format("{:>3}  {:<40} {:>11} {:>10} {:>12} {:>14} {:>10}  {}\n", "#", "kernel", "time", "FLOP/B", "achieved", "of the roof", "bound", "advice");
    for (std::size_t i = 0; i < placed.size(); ++i) {
      const auto& k = placed[i];
      const auto frac = k.fraction_measured ? k.fraction_measured : k.fraction_nominal;
      std::string name = kernels[i].name.size() > 40 ? kernels[i].name.substr(0, 39) + "…" : kernels[i].name;
      out += fmt::format("{:>3}  {:<40} {:>11} {:>10.3g} {:>12} {:>14} {:>10}  {}\n", i + 1, name, units::si(k.seconds, "s"), k.intensity,
                         units::si(k.achieved_flops_per_s, "FLOP/s"),
                         frac ? fmt::format("{} {}", pct(frac), k.fraction_measured ? "meas." : "nom.") : "unknown", k.bound, k.advice);
    }
    std::fputs(out.c_str(), stdout);
  }
  if (!o.out.empty()) {
    results r = c.file ? *c.file : results{};
    if (!c.file) {
      r.device.kind = c.device_kind;
      r.device.name = source;
      r.nominal = c.nominal;
    }
    r.ops.clear();
    for (std::size_t i = 0; i < kernels.size(); ++i) {
      op_result op;
      op.name = kernels[i].name;
      op.phase = "kernel";
      op.flops = kernels[i].flops;
      op.bytes = kernels[i].bytes;
      op.intensity = placed[i].intensity;
      op.bound = placed[i].bound;
      op.measured_s = kernels[i].seconds;
      const auto att = placed[i].attainable_measured ? placed[i].attainable_measured : placed[i].attainable_nominal;
      op.predicted_s = att && *att > 0 ? kernels[i].flops / *att : kernels[i].seconds;  // the time at the roof
      op.advice = placed[i].advice;
      r.ops.push_back(op);
    }
    write_files({{"place.svg", render_place_svg(r, "Your kernels on the roofline: " + source)}, {"place.csv", render_csv(rows, {"number", "name", "seconds", "flops", "bytes", "intensity", "bound"})}}, o.out);
    std::fprintf(stderr, "roofline: wrote %s\n", written_files(o.out, "place.svg,place.csv").c_str());
  }
}

/// The text printer of one placed kernel.
std::string placement_text(const kernel_placement& k, const roofline_summary& roofs, const std::string& source) {
  std::string out;
  out += fmt::format("roofline place: {}, {} moved in {} against {} ({})\n", units::si(k.flops, "FLOP"), units::si(k.bytes, "B"),
                     units::si(k.seconds, "s"), source, roofs.precision);
  out += fmt::format("  intensity          {:.4g} FLOP/B = {} ÷ {}\n", k.intensity, units::si(k.flops, "FLOP"), units::si(k.bytes, "B"));
  out += fmt::format("  achieved           {}   {}\n", units::si(k.achieved_flops_per_s, "FLOP/s"), units::si(k.achieved_bytes_per_s, "B/s"));
  if (roofs.peak_measured > 0 && roofs.bandwidth_measured > 0)
    out += fmt::format("  measured roofs     {}, {}, ridge {:.3g} FLOP/B\n", units::si(roofs.peak_measured, "FLOP/s"),
                       units::si(roofs.bandwidth_measured, "B/s"), roofs.ridge_measured);
  else
    out += "  measured roofs     unknown (no measured results: give --results FILE)\n";
  if (roofs.peak_nominal > 0 && roofs.bandwidth_nominal)
    out += fmt::format("  nominal roofs      {}, {}, ridge {:.3g} FLOP/B\n", units::si(roofs.peak_nominal, "FLOP/s"),
                       units::si(*roofs.bandwidth_nominal, "B/s"), roofs.ridge_nominal.value_or(0));
  else
    out += "  nominal roofs      unknown (no nominal peak or bandwidth)\n";
  out += fmt::format("  attainable         measured {}   nominal {}   (min(peak, intensity × bandwidth))\n",
                     k.attainable_measured ? units::si(*k.attainable_measured, "FLOP/s") : "unknown",
                     k.attainable_nominal ? units::si(*k.attainable_nominal, "FLOP/s") : "unknown");
  out += fmt::format("  of the roof        {} of measured   {} of nominal   (time at the roof ÷ your time)\n",
                     pct(k.fraction_measured), pct(k.fraction_nominal));
  if (!k.plausible) {
    out += "  IMPOSSIBLE         faster than the roof allows (beyond the " + fmt::format("{:.0f}", 100 * roof_noise) +
           "% measurement noise); likely causes:\n";
    for (const auto& c : k.causes) out += "                       - " + c + "\n";
  }
  out += fmt::format("  bound              {}\n", k.bound);
  out += fmt::format("  advice             {}\n", k.advice);
  return out;
}

void run_place(const place_options& o) {
  // Check the numbers first: a bad value fails before any file is read.
  if (o.csv_in.empty()) (void)place_kernel(o.flops, o.bytes, o.seconds, roofline_summary{});
  const auto resolved = resolve_roofs({o.device, o.results_file, o.precision});
  if (!resolved) throw input_error("", "--device", "give --device NAME or --results FILE: the roofs to place the kernel against");
  const roofline_summary& roofs = resolved->summary;
  const std::string source = resolved->source + (resolved->file ? "" : "; nominal roofs only");
  if (!o.csv_in.empty()) {
    run_place_many(o, *resolved, source);
    return;
  }
  const kernel_placement k = place_kernel(o.flops, o.bytes, o.seconds, roofs);
  if (o.json_out) {
    json j = placement_json(k);
    j["roofs"] = roofs;
    j["source"] = source;
    std::printf("%s\n", j.dump(2).c_str());
  } else {
    std::fputs(placement_text(k, roofs, source).c_str(), stdout);
  }
}

}  // namespace

void add_place(CLI::App& app, context& ctx) {
  auto o = std::make_shared<place_options>();
  auto* sub = app.add_subcommand("place", "place your own kernel (FLOPs, bytes, time) on the roofline");
  auto* flops = sub->add_option("--flops", o->flops, "FLOPs the kernel performs");
  auto* bytes = sub->add_option("--bytes", o->bytes, "bytes it reads + writes to device memory");
  auto* time = sub->add_option("--time", o->seconds, "its run time in seconds");
  auto* csv = sub->add_option("--csv", o->csv_in, "many kernels: a CSV of name,flops,bytes,time_s or an Nsight Compute CSV export");
  flops->needs(bytes, time);
  csv->excludes(flops, bytes, time);
  sub->add_option("--out", o->out, "with --csv: write DIR/place.svg (your kernels on the roofs) and DIR/place.csv")->needs(csv);
  add_roofs_options(sub, o->device, o->results_file);
  sub->add_option("--precision", o->precision, "fp16 bf16 fp32 tf32 fp64 fp8 int8 (default: the results' default, else fp16)")
      ->check(precision_value());
  sub->add_flag("--json", o->json_out, "print JSON");
  sub->callback([o, sub, &ctx] {
    if (o->csv_in.empty() && sub->get_option("--flops")->count() == 0)
      throw input_error("", "--flops", "give --flops F --bytes B --time S (one kernel) or --csv FILE (many)");
    run_place(*o);
    ctx.exit_code = 0;
  });
}

}  // namespace roofline::app
