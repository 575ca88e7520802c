// `roofline compare`: two devices (measured results or spec-only): the opening sentences (what
// differs, by how much, what it does to each step; numbers from analysis/device_comparison.cpp), one
// table, and the figure: the ops' precision with both devices' roofs and op points, the ratio B ÷ A of
// every roof, and (compare.html) one small panel per other precision. Every row shows A, B and B ÷ A. Ops of a side are also predicted on the other side's roofs
// (max(FLOPs ÷ peak, bytes ÷ bandwidth); Williams, Waterman, Patterson, CACM 2009), measured
// roofs where that side has them, else nominal.
#include <fmt/format.h>

#include <algorithm>
#include <filesystem>

#include "report/document.hpp"
#include "report/html_page.hpp"
#include "report/plot_results.hpp"
#include "report/sections.hpp"
#include "roofline/device_comparison.hpp"
#include "roofline/json.hpp"
#include "roofline/vocabulary.hpp"
#include "report/units.hpp"
#include "roofline/error.hpp"
#include "roofline/io.hpp"
#include "roofline/report.hpp"
#include "roofline/spec.hpp"

namespace roofline {

namespace {

using namespace report;

compare_side spec_side(const nominal_roofs& n, const std::string& source) {
  compare_side s;
  s.r.device.kind = "cuda";
  s.r.device.name = n.device_name.empty() ? source : n.device_name;
  s.r.nominal = n;
  s.r.status = "spec only";
  s.label = s.r.device.name + " (spec)";
  s.source = source;
  return s;
}

std::optional<double> opt_rate(const std::optional<double>& v) { return v && *v > 0 ? v : std::nullopt; }

std::vector<cell> row3(const std::string& q, std::optional<double> a, std::optional<double> b, std::string (*f)(double),
                       const std::string& why_a, const std::string& why_b) {
  cell ca = a ? cell(f(*a), *a) : cell(why_a), cb = b ? cell(f(*b), *b) : cell(why_b);
  cell r = a && b && *a > 0 ? cell(ratio(*b / *a), *b / *a) : cell("—");
  return {cell(q), ca, cb, r};
}

std::string why(const compare_side& s, const std::string& what) { return s.measured ? "not measured" : "spec only: " + what + " not measured"; }

/// Why a side has no device-memory `pattern` bandwidth: "rejected" when it measured that pattern and
/// kept every row out of the roofs (its record table says why), else why().
std::string bandwidth_why(const compare_side& s, const std::string& pattern) {
  return rejected_device_bandwidth(s.r.measured, pattern) ? "rejected" : why(s, pattern);
}

std::vector<std::string> union_of(std::vector<std::string> a, const std::vector<std::string>& b) {
  for (const auto& x : b)
    if (std::find(a.begin(), a.end(), x) == a.end()) a.push_back(x);
  return a;
}

/// Predicted seconds of (flops, bytes) on a side: measured roofs of `precision` when it has them.
std::optional<double> predict_on(const compare_side& s, const std::string& precision, double flops, double bytes) {
  const ridge_pair rp = ridge_for(s.r, precision);
  const auto peak = rp.peak_measured ? rp.peak_measured : rp.peak_nominal;
  const auto bw = rp.bw_measured ? rp.bw_measured : rp.bw_nominal;
  if (!peak || !bw) return std::nullopt;
  return std::max(flops / *peak, bytes / *bw);
}

/// "0.930× (756 TFLOP/s → 703 TFLOP/s)" or "the same (989 TFLOP/s)"
std::string pair_words(std::optional<double> a, std::optional<double> b, std::string (*f)(double)) {
  if (!a || !b) return "";
  if (f(*a) == f(*b)) return "the same (" + f(*a) + ")";
  return fmt::format("{} ({} → {})", ratio(*b / *a), f(*a), f(*b));
}

/// The opening sentences: the roofs that differ and by how much, then what it does to each scenario
/// both devices ran (the first decode batch and the first prefill), with A's time by bound and the
/// speedup the roofs' ratios predict for it (device_comparison.hpp).
std::vector<std::string> compare_sentences(const device_comparison& c, const compare_side& a, const compare_side& b) {
  std::vector<std::string> out;
  const std::string& p = c.precision;
  auto rate = p == "int8" ? rate_ops : rate_flops;
  std::string s = fmt::format("From A ({}) to B ({}):", a.label, b.label);
  std::vector<std::string> parts;
  if (c.bandwidth_nominal_a && c.bandwidth_nominal_b) {
    std::string t = "device-memory bandwidth " + pair_words(c.bandwidth_nominal_a, c.bandwidth_nominal_b, rate_bytes) + " nominal";
    if (c.bandwidth_measured_a && c.bandwidth_measured_b)
      t += " and " + pair_words(c.bandwidth_measured_a, c.bandwidth_measured_b, rate_bytes) + " measured";
    parts.push_back(t);
  } else if (c.bandwidth_measured_a && c.bandwidth_measured_b) {
    parts.push_back("device-memory bandwidth " + pair_words(c.bandwidth_measured_a, c.bandwidth_measured_b, rate_bytes) + " measured");
  }
  if (c.compute_nominal_a && c.compute_nominal_b) {
    std::string t = p + " compute " + pair_words(c.compute_nominal_a, c.compute_nominal_b, rate) + " nominal";
    if (c.compute_measured_a && c.compute_measured_b)
      t += " and " + pair_words(c.compute_measured_a, c.compute_measured_b, rate) + " measured (the roof GEMMs)";
    parts.push_back(t);
  }
  if (parts.empty()) return out;
  for (std::size_t i = 0; i < parts.size(); ++i) s += (i == 0 ? " " : "; ") + parts[i];
  const auto rb = c.bandwidth_ratio(), rc = c.compute_ratio();
  if (rb && rc)
    s += fmt::format(". A bandwidth-bound op runs {} as fast on B, a compute-bound one {}.", ratio(*rb), ratio(*rc));
  else
    s += ".";
  out.push_back(s);
  const compared_step* decode = nullptr;
  const compared_step* prefill = nullptr;
  for (const auto& st : c.steps) {
    if (st.phase == "decode" && !decode) decode = &st;
    if (st.phase == "prefill" && !prefill) prefill = &st;
  }
  for (const compared_step* st : {decode, prefill}) {
    if (!st) continue;
    std::string t = capitalised(scenario_words(st->phase, st->batch, st->seq));
    if (st->phase == "decode") t += fmt::format(" (context {})", st->context);
    const double sp = st->speedup();
    t += fmt::format(" takes {} on A and {} on B: {} {}", seconds(st->a_s), seconds(st->b_s), ratio(sp >= 1 ? sp : 1 / sp),
                     sp >= 1 ? "faster on B" : "slower on B");
    t += fmt::format("; A's step is {} bandwidth-bound, {} latency-bound and {} compute-bound", percent(st->bandwidth_share),
                     percent(st->latency_share), percent(st->compute_share));
    if (st->expected_speedup) {
      t += fmt::format(", so scaling each share by its roof's ratio (bandwidth {}, compute {}, latency unchanged) expects {}", ratio(*rb),
                       ratio(*rc), ratio(*st->expected_speedup));
      // the share that keeps the step from the ratio of its main roof
      const bool bw_main = st->bandwidth_share >= st->compute_share;
      const double main_ratio = bw_main ? *rb : *rc;
      if (main_ratio > 1.02 && sp < main_ratio * 0.97 && st->latency_share >= 0.1)
        t += fmt::format(": less than the {} of the {} because {} of the step is latency-bound", ratio(main_ratio), bw_main ? "bandwidth" : "compute",
                         percent(st->latency_share));
    }
    out.push_back(t + ".");
  }
  return out;
}

document compare_document(const compare_side& a, const compare_side& b) {
  document d;
  d.title = "Roofline comparison: " + a.label + " vs " + b.label;
  d.headline = compare_sentences(compare_devices(a.r, b.r), a, b);
  d.intro.push_back("A = " + a.label + " (" + a.source + "); B = " + b.label + " (" + b.source + "). Every row: A, B and B ÷ A.");
  section s{"Roofs side by side", "roofs", {}};
  table t;
  t.header = {"quantity", "A: " + a.label, "B: " + b.label, "B ÷ A"};
  const auto precs = union_of(union_of(nominal_precisions(a.r.nominal), nominal_precisions(b.r.nominal)),
                              union_of(measured_precisions(a.r.measured), measured_precisions(b.r.measured)));
  for (const auto& p : precs) {
    auto nom = [&](const compare_side& s) -> std::optional<double> {
      const nominal_peak* np = peak_for(s.r.nominal, p);
      return np ? std::optional<double>(np->flops_per_s) : std::nullopt;
    };
    auto meas = [&](const compare_side& s) -> std::optional<double> {
      const compute_result* c = best_compute(s.r.measured, p);
      return c ? std::optional<double>(c->flops_per_s) : std::nullopt;
    };
    auto rate = p == "int8" ? rate_ops : rate_flops;  // int8 peaks are integer operations
    const nominal_peak* pa = peak_for(a.r.nominal, p);
    const nominal_peak* pb = peak_for(b.r.nominal, p);
    if (pa && pb && pa->engine != pb->engine) {
      // One side's best is its tensor cores, the other's its vector units (T4 fp64 vs A100 fp64):
      // a ratio across engines compares two different units, so compare each engine with its like.
      for (const char* engine : {"vector", "tensor"}) {
        auto of = [&](const compare_side& side) -> std::optional<double> {
          const nominal_peak* np =
              peak_for(side.r.nominal, p, std::string(engine) == "vector" ? peak_engine::vector : peak_engine::tensor);
          return np ? std::optional<double>(np->flops_per_s) : std::nullopt;
        };
        const std::string none = fmt::format("no {} {} peak", p, engine);
        t.rows.push_back(row3(fmt::format("{} nominal peak ({})", p, engine), of(a), of(b), rate, none, none));
      }
    } else {
      t.rows.push_back(row3(p + " nominal peak", nom(a), nom(b), rate, "no " + p + " peak", "no " + p + " peak"));
    }
    if (meas(a) || meas(b))
      t.rows.push_back(row3(p + " measured compute roof", meas(a), meas(b), rate, why(a, p), why(b, p)));
  }
  t.rows.push_back(row3("memory bandwidth, nominal", opt_rate(a.r.nominal.memory_bandwidth_bytes_per_s),
                        opt_rate(b.r.nominal.memory_bandwidth_bytes_per_s), rate_bytes, "unknown", "unknown"));
  if (a.measured || b.measured) {
    for (const char* pattern : {"read", "write", "copy", "triad"}) {
      auto bw = [&](const compare_side& s) -> std::optional<double> {
        const bandwidth_result* r = best_device_bandwidth(s.r.measured, pattern);
        return r ? std::optional<double>(r->bytes_per_s) : std::nullopt;
      };
      t.rows.push_back(row3(fmt::format("memory bandwidth, measured {}", pattern), bw(a), bw(b), rate_bytes,
                            bandwidth_why(a, pattern), bandwidth_why(b, pattern)));
    }
    for (const auto& lvl : union_of(cache_levels(a.r.measured), cache_levels(b.r.measured))) {
      auto bw = [&](const compare_side& s) -> std::optional<double> {
        const bandwidth_result* r = best_level_bandwidth(s.r.measured, lvl);
        return r ? std::optional<double>(r->bytes_per_s) : std::nullopt;
      };
      t.rows.push_back(row3(lvl + " bandwidth, measured (best)", bw(a), bw(b), rate_bytes, why(a, lvl), why(b, lvl)));
    }
  }
  for (const auto& p : precs) {
    const ridge_pair ra = ridge_for(a.r, p), rb = ridge_for(b.r, p);
    auto ridge = p == "int8" ? intensity_ops : intensity;
    if (ra.nominal || rb.nominal) t.rows.push_back(row3(p + " ridge, nominal", ra.nominal, rb.nominal, ridge, "unknown", "unknown"));
    if (ra.measured || rb.measured)
      t.rows.push_back(row3(p + " ridge, measured", ra.measured, rb.measured, ridge, why(a, "ridge"), why(b, "ridge")));
  }
  const decode_step da = decode_step_at(a.r, 1), db = decode_step_at(b.r, 1);
  if (da.tpot_s || db.tpot_s)
    t.rows.push_back(row3("decode TPOT, batch 1", da.tpot_s, db.tpot_s, seconds, da.why.empty() ? "—" : da.why,
                          db.why.empty() ? "—" : db.why));
  s.add(std::move(t));
  d.sections.push_back(std::move(s));

  // Ops: each side's ops, with the other side's time predicted on its roofs.
  const compare_side& base = !a.r.ops.empty() ? a : b;
  if (!base.r.ops.empty()) {
    section so{"Ops on both devices", "ops", {}};
    const std::string prec = main_precision(base.r);
    so.para(fmt::format("The ops of {} ({}); times are measured where that device ran the op, else predicted = "
                        "max(FLOPs ÷ peak, bytes ÷ bandwidth) on its {} roofs (measured roofs where it has them, else nominal).",
                        base.label, prec, prec));
    const compare_side& other = &base == &a ? b : a;
    table to;
    to.header = {"op", "phase", "batch", "FLOPs", "bytes", "intensity", "A time", "B time", "B ÷ A"};
    for (const auto& op : base.r.ops) {
      const op_result* peer = nullptr;
      for (const auto& q : other.r.ops)
        if (q.name == op.name && q.phase == op.phase && q.batch == op.batch && q.seq == op.seq && q.context == op.context) peer = &q;
      auto time_of = [&](const compare_side& s, const op_result* o) -> std::pair<std::optional<double>, std::string> {
        if (o && o->measured_s) return {o->measured_s, seconds(*o->measured_s) + " measured"};
        auto t = o ? std::optional<double>(o->predicted_s) : predict_on(s, prec, op.flops, op.bytes);
        if (t && *t > 0) return {t, seconds(*t) + " predicted"};
        return {std::nullopt, "no roofs"};
      };
      const auto ta = time_of(a, &base == &a ? &op : peer), tb = time_of(b, &base == &b ? &op : peer);
      to.rows.push_back({cell(op.name), cell(op.phase), cell(std::to_string(op.batch), static_cast<double>(op.batch)),
                         cell(flop_count(op.flops), op.flops), cell(bytes_binary(op.bytes), op.bytes), cell(intensity(op.intensity), op.intensity),
                         ta.first ? cell(ta.second, *ta.first) : cell(ta.second), tb.first ? cell(tb.second, *tb.first) : cell(tb.second),
                         ta.first && tb.first && *ta.first > 0 ? cell(ratio(*tb.first / *ta.first), *tb.first / *ta.first) : cell("—")});
    }
    so.add(std::move(to));
    d.sections.push_back(std::move(so));
  }
  return d;
}

std::vector<std::string> spec_precisions(const compare_side& s, const compare_side& other) {
  if (s.measured) return {};
  std::vector<std::string> want = measured_precisions(other.r.measured);
  if (want.empty()) want = {"fp16", "fp32"};
  return want;
}

}  // namespace

compare_side load_compare_side(const std::string& arg) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const bool looks_like_file = arg.find('/') != std::string::npos || (arg.size() > 5 && arg.substr(arg.size() - 5) == ".json");
  if (!fs::exists(arg, ec)) {
    if (looks_like_file) throw input_error(arg, "", "cannot open for reading");
    return spec_side(gpu_nominal(arg), arg);
  }
  const std::string text = read_file(arg);
  json j;
  try {
    j = json::parse(text);
  } catch (const json::exception& e) {  // parse_error, or out_of_range for a number that overflows a double
    throw input_error(arg, "", std::string("not valid JSON: ") + e.what());
  }
  if (j.is_object() && j.contains("schema_version")) {
    compare_side s;
    s.r = parse_results(text, arg);
    s.measured = true;
    s.label = s.r.device.name;
    s.source = arg;
    return s;
  }
  const json* n = nullptr;
  if (j.is_object() && j.contains("peaks")) n = &j;
  else if (j.is_object() && j.contains("nominal") && j["nominal"].is_object() && j["nominal"].contains("peaks")) n = &j["nominal"];
  if (!n) throw input_error(arg, "", "neither a results.json (no schema_version) nor a `roofline spec --json` output (no peaks[])");
  if (!(*n)["peaks"].is_array()) throw input_error(arg, "peaks", "must be an array");
  try {
    nominal_roofs roofs = n->get<nominal_roofs>();
    if (roofs.device_name.empty() && j.contains("name") && j["name"].is_string()) roofs.device_name = j["name"].get<std::string>();
    return spec_side(roofs, arg);
  } catch (const json::exception& e) {
    throw input_error(arg, "", std::string("malformed spec: ") + e.what());
  }
}

