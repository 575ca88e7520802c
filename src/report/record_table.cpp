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

/// "not measured [n]" with the reason stated once under the table.
cell not_measured(table& t, const std::string& why) { return cell("not measured " + t.note(why)); }
cell unknown(table& t, const std::string& why) { return cell("unknown " + t.note(why)); }

std::vector<cell> row(std::string q, cell nominal, cell measured, std::optional<double> nom, std::optional<double> meas, cell expected) {
  cell ratio_cell("—");
  if (nom && meas && *nom > 0) ratio_cell = cell(percent(*meas / *nom), *meas / *nom);
  return {cell(std::move(q)), std::move(nominal), std::move(measured), ratio_cell, std::move(expected)};
}

std::string sizes_run(const results& r, const std::string& precision) {
  std::string s;
  for (const auto& c : r.measured.compute)
    if (c.precision == precision && c.size && c.engine != "vector") s += (s.empty() ? "" : ", ") + std::to_string(*c.size);
  return s.empty() ? "no " + precision + " GEMM results" : precision + " GEMM sizes run: " + s;
}

void bandwidth_rows(const results& r, table& t) {
  const auto nom = r.nominal.memory_bandwidth_bytes_per_s;
  const bool known = nom && *nom > 0;
  const std::string level = r.device.kind == "cpu" ? "DRAM" : "device memory";
  for (const char* pattern : {"read", "write", "copy"}) {
    const bandwidth_result* b = best_device_bandwidth(r.measured, pattern);
    const cell nominal_cell = known ? cell(rate_bytes(*nom), *nom)
                                    : unknown(t, "nominal memory bandwidth: " + (r.nominal.memory_bandwidth_reason.empty()
                                                                                     ? std::string("no reason recorded")
                                                                                     : r.nominal.memory_bandwidth_reason));
    cell expected = known ? cell(si_range(bw_lo * *nom, bw_hi * *nom, "B/s"), bw_lo * *nom) : cell("75–90% of nominal");
    cell measured = b ? cell(rate_bytes(b->bytes_per_s), b->bytes_per_s)
                      : not_measured(t, why_missing(r, {pattern}, "no " + std::string(pattern) + " result at " + level));
    t.rows.push_back(row(fmt::format("{} {} bandwidth{}", level, pattern,
                                     b ? " (" + bytes_binary(static_cast<double>(b->working_set_bytes)) + ")" : std::string()),
                         nominal_cell, measured, known ? nom : std::nullopt,
                         b ? std::optional<double>(b->bytes_per_s) : std::nullopt, expected));
  }
}

void gemm_row(const results& r, table& t, const std::string& precision, std::int64_t n, bool tensor_label) {
  const nominal_peak* p = peak_for(r.nominal, precision);
  const compute_result* c = gemm_at(r.measured, precision, n);
  const std::string engine = p && p->engine == "tensor" && tensor_label ? " tensor" : "";
  auto rate = precision == "int8" ? rate_ops : rate_flops;
  cell nominal = p ? cell(rate(p->flops_per_s), p->flops_per_s) : unknown(t, "no nominal " + precision + " peak");
  cell expected = p ? cell(si_range(compute_lo * p->flops_per_s, compute_hi * p->flops_per_s, precision == "int8" ? "OP/s" : "FLOP/s"),
                           compute_lo * p->flops_per_s)
                    : cell("70–85% of nominal");
  cell measured = c ? cell(rate(c->flops_per_s), c->flops_per_s)
                    : not_measured(t, why_missing(r, {"gemm", precision}, sizes_run(r, precision)));
  t.rows.push_back(row(fmt::format("{}{} GEMM, n = {}", precision, engine, n), nominal, measured,
                       p ? std::optional<double>(p->flops_per_s) : std::nullopt,
                       c ? std::optional<double>(c->flops_per_s) : std::nullopt, expected));
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
  const bool cpu = r.device.kind == "cpu";
  const compute_result* g = telemetry_gemm(r, precision);
  const std::string no_tel = g ? "no telemetry recorded for " + gemm_name(*g) : "no " + precision + " GEMM measured";
  const nominal_peak* peak = peak_for(r.nominal, precision);
  const auto clock_nom = nominal_clock_mhz(r.nominal, peak);
  const factor* clock_factor = nominal_clock_factor(r.nominal, peak);
  // A clock that was itself measured (a CPU without a datasheet clock) is not a nominal value.
  const bool clock_measured = clock_factor && clock_factor->source.rfind("measured", 0) == 0;
  std::optional<double> clock;
  if (g && g->telemetry && g->telemetry->sm_clock_mhz) clock = g->telemetry->sm_clock_mhz->median;
  cell clock_nominal = clock_nom ? cell(fmt::format("{} MHz{}", sig(*clock_nom, 4), clock_measured ? " " + t.note("the clock the peaks are computed at: " + clock_factor->source) : std::string()),
                                        *clock_nom)
                                 : unknown(t, "no clock factor among the nominal factors");
  t.rows.push_back(row(cpu ? "sustained core clock during the GEMM" : "sustained SM clock during the GEMM", clock_nominal,
                       clock ? cell(fmt::format("{} MHz", sig(*clock, 4)), *clock) : not_measured(t, no_tel), clock_nom, clock,
                       cpu ? cell("at or below the all-core boost") : cell("at or below the boost clock")));
  if (cpu) return;  // no power telemetry on a CPU
  const auto limit = property_number(r, {"power_limit_w", "enforced_power_limit_w", "power_limit", "tdp_w"});
  std::optional<double> power;
  if (g && g->telemetry && g->telemetry->power_w) power = g->telemetry->power_w->median;
  std::string throttle;
  if (power && !g->telemetry->throttle_reasons.empty()) {
    for (const auto& s : g->telemetry->throttle_reasons) throttle += (throttle.empty() ? "" : ", ") + s;
    throttle = " " + t.note(fmt::format("throttled {} of the samples of {}: {}", percent(g->telemetry->throttled_fraction), gemm_name(*g), throttle));
  }
  t.rows.push_back(row("power during the GEMM (power limit)",
                       limit ? cell(fmt::format("{} W", sig(*limit, 3)), *limit) : unknown(t, "no power limit reported"),
                       power ? cell(fmt::format("{} W{}", sig(*power, 3), throttle), *power) : not_measured(t, no_tel), limit, power,
                       cell("near the limit")));
}

