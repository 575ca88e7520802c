// The record table: the numbers people fill in by hand, each beside its nominal value and the usual
// expectation (70–85% of nominal for compute, 75–90% for bandwidth: the rule of thumb of issue 8).
// Every value is computed from the typed fields, so the table is complete without r.analysis.
#include <fmt/format.h>

#include "report/query.hpp"
#include "report/sections.hpp"
#include "report/units.hpp"

namespace roofline::report {

namespace {

constexpr double compute_lo = 0.70, compute_hi = 0.85;
constexpr double bw_lo = 0.75, bw_hi = 0.90;

std::string not_measured(const std::string& why) { return "not measured (" + why + ")"; }

std::vector<cell> row(std::string q, cell nominal, cell expected, cell measured, std::optional<double> nom,
                      std::optional<double> meas) {
  cell ratio_cell("—");
  if (nom && meas && *nom > 0) ratio_cell = cell(percent(*meas / *nom), *meas / *nom);
  return {cell(std::move(q)), std::move(nominal), std::move(expected), std::move(measured), ratio_cell};
}

std::string sizes_run(const results& r, const std::string& precision) {
  std::string s;
  for (const auto& c : r.measured.compute)
    if (c.precision == precision && c.size && c.engine != "vector") s += (s.empty() ? "" : ", ") + std::to_string(*c.size);
  return s.empty() ? "no " + precision + " GEMM results" : "sizes run: " + s;
}

void bandwidth_rows(const results& r, table& t) {
  const auto nom = r.nominal.memory_bandwidth_bytes_per_s;
  const bool known = nom && *nom > 0;
  const cell nominal_cell = known ? cell(rate_bytes(*nom), *nom)
                                  : cell("unknown (" + (r.nominal.memory_bandwidth_reason.empty() ? std::string("not in results")
                                                                                                   : r.nominal.memory_bandwidth_reason) + ")");
  const std::string level = r.device.kind == "cpu" ? "DRAM" : "device memory";
  for (const char* pattern : {"read", "write", "copy"}) {
    const bandwidth_result* b = best_device_bandwidth(r.measured, pattern);
    cell expected = known ? cell(si_range(bw_lo * *nom, bw_hi * *nom, "B/s") + " (75–90%)")
                          : cell("75–90% of nominal");
    cell measured = b ? cell(fmt::format("{} ({} working set)", rate_bytes(b->bytes_per_s), bytes_binary(static_cast<double>(b->working_set_bytes))),
                             b->bytes_per_s)
                      : cell(not_measured(why_missing(r, {pattern}, "no " + std::string(pattern) + " result at device memory")));
    t.rows.push_back(row(fmt::format("contiguous {} bandwidth ({})", pattern, level), nominal_cell, expected, measured,
                         known ? nom : std::nullopt, b ? std::optional<double>(b->bytes_per_s) : std::nullopt));
  }
}

void gemm_row(const results& r, table& t, const std::string& precision, std::int64_t n, bool tensor_label) {
  const nominal_peak* p = peak_for(r.nominal, precision);
  const compute_result* c = gemm_at(r.measured, precision, n);
  const std::string engine = p && p->engine == "tensor" && tensor_label ? " tensor" : "";
  cell nominal = p ? cell(fmt::format("{} ({})", rate_flops(p->flops_per_s), p->engine), p->flops_per_s)
                   : cell("unknown (no nominal " + precision + " peak)");
  cell expected = p ? cell(si_range(compute_lo * p->flops_per_s, compute_hi * p->flops_per_s, "FLOP/s") + " (70–85%)")
                    : cell("70–85% of nominal");
  cell measured = c ? cell(rate_flops(c->flops_per_s), c->flops_per_s)
                    : cell(not_measured(why_missing(r, {"gemm", precision}, sizes_run(r, precision))));
  t.rows.push_back(row(fmt::format("{}{} GEMM, n = {}", precision, engine, n), nominal, expected, measured,
                       p ? std::optional<double>(p->flops_per_s) : std::nullopt,
                       c ? std::optional<double>(c->flops_per_s) : std::nullopt));
}

/// The GEMM whose telemetry the clock and power rows read: n = 4096 of the main precision, else the
/// largest GEMM of it that carries telemetry, else the largest GEMM of it.
const compute_result* telemetry_gemm(const results& r, const std::string& precision) {
  const compute_result* c = gemm_at(r.measured, precision, 4096);
  if (c && c->telemetry) return c;
  const compute_result* best = nullptr;
  for (const auto& x : r.measured.compute)
    if (x.precision == precision && x.telemetry && x.engine != "vector" && (!best || x.size.value_or(0) > best->size.value_or(0)))
      best = &x;
  if (best) return best;
  if (c) return c;
  for (const auto& x : r.measured.compute)  // no telemetry anywhere: the largest GEMM names the gap
    if (x.precision == precision && x.engine != "vector" && (!best || x.size.value_or(0) > best->size.value_or(0))) best = &x;
  return best;
}

std::string gemm_name(const compute_result& c) {
  return c.size ? fmt::format("{} GEMM n = {}", c.precision, *c.size) : c.precision + " " + c.engine;
}

void telemetry_rows(const results& r, table& t, const std::string& precision) {
  const compute_result* g = telemetry_gemm(r, precision);
  const std::string no_tel = g ? "no telemetry recorded for " + gemm_name(*g)
                               : "no " + precision + " GEMM measured";
  const auto clock_nom = nominal_clock_mhz(r.nominal, peak_for(r.nominal, precision));
  std::optional<double> clock;
  if (g && g->telemetry && g->telemetry->sm_clock_mhz) clock = g->telemetry->sm_clock_mhz->median;
  t.rows.push_back(row(r.device.kind == "cpu" ? "sustained clock during the GEMM" : "sustained SM clock during the GEMM",
                       clock_nom ? cell(fmt::format("{} MHz", sig(*clock_nom, 4)), *clock_nom) : cell("unknown (no clock factor)"),
                       "—",
                       clock ? cell(fmt::format("{} MHz (median, {})", sig(*clock, 4), gemm_name(*g)), *clock)
                             : cell(not_measured(no_tel)),
                       clock_nom, clock));
  const auto limit = property_number(r, {"power_limit_w", "enforced_power_limit_w", "power_limit", "tdp_w"});
  std::optional<double> power;
  if (g && g->telemetry && g->telemetry->power_w) power = g->telemetry->power_w->median;
  std::string throttle;
  if (power && !g->telemetry->throttle_reasons.empty()) {
    for (const auto& s : g->telemetry->throttle_reasons) throttle += (throttle.empty() ? "" : ", ") + s;
    throttle = fmt::format("; throttled {} of samples: {}", percent(g->telemetry->throttled_fraction), throttle);
  }
  t.rows.push_back(row("power during the GEMM",
                       limit ? cell(fmt::format("{} W (power limit)", sig(*limit, 3)), *limit) : cell("unknown (no power limit reported)"),
                       "—",
                       power ? cell(fmt::format("{} W (median{})", sig(*power, 3), throttle), *power)
                             : cell(not_measured(no_tel)),
                       limit, power));
}

void ridge_row(const results& r, table& t, const std::string& precision) {
  const ridge_pair rp = ridge_for(r, precision);
  std::string why_nom = !rp.peak_nominal ? "no nominal " + precision + " peak" : "nominal memory bandwidth unknown";
  std::string why_meas = !rp.peak_measured ? "no " + precision + " compute measured" : "no device-memory bandwidth measured";
  t.rows.push_back(row(fmt::format("measured ridge point ({})", precision),
                       rp.nominal ? cell(intensity(*rp.nominal), *rp.nominal) : cell("unknown (" + why_nom + ")"),
                       rp.nominal ? cell(fmt::format("{}–{} FLOP/B (±20%: both roofs shrink)", sig(0.8 * *rp.nominal), sig(1.2 * *rp.nominal)))
                                  : cell("within ±20% of nominal"),
                       rp.measured ? cell(intensity(*rp.measured), *rp.measured) : cell(not_measured(why_meas)),
                       rp.nominal, rp.measured));
}

void ecc_row(const results& r, table& t) {
  const auto ecc = ecc_state(r);
  const std::string why = r.device.kind == "cpu" ? "the OS does not report DRAM ECC state to roofline"
                                                 : "ECC state not in the telemetry";
  t.rows.push_back({cell("ECC"), cell("—"), cell("on for datacenter GPUs (costs bandwidth)"),
                    ecc ? cell(*ecc) : cell("not reported (" + why + ")"), cell("—")});
}

void mfu_row(const results& r, table& t, const std::string& precision) {
  const nominal_peak* p = peak_for(r.nominal, precision);
  decode_step d = decode_batch1(r);
  std::string source = "measured decode ops, batch 1";
  if (r.analysis.is_object() && r.analysis.contains("tpot_input") && r.analysis["tpot_input"].is_object()) {
    const json& in = r.analysis["tpot_input"];  // `roofline run --tpot S`: the user's own TPOT wins
    if (in.contains("tpot_s") && in["tpot_s"].is_number() && in["tpot_s"].get<double>() > 0) {
      d.tpot_s = in["tpot_s"].get<double>();
      source = "--tpot";
    }
  }
  if (!d.tpot_s && r.analysis.is_object()) {
    const auto it = r.analysis.find("mfu");
    if (it != r.analysis.end() && it->is_object()) {
      const auto tp = it->find("tpot_s");
      if (tp != it->end() && tp->is_number() && tp->get<double>() > 0) {
        d.tpot_s = tp->get<double>();
        source = "analysis.mfu.tpot_s";
      }
    }
  }
  const ridge_pair rp = ridge_for(r, precision);
  cell expected("MFU ≈ intensity ÷ ridge");
  if (d.bytes > 0 && rp.nominal)
    expected = cell(fmt::format("MFU ≈ intensity ÷ ridge = {} ÷ {} = {}", sig(d.flops / d.bytes), sig(*rp.nominal),
                                percent(d.flops / d.bytes / *rp.nominal)));
  else if (d.bytes > 0 && rp.measured)  // nominal bandwidth unknown: the measured ridge bounds the fraction of the measured roof
    expected = cell(fmt::format("≤ intensity ÷ measured ridge = {} ÷ {} = {} of the measured roof", sig(d.flops / d.bytes),
                                sig(*rp.measured), percent(d.flops / d.bytes / *rp.measured)));
  std::optional<double> achieved_flops;
  cell measured(not_measured(d.why));
  if (d.tpot_s && *d.tpot_s > 0 && d.flops > 0) {
    achieved_flops = d.flops / *d.tpot_s;
    measured = cell(fmt::format("TPOT {} ({}) → {} for {} per token", seconds(*d.tpot_s), source,
                                rate_flops(*achieved_flops), flop_count(d.flops)),
                    *achieved_flops);
  }
  t.rows.push_back(row(fmt::format("TPOT → MFU (decode, batch 1, {})", precision),
                       p ? cell(rate_flops(p->flops_per_s), p->flops_per_s) : cell("unknown (no nominal " + precision + " peak)"),
                       expected, measured, p ? std::optional<double>(p->flops_per_s) : std::nullopt, achieved_flops));
}

}  // namespace

section record_section(const results& r) {
  section s{"Record table", "record", {}};
  table t;
  t.header = {"quantity", "nominal", "expected", "measured", "measured ÷ nominal"};
  const std::string p1 = main_precision(r), p2 = second_precision(r);
  bandwidth_rows(r, t);
  gemm_row(r, t, p1, 4096, true);
  gemm_row(r, t, p1, 512, true);
  gemm_row(r, t, p2, 4096, false);
  telemetry_rows(r, t, p1);
  ridge_row(r, t, p1);
  ecc_row(r, t);
  mfu_row(r, t, p1);
  s.add(std::move(t));
  s.para("Measured = best of the repeats (the roof); medians and spreads are in the tables below. "
         "Bandwidth counts every byte read and written (a copy moves its bytes twice). Rates are SI "
         "decimal (1 GB/s = 1e9 B/s, 1 TFLOP/s = 1e12 FLOP/s); capacities binary (1 MiB = 2^20 B). "
         "MFU = model FLOPs per token ÷ TPOT ÷ nominal dense peak.");
  return s;
}

}  // namespace roofline::report
