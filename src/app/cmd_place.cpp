// `roofline place`: the user's own kernel (FLOPs, bytes and time from a profiler) on the roofline.
#include <cstdio>
#include <fmt/format.h>
#include <memory>

#include "app/commands.hpp"
#include "roofline/analysis.hpp"
#include "roofline/error.hpp"
#include "roofline/report.hpp"
#include "roofline/spec.hpp"

namespace roofline::app {

namespace {

struct place_options {
  double flops = 0, bytes = 0, seconds = 0;
  std::string device, results_file, precision;
  bool json_out = false;
};

std::string pct(std::optional<double> f) { return f ? fmt::format("{:.1f}%", 100.0 * *f) : "unknown"; }

void run_place(const place_options& o) {
  // Check the numbers first: a bad value fails before any file is read.
  (void)place_kernel(o.flops, o.bytes, o.seconds, roofline_summary{});
  if (!o.device.empty() && !o.results_file.empty())
    throw input_error("", "--device", "give either --device NAME or --results FILE, not both");
  roofline_summary roofs;
  std::string source;
  if (!o.results_file.empty()) {
    const results r = load_results(o.results_file);
    const std::string prec = !o.precision.empty() ? o.precision
                             : !r.roofline.precision.empty() ? r.roofline.precision
                             : (r.device.kind == "cpu" ? "fp32" : "fp16");
    roofs = summarize_roofline(r.nominal, r.measured, prec);
    source = fmt::format("{} ({})", o.results_file, r.device.name);
  } else if (!o.device.empty()) {
    const nominal_roofs nom = gpu_nominal(o.device);
    roofs = summarize_roofline(nom, measured_roofs{}, o.precision.empty() ? "fp16" : o.precision);
    source = nom.device_name + " (spec table; nominal roofs only)";
  } else {
    throw input_error("", "--device", "give --device NAME or --results FILE: the roofs to place the kernel against");
  }
  if (!(roofs.peak_nominal > 0) && !(roofs.peak_measured > 0))
    throw input_error(o.results_file.empty() ? "" : o.results_file, "--precision",
                      fmt::format("no {} peak known for this device", roofs.precision));
  const kernel_placement k = place_kernel(o.flops, o.bytes, o.seconds, roofs);

  if (o.json_out) {
    auto opt = [](std::optional<double> v) { return v ? json(*v) : json(nullptr); };
    json j = {{"roofs", roofs},  {"source", source},
              {"flops", k.flops}, {"bytes", k.bytes}, {"seconds", k.seconds}, {"intensity", k.intensity},
              {"achieved_flops_per_s", k.achieved_flops_per_s}, {"achieved_bytes_per_s", k.achieved_bytes_per_s},
              {"attainable_measured_flops_per_s", opt(k.attainable_measured)},
              {"attainable_nominal_flops_per_s", opt(k.attainable_nominal)},
              {"fraction_of_measured_roof", opt(k.fraction_measured)},
              {"fraction_of_nominal_roof", opt(k.fraction_nominal)},
              {"bound", k.bound}, {"advice", k.advice}, {"plausible", k.plausible}, {"causes", k.causes}};
    std::printf("%s\n", j.dump(2).c_str());
    return;
  }
  std::string out;
  out += fmt::format("roofline place: {}, {} moved in {} against {} ({})\n", format_si(k.flops, "FLOP"), format_si(k.bytes, "B"),
                     format_si(k.seconds, "s"), source, roofs.precision);
  out += fmt::format("  intensity          {:.4g} FLOP/B = {} ÷ {}\n", k.intensity, format_si(k.flops, "FLOP"), format_si(k.bytes, "B"));
  out += fmt::format("  achieved           {}   {}\n", format_si(k.achieved_flops_per_s, "FLOP/s"), format_si(k.achieved_bytes_per_s, "B/s"));
  if (roofs.peak_measured > 0 && roofs.bandwidth_measured > 0)
    out += fmt::format("  measured roofs     {}, {}, ridge {:.3g} FLOP/B\n", format_si(roofs.peak_measured, "FLOP/s"),
                       format_si(roofs.bandwidth_measured, "B/s"), roofs.ridge_measured);
  else
    out += "  measured roofs     unknown (no measured results: give --results FILE)\n";
  if (roofs.peak_nominal > 0 && roofs.bandwidth_nominal)
    out += fmt::format("  nominal roofs      {}, {}, ridge {:.3g} FLOP/B\n", format_si(roofs.peak_nominal, "FLOP/s"),
                       format_si(*roofs.bandwidth_nominal, "B/s"), roofs.ridge_nominal.value_or(0));
  else
    out += "  nominal roofs      unknown (no nominal peak or bandwidth)\n";
  out += fmt::format("  attainable         measured {}   nominal {}   (min(peak, intensity × bandwidth))\n",
                     k.attainable_measured ? format_si(*k.attainable_measured, "FLOP/s") : "unknown",
                     k.attainable_nominal ? format_si(*k.attainable_nominal, "FLOP/s") : "unknown");
  out += fmt::format("  of the roof        {} of measured   {} of nominal   (time at the roof ÷ your time)\n",
                     pct(k.fraction_measured), pct(k.fraction_nominal));
  if (!k.plausible) {
    out += "  IMPOSSIBLE         faster than the roof allows (beyond the " + fmt::format("{:.0f}", 100 * roof_noise) +
           "% measurement noise); likely causes:\n";
    for (const auto& c : k.causes) out += "                       - " + c + "\n";
  }
  out += fmt::format("  bound              {}\n", k.bound);
  out += fmt::format("  advice             {}\n", k.advice);
  std::fputs(out.c_str(), stdout);
}

}  // namespace

void add_place(CLI::App& app, context& ctx) {
  auto o = std::make_shared<place_options>();
  auto* sub = app.add_subcommand("place", "place your own kernel (FLOPs, bytes, time) on the roofline");
  sub->add_option("--flops", o->flops, "FLOPs the kernel performs")->required();
  sub->add_option("--bytes", o->bytes, "bytes it reads + writes to device memory")->required();
  sub->add_option("--time", o->seconds, "its run time in seconds")->required();
  sub->add_option("--device", o->device, "GPU name from the spec table (nominal roofs)");
  sub->add_option("--results", o->results_file, "results.json from `roofline run/measure` (measured + nominal roofs)");
  sub->add_option("--precision", o->precision, "fp16 bf16 fp32 tf32 fp64 fp8 int8 (default: the results' default, else fp16)");
  sub->add_flag("--json", o->json_out, "print JSON");
  sub->callback([o, &ctx] {
    run_place(*o);
    ctx.exit_code = 0;
  });
}

}  // namespace roofline::app
