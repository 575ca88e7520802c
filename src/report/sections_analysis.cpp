// Sections over r.analysis (filled by src/analysis/): the two attribution waterfalls, MFU/HFU,
// fusion, and any key not shown elsewhere. Absent keys give a one-line "not computed" note.
#include <fmt/format.h>

#include <algorithm>

#include "roofline/vocabulary.hpp"
#include "report/sections.hpp"
#include "report/units.hpp"

namespace roofline::report {

namespace {

const json* find_key(const results& r, const char* key) {
  if (!r.analysis.is_object()) return nullptr;
  auto it = r.analysis.find(key);
  if (it == r.analysis.end() || it->is_null()) return nullptr;
  return &*it;
}

}  // namespace

section attribution_section(const results& r) {
  section s{"Where the gap goes: attribution", "attribution", {}};
  const json* c = find_key(r, "compute_waterfall");
  const json* b = find_key(r, "bandwidth_waterfall");
  s.heading("Compute: nominal → clock → wave and tile quantization → remainder");
  if (c) add_json(s, *c, "compute_waterfall", 0);
  else s.para("Not computed (no analysis.compute_waterfall in the results).");
  s.heading("Bandwidth: nominal → best pattern → read, copy, triad; cache vs device memory; ECC");
  if (b) add_json(s, *b, "bandwidth_waterfall", 0);
  else s.para("Not computed (no analysis.bandwidth_waterfall in the results).");
  return s;
}

section mfu_section(const results& r) {
  section s{"MFU and HFU", "mfu", {}};
  const decode_step d = decode_step_at(r, 1);
  const std::string p = main_precision(r);
  const nominal_peak* peak = peak_for(r.nominal, p);
  const compute_result* meas = best_compute(r.measured, p);
  std::vector<std::string> items;
  if (d.ops > 0) {
    items.push_back(fmt::format("decode, batch 1: {} and {} per token over {} op kinds", flop_count(d.flops), bytes_binary(d.bytes), d.ops));
    if (d.tpot_s) {
      const double f = d.flops / *d.tpot_s;
      items.push_back(fmt::format("TPOT ({}): {} → {}", d.tpot_source, seconds(*d.tpot_s), rate_flops(f)));
      if (peak) items.push_back(fmt::format("MFU vs the nominal {} peak ({}): {}", p, rate_flops(peak->flops_per_s), percent(f / peak->flops_per_s)));
      if (meas) items.push_back(fmt::format("fraction of the measured {} roof ({}): {}", p, rate_flops(meas->flops_per_s), percent(f / meas->flops_per_s)));
    } else {
      items.push_back("TPOT: not measured (" + d.why + ")");
    }
  }
  s.bullets(items);
  if (const json* m = find_key(r, "mfu")) add_json(s, *m, "mfu", 0);
  else if (items.empty()) s.para("Not computed (no decode ops and no analysis.mfu in the results).");
  s.para("MFU = model FLOPs ÷ time ÷ (nominal dense peak × GPUs); HFU also counts recomputed FLOPs "
         "(PaLM, Chowdhery et al. 2022, appendix B).");
  return s;
}

section fusion_section(const results& r) {
  section s{"Fusion: what fusing ops would save", "fusion", {}};
  if (const json* f = find_key(r, "fusion")) add_json(s, *f, "fusion", 0);
  else s.para("Not computed (no analysis.fusion in the results).");
  return s;
}

section other_analysis_section(const results& r) {
  section s{"Other analysis", "other", {}};
  static const char* shown[] = {"compute_waterfall", "bandwidth_waterfall", "ridge", "mfu", "fusion", "accuracy", "record_table"};
  if (!r.analysis.is_object()) return s;
  for (auto it = r.analysis.begin(); it != r.analysis.end(); ++it) {
    if (std::find(std::begin(shown), std::end(shown), it.key()) != std::end(shown) || it.value().is_null()) continue;
    s.heading(it.key());
    add_json(s, it.value(), it.key(), 0);
  }
  return s;
}

}  // namespace roofline::report
