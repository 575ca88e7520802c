// The compute gap of the GEMM roof, attributed: nominal → clock → wave quantization → tile
// quantization → remainder (prologue/epilogue, library efficiency). docs/formulas-analysis.md §2.
// Wave/tile quantization: NVIDIA "Matrix Multiplication Background User's Guide" (Deep Learning
// Performance documentation), sections "Tile Quantization" and "Wave Quantization".
#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <map>

#include "roofline/json.hpp"
#include "roofline/vocabulary.hpp"
#include "roofline/analysis.hpp"
#include "roofline/waterfall.hpp"

namespace roofline {

std::int64_t output_tiles(std::int64_t m, std::int64_t n, tile_shape t) {
  if (m <= 0 || n <= 0 || t.m <= 0 || t.n <= 0) return 0;
  return ((m + t.m - 1) / t.m) * ((n + t.n - 1) / t.n);
}

double wave_efficiency(std::int64_t tiles, std::int64_t sms) {
  if (tiles <= 0 || sms <= 0) return 0;
  const std::int64_t waves = (tiles + sms - 1) / sms;
  return static_cast<double>(tiles) / static_cast<double>(sms * waves);
}

double tile_efficiency(std::int64_t m, std::int64_t n, tile_shape t) {
  if (m <= 0 || n <= 0 || t.m <= 0 || t.n <= 0) return 0;
  const double pm = static_cast<double>(((m + t.m - 1) / t.m) * t.m);
  const double pn = static_cast<double>(((n + t.n - 1) / t.n) * t.n);
  return static_cast<double>(m) * static_cast<double>(n) / (pm * pn);
}

namespace {

constexpr tile_shape assumed_tile{128, 128};

struct factors {
  std::optional<double> clock, wave, tile;
  double measured_fraction = 0;
  double remainder = 0;
  std::string clock_note, wave_note, tile_note;
};

factors attribute(const results& r, const compute_result& c, double peak, std::optional<double> ds_clock) {
  factors f;
  f.measured_fraction = c.flops_per_s / peak;
  if (c.telemetry && c.telemetry->sm_clock_mhz && c.telemetry->sm_clock_mhz->median > 0 && ds_clock) {
    f.clock = c.telemetry->sm_clock_mhz->median / *ds_clock;
    f.clock_note = fmt::format("sustained SM clock {:.0f} MHz (median of {} samples) ÷ datasheet {:.0f} MHz",
                               c.telemetry->sm_clock_mhz->median, c.telemetry->samples, *ds_clock);
    if (*f.clock > 1.0) f.clock_note += " (above the clock the datasheet peak assumes: the nominal peak understates this GPU)";
  } else if (!c.telemetry || !c.telemetry->sm_clock_mhz) {
    f.clock_note = r.device.kind == "cpu" ? "no telemetry (CPU: no clock sampler); factor not applied"
                                          : "no telemetry for this probe; factor not applied";
  } else {
    f.clock_note = "no datasheet clock among the nominal factors; factor not applied";
  }
  const auto sms = sm_count(r);
  if (r.device.kind == "cpu") {
    f.wave_note = "not applicable on the CPU (no SM waves)";
    f.tile_note = "not applicable on the CPU (BLAS blocking is not reported)";
  } else if (!c.size) {
    f.wave_note = f.tile_note = "no GEMM size";
  } else {
    const std::int64_t n = *c.size;
    // The library's own choice where it reports one (compute_result::algo, from cuBLASLt's
    // algorithm configuration), else the assumed tile.
    tile_shape t = assumed_tile;
    std::int64_t split_k = 1, cluster = 1;
    std::string src = "assumed";
    const json& a = c.algo;
    if (a.is_object() && a.contains("tile_m") && a.contains("tile_n") && a["tile_m"].is_number_integer() &&
        a["tile_n"].is_number_integer() && a["tile_m"].get<std::int64_t>() > 0 && a["tile_n"].get<std::int64_t>() > 0) {
      t = {a["tile_m"].get<std::int64_t>(), a["tile_n"].get<std::int64_t>()};
      src = "chosen by the library";
      if (a.contains("split_k") && a["split_k"].is_number_integer()) split_k = std::max<std::int64_t>(1, a["split_k"].get<std::int64_t>());
      if (a.contains("cluster_m") && a.contains("cluster_n") && a["cluster_m"].is_number_integer() && a["cluster_n"].is_number_integer())
        cluster = std::max<std::int64_t>(1, a["cluster_m"].get<std::int64_t>() * a["cluster_n"].get<std::int64_t>());
    }
    f.tile = tile_efficiency(n, n, t);
    f.tile_note = fmt::format("{0}×{0} output padded to {1}×{2} by {3}×{4} tiles ({5})", n, ((n + t.m - 1) / t.m) * t.m,
                              ((n + t.n - 1) / t.n) * t.n, t.m, t.n, src);
    if (sms) {
      const auto s = static_cast<std::int64_t>(*sms);
      // Work units: output tiles × split-K slices; a cluster of C blocks is placed as one, so at most
      // floor(SMs / C)·C blocks run at once.
      const std::int64_t units = output_tiles(n, n, t) * split_k;
      const std::int64_t slots = std::max<std::int64_t>(1, (s / cluster) * cluster);
      f.wave = wave_efficiency(units, slots);
      f.wave_note = fmt::format("{} tiles{} on {} SMs{} = {:.2f} waves, run as {}", units,
                                split_k > 1 ? fmt::format(" (× split-K {})", split_k) : std::string(), s,
                                cluster > 1 ? fmt::format(" ({} usable by clusters of {})", slots, cluster) : std::string(),
                                static_cast<double>(units) / slots, (units + slots - 1) / slots);
    } else {
      f.wave_note = "SM count unknown (device.properties.sms); factor not applied";
    }
  }
  const double explained = f.clock.value_or(1.0) * f.wave.value_or(1.0) * f.tile.value_or(1.0);
  f.remainder = f.measured_fraction / explained;
  return f;
}

}  // namespace

compute_waterfall analyse_compute_waterfall(const results& r) {
  compute_waterfall out;
  out.unit = "% of nominal peak";
  out.tile_assumption = fmt::format("the tile, cluster shape and split-K the library reports for its chosen algorithm "
                                    "(measured.compute[].algo); where it reports none, an assumed {}×{} output tile per "
                                    "thread block", assumed_tile.m, assumed_tile.n);
  std::map<std::string, std::vector<const compute_result*>> by_precision;
  for (const auto& c : r.measured.compute)
    if (is_gemm_engine(c.engine) && c.size && c.flops_per_s > 0) by_precision[c.precision].push_back(&c);
  for (auto& [prec, list] : by_precision) {
    std::sort(list.begin(), list.end(), [](auto* a, auto* b) { return *a->size < *b->size; });
    const nominal_peak* peak = peak_for(r.nominal, prec);
    compute_waterfall_precision& e = out.per_precision.emplace_back();
    e.precision = prec;
    if (!peak) {
      e.note = "no nominal peak for this precision: nothing to attribute against";
      continue;
    }
    const auto ds_clock = nominal_clock_mhz(r.nominal, peak);
    const compute_result* best = *std::max_element(list.begin(), list.end(),
                                                   [](auto* a, auto* b) { return a->flops_per_s < b->flops_per_s; });
    const factors f = attribute(r, *best, peak->flops_per_s, ds_clock);
    double cum = 100.0;
    e.steps.push_back({"nominal", 1.0, 100.0, peak->formula.empty() ? peak->engine + " peak" : peak->formula});
    auto add = [&](const char* name, std::optional<double> factor, const std::string& note) {
      if (factor) cum *= *factor;
      e.steps.push_back({name, factor, cum, note});
    };
    add("clock", f.clock, f.clock_note);
    add("wave quantization", f.wave, f.wave_note);
    add("tile quantization", f.tile, f.tile_note);
    add("remainder (prologue/epilogue, library efficiency)", f.remainder, "measured ÷ (nominal × the factors above)");
    e.nominal_flops_per_s = peak->flops_per_s;
    e.nominal_engine = peak->engine;
    e.datasheet_clock_mhz = ds_clock;
    e.best_size = *best->size;
    e.measured_flops_per_s = best->flops_per_s;
    e.measured_percent_of_nominal = 100.0 * f.measured_fraction;
    e.method = best->method;
    for (const auto* c : list) {
      const factors g = attribute(r, *c, peak->flops_per_s, ds_clock);
      gemm_size_factors& x = e.size_sweep.emplace_back();
      x.n = *c->size;
      x.flops_per_s = c->flops_per_s;
      x.percent_of_nominal = 100.0 * g.measured_fraction;
      x.clock_factor = g.clock, x.wave_factor = g.wave, x.tile_factor = g.tile;
      x.remainder_factor = g.remainder;
      if (g.remainder > 1.0)
        x.note = c->algo->is_object() && c->algo->contains("tile_m")
                     ? "remainder > 1: the run beat the tile and wave model of its own configuration "
                       "(e.g. a persistent or stream-K schedule that shares the last wave)"
                     : "remainder > 1: the library beat the tile assumption at this size (smaller tiles or split-K)";
      if (c->algo->is_object() && c->algo->contains("tile") && c->algo["tile"].is_string()) x.tile = c->algo["tile"].get<std::string>();
    }
    if (e.size_sweep.size() >= 2)
      e.remainder_trend = fmt::format("remainder {:.2f} at n={} → {:.2f} at n={}", e.size_sweep.front().remainder_factor,
                                      e.size_sweep.front().n, e.size_sweep.back().remainder_factor, e.size_sweep.back().n);
  }
  if (by_precision.empty()) out.note = "no GEMM measured: no compute waterfall";
  return out;
}

}  // namespace roofline
