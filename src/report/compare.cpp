// `roofline compare`: two devices (measured results or spec-only) in one table and one figure.
// Every row shows A, B and B ÷ A. Ops of a side are also predicted on the other side's roofs
// (max(FLOPs ÷ peak, bytes ÷ bandwidth); Williams, Waterman, Patterson, CACM 2009), measured
// roofs where that side has them, else nominal.
#include <fmt/format.h>

#include <algorithm>
#include <filesystem>

#include "report/document.hpp"
#include "report/html_page.hpp"
#include "report/plot_results.hpp"
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

document compare_document(const compare_side& a, const compare_side& b) {
  document d;
  d.title = "Roofline comparison: " + a.label + " vs " + b.label;
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

std::string render_compare_markdown(const compare_side& a, const compare_side& b) {
  document d = compare_document(a, b);
  d.figure_markdown = "![both devices on one roofline](compare.svg)";
  return to_markdown(d);
}

std::string render_compare_text(const compare_side& a, const compare_side& b) {
  const document d = compare_document(a, b);
  std::string o = d.title + "\n";
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
        std::vector<std::string> cells;
        for (const auto& c : row) cells.push_back(c.text);
        o += line(cells);
      }
      for (std::size_t i = 0; i < t.notes.size(); ++i) o += fmt::format("  [{}] {}\n", i + 1, t.notes[i]);
      break;  // the first table of a section: the rest is in compare.md
    }
    break;  // the roofs side by side; the ops tables are in compare.md and compare.html
  }
  return o;
}

std::string render_compare_svg(const compare_side& a, const compare_side& b) {
  plot p;
  p.title = "Roofline: A = " + a.label + " vs B = " + b.label;
  p.subtitle = "dashed = nominal, solid = measured; blue = A, orange = B; hollow = predicted op, filled = measured op";
  add_device_roofs(p, a.r, "A: ", 0, spec_precisions(a, b));
  add_device_roofs(p, b.r, "B: ", 1, spec_precisions(b, a));
  const int sa = add_ops(p, a.r, "A: ", false, 0), sb = add_ops(p, b.r, "B: ", false, 1);
  p.legend.push_back({legend_item::kind::filled, device_color(0, false), "A ops", "dev0-ops"});
  p.legend.push_back({legend_item::kind::filled, device_color(1, false), "B ops", "dev1-ops"});
  if (sa + sb > 0) p.notes.push_back(fmt::format("{} op(s) not plotted (0 FLOP or 0 B)", sa + sb));
  return draw_svg(p);
}

std::string render_compare_html(const compare_side& a, const compare_side& b) {
  document d = compare_document(a, b);
  d.figure_html = render_compare_svg(a, b);
  return html_page(d.title, to_html(d));
}

void write_compare_outputs(const compare_side& a, const compare_side& b, const std::string& dir) {
  write_files({{"compare.md", render_compare_markdown(a, b)}, {"compare.svg", render_compare_svg(a, b)},
               {"compare.html", render_compare_html(a, b)}},
              dir);
}

}  // namespace roofline
