// The run of `roofline place`, worded: the answer sentences, the steps, the time per model op, the
// fusion patterns (roofline/run_report.hpp). Numbers from roofline/run_analysis.hpp; words here.
#include "roofline/json.hpp"
#include "roofline/run_report.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <map>
#include <numeric>

#include "roofline/report.hpp"
#include "roofline/units.hpp"

namespace roofline {

namespace {

std::string join(const std::vector<std::string>& v, const std::string& sep) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : sep) + x;
  return s;
}

std::string kind_words(step_kind k) {
  switch (k) {
    case step_kind::train: return "training";
    case step_kind::prefill: return "prefill";
    case step_kind::decode: return "decode";
    case step_kind::unknown: return "";
  }
  return "";
}

/// The median step of the main kind (the one whose wall time is the median), for the breakdown.
const run_step* median_step(const run_answer& a) {
  if (a.main_steps.empty()) return nullptr;
  std::vector<std::size_t> idx = a.main_steps;
  std::sort(idx.begin(), idx.end(), [&](std::size_t x, std::size_t y) { return a.steps[x].wall_s < a.steps[y].wall_s; });
  return &a.steps[idx[idx.size() / 2]];
}

std::string peak_words(const run_answer& a) {
  return fmt::format("{} {} peak", units::compute_rate(a.peak_flops, a.precision), a.precision);
}

}  // namespace

/// A pattern's ops, the first 12 and how many more.
static std::string ops_text(const std::vector<std::string>& ops) {
  if (ops.size() <= 12) return join(ops, ", ");
  return join(std::vector<std::string>(ops.begin(), ops.begin() + 12), ", ") + fmt::format(", … {} more", ops.size() - 12);
}

std::string fusion_pattern_line(const fusion_pattern& p) {
  return fmt::format("{} ({}) × {} run{}: {} not moved = {}", p.name, ops_text(p.ops), p.runs, p.runs == 1 ? "" : "s",
                     units::si(p.bytes_saved, "B"), units::seconds(p.time_saved_s));
}

