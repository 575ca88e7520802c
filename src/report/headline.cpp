// The three sentences report.md, report.html and the terminal summary open with: roofline/headline.hpp's
// facts, worded here with the one formatter.
#include "roofline/headline.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <optional>

#include "report/sections.hpp"
#include "report/units.hpp"
#include "roofline/interference.hpp"
#include "roofline/report.hpp"
#include "roofline/run_verdict.hpp"

namespace roofline::report {

std::string scenario_words(const std::string& phase, std::int64_t batch, std::int64_t seq) {
  if (phase == "decode") return fmt::format("decode at batch {}", batch);
  return batch > 1 ? fmt::format("{} of {} × {} tokens", phase, batch, seq) : fmt::format("{} of {} tokens", phase, seq);
}

std::string capitalised(std::string s) {
  if (!s.empty() && s[0] >= 'a' && s[0] <= 'z') s[0] = static_cast<char>(s[0] - 'a' + 'A');
  return s;
}

namespace {

std::string reasons_text(const machine_verdict& m) {
  std::string s;
  for (const auto& x : m.throttle_reasons) s += (s.empty() ? "" : ", ") + x;
  return s;
}

std::string machine_sentence(const machine_verdict& m) {
  const std::string dev = m.device.empty() ? "The device" : "The " + m.device;
  const auto rate = [&](double x) { return compute_rate(x, m.precision); };
  std::string s;
  if (m.compute_measured && m.compute_nominal && *m.compute_nominal > 0)
    s = fmt::format("{} reached {} of its nominal {}{} peak ({} of {}{})", dev, percent(*m.compute_measured / *m.compute_nominal), m.precision,
                    m.engine.empty() ? "" : " " + m.engine, rate(*m.compute_measured), rate(*m.compute_nominal),
                    m.gemm_n ? fmt::format(", GEMM n = {}", *m.gemm_n) : std::string());
  else if (m.compute_measured)
    s = fmt::format("{} reached {} in {} (no nominal peak to compare with)", dev, rate(*m.compute_measured), m.precision);
  else
    s = fmt::format("{} has no measured {} compute roof", dev, m.precision);
  if (m.bandwidth_measured && m.bandwidth_nominal)
    s += fmt::format(" and {} of its memory bandwidth ({} of {}, {})", percent(*m.bandwidth_measured / *m.bandwidth_nominal),
                     rate_bytes(*m.bandwidth_measured), rate_bytes(*m.bandwidth_nominal), m.bandwidth_pattern);
  else if (m.bandwidth_measured)
    s += fmt::format(" and {} of memory bandwidth ({}; nominal unknown)", rate_bytes(*m.bandwidth_measured), m.bandwidth_pattern);
  // A busy machine: the measurement was disturbed, and the results it spoilt are not roofs.
  if (m.busy) {
    s += fmt::format("; the measurement was disturbed ({}){}", m.busy_summary.empty() ? "the machine was busy" : m.busy_summary,
                     !m.compute_measured && !m.bandwidth_measured ? ", so no roof stands"
                     : !m.compute_measured                       ? ", so no compute roof stands"
                     : !m.bandwidth_measured                     ? ", so no memory roof stands"
                                                                 : std::string());
  }
  if (!m.compute_measured) return s + ".";  // no GEMM whose limit to name
  // The binding limit and its evidence.
  const bool clocks = m.clock_mhz && m.clock_nominal_mhz && *m.clock_nominal_mhz > 0;
  // The rate against the peak at the clock of the same interval (analysis: match_clock), never above 100 %.
  std::string at_clock;  // "so the peak at that clock is 762 TFLOP/s, of which the GEMM reached 92%"
  const clock_matched& a = m.at_clock;
  if (a.fraction && a.interval == clock_interval::timed_runs) {
    if (clocks) at_clock = fmt::format(", so the peak at that clock is {}, of which the GEMM reached {}", rate(*a.peak), percent(*a.fraction));
  } else if (a.fraction && a.interval == clock_interval::fastest_repeat) {
    at_clock = fmt::format("; its fastest repeat ran at {}, where the peak is {}, of which it reached {}", value(*a.clock_mhz, "MHz"),
                           rate(*a.peak), percent(*a.fraction));
  } else if (a.fraction) {
    at_clock = fmt::format("; {}, and the fastest repeat the telemetry resolves ran {} at {}, {} of the {} peak at that clock",
                           a.fastest_uncertain, rate(*a.rate), value(*a.clock_mhz, "MHz"), percent(*a.fraction), rate(*a.peak));
  } else if (!a.uncertain.empty() && clocks) {
    at_clock = "; " + a.uncertain + ", so no peak at its clock is given";
  }
  const std::string clock_text =
      clocks ? fmt::format("{} of {}", value(*m.clock_mhz, "MHz"), value(*m.clock_nominal_mhz, "MHz")) : std::string();
  if (m.limit == "power_reason") {
    // A power throttle reason, but the GEMM's own power is not near the limit: say both, name no cap.
    std::string power = "no power reading shows the cap binding";
    if (m.power_w && m.power_limit_w && *m.power_limit_w > 0)
      power = fmt::format("its power, a median {}{}, is {} of the {} limit: the readings do not show the cap binding",
                          value(*m.power_w, "W"), m.power_max_w ? fmt::format(" (max {})", value(*m.power_max_w, "W")) : std::string(),
                          percent(*m.power_w / *m.power_limit_w), value(*m.power_limit_w, "W"));
    else if (m.power_w)
      power = "its power, a median " + value(*m.power_w, "W") + ", cannot be set against an unknown power limit";
    s += fmt::format("; {} was reported in {} of the GEMM's samples, but {}{}", reasons_text(m), percent(m.throttled_fraction), power,
                     clocks ? "; the clock was " + clock_text + " during the GEMM" + at_clock : std::string());
  } else if (m.limit == "power" || m.limit == "thermal") {
    const std::string cap = m.limit == "power" ? (m.power_limit_w ? value(*m.power_limit_w, "W") + " power cap" : "power cap") : "thermal limit";
    s += fmt::format("; the binding limit is the {} ({} in {} of the GEMM's samples{}){}", cap, reasons_text(m), percent(m.throttled_fraction),
                     m.power_w && m.limit == "power" && m.power_limit_w
                         ? fmt::format(", median {}, {} of the limit", value(*m.power_w, "W"), percent(*m.power_w / *m.power_limit_w))
                         : std::string(),
                     clocks ? ", which held the clock at " + clock_text + at_clock : std::string());
  } else if (m.limit == "clock") {
    s += fmt::format("; the binding limit is the clock: {} during the GEMM{}{}", clock_text,
                     m.cpu ? "" : " with no throttle reason reported", at_clock);
  } else if (m.limit == "kernel") {
    s += fmt::format("; the clock held ({}), so the gap is the GEMM itself (tile and wave quantization, prologue and epilogue: "
                     "see the attribution)", clock_text);
  } else {
    s += m.cpu ? "; no clock telemetry says what held it back" : "; no clock or power telemetry says what held it back";
  }
  return s + ".";
}

std::string time_sentence(const std::vector<time_split>& ts) {
  if (ts.empty()) return "";
  // Shares of the op time whose bound is known; the ops of unknown bound (no roof to judge them) are
  // counted, never folded into a class.
  auto shares = [](const time_split& t) {
    std::array<std::pair<double, const char*>, 3> c = {{{t.latency_s, "latency-bound"}, {t.bandwidth_s, "bandwidth-bound"}, {t.compute_s, "compute-bound"}}};
    std::stable_sort(c.begin(), c.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
    std::string s;
    const double known = t.known_s();
    for (const auto& [v, name] : c)
      if (known > 0 && v / known >= 0.005) s += (s.empty() ? "" : ", ") + percent(v / known) + " " + name;
    if (t.unknown_ops == 0) return s;
    if (s.empty()) return fmt::format("of unknown bound ({} of {} ops: no roof to judge them against)", t.unknown_ops, t.ops);
    return fmt::format("{} of the {} op(s) with a known bound ({} of {} ops of unknown bound)", s, t.ops - t.unknown_ops,
                       t.unknown_ops, t.ops);
  };
  // A scenario whose timings were taken while the machine was busy is not headlined: no step time,
  // no shares (they would be the busy machine's, or predictions standing in for kept-out timings).
  auto kept_out = [](const time_split& t) {
    std::string what = t.disturbed_ops > 0 ? fmt::format("{} of its {} op timings", t.disturbed_ops, t.ops) : std::string();
    if (t.step_disturbed) what += what.empty() ? "its whole step" : " and its whole step";
    return what;
  };
  // why a scenario is not headlined, after "is not timed here: " (the first) or in parentheses (the others)
  auto not_timed = [&](const time_split& t, bool first) {
    if (t.disturbed_ops == 0 && !t.step_disturbed) return std::string("none of its ops was timed on this busy machine");
    const bool many = t.disturbed_ops + (t.step_disturbed ? 1 : 0) > 1;
    return first ? fmt::format("{} {} taken while the machine was busy and {} kept out", kept_out(t), many ? "were" : "was",
                               many ? "are" : "is")
                 : kept_out(t) + " taken while the machine was busy";
  };
  const time_split& t = ts.front();
  std::string s = capitalised(scenario_words(t.phase, t.batch, t.seq));
  if (t.phase == "decode" && t.context > 0) s += fmt::format(" (context {})", t.context);
  if (t.disturbed()) {
    s += " is not timed here: " + not_timed(t, true);
  } else {
    if (t.step_s) s += fmt::format(" takes {} per step ({})", seconds(*t.step_s), t.step_source == "whole step" ? "whole step measured" : "sum of its ops");
    if (t.bytes_alone_s && t.step_s) s += fmt::format(" where its bytes alone need {}", seconds(*t.bytes_alone_s));
    s += "; its op time is " + shares(t);
  }
  for (std::size_t i = 1; i < ts.size(); ++i) {
    const time_split& o = ts[i];
    if (o.disturbed()) {
      s += "; " + scenario_words(o.phase, o.batch, o.seq) + ": not timed (" + not_timed(o, false) + ")";
      continue;
    }
    s += "; " + scenario_words(o.phase, o.batch, o.seq) + (o.step_s ? ": " + seconds(*o.step_s) + ", " : ": ") + shares(o);
  }
  return s + ".";
}

/// The next step when the machine was busy and a roof is missing or timings were kept out: without
/// the roof no op can be judged against it, without the timings no step can be told, so measuring
/// again is the step.
std::string rerun_sentence(const machine_verdict& m) {
  std::vector<std::string> lost;
  if (m.rejected_results > 0 || !m.compute_measured || !m.bandwidth_measured)
    lost.push_back(fmt::format("{} result(s) were kept out of the roofs{}", m.rejected_results,
                               !m.compute_measured && !m.bandwidth_measured ? " and no roof stands to judge the ops against"
                               : !m.compute_measured                       ? " and no compute roof stands to judge the ops against"
                               : !m.bandwidth_measured                     ? " and no memory roof stands to judge the ops against"
                                                                           : ""));
  if (m.ops_kept_out > 0 || m.steps_kept_out > 0)
    lost.push_back(kept_out_timings(m.ops_kept_out, m.steps_kept_out) + " were kept out of the analysis");
  std::string what;
  for (std::size_t i = 0; i < lost.size(); ++i) what += (i == 0 ? "" : "; ") + lost[i];
  return "The most valuable next step is to re-run on a quiet machine: other processes ran while it measured" +
         (what.empty() ? std::string() : ", so " + what) + ".";
}

/// The op table's note number of `advice` (ops_section numbers each advice once, under the table).
std::optional<std::size_t> advice_number(const results& r, const std::string& advice) {
  const section ops = ops_section(r);
  for (const auto& b : ops.blocks) {
    if (b.k != block::kind::table) continue;
    const auto it = std::find(b.t.notes.begin(), b.t.notes.end(), advice);
    if (it != b.t.notes.end()) return static_cast<std::size_t>(it - b.t.notes.begin()) + 1;
  }
  return std::nullopt;
}

std::string next_sentence(const results& r, const std::optional<next_step>& n, bool advice_by_reference) {
  if (!n) return "Next step: none found (no op measured above its roof).";
  std::string names;
  const std::size_t shown = std::min<std::size_t>(n->ops.size(), 4);
  for (std::size_t i = 0; i < shown; ++i) names += (i == 0 ? "" : i + 1 == shown && shown == n->ops.size() ? " and " : ", ") + n->ops[i];
  if (n->ops.size() > shown) names += fmt::format(" and {} more", n->ops.size() - shown);
  const auto number = advice_by_reference ? advice_number(r, n->advice) : std::nullopt;
  return fmt::format("The most valuable next step is in {}: {} spend {} of the {} step above their roofs ({}){}.",
                     scenario_words(n->phase, n->batch, n->seq), names, seconds(n->excess_s), seconds(n->step_s),
                     percent(n->step_s > 0 ? n->excess_s / n->step_s : 0),
                     number ? fmt::format(": see advice [{}] under the op table", *number) : "; the advice for them: " + n->advice);
}

}  // namespace

namespace {

/// run_failure's words for a verdict; `in` the run's interference report (the busy details), if any.
std::string run_failure_text(const run_verdict& v, const std::optional<interference_report>& in) {
  if (v.stands) return "";
  std::vector<std::string> what;  // what the run lacks
  if (v.no_compute_roof && v.no_memory_roof) what.push_back("no roof stands");
  else if (v.no_compute_roof) what.push_back(fmt::format("no {} compute roof stands", v.precision));
  else if (v.no_memory_roof) what.push_back("no memory roof stands");
  if (v.ops_kept_out > 0 || v.steps_kept_out > 0)
    what.push_back(kept_out_timings(v.ops_kept_out, v.steps_kept_out) + " were kept out");
  std::string lacks = what.front();
  if (what.size() > 1) lacks += " and " + what[1];
  if (v.busy) {
    std::vector<std::string> why;  // the evidence: the probes that stayed disturbed, the idle check
    if (in && busy_probes(*in) > 0)
      why.push_back(fmt::format("{} of {} probe(s) stayed disturbed after a re-run", busy_probes(*in), in->probes.size()));
    if (in && in->before.verdict == "busy") why.push_back("before measuring, " + describe_interference(in->before));
    std::string detail;
    for (const auto& w : why) detail += (detail.empty() ? "" : "; ") + w;
    return fmt::format("the machine was busy, so {}{}", lacks, detail.empty() ? std::string() : " (" + detail + ")");
  }
  return fmt::format("{}{}", lacks, v.rejection.empty() ? std::string() : ": every such result was rejected (" + v.rejection + ")");
}

}  // namespace

std::vector<std::string> headline_sentences(const results& r, bool advice_by_reference) {
  const headline h = compute_headline(r);
  std::vector<std::string> v = {machine_sentence(h.machine)};
  if (!h.time.empty()) {
    v.push_back(time_sentence(h.time));
    v.push_back(h.rerun_quiet ? rerun_sentence(h.machine) : next_sentence(r, h.next, advice_by_reference));
  }
  return v;
}

}  // namespace roofline::report

namespace roofline {

std::string run_failure(const results& r) { return report::run_failure_text(judge_run(r), r.interference); }

}  // namespace roofline
