// The record table rows report.md opens with: nominal, expected range, measured, ratio.
// docs/formulas-analysis.md §6.
#include <fmt/format.h>

#include "roofline/vocabulary.hpp"
#include "roofline/analysis.hpp"

namespace roofline {

namespace {

struct row_spec {
  row_spec(std::string k, std::string l, std::string u) : key(std::move(k)), label(std::move(l)), unit(std::move(u)) {}
  std::string key, label, unit;
  std::optional<double> nominal, measured;
  std::optional<double> expect_lo, expect_hi;  ///< fractions of nominal
  std::string expected_note, note;
};

json make_row(const row_spec& s) {
  json j = {{"key", s.key}, {"label", s.label}, {"unit", s.unit},
            {"nominal", num_or_null(s.nominal)}, {"measured", num_or_null(s.measured)},
            {"expected_low", nullptr}, {"expected_high", nullptr}, {"expected_note", s.expected_note},
            {"ratio", nullptr}, {"note", s.note}};
  if (s.nominal && s.expect_lo) j["expected_low"] = *s.nominal * *s.expect_lo;
  if (s.nominal && s.expect_hi) j["expected_high"] = *s.nominal * *s.expect_hi;
  if (s.nominal && s.measured && *s.nominal > 0) j["ratio"] = *s.measured / *s.nominal;
  return j;
}

std::optional<double> property_number(const results& r, const char* key) {
  for (const json* src : {&r.device.properties, &r.measured.telemetry})
    if (src->is_object() && src->contains(key) && src->at(key).is_number()) return src->at(key).get<double>();
  return std::nullopt;
}

}  // namespace

json record_table(const results& r) {
  const bool cpu = r.device.kind == "cpu";
  const std::optional<double> bw_nom = r.nominal.memory_bandwidth_bytes_per_s;
  json rows = json::array();

  for (const char* p : {"read", "write", "copy"}) {
    row_spec s{fmt::format("bandwidth_{}", p), fmt::format("Contiguous {} bandwidth (device memory)", p), "B/s"};
    s.nominal = bw_nom;
    if (const auto* b = best_device_bandwidth(r.measured, p)) s.measured = b->bytes_per_s;
    else s.note = "not measured";
    if (!bw_nom) s.note += (s.note.empty() ? "" : "; ") + std::string("nominal unknown: ") + (r.nominal.memory_bandwidth_reason.empty() ? std::string("no reason recorded") : r.nominal.memory_bandwidth_reason);
    s.expect_lo = 0.75;
    s.expect_hi = 0.90;
    s.expected_note = "75–90% of nominal";
    rows.push_back(make_row(s));
  }

  const std::string low = default_precision(r.device.kind);
  struct gemm_row { std::string precision; std::int64_t n; bool expected; };
  const std::vector<gemm_row> gemms = {{low, 4096, true}, {low, 512, false}, {second_precision(r.device.kind), 4096, true}};
  const compute_result* clock_source = nullptr;
  for (const auto& g : gemms) {
    const nominal_peak* peak = peak_for(r.nominal, g.precision);
    row_spec s{fmt::format("gemm_{}_{}", g.precision, g.n),
               fmt::format("{}{} GEMM at n={}", g.precision, peak && peak->engine == "tensor" ? " tensor" : "", g.n), "FLOP/s"};
    if (peak) s.nominal = peak->flops_per_s;
    else s.note = "no nominal peak";
    if (const auto* c = gemm_at(r.measured, g.precision, g.n)) {
      s.measured = c->flops_per_s;
      if (!clock_source && g.n == 4096) clock_source = c;
    } else {
      s.note += (s.note.empty() ? "" : "; ") + fmt::format("not measured at n={}", g.n);
    }
    if (g.expected) {
      s.expect_lo = 0.70;
      s.expect_hi = 0.85;
      s.expected_note = "70–85% of nominal";
    } else {
      s.expected_note = "no usual range: a small GEMM is dominated by wave quantization and launch";
    }
    rows.push_back(make_row(s));
  }
  if (!clock_source) clock_source = best_compute(r.measured, low);

  {
    row_spec s{"sm_clock", cpu ? "Sustained clock during the GEMM" : "Sustained SM clock during the GEMM", "MHz"};
    const nominal_peak* peak = peak_for(r.nominal, low);
    s.nominal = nominal_clock_mhz(r.nominal, peak);
    if (s.nominal) s.note = "nominal: the clock the datasheet peak is computed at";
    if (clock_source && clock_source->telemetry && clock_source->telemetry->sm_clock_mhz)
      s.measured = clock_source->telemetry->sm_clock_mhz->median;
    else
      s.note += (s.note.empty() ? "" : "; ") + std::string("no telemetry");
    s.expected_note = "at or below the boost clock under a power/thermal cap";
    rows.push_back(make_row(s));
  }
  {
    row_spec s{"power", "Power during the GEMM", "W"};
    s.nominal = property_number(r, "power_limit_w");
    if (!s.nominal) s.nominal = property_number(r, "power_limit");
    if (clock_source && clock_source->telemetry && clock_source->telemetry->power_w)
      s.measured = clock_source->telemetry->power_w->median;
    else
      s.note = "no telemetry";
    s.expected_note = "near the power limit for a large GEMM";
    rows.push_back(make_row(s));
  }
  {
    row_spec s{"ridge", "Ridge point (" + r.roofline.precision + ")", "FLOP/B"};
    s.nominal = r.roofline.ridge_nominal;
    if (r.roofline.ridge_measured > 0) s.measured = r.roofline.ridge_measured;
    else s.note = "needs both measured roofs";
    s.expect_lo = 0.8;
    s.expect_hi = 1.2;
    s.expected_note = "within 10–20% of nominal (both roofs shrink)";
    rows.push_back(make_row(s));
  }
  {
    json ecc = bandwidth_waterfall(r)["ecc"];
    rows.push_back({{"key", "ecc"}, {"label", "ECC"}, {"unit", ""}, {"nominal", nullptr}, {"measured", ecc["state"]},
                    {"expected_low", nullptr}, {"expected_high", nullptr}, {"expected_note", ""}, {"ratio", nullptr},
                    {"note", ecc["source"]}});
  }
  {
    row_spec s{"tpot_mfu", "TPOT → MFU (decode, batch 1)", "%"};
    const json m = decode_mfu(r);
    for (const auto& e : m["scenarios"]) {
      if (e["batch"].get<std::int64_t>() != 1) continue;
      if (e.contains("mfu_ceiling_nominal")) s.nominal = 100.0 * e["mfu_ceiling_nominal"].get<double>();
      if (e["mfu"].is_number()) {
        s.measured = 100.0 * e["mfu"].get<double>();
        if (e.value("tpot_source", std::string()) == "whole step") {
          s.note = fmt::format("TPOT {:.3g} ms: the measured whole decode step", 1e3 * e["tpot_s"].get<double>());
          if (e.contains("sum_of_ops_tpot_s"))
            s.note += fmt::format(" (sum of isolated ops {:.3g} ms", 1e3 * e["sum_of_ops_tpot_s"].get<double>());
          else
            s.note += " (sum of isolated ops not measured";
          s.note += fmt::format(", predicted {:.3g} ms)", 1e3 * e["whole_step_predicted_s"].get<double>());
        } else {
          s.note = fmt::format("TPOT {:.3g} ms from the sum of the isolated measured decode ops (no whole step measured)",
                               1e3 * e["tpot_s"].get<double>());
        }
      } else {
        s.note = e.value("note", std::string("not measured"));
      }
    }
    if (!s.measured && s.note.empty()) s.note = "no decode batch-1 scenario";
    s.expected_note = "nominal column = the bandwidth-bound ceiling intensity ÷ ridge";
    rows.push_back(make_row(s));
  }
  return rows;
}

}  // namespace roofline