void ridge_row(const results& r, table& t, const std::string& precision) {
  const ridge_pair rp = ridge_for(r, precision);
  std::string why_nom = !rp.peak_nominal ? "no nominal " + precision + " peak" : "nominal memory bandwidth unknown";
  std::string why_meas = !rp.peak_measured ? "no " + precision + " compute measured" : "no device-memory bandwidth measured";
  t.rows.push_back(row(fmt::format("ridge point ({})", precision),
                       rp.nominal ? cell(intensity(*rp.nominal), *rp.nominal) : unknown(t, "nominal ridge: " + why_nom),
                       rp.measured ? cell(intensity(*rp.measured), *rp.measured) : not_measured(t, why_meas), rp.nominal, rp.measured,
                       rp.nominal ? cell(fmt::format("{}–{} FLOP/B", sig(0.8 * *rp.nominal), sig(1.2 * *rp.nominal)), 0.8 * *rp.nominal)
                                  : cell("±20% of nominal")));
}

void ecc_row(const results& r, table& t) {
  if (r.device.kind == "cpu") return;  // DRAM ECC is not visible to roofline on a CPU
  const auto ecc = ecc_state(r);
  t.rows.push_back({cell("ECC"), cell("—"), ecc ? cell(*ecc) : cell("not reported " + t.note("ECC state not in the telemetry")), cell("—"),
                    cell("on for datacenter GPUs")});
}

void mfu_row(const results& r, table& t, const std::string& precision) {
  const nominal_peak* p = peak_for(r.nominal, precision);
  decode_step d = decode_batch1(r);
  std::string source = "the measured decode ops at batch 1";
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
  cell expected("≈ intensity ÷ ridge");
  if (d.bytes > 0 && rp.nominal)
    expected = cell(fmt::format("≈ {} {}", percent(d.flops / d.bytes / *rp.nominal),
                                t.note(fmt::format("MFU of a bandwidth-bound decode ≈ intensity ÷ nominal ridge = {} ÷ {}", sig(d.flops / d.bytes),
                                                   sig(*rp.nominal)))),
                    d.flops / d.bytes / *rp.nominal);
  else if (d.bytes > 0 && rp.measured)
    expected = cell(fmt::format("≤ {} of the measured roof {}", percent(d.flops / d.bytes / *rp.measured),
                                t.note(fmt::format("intensity ÷ measured ridge = {} ÷ {} (nominal bandwidth unknown)", sig(d.flops / d.bytes),
                                                   sig(*rp.measured)))));
  std::optional<double> achieved_flops;
  cell measured;
  if (d.tpot_s && *d.tpot_s > 0 && d.flops > 0) {
    achieved_flops = d.flops / *d.tpot_s;
    measured = cell(fmt::format("{} in {} {}", rate_flops(*achieved_flops), seconds(*d.tpot_s),
                                t.note(fmt::format("TPOT from {}; {} per token", source, flop_count(d.flops)))),
                    *achieved_flops);
  } else {
    measured = not_measured(t, "TPOT: " + d.why);
  }
  t.rows.push_back(row(fmt::format("TPOT → MFU (decode, batch 1, {})", precision),
                       p ? cell(rate_flops(p->flops_per_s), p->flops_per_s) : unknown(t, "no nominal " + precision + " peak"), measured,
                       p ? std::optional<double>(p->flops_per_s) : std::nullopt, achieved_flops, expected));
}

}  // namespace

section record_section(const results& r) {
  section s{"Record table", "record", {}};
  table t;
  t.header = {"quantity", "nominal", "measured", "measured ÷ nominal", "usually"};
  const std::string p1 = main_precision(r), p2 = second_precision(r.device.kind);
  bandwidth_rows(r, t);
  gemm_row(r, t, p1, 4096, true);
  gemm_row(r, t, p1, 512, true);
  gemm_row(r, t, p2, 4096, false);
  telemetry_rows(r, t, p1);
  ridge_row(r, t, p1);
  ecc_row(r, t);
  mfu_row(r, t, p1);
  s.add(std::move(t));
  s.para("Measured = best of the repeats (the roof); medians and spreads are in the appendix. \"Usually\" is the "
         "field's rule of thumb: 75–90% of nominal for bandwidth, 70–85% for large GEMMs. Bandwidth counts every "
         "byte read and written (a copy moves its bytes twice). Rates are SI decimal (1 GB/s = 1e9 B/s); capacities "
         "binary (1 MiB = 2^20 B). MFU = model FLOPs per token ÷ TPOT ÷ nominal dense peak.");
  return s;
}

}  // namespace roofline::report