namespace {
std::string compare_precision(const compare_side& a, const compare_side& b);
std::vector<std::string> compare_precisions(const compare_side& a, const compare_side& b, const std::string& main);
}  // namespace

std::string render_compare_markdown(const compare_side& a, const compare_side& b) {
  document d = compare_document(a, b);
  d.figure_markdown = "![both devices' roofs and ops, and B ÷ A of every roof](compare.svg)";
  d.figure_after = 0;
  return to_markdown(d);
}

std::string render_compare_text(const compare_side& a, const compare_side& b) {
  const document d = compare_document(a, b);
  std::string o = d.title + "\n";
  for (const auto& h : d.headline) o += wrap_words(h, 100, "", "  ");
  // The terminal keeps the rows of the ops' precision, bandwidth and steps; every precision's rows
  // are in compare.md and compare.html (a row of another precision starts with its name).
  const std::string prec = compare_precision(a, b);
  const auto precs = compare_precisions(a, b, prec);
  const auto other_precision = [&](const std::string& q) {
    return std::any_of(precs.begin() + 1, precs.end(), [&](const std::string& p) { return q.rfind(p + " ", 0) == 0; });
  };
  std::size_t left_out = 0;
  for (const auto& s : d.sections) {
    for (const auto& blk : s.blocks) {
      if (blk.k != block::kind::table) continue;
      const table& t = blk.t;
      // Column widths in glyphs; the first column left-aligned, the numbers right-aligned.
      auto glyphs = [](const std::string& x) {
        std::size_t n = 0;
        for (unsigned char c : x) n += (c & 0xC0) != 0x80;
        return n;
      };
      std::vector<std::size_t> w(t.header.size(), 0);
      for (std::size_t i = 0; i < t.header.size(); ++i) w[i] = glyphs(t.header[i]);
      for (const auto& row : t.rows)
        for (std::size_t i = 0; i < row.size() && i < w.size(); ++i) w[i] = std::max(w[i], glyphs(row[i].text));
      auto line = [&](const std::vector<std::string>& cells) {
        std::string l = " ";
        for (std::size_t i = 0; i < w.size(); ++i) {
          const std::string c = i < cells.size() ? cells[i] : "";
          const std::string fill(w[i] - std::min(w[i], glyphs(c)), ' ');
          l += " " + (i == 0 ? c + fill : fill + c);
        }
        while (!l.empty() && l.back() == ' ') l.pop_back();
        return l + "\n";
      };
      o += "\n" + s.title + ":\n" + line(t.header);
      for (const auto& row : t.rows) {
        if (!row.empty() && other_precision(row[0].text)) {
          ++left_out;
          continue;
        }
        std::vector<std::string> cells;
        for (const auto& c : row) cells.push_back(c.text);
        o += line(cells);
      }
      for (std::size_t i = 0; i < t.notes.size(); ++i) o += fmt::format("  [{}] {}\n", i + 1, t.notes[i]);
      if (left_out > 0) o += fmt::format("  ({} rows of the other precisions: compare.md)\n", left_out);
      break;  // the first table of a section: the rest is in compare.md
    }
    break;  // the roofs side by side; the ops tables are in compare.md and compare.html
  }
  return o;
}

