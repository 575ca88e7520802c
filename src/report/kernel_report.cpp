// The views of `roofline place` over one kernel_report: terminal text, place.csv, place.json,
// place.svg. Numbers through units.hpp; nothing here judges (roofline/kernel_analysis.hpp does).
#include "roofline/csv.hpp"
#include "roofline/json.hpp"
#include "roofline/kernel_report.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <map>
#include <set>

#include "report/document.hpp"
#include "report/html_page.hpp"
#include "report/plot.hpp"
#include "report/units.hpp"
#include "roofline/analysis.hpp"
#include "roofline/report.hpp"
#include "roofline/units.hpp"
#include "roofline/run_report.hpp"
#include "roofline/vocabulary.hpp"

namespace roofline {

namespace {


std::string dram_bytes_source(const kernel_verdict& v) {
  for (const auto& l : v.levels)
    if (l.level == "dram") return l.bytes_source;
  return v.levels.empty() ? "none" : v.levels.front().bytes_source;
}

json verdict_json(const kernel_verdict& v) {
  json levels = json::array();
  for (const auto& l : v.levels)
    levels.push_back({{"level", l.level}, {"bytes", l.bytes}, {"bytes_source", l.bytes_source}, {"bandwidth_bytes_per_s", l.bandwidth},
                      {"bandwidth_source", l.bandwidth_source}, {"time_s", l.time_s}});
  json j = {{"number", v.number},
            {"name", v.name},
            {"id", v.id},
            {"seconds", v.seconds},
            {"start_s", num_or_null(v.start_s)},
            {"stream", v.stream ? json(*v.stream) : json(nullptr)},
            {"precision", v.precision},
            {"engine", v.engine},
            {"flops", v.flops},
            {"flops_source", v.flops_source},
            {"flops_metric", v.flops_metric},
            {"hardware_flops", num_or_null(v.hardware_flops)},
            {"model_flops", num_or_null(v.model_flops)},
            {"model_over_hardware", num_or_null(v.model_over_hardware)},
            {"bytes", v.dram_bytes.value_or(0)},
            {"bytes_source", dram_bytes_source(v)},
            {"levels", levels},
            {"unjudged_bytes", v.unjudged},
            {"intensity", num_or_null(v.intensity)},
            {"achieved_flops_per_s", v.achieved_flops_per_s},
            {"compute_roof_flops_per_s", num_or_null(v.compute_roof)},
            {"compute_roof_unscaled_flops_per_s", num_or_null(v.compute_roof_unscaled)},
            {"compute_roof_source", v.compute_roof_source},
            {"clock_scale", num_or_null(v.clock_scale)},
            {"clock_note", v.clock_note},
            {"binding", v.binding},
            {"time_at_roof_s", v.time_at_roof_s},
            {"fraction_of_roof", num_or_null(v.fraction)},
            {"fraction_of_unscaled_roof", num_or_null(v.fraction_unscaled)},
            {"class", to_string(v.cls)},
            {"why", v.why},
            {"plausible", v.plausible},
            {"causes", v.causes},
            {"framework_op", v.framework_op},
            {"model_op", v.model_op},
            {"cost_from", v.cost_from},
            {"shapes", v.shapes},
            {"note", v.note}};
  return j;
}

std::string class_table(const std::vector<kernel_verdict>& vs) {
  std::set<verdict_class> present;
  for (const auto& v : vs) present.insert(v.cls);
  std::string out = "advice by class:\n";
  for (const auto c : verdict_classes())
    if (present.count(c)) out += fmt::format("  {:<13} {}\n", to_string(c), verdict_advice(c));
  return out;
}

}  // namespace

std::string render_kernel_text(const kernel_report& k, std::size_t top_n) {
  std::string out;
  if (k.run)
    for (const auto& s : run_sentences(*k.run)) out += wrap_words(s, 120, "", "  ");
  out += fmt::format("roofline place: {} kernel(s) from {}{}{} against {}\n", k.verdicts.size(), k.file,
                     k.format.empty() ? "" : " (" + k.format + ")", k.gpu.empty() ? "" : ", ran on " + k.gpu, k.roofs_source);
  if (!k.incomplete.empty()) out += "INCOMPLETE: " + k.incomplete + "\n";
  for (std::size_t i = 0; i < k.failures.size() && i < 5; ++i) out += "  failed: " + k.failures[i] + "\n";
  if (k.failures.size() > 5) out += fmt::format("  … {} more in place.json\n", k.failures.size() - 5);
  if (k.run) out += render_run_text(*k.run, top_n);
  if (k.trace) {
    const trace_summary& t = *k.trace;
    out += fmt::format("time: span {}, GPU busy {} ({}), kernel time {} over {} kernels", t.span_s ? units::seconds(*t.span_s) : "unknown",
                       units::seconds(t.busy_s), t.busy_fraction ? units::percent(*t.busy_fraction) : "unknown", units::seconds(t.kernel_time_s), t.kernels);
    if (t.launch_floor_total_s)
      out += fmt::format("; launch floor {} × {} = {}", units::seconds(*t.floors.launch_s), t.kernels, units::seconds(*t.launch_floor_total_s));
    out += "\n";
    std::string by_class;
    for (const auto c : verdict_classes()) {
      const double s = t.time_by_class[static_cast<std::size_t>(c)];
      if (s > 0)
        by_class += fmt::format("{}{} {} ({})", by_class.empty() ? "" : "; ", to_string(c), units::seconds(s),
                                units::percent(t.kernel_time_s > 0 ? s / t.kernel_time_s : 0));
    }
    out += "time by class: " + by_class;
    out += "\n";
    if (t.gemm_share) out += fmt::format("GEMM/attention share of kernel time: {}\n", units::percent(*t.gemm_share));
    if (!t.gaps.empty()) {
      out += "largest host gaps (GPU idle):\n";
      for (const auto& g : t.gaps) {
        std::string host;
        for (const auto& [name, s] : g.host) host += (host.empty() ? "" : ", ") + report::shorten(name, 40) + " " + units::seconds(s);
        out += fmt::format("  {} at {}; host: {}\n", units::seconds(g.duration_s), units::seconds(g.start_s),
                           host.empty() ? "no host interval recorded" : host);
      }
    }
    if (!t.fusion.empty() && !k.run) {
      out += fmt::format("fusion candidates (memory-bound runs between GEMM/attention kernels): {} run(s), {} not moved = {} at the "
                         "DRAM roof in all ({} of the kernel time)\n",
                         t.fusion.size(), units::si(t.fusion_bytes_saved, "B"), units::seconds(t.fusion_time_saved_s),
                         units::percent(t.kernel_time_s > 0 ? t.fusion_time_saved_s / t.kernel_time_s : 0));
    }
  }
  // The top kernels: by total time grouped by name for a trace, else each kernel by its time.
  std::vector<const kernel_verdict*> order;
  for (const auto& v : k.verdicts) order.push_back(&v);
  std::stable_sort(order.begin(), order.end(), [](auto* a, auto* b) { return a->seconds > b->seconds; });
  if (order.size() > top_n) order.resize(top_n);
  // names shortened once over every name the view shows, so that two different kernels never read the same
  std::vector<std::string> full;
  if (k.trace)
    for (const auto& g : k.trace->top) full.push_back(g.name);
  for (const auto* v : order) full.push_back(v->name);
  const auto short_names = short_kernel_names(full, 40);
  std::size_t name_i = 0;
  if (k.trace && !k.trace->top.empty()) {
    out += "top kernels by total time:\n";
    for (const auto& g : k.trace->top)
      out += fmt::format("  {:<40} {:>5}× {:>10} {:>7}  {}\n", short_names[name_i++], g.count, units::seconds(g.total_s),
                         units::percent(k.trace->kernel_time_s > 0 ? g.total_s / k.trace->kernel_time_s : 0), to_string(g.cls));
  }
  out += fmt::format("{:>4}  {:<40} {:>10} {:>11} {:>16} {:>8} {:>13}  {}\n", "#", "kernel", "time", "FLOP/B", "achieved", "of roof", "class", "roof");
  for (const auto* v : order) {
    out += fmt::format("{:>4}  {:<40} {:>10} {:>11} {:>16} {:>8} {:>13}  {}\n", v->number, short_names[name_i++], units::seconds(v->seconds),
                       v->intensity ? units::sig(*v->intensity) : "—", v->flops > 0 ? report::kernel_rate(v->achieved_flops_per_s, v->precision) : "—",
                       v->fraction ? units::percent(*v->fraction) : "—", to_string(v->cls) + (v->plausible ? "" : "!"),
                       v->binding.empty() ? "placed by time only" : v->binding == "compute" ? v->compute_roof_source : v->binding);
  }
  if (k.verdicts.size() > order.size()) out += fmt::format("  … {} more kernel(s) in place.csv / --json\n", k.verdicts.size() - order.size());
  out += class_table(k.verdicts);
  // Notes: clock matching (each distinct note once), model ÷ hardware FLOPs, impossible results.
  // (an ncu export scales ~50 kernels, each at its own clock: one line with the range, not one each)
  std::set<std::string> clock;
  std::vector<const kernel_verdict*> scaled;
  for (const auto& v : k.verdicts)
    if (v.clock_scale) scaled.push_back(&v);
    else if (!v.clock_note.empty() && clock.insert(v.clock_note).second) out += "clock: " + v.clock_note + "\n";
  if (scaled.size() == 1) out += "clock: " + scaled.front()->clock_note + "\n";
  if (scaled.size() > 1) {
    const auto [lo, hi] = std::minmax_element(scaled.begin(), scaled.end(), [](auto* a, auto* b) { return *a->clock_scale < *b->clock_scale; });
    out += fmt::format("clock: compute roofs scaled by each kernel's SM clock ÷ the roof's for {} kernels, {}–{} (clock_scale in place.csv); "
                       "e.g. #{}: {}\n",
                       scaled.size(), units::sig(*(*lo)->clock_scale, 4), units::sig(*(*hi)->clock_scale, 4), scaled.front()->number,
                       scaled.front()->clock_note);
  }
  for (const auto* v : order)
    if (v->model_over_hardware)
      out += fmt::format("#{}{}: model FLOPs {} vs hardware {} = {} (model ÷ hardware)\n", v->number,
                         v->model_op.empty() ? "" : " " + v->model_op, units::flop_count(*v->model_flops),
                         units::flop_count(*v->hardware_flops), units::percent(*v->model_over_hardware));
  bool impossible = false;
  for (const auto& v : k.verdicts)
    if (!v.plausible) {
      out += fmt::format("IMPOSSIBLE #{} {}: {}\n", v.number, report::shorten(v.name, 40), v.causes.empty() ? "" : v.causes.front());
      impossible = true;
    }
  if (impossible) {
    out += "  likely causes:\n";
    for (const auto& c : above_roof_causes()) out += "   - " + c + "\n";
  }
  if (k.baseline && k.run && k.baseline_run && k.run->median_wall_s && k.baseline_run->median_wall_s) {
    // per step: runs of unequal length are compared step for step, never whole
    const run_answer &now = *k.run, &was = *k.baseline_run;
    out += fmt::format("against the baseline, per step: {} {} step(s) of median {} → {} {} step(s) of median {} ({})\n",
                       was.main_steps.size(), to_string(was.main_kind), units::seconds(*was.median_wall_s), now.main_steps.size(),
                       to_string(now.main_kind), units::seconds(*now.median_wall_s),
                       *now.median_wall_s <= *was.median_wall_s
                           ? units::ratio(*was.median_wall_s / *now.median_wall_s) + " faster"
                           : units::ratio(*now.median_wall_s / *was.median_wall_s) + " slower");
    if (now.main_kind != was.main_kind) out += "  (the two runs' main steps are of different kinds: compare with care)\n";
    auto median_ops = [](const run_answer& a) -> const std::vector<model_op_time>* {
      if (a.main_steps.empty()) return nullptr;
      std::vector<std::size_t> idx = a.main_steps;
      std::sort(idx.begin(), idx.end(), [&](std::size_t x, std::size_t y) { return a.steps[x].wall_s < a.steps[y].wall_s; });
      return &a.steps[idx[idx.size() / 2]].ops;
    };
    const auto* o_now = median_ops(now);
    const auto* o_was = median_ops(was);
    if (o_now && o_was && !o_now->empty())
      for (const auto& g : *o_now)
        for (const auto& h : *o_was)
          if (g.group == h.group)
            out += fmt::format("  {:<24} {:>10} → {:>10} per step\n", g.group, units::seconds(h.measured_s), units::seconds(g.measured_s));
  }
  if (k.baseline) {
    const baseline_diff& d = *k.baseline;
    out += fmt::format("against the baseline {}: all kernels {} → {} ({} → {} kernels){}\n", d.file, units::seconds(d.old_run_s),
                       units::seconds(d.new_run_s), d.old_kernels, d.new_kernels,
                       d.old_span_s && d.new_span_s ? fmt::format("; span {} → {}", units::seconds(*d.old_span_s), units::seconds(*d.new_span_s)) : "");
    out += fmt::format("  matched by name: {} kernel(s), {} → {} ({} saved); {} only here, {} only in the baseline\n", d.matched.size(),
                       units::seconds(d.old_total_s), units::seconds(d.new_total_s), units::seconds(d.saved_s), d.only_new.size(), d.only_old.size());
    auto m = d.matched;
    std::stable_sort(m.begin(), m.end(), [](const auto& a, const auto& b) { return std::abs(a.saved_s) > std::abs(b.saved_s); });
    for (std::size_t i = 0; i < m.size() && i < top_n; ++i)
      out += fmt::format("  #{} {}: {} → {} ({} saved)\n", m[i].new_number, report::shorten(m[i].name, 40), units::seconds(m[i].old_s),
                         units::seconds(m[i].new_s), units::seconds(m[i].saved_s));
  }
  if (!k.skipped.empty()) {
    out += fmt::format("skipped while reading ({}):\n", k.skipped.size());
    for (std::size_t i = 0; i < k.skipped.size() && i < 5; ++i) out += "  " + k.skipped[i] + "\n";
    if (k.skipped.size() > 5) out += fmt::format("  … {} more in place.json\n", k.skipped.size() - 5);
  }
  return fit_lines(out, 120);
}

std::string render_kernel_csv(const kernel_report& k) {
  json rows = json::array();
  for (const auto& v : k.verdicts) {
    json j = verdict_json(v);
    j.erase("levels");
    j.erase("causes");
    j.erase("unjudged_bytes");
    rows.push_back(std::move(j));
  }
  return render_csv(rows, {"number", "name", "seconds", "flops", "precision", "engine", "flops_source", "bytes", "bytes_source", "intensity", "class",
                           "fraction_of_roof", "binding", "time_at_roof_s", "compute_roof_flops_per_s", "compute_roof_source", "clock_scale",
                           "model_op", "model_flops", "hardware_flops", "model_over_hardware"});
}

json kernel_report_json(const kernel_report& k) {
  json j;
  j["file"] = k.file;
  j["format"] = k.format;
  j["tool_version"] = k.tool_version;
  j["gpu"] = k.gpu;
  j["incomplete"] = k.incomplete.empty() ? json(nullptr) : json(k.incomplete);
  j["failures"] = k.failures;
  if (k.run) j["run"] = run_json(*k.run);
  j["roofs_source"] = k.roofs_source;
  j["default_precision"] = k.default_precision;
  json advice = json::object();
  for (const auto c : verdict_classes()) advice[to_string(c)] = verdict_advice(c);
  j["advice"] = advice;
  j["thresholds"] = {{"at_roof", at_roof_threshold}, {"slope", slope_threshold}, {"launch_multiple", launch_multiple}, {"roof_noise", roof_noise}};
  json ks = json::array();
  for (const auto& v : k.verdicts) ks.push_back(verdict_json(v));
  j["kernels"] = ks;
  j["skipped"] = k.skipped;
  if (k.trace) {
    const trace_summary& t = *k.trace;
    json by_class = json::object();
    for (const auto c : verdict_classes()) by_class[to_string(c)] = t.time_by_class[static_cast<std::size_t>(c)];
    json gaps = json::array();
    for (const auto& g : t.gaps) {
      json host = json::array();
      for (const auto& [n, s] : g.host) host.push_back({{"name", n}, {"overlap_s", s}});
      gaps.push_back({{"start_s", g.start_s}, {"duration_s", g.duration_s}, {"after", g.after}, {"before", g.before}, {"host", host}});
    }
    json top = json::array();
    for (const auto& g : t.top)
      top.push_back({{"name", g.name}, {"count", g.count}, {"total_s", g.total_s}, {"class", to_string(g.cls)}, {"gemm_like", g.gemm_like}});
    json fusion = json::array();
    for (const auto& f : t.fusion)
      fusion.push_back({{"stream", f.stream ? json(*f.stream) : json(nullptr)}, {"after", f.after}, {"before", f.before}, {"kernels", f.kernels},
                        {"seconds", f.seconds}, {"bytes_saved", num_or_null(f.bytes_saved)}, {"time_saved_s", num_or_null(f.time_saved_s)}, {"how", f.how}});
    j["trace"] = {{"kernels", t.kernels}, {"span_s", num_or_null(t.span_s)}, {"busy_s", t.busy_s}, {"busy_fraction", num_or_null(t.busy_fraction)},
                  {"kernel_time_s", t.kernel_time_s}, {"launch_floor_s", num_or_null(t.floors.launch_s)}, {"launch_floor_source", t.floors.launch_source},
                  {"launch_floor_total_s", num_or_null(t.launch_floor_total_s)}, {"time_by_class", by_class}, {"gemm_s", t.gemm_s},
                  {"gemm_share", num_or_null(t.gemm_share)}, {"gaps", gaps}, {"top", top}, {"fusion_candidates", fusion},
                  {"fusion_bytes_saved", t.fusion_bytes_saved}, {"fusion_time_saved_s", t.fusion_time_saved_s},
                  {"dram_roof_bytes_per_s", num_or_null(t.dram_roof)}, {"dram_roof_source", t.dram_roof_source}};
  } else {
    j["trace"] = nullptr;
  }
  if (k.baseline) {
    const baseline_diff& d = *k.baseline;
    json m = json::array();
    for (const auto& x : d.matched)
      m.push_back({{"name", x.name}, {"shapes", x.shapes}, {"occurrence", x.occurrence}, {"old_number", x.old_number}, {"new_number", x.new_number},
                   {"old_s", x.old_s}, {"new_s", x.new_s}, {"old_intensity", num_or_null(x.old_intensity)}, {"new_intensity", num_or_null(x.new_intensity)},
                   {"old_flops_per_s", x.old_flops_per_s}, {"new_flops_per_s", x.new_flops_per_s}, {"saved_s", x.saved_s}});
    j["baseline"] = {{"file", d.file}, {"matched", m}, {"only_new", d.only_new}, {"only_old", d.only_old}, {"old_total_s", d.old_total_s}, {"old_run_s", d.old_run_s}, {"new_run_s", d.new_run_s}, {"old_kernels", d.old_kernels},
                     {"new_kernels", d.new_kernels}, {"old_span_s", num_or_null(d.old_span_s)}, {"new_span_s", num_or_null(d.new_span_s)},
                     {"new_total_s", d.new_total_s}, {"saved_s", d.saved_s}};
  } else {
    j["baseline"] = nullptr;
  }
  return j;
}

}  // namespace roofline

