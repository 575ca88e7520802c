// `roofline spec NAME [--json] | --device DEV [--json] | --list [--json]`: the nominal roofs of a
// table GPU (or of this machine's device), with the derivation (factor, value, unit, source), the
// dense peak per data type, the memory bandwidth and the ridge point (peak ÷ bandwidth, FLOP/byte).
// Computed in src/spec (gpu_nominal, nominal_ridge, live_vs_table, spec_list), rendered by
// src/report/spec_view.cpp; this file parses the flags.
#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "app/commands.hpp"
#include "roofline/backend.hpp"
#include "roofline/command_views.hpp"
#include "roofline/error.hpp"
#include "roofline/json.hpp"
#include "roofline/spec.hpp"

namespace roofline::app {
namespace {

struct spec_options {
  std::string name, device;
  bool json = false, list = false;
};

void run_spec(const spec_options& o) {
  const int modes = (!o.name.empty()) + (!o.device.empty()) + (o.list ? 1 : 0);
  if (modes != 1) throw input_error("", "spec", "give exactly one of NAME, --device DEV or --list");
  if (o.list) {
    const std::vector<spec_list_row> rows = spec_list();
    std::fputs(o.json ? (spec_list_json(rows).dump(2) + "\n").c_str() : spec_list_text(rows).c_str(), stdout);
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
  std::fputs(o.json ? (spec_json(n, ecc).dump(2) + "\n").c_str() : spec_text(n).c_str(), stdout);
}

}  // namespace

void add_spec(CLI::App& app, context&) {
  auto opt = std::make_shared<spec_options>();
  auto* sub = app.add_subcommand("spec", "Nominal peaks of a GPU from the device table (or of this machine's device), with the derivation");
  sub->add_option("name", opt->name, "GPU name; forgiving: t4, 'Tesla T4', h100-sxm, H200, 'a100 80gb'");
  sub->add_option("--device", opt->device, "derive for a device of this machine: cpu, cuda or cuda:N");
  sub->add_flag("--json", opt->json, "print JSON: {name, factors[], peaks[], memory_bandwidth_bytes_per_s, ridge_points[], notes}");
  sub->add_flag("--list", opt->list, "list the GPUs in the device table by vendor and generation: the key to type, generation, name, headline peaks, memory bandwidth");
  sub->callback([opt] { run_spec(*opt); });
}

}  // namespace roofline::app