std::vector<std::string> run_sentences(const run_answer& a) {
  std::vector<std::string> out;
  const run_step* m = median_step(a);
  if (!m || !(m->wall_s > 0)) return out;  // a file without kernel times (an Nsight Compute export) has no step time
  const std::size_t n = a.main_steps.size();
  const std::string kind = kind_words(a.main_kind);
  // 1. the step and what it achieves
  {
    std::string what = kind.empty() ? "One step" : "One " + kind + " step";
    if (a.main_kind == step_kind::decode && m->batch && m->context)
      what += fmt::format(" (batch {}, context {})", *m->batch, *m->context);
    else if ((a.main_kind == step_kind::train || a.main_kind == step_kind::prefill) && m->batch && m->seq)
      what += fmt::format(" ({} × {} tokens)", *m->batch, *m->seq);
    std::string s = fmt::format("{} takes {}", what, units::seconds(a.median_wall_s.value_or(m->wall_s)));
    if (n > 1) s += fmt::format(" (median of {} steps)", n);
    std::vector<std::string> parts;
    if (a.main_kind == step_kind::decode && a.median_mbu) parts.push_back("MBU " + units::percent(*a.median_mbu));
    if (a.median_mfu) parts.push_back("MFU " + units::percent(*a.median_mfu));
    if (a.median_hfu) parts.push_back("HFU " + units::percent(*a.median_hfu));
    if (!parts.empty() && a.peak_flops > 0) s += ": " + join(parts, ", ") + " of the " + peak_words(a);
    if (a.median_attainable_s) {
      const double w = a.median_wall_s.value_or(m->wall_s);
      s += fmt::format("; the attainable step on these roofs is {}, {} faster", units::seconds(*a.median_attainable_s),
                       units::ratio(w / *a.median_attainable_s));
    }
    if (a.model.empty()) s += "; give --model for MFU, HFU and the attainable step";
    else if (!a.median_mfu && !m->model_why.empty()) s += "; no model numbers: " + m->model_why;
    out.push_back(s + ".");
  }
  // 2. where the time goes (the median step)
  {
    const double lb = m->time_by_class[std::size_t(verdict_class::launch_bound)];
    double above = 0;
    const model_op_time* worst = nullptr;
    for (const auto& g : m->ops) {
      above += g.above_roof_s;
      if (!worst || g.above_roof_s > worst->above_roof_s) worst = &g;
    }
    std::string s = fmt::format("Of its {}, the GPU idles {}", units::seconds(m->wall_s), units::seconds(m->idle_s));
    const host_wait* top = nullptr;  // the largest host op that has a name
    for (const auto& h : m->idle_by_host)
      if (h.host != "no host op recorded") {
        top = &h;
        break;
      }
    if (top && m->idle_s > 0) s += fmt::format(" ({} of it while the host is in {})", units::seconds(top->seconds), top->host);
    if (lb > 0) s += fmt::format(", launch-bound kernels take {}", units::seconds(lb));
    if (worst && above > 0)
      s += fmt::format(", and kernels run {} above their roofs, most in {} ({})", units::seconds(above), worst->group,
                       units::seconds(worst->above_roof_s));
    else
      s += fmt::format(", kernels run {} of which {} unattributed", units::seconds(m->kernel_s), units::seconds(m->unattributed_s));
    out.push_back(s + ".");
  }
  // 3. the most valuable next step: the largest of the host idle, a fusion pattern, a model op's gap
  {
    struct option {
      double seconds;
      std::string text;
    };
    std::vector<option> o;
    if (m->idle_s > 0 && !m->idle_by_host.empty()) {
      std::string where;
      for (const auto& h : m->idle_by_host)
        if (h.host != "no host op recorded") {
          where = fmt::format(", {} of it in {}", units::seconds(h.seconds), h.host);
          break;
        }
      o.push_back({m->idle_s, m->graphed ? fmt::format("the host: the GPU idles {} per step{} around the step's CUDA graph: "
                                                       "take the host loop (sampling, checks, the compiled region's guards) "
                                                       "off the GPU's path",
                                                       units::seconds(m->idle_s), where)
                                         : fmt::format("the host: the GPU idles {} per step{}: capture the step in a CUDA "
                                                       "graph or take the host work off the GPU's path",
                                                       units::seconds(m->idle_s), where)});
    }
    if (!a.fusion.empty()) {
      const auto& p = a.fusion.front();
      const double steps = double(std::max<std::size_t>(1, a.steps.size()));
      o.push_back({p.time_saved_s / steps,
                   fmt::format("fuse the {} ({}): {} not moved per step = {}", p.name, ops_text(p.ops),
                               units::si(p.bytes_saved / steps, "B"), units::seconds(p.time_saved_s / steps))});
    }
    for (const auto& g : m->ops)
      if (g.above_roof_s > 0)
        o.push_back({g.above_roof_s, fmt::format("{}: {} above its roof ({} measured, {} at the roof, {} moved)", g.group,
                                                 units::seconds(g.above_roof_s), units::seconds(g.measured_s),
                                                 units::seconds(g.at_roof_s), units::si(g.bytes, "B"))});
    if (!o.empty()) {
      const auto best = std::max_element(o.begin(), o.end(), [](const option& x, const option& y) { return x.seconds < y.seconds; });
      out.push_back("The most valuable next step: " + best->text + ".");
    }
  }
  return out;
}