namespace roofline {

std::string render_kernel_html(const kernel_report& k, const results& r, const std::string& title, std::size_t top_n) {
  using report::cell;
  report::document d;
  d.title = title;
  d.intro.push_back(fmt::format("{} kernel(s) from `{}`{} placed against {}.", k.verdicts.size(), k.file,
                                k.format.empty() ? "" : " (" + k.format + ")", k.roofs_source));
  auto pct = [](double part, double whole) { return whole > 0 ? units::percent(part / whole) : std::string("—"); };
  if (k.run)
    for (const auto& sentence : run_sentences(*k.run)) d.headline.push_back(sentence);
  if (!k.incomplete.empty()) d.intro.push_back("Incomplete: " + k.incomplete + ".");
  for (const auto& f : k.failures) d.intro.push_back("Failed: " + f);
  if (k.run && !k.run->steps.empty()) {
    const run_answer& a = *k.run;
    report::section s{"Steps", "steps", {}};
    s.para(fmt::format("{} step(s) found by {}.", a.steps.size(), to_string(a.rule)));
    report::table st;
    st.header = {"step", "kind", "wall", "GPU busy", "GPU idle", "MFU", "HFU", "MBU", "attainable", "measured ÷ attainable"};
    auto pc = [](const std::optional<double>& x) { return x ? cell(units::percent(*x), *x) : cell("—"); };
    for (const auto& x : a.steps)
      st.rows.push_back({x.name, to_string(x.kind), cell(units::seconds(x.wall_s), x.wall_s), cell(units::seconds(x.busy_s), x.busy_s),
                         cell(units::seconds(x.idle_s), x.idle_s), pc(x.mfu), pc(x.hfu), pc(x.mbu),
                         x.attainable_s ? cell(units::seconds(*x.attainable_s), *x.attainable_s) : cell("—"),
                         x.attainable_s && *x.attainable_s > 0 ? cell(units::ratio(x.wall_s / *x.attainable_s), x.wall_s / *x.attainable_s)
                                                               : cell("—")});
    s.add(st);
    std::vector<std::size_t> idx = a.main_steps;
    std::sort(idx.begin(), idx.end(), [&](std::size_t x, std::size_t y) { return a.steps[x].wall_s < a.steps[y].wall_s; });
    if (!idx.empty()) {
      const run_step& m = a.steps[idx[idx.size() / 2]];
      if (!m.ops.empty()) {
        s.para(fmt::format("Time per model op in {} (the median {} step), measured beside the model's prediction on these roofs.", m.name,
                           to_string(m.kind)));
        report::table ot;
        ot.header = {"model op", "kernels", "measured", "predicted", "at the roof", "above the roof"};
        for (const auto& g : m.ops)
          ot.rows.push_back({g.group, std::to_string(g.kernels), cell(units::seconds(g.measured_s), g.measured_s),
                             g.predicted_s ? cell(units::seconds(*g.predicted_s), *g.predicted_s) : cell("—"),
                             cell(units::seconds(g.at_roof_s), g.at_roof_s), cell(units::seconds(g.above_roof_s), g.above_roof_s)});
        s.add(ot);
      }
      if (!m.idle_by_host.empty() && m.idle_s > 0) {
        report::table ht;
        ht.header = {"GPU idle", "while the host was in"};
        for (const auto& h : m.idle_by_host) ht.rows.push_back({cell(units::seconds(h.seconds), h.seconds), h.host});
        s.add(ht);
      }
    }
    if (!a.fusion.empty()) {
      report::table ft;
      ft.header = {"fusion pattern", "ops", "runs", "time now", "bytes not moved", "time saved"};
      for (const auto& p : a.fusion)
        ft.rows.push_back({p.name, fmt::format("{}", fmt::join(p.ops, ", ")), std::to_string(p.runs), cell(units::seconds(p.seconds), p.seconds),
                           cell(units::si(p.bytes_saved, "B"), p.bytes_saved), cell(units::seconds(p.time_saved_s), p.time_saved_s)});
      s.add(ft);
    }
    d.sections.push_back(std::move(s));
  }
  if (k.trace) {
    const trace_summary& t = *k.trace;
    d.headline.push_back(fmt::format("The GPU was busy {} of the {} span ({}); {} kernels took {}{}.",
                                     units::seconds(t.busy_s), t.span_s ? units::seconds(*t.span_s) : "unknown",
                                     t.busy_fraction ? units::percent(*t.busy_fraction) : "unknown", t.kernels,
                                     units::seconds(t.kernel_time_s),
                                     t.launch_floor_total_s ? "; the launch floor alone is " + units::seconds(*t.launch_floor_total_s) : ""));
    report::section s{"Where the time goes", "time", {}};
    report::table tb;
    tb.header = {"class", "time", "share of kernel time", "advice"};
    for (const auto c : verdict_classes()) {
      const double v = t.time_by_class[static_cast<std::size_t>(c)];
      if (v > 0) tb.rows.push_back({to_string(c), cell(units::seconds(v), v), cell(pct(v, t.kernel_time_s), v), verdict_advice(c)});
    }
    s.add(tb);
    if (!t.gaps.empty()) {
      report::table g;
      g.header = {"host gap (GPU idle)", "at", "what the host did"};
      for (const auto& x : t.gaps) {
        std::string host;
        for (const auto& [name, sec] : x.host) host += (host.empty() ? "" : ", ") + name + " " + units::seconds(sec);
        g.rows.push_back({cell(units::seconds(x.duration_s), x.duration_s), cell(units::seconds(x.start_s), x.start_s), host});
      }
      s.add(g);
    }
    d.sections.push_back(std::move(s));
  }
  if (k.baseline) {
    const baseline_diff& b = *k.baseline;
    report::section s{"Before and after", "baseline", {}};
    s.para(fmt::format("Against `{}`: all kernels {} → {} ({} → {} kernels){}; {} matched by name: {} → {}.", b.file, units::seconds(b.old_run_s),
                       units::seconds(b.new_run_s), b.old_kernels, b.new_kernels,
                       b.old_span_s && b.new_span_s ? "; span " + units::seconds(*b.old_span_s) + " → " + units::seconds(*b.new_span_s) : "",
                       b.matched.size(), units::seconds(b.old_total_s), units::seconds(b.new_total_s)));
    d.sections.push_back(std::move(s));
  }
  report::section ks{"Kernels", "kernels", {}};
  ks.detail = true;
  std::vector<const kernel_verdict*> order;
  for (const auto& v : k.verdicts) order.push_back(&v);
  std::stable_sort(order.begin(), order.end(), [](auto* a, auto* b) { return a->seconds > b->seconds; });
  report::table kt;
  kt.header = {"#", "kernel", "time", "FLOPs (source)", "precision, engine", "intensity", "of the roof", "class", "why"};
  constexpr std::size_t max_rows = 500;
  for (std::size_t i = 0; i < order.size() && i < max_rows; ++i) {
    const auto* v = order[i];
    kt.rows.push_back({cell(std::to_string(v->number), static_cast<double>(v->number)), v->name, cell(units::seconds(v->seconds), v->seconds),
                       v->flops > 0 ? cell(units::flop_count(v->flops) + " (" + v->flops_source + ")", v->flops) : cell("—"),
                       v->precision.empty() ? "—" : v->precision + (v->engine.empty() ? "" : ", " + v->engine),
                       v->intensity ? cell(units::intensity(*v->intensity), *v->intensity) : cell("—"),
                       v->fraction ? cell(units::percent(*v->fraction), *v->fraction) : cell("—"), to_string(v->cls), v->why});
  }
  ks.add(kt);
  if (order.size() > max_rows) ks.para(fmt::format("… {} shorter kernel(s) in place.csv and place.json.", order.size() - max_rows));
  d.sections.push_back(std::move(ks));
  if (!k.skipped.empty()) {
    report::section sk{"Skipped while reading", "skipped", {}};
    sk.bullets(k.skipped);
    d.sections.push_back(std::move(sk));
  }
  d.figure_html = render_kernel_svg(k, r, title, top_n);
  d.figure_after = k.trace ? 1 : 0;
  return report::html_page(title, report::to_html(d));
}

namespace {
std::string pct(std::optional<double> f) { return f ? units::percent(*f) : "unknown"; }

}  // namespace

json placement_json(const kernel_placement& k) {
  return {{"flops", k.flops}, {"bytes", k.bytes}, {"seconds", k.seconds}, {"intensity", k.intensity},
          {"achieved_flops_per_s", k.achieved_flops_per_s}, {"achieved_bytes_per_s", k.achieved_bytes_per_s},
          {"attainable_measured_flops_per_s", num_or_null(k.attainable_measured)},
          {"attainable_nominal_flops_per_s", num_or_null(k.attainable_nominal)},
          {"fraction_of_measured_roof", num_or_null(k.fraction_measured)},
          {"fraction_of_nominal_roof", num_or_null(k.fraction_nominal)},
          {"bound", k.bound}, {"advice", k.advice}, {"plausible", k.plausible}, {"causes", k.causes}};
}

std::string render_placement_text(const kernel_placement& k, const roofline_summary& roofs, const std::string& source) {
  std::string out;
  out += fmt::format("roofline place: {}, {} moved in {} against {} ({})\n", units::si(k.flops, "FLOP"), units::si(k.bytes, "B"),
                     units::si(k.seconds, "s"), source, roofs.precision);
  out += fmt::format("  intensity          {} = {} ÷ {}\n", units::intensity(k.intensity), units::si(k.flops, "FLOP"), units::si(k.bytes, "B"));
  out += fmt::format("  achieved           {}   {}\n", units::si(k.achieved_flops_per_s, "FLOP/s"), units::si(k.achieved_bytes_per_s, "B/s"));
  if (roofs.peak_measured > 0 && roofs.bandwidth_measured > 0)
    out += fmt::format("  measured roofs     {}, {}, ridge {}\n", units::rate_flops(roofs.peak_measured),
                       units::rate_bytes(roofs.bandwidth_measured), units::intensity(roofs.ridge_measured));
  else
    out += "  measured roofs     unknown (no measured results: give --results FILE)\n";
  if (roofs.peak_nominal > 0 && roofs.bandwidth_nominal)
    out += fmt::format("  nominal roofs      {}, {}, ridge {}\n", units::rate_flops(roofs.peak_nominal),
                       units::rate_bytes(*roofs.bandwidth_nominal), roofs.ridge_nominal ? units::intensity(*roofs.ridge_nominal) : "unknown");
  else
    out += "  nominal roofs      unknown (no nominal peak or bandwidth)\n";
  out += fmt::format("  attainable         measured {}   nominal {}   (min(peak, intensity × bandwidth))\n",
                     k.attainable_measured ? units::si(*k.attainable_measured, "FLOP/s") : "unknown",
                     k.attainable_nominal ? units::si(*k.attainable_nominal, "FLOP/s") : "unknown");
  out += fmt::format("  of the roof        {} of measured   {} of nominal   (time at the roof ÷ your time)\n",
                     pct(k.fraction_measured), pct(k.fraction_nominal));
  if (!k.plausible) {
    out += "  IMPOSSIBLE         faster than the roof allows (beyond the " + fmt::format("{:.0f}", 100 * roof_noise) +
           "% measurement noise); likely causes:\n";
    for (const auto& c : k.causes) out += "                       - " + c + "\n";
  }
  out += fmt::format("  bound              {}\n", k.bound);
  out += fmt::format("  advice             {}\n", k.advice);
  return out;
}

}  // namespace roofline