namespace {

/// The precision the ops ran in (the main panel's), else fp16.
std::string compare_precision(const compare_side& a, const compare_side& b) { return compare_devices(a.r, b.r).precision; }

/// Every precision either side has a roof of, the main one first.
std::vector<std::string> compare_precisions(const compare_side& a, const compare_side& b, const std::string& main) {
  std::vector<std::string> v{main};
  for (const compare_side* s : {&a, &b})
    for (const auto& p : s->measured ? measured_precisions(s->r.measured) : nominal_precisions(s->r.nominal))
      if (std::find(v.begin(), v.end(), p) == v.end()) v.push_back(p);
  return v;
}

/// One panel: precision `prec`'s compute roof and the device-memory roof of both devices (nominal
/// dashed, measured solid; A blue, B orange), with, when `ops`, each op of A's table on both devices at
/// the same intensity: A a circle, B a square, a grey line between them (filled = measured, hollow =
/// predicted on that device's roofs).
std::string compare_panel(const compare_side& a, const compare_side& b, const std::string& prec, bool ops) {
  plot p;
  p.title = fmt::format("{}: A = {} vs B = {}", prec, a.label, b.label);
  p.subtitle = ops ? "dashed = nominal, solid = measured; blue = A, orange = B; each op of the model on both devices at its intensity "
                     "(A circle, B square, linked; filled = measured, hollow = predicted)"
                   : "dashed = nominal, solid = measured; blue = A, orange = B; compute and device-memory roofs";
  add_device_roofs(p, a.r, "A: ", 0, spec_precisions(a, b), {prec}, true);
  add_device_roofs(p, b.r, "B: ", 1, spec_precisions(b, a), {prec}, true);
  if (!ops) return draw_svg(p);
  const compare_side& base = !a.r.ops.empty() ? a : b;
  const compare_side& other = &base == &a ? b : a;
  int skipped = 0;
  for (const auto& op : base.r.ops) {
    if (op.flops <= 0 || op.bytes <= 0) {
      ++skipped;
      continue;
    }
    const op_result* peer = nullptr;
    for (const auto& q : other.r.ops)
      if (q.name == op.name && q.phase == op.phase && q.batch == op.batch && q.seq == op.seq && q.context == op.context) peer = &q;
    const double x = op.flops / op.bytes;
    std::optional<std::pair<double, bool>> at[2];  // (FLOP/s, measured) on A and on B
    for (int side = 0; side < 2; ++side) {
      const compare_side& dev = side == 0 ? a : b;
      const op_result* o = &dev == &base ? &op : peer;
      if (o && o->measured_s && *o->measured_s > 0) at[side] = std::pair{op.flops / *o->measured_s, true};
      else if (auto t = o ? std::optional<double>(o->predicted_s) : predict_on(dev, prec, op.flops, op.bytes); t && *t > 0)
        at[side] = std::pair{op.flops / *t, false};
    }
    const std::string scen = op.phase == "decode" ? fmt::format("decode b{}", op.batch) : fmt::format("{} s{}", op.phase, op.seq);
    for (int side = 0; side < 2; ++side) {
      if (!at[side]) continue;
      const auto [y, measured] = *at[side];
      p.points.push_back({x, y, measured, device_color(side, false), side == 0 ? "circle" : "square", side == 0 ? 4.5 : 3.8,
                          fmt::format("dev{}-ops", side),
                          fmt::format("{}: {} ({}): {}, {}, {}; {} {}", side == 0 ? "A" : "B", op.name, scen, flop_count(op.flops), bytes_binary(op.bytes),
                                      intensity(x), rate_flops(y), measured ? "measured" : "predicted"),
                          "", 0, -1, ""});
    }
    if (at[0] && at[1]) p.links.push_back({x, at[0]->first, x, at[1]->first, "#888888"});
  }
  p.legend.push_back({legend_item::kind::filled, device_color(0, false), "A ops (circle)", "dev0-ops"});
  p.legend.push_back({legend_item::kind::square, device_color(1, false), "B ops (square)", "dev1-ops"});
  if (skipped > 0) p.notes.push_back(fmt::format("{} op(s) not plotted (0 FLOP or 0 B)", skipped));
  return draw_svg(p);
}

/// B ÷ A of every roof both sides have (measured where both measured it, else nominal), and of the
/// steps both ran.
std::vector<ratio_bar> compare_ratios(const compare_side& a, const compare_side& b, const std::string& main) {
  std::vector<ratio_bar> bars;
  auto add = [&](const std::string& label, std::optional<double> va, std::optional<double> vb, std::string (*f)(double)) {
    if (va && vb && *va > 0 && *vb > 0) bars.push_back({label, *vb / *va, f(*va) + " → " + f(*vb)});
  };
  for (const auto& p : compare_precisions(a, b, main)) {
    auto rate = p == "int8" ? rate_ops : rate_flops;
    const compute_result* ma = best_compute(a.r.measured, p);
    const compute_result* mb = best_compute(b.r.measured, p);
    if (ma && mb) {
      add(p + " compute roof, measured", ma->flops_per_s, mb->flops_per_s, rate);
      continue;
    }
    const nominal_peak* na = peak_for(a.r.nominal, p);
    const nominal_peak* nb = peak_for(b.r.nominal, p);
    if (na && nb) add(p + " peak, nominal", na->flops_per_s, nb->flops_per_s, rate);
  }
  add("device memory, nominal", opt_rate(a.r.nominal.memory_bandwidth_bytes_per_s), opt_rate(b.r.nominal.memory_bandwidth_bytes_per_s), rate_bytes);
  const bandwidth_result* da = best_device_bandwidth(a.r.measured);
  const bandwidth_result* db = best_device_bandwidth(b.r.measured);
  if (da && db) add("device memory, measured", da->bytes_per_s, db->bytes_per_s, rate_bytes);
  for (const auto& lvl : union_of(cache_levels(a.r.measured), cache_levels(b.r.measured))) {
    const bandwidth_result* la = best_level_bandwidth(a.r.measured, lvl);
    const bandwidth_result* lb = best_level_bandwidth(b.r.measured, lvl);
    if (la && lb) add(memory_level_label(lvl) + " bandwidth, measured", la->bytes_per_s, lb->bytes_per_s, rate_bytes);
  }
  for (const auto& st : compare_devices(a.r, b.r).steps)
    add(scenario_words(st.phase, st.batch, st.seq) + " step time", st.a_s, st.b_s, seconds);
  return bars;
}

}  // namespace