std::string render_run_text(const run_answer& a, std::size_t top_n) {
  std::string out;
  if (a.steps.empty()) return out;
  const bool timed = std::any_of(a.steps.begin(), a.steps.end(), [](const run_step& s) { return s.wall_s > 0; });
  if (timed) out += fmt::format("steps: {} by {}{}\n", a.steps.size(), to_string(a.rule),
                     a.outside_steps ? fmt::format("; {} kernel(s) ({}) launched outside them (the profiler's warm-up tail)",
                                                   a.outside_steps, units::seconds(a.outside_steps_s))
                                     : "");
  if (timed)
    out += fmt::format("  {:<16} {:<8} {:>10} {:>10} {:>10} {:>7} {:>7} {:>7} {:>11} {:>8}\n", "step", "kind", "wall", "GPU busy",
                       "idle", "MFU", "HFU", "MBU", "attainable", "× it");
  const std::size_t shown = timed ? std::min(a.steps.size(), top_n) : 0;
  for (std::size_t i = 0; i < shown; ++i) {
    const auto& s = a.steps[i];
    auto pct = [](const std::optional<double>& x) { return x ? units::percent(*x) : std::string("—"); };
    out += fmt::format("  {:<16} {:<8} {:>10} {:>10} {:>10} {:>7} {:>7} {:>7} {:>11} {:>8}\n", s.name.substr(0, 16),
                       to_string(s.kind), units::seconds(s.wall_s), units::seconds(s.busy_s), units::seconds(s.idle_s), pct(s.mfu),
                       pct(s.hfu), pct(s.mbu), s.attainable_s ? units::seconds(*s.attainable_s) : "—",
                       s.attainable_s && *s.attainable_s > 0 ? units::ratio(s.wall_s / *s.attainable_s) : "—");
  }
  if (timed && a.steps.size() > shown) out += fmt::format("  … {} more step(s) in place.json\n", a.steps.size() - shown);
  if (const run_step* m = median_step(a)) {
    if (!m->shape_from.empty() && m->batch)
      out += fmt::format("  {}: batch {}{} (from {})\n", m->name, *m->batch,
                         m->context ? fmt::format(", context {}", *m->context) : m->seq ? fmt::format(", {} tokens", *m->seq) : "",
                         m->shape_from);
    if (!m->model_why.empty()) out += "  " + m->name + ": " + m->model_why + "\n";
    if (!m->ops.empty()) {
      out += fmt::format("by model op ({}, {}):\n", m->name, a.model);
      out += fmt::format("  {:<24} {:>7} {:>10} {:>10} {:>10} {:>11}\n", "op", "kernels", "measured", "predicted", "at roof",
                         "above roof");
      for (const auto& g : m->ops)
        out += fmt::format("  {:<24} {:>7} {:>10} {:>10} {:>10} {:>11}\n", g.group, g.kernels, units::seconds(g.measured_s),
                           g.predicted_s ? units::seconds(*g.predicted_s) : "—", units::seconds(g.at_roof_s),
                           units::seconds(g.above_roof_s));
    }
    if (m->idle_s > 0 && !m->idle_by_host.empty()) {
      out += fmt::format("GPU idle in {} ({} of {}), by what the host did:\n", m->name, units::seconds(m->idle_s),
                         units::seconds(m->wall_s));
      for (std::size_t i = 0; i < m->idle_by_host.size() && i < 4; ++i)
        out += fmt::format("  {:>10}  {}\n", units::seconds(m->idle_by_host[i].seconds), m->idle_by_host[i].host);
    }
  }
  if (!a.fusion.empty()) {
    out += fmt::format("fusion candidates by op pattern: {} pattern(s), {} not moved = {} at the DRAM roof in all:\n", a.fusion.size(),
                       units::si(a.fusion_bytes_saved, "B"), units::seconds(a.fusion_time_saved_s));
    for (std::size_t i = 0; i < a.fusion.size() && i < std::min<std::size_t>(top_n, 5); ++i)
      out += "  " + fusion_pattern_line(a.fusion[i]) + "\n";
    if (a.fusion.size() > 5) out += fmt::format("  … {} more pattern(s) in place.json\n", a.fusion.size() - 5);
  }
  return out;
}

json run_json(const run_answer& a) {
  auto opt = [](const auto& x) { return x ? json(*x) : json(nullptr); };
  json steps = json::array();
  for (const auto& s : a.steps) {
    json ops = json::array();
    for (const auto& g : s.ops)
      ops.push_back({{"group", g.group}, {"kernels", g.kernels}, {"measured_s", g.measured_s}, {"predicted_s", opt(g.predicted_s)},
                     {"at_roof_s", g.at_roof_s}, {"above_roof_s", g.above_roof_s}, {"dram_bytes", g.bytes}, {"flops", g.flops}});
    json idle = json::array();
    for (const auto& h : s.idle_by_host) idle.push_back({{"host", h.host}, {"seconds", h.seconds}});
    json classes = json::object();
    for (const auto c : verdict_classes()) classes[to_string(c)] = s.time_by_class[std::size_t(c)];
    steps.push_back({{"name", s.name},
                     {"kind", to_string(s.kind)},
                     {"kind_from", s.kind_from},
                     {"start_s", s.start_s},
                     {"wall_s", s.wall_s},
                     {"kernels", s.kernels.size()},
                     {"kernel_s", s.kernel_s},
                     {"busy_s", s.busy_s},
                     {"idle_s", s.idle_s},
                     {"idle_by_host", idle},
                     {"time_by_class_s", classes},
                     {"hardware_flops", s.hardware_flops},
                     {"dram_bytes", s.dram_bytes},
                     {"unattributed_s", s.unattributed_s},
                     {"batch", opt(s.batch)},
                     {"seq", opt(s.seq)},
                     {"context", opt(s.context)},
                     {"shape_from", s.shape_from},
                     {"model_flops", opt(s.model_flops)},
                     {"mfu", opt(s.mfu)},
                     {"hfu", opt(s.hfu)},
                     {"mbu", opt(s.mbu)},
                     {"attainable_s", opt(s.attainable_s)},
                     {"measured_over_attainable",
                      s.attainable_s && *s.attainable_s > 0 ? json(s.wall_s / *s.attainable_s) : json(nullptr)},
                     {"model_ops", ops},
                     {"model_why", s.model_why}});
  }
  json fusion = json::array();
  for (const auto& p : a.fusion)
    fusion.push_back({{"pattern", p.name}, {"ops", p.ops}, {"runs", p.runs}, {"kernels", p.kernels}, {"seconds", p.seconds},
                      {"bytes_saved", p.bytes_saved}, {"time_saved_s", p.time_saved_s}});
  return {{"answer", run_sentences(a)},
          {"step_rule", to_string(a.rule)},
          {"steps", steps},
          {"kernels_outside_steps", a.outside_steps},
          {"kernels_outside_steps_s", a.outside_steps_s},
          {"model", a.model},
          {"precision", a.precision},
          {"peak_flops_per_s", a.peak_flops},
          {"peak_engine", a.peak_engine},
          {"bandwidth_bytes_per_s", a.bandwidth},
          {"main_kind", to_string(a.main_kind)},
          {"median_wall_s", opt(a.median_wall_s)},
          {"median_mfu", opt(a.median_mfu)},
          {"median_hfu", opt(a.median_hfu)},
          {"median_mbu", opt(a.median_mbu)},
          {"median_attainable_s", opt(a.median_attainable_s)},
          {"fusion_patterns", fusion},
          {"fusion_bytes_saved", a.fusion_bytes_saved},
          {"fusion_time_saved_s", a.fusion_time_saved_s}};
}