std::string render_compare_svg(const compare_side& a, const compare_side& b) {
  const std::string prec = compare_precision(a, b);
  std::vector<std::string> parts{compare_panel(a, b, prec, true)};
  const auto bars = compare_ratios(a, b, prec);
  if (!bars.empty())
    parts.push_back(draw_ratio_svg(fmt::format("B ÷ A: {} against {}", b.label, a.label),
                                   "each roof both devices have (measured where both measured it, else nominal) and each step both ran; "
                                   "a step time below 1× is faster on B",
                                   bars));
  return stack_svgs(parts, "two devices compared");
}

std::string render_compare_html(const compare_side& a, const compare_side& b) {
  document d = compare_document(a, b);
  d.figure_html = render_compare_svg(a, b);
  d.figure_after = 0;
  const std::string prec = compare_precision(a, b);
  const auto precs = compare_precisions(a, b, prec);
  for (std::size_t i = 1; i < precs.size(); ++i) d.multiples_html.push_back(compare_panel(a, b, precs[i], false));
  if (!d.multiples_html.empty()) d.multiples_summary = "The other precisions, one panel each (roofs only)";
  return html_page(d.title, to_html(d));
}

void write_compare_outputs(const compare_side& a, const compare_side& b, const std::string& dir) {
  write_files({{"compare.md", render_compare_markdown(a, b)}, {"compare.svg", render_compare_svg(a, b)},
               {"compare.html", render_compare_html(a, b)}},
              dir);
}

}  // namespace roofline