std::vector<std::string> short_kernel_names(const std::vector<std::string>& names, std::size_t width) {
  auto simplify = [](std::string s) {
    for (const char* w : {"void ", "at::native::", "(anonymous namespace)::", "<unnamed>::", "at::", "std::", "c10::", "cutlass::"}) {
      for (std::size_t p; (p = s.find(w)) != std::string::npos;) s.erase(p, std::char_traits<char>::length(w));
    }
    return s;
  };
  std::vector<std::string> out;
  std::map<std::string, std::vector<std::size_t>> seen;  // short -> indices of distinct full names
  std::map<std::string, std::string> first_full;
  for (std::size_t i = 0; i < names.size(); ++i) {
    std::string s = simplify(names[i]);
    if (s.size() > width) s = s.substr(0, width - 1) + "…";
    out.push_back(s);
  }
  // two different kernels must never read the same: a colliding short name gets a tag of its full name
  std::map<std::string, std::map<std::string, std::vector<std::size_t>>> by_short;
  for (std::size_t i = 0; i < names.size(); ++i) by_short[out[i]][names[i]].push_back(i);
  for (auto& [s, fulls] : by_short) {
    if (fulls.size() < 2) continue;
    for (auto& [full, idx] : fulls) {
      const std::string tag = fmt::format("~{:04x}", std::hash<std::string>{}(full) & 0xffff);
      std::string t = simplify(full);
      const std::size_t keep = width > tag.size() + 1 ? width - tag.size() - 1 : 1;
      t = (t.size() > keep ? t.substr(0, keep) + "…" : t) + tag;
      for (auto i : idx) out[i] = t;
    }
  }
  return out;
}

std::string fit_lines(const std::string& text, std::size_t width) {
  std::string out;
  std::size_t pos = 0;
  while (pos < text.size()) {
    std::size_t nl = text.find('\n', pos);
    if (nl == std::string::npos) nl = text.size();
    const std::string line = text.substr(pos, nl - pos);
    pos = nl + 1;
    // glyphs, not bytes (UTF-8 continuation bytes do not count)
    std::size_t glyphs = 0;
    for (unsigned char c : line) glyphs += (c & 0xC0) != 0x80;
    if (glyphs <= width) {
      out += line + "\n";
      continue;
    }
    const std::size_t indent = line.find_first_not_of(' ');
    const std::string lead(indent == std::string::npos ? 0 : indent, ' ');
    if (line.find("  ", lead.size()) != std::string::npos) {
      // a table row (columns padded with runs of spaces): cut at the width, never wrapped
      std::string cut;
      std::size_t g = 0;
      for (std::size_t i = 0; i < line.size() && g < width - 1; ++i) {
        if ((static_cast<unsigned char>(line[i]) & 0xC0) != 0x80) ++g;
        if (g == width && (static_cast<unsigned char>(line[i]) & 0xC0) != 0x80) break;
        cut += line[i];
      }
      while (!cut.empty() && (static_cast<unsigned char>(cut.back()) & 0xC0) == 0xC0) cut.pop_back();  // no half glyph
      out += cut + "…\n";
      continue;
    }
    out += wrap_words(line.substr(lead.size()), width, lead, lead + "  ");
    if (out.empty() || out.back() != '\n') out += "\n";
  }
  return out;
}

}  // namespace roofline
