#include "run/measure_driver.hpp"

#include <unistd.h>

#include <algorithm>
#include <map>
#include <fmt/format.h>

#include "roofline/error.hpp"
#include "roofline/json.hpp"
#include "roofline/measure.hpp"
#include "roofline/units.hpp"

namespace roofline::job {

namespace {

std::string bytes_label(std::int64_t b) {
  if (b >= (1LL << 30) && b % (1LL << 30) == 0) return fmt::format("{} GiB", b >> 30);
  if (b >= (1LL << 20) && b % (1LL << 20) == 0) return fmt::format("{} MiB", b >> 20);
  if (b >= (1LL << 10) && b % (1LL << 10) == 0) return fmt::format("{} KiB", b >> 10);
  return fmt::format("{} B", b);
}

std::string row_label(const bandwidth_result& b) {
  return fmt::format("bandwidth {} {} {}", b.pattern, b.level, bytes_label(b.working_set_bytes));
}
std::string row_label(const compute_result& c) {
  return c.size ? fmt::format("compute {} {} n={}", c.precision, c.engine, *c.size)
                : fmt::format("compute {} {}", c.precision, c.engine);
}

void append(measured_roofs& dst, measured_roofs&& src) {
  for (auto& b : src.bandwidth) dst.bandwidth.push_back(std::move(b));
  for (auto& c : src.compute) dst.compute.push_back(std::move(c));
  if (src.launch) dst.launch = std::move(src.launch);
  if (src.small_work) dst.small_work = std::move(src.small_work);
  for (auto& g : src.gemm_rows) dst.gemm_rows.push_back(std::move(g));
  for (auto& g : src.gemm_attention) dst.gemm_attention.push_back(std::move(g));
  for (auto it = src.telemetry->begin(); it != src.telemetry->end(); ++it) dst.telemetry[it.key()] = it.value();
  for (auto& s : src.skipped) dst.skipped.push_back(std::move(s));
}

/// Marks the rows named in `labels` rejected with `reason`.
void reject_rows(measured_roofs& m, const std::vector<std::string>& labels, const std::string& reason) {
  auto hit = [&](const std::string& l) { return std::find(labels.begin(), labels.end(), l) != labels.end(); };
  for (auto& b : m.bandwidth)
    if (!b.rejected && hit(row_label(b))) b.rejected = true, b.rejected_reason = reason;
  for (auto& c : m.compute)
    if (!c.rejected && hit(row_label(c))) c.rejected = true, c.rejected_reason = reason;
}

/// Flags the rows whose spread above `bound` the SM clock explains (clock_explains_spread).
template <class Row>
void flag_clock_spread(Row& r, double bound) {
  if (!(r.spread > bound) || !clock_explains_spread(r.telemetry, r.spread)) return;
  const stats_summary& c = *r.telemetry->sm_clock_mhz;
  std::string reasons;
  for (const auto& x : r.telemetry->throttle_reasons) reasons += (reasons.empty() ? "" : ", ") + x;
  r.flags.push_back(fmt::format("repeats spread {} %, within the SM clock's range while they ran ({}–{} MHz, {}): "
                                "the clock controller, not interference; kept",
                                units::fixed(100 * r.spread, 1), units::fixed(c.min, 0), units::fixed(c.max, 0), reasons));
}
void flag_clock_spread(measured_roofs& m, double bound) {
  for (auto& b : m.bandwidth) flag_clock_spread(b, bound);
  for (auto& c : m.compute) flag_clock_spread(c, bound);
}

struct attempt {
  measured_roofs m;
  interference_sample s;
  std::vector<std::string> noisy;
  bool busy = false;
  bool clean() const { return !busy && noisy.empty(); }
};

/// One probe: run it, judge it, re-run once when disturbed or noisy; mark what stays disturbed.
interference_sample run_judged(const probe& p, const measure_plan& plan, measured_roofs& out) {
  auto once = [&](const std::function<void(measured_roofs&)>& run) {
    attempt a;
    std::vector<std::string> users = plan.device_users ? plan.device_users() : std::vector<std::string>{};
    const cpu_accounting t0 = read_cpu_accounting();
    run(a.m);
    // A probe shorter than the judging window is judged over the window: what other processes
    // take of an idle pause right after it is what they were taking from it (the tick is 10 ms).
    if (plan.judge_cpu_interference)
      while (now_s() < t0.wall_s + plan.policy.min_wall_s) ::usleep(5000);
    const cpu_accounting t1 = read_cpu_accounting();
    a.s = interference_between(t0, t1);
    a.s.probe = p.name;
    if (plan.device_users)
      for (auto& u : plan.device_users())
        if (std::find(users.begin(), users.end(), u) == users.end()) users.push_back(std::move(u));
    a.s.device_processes = std::move(users);
    a.busy = (plan.judge_cpu_interference || !a.s.device_processes.empty()) && disturbed(a.s, plan.policy);
    a.noisy = noisy_rows(a.m, plan.policy.spread);
    flag_clock_spread(a.m, plan.policy.spread);
    return a;
  };
  attempt first = once(p.run);
  if (first.clean()) {
    first.s.verdict = "clean";
    append(out, std::move(first.m));
    return first.s;
  }
  // Repeats that disagreed on a quiet machine are kept out without a second attempt where one would
  // not help: the probe re-measured its noisy rows itself, or an identical re-run on an unshared device
  // repeats the spread. Otherwise they are re-measured with longer samples where the probe has them (a
  // sample's start skew and timer granularity then weigh less); a busy machine, as is.
  const bool longer = !first.busy && p.run_longer;
  const bool remeasured = !first.busy && p.remeasures_noisy_rows;
  if (remeasured || (!first.busy && !longer && !plan.rerun_identical)) {
    const std::string bound = units::fixed(100 * plan.policy.spread, 0);
    const std::string why =
        remeasured ? fmt::format("unreliable: repeats disagree (IQR above {} % of the median), twice (the second time {})",
                                 bound, p.longer_note.empty() ? "re-measured" : "with " + p.longer_note)
                   : fmt::format("unreliable: repeats disagree (IQR above {} % of the median); not re-run: the device was "
                                 "not shared and an identical re-run repeats the spread",
                                 bound);
    reject_rows(first.m, first.noisy, why);
    first.s.verdict = fmt::format("{} ({} row(s)){}", why, first.noisy.size(),
                                  remeasured ? "; each re-measured by the probe itself, the machine quiet" : "");
    const interference_sample s = first.s;
    append(out, std::move(first.m));
    return s;
  }
  attempt second = once(longer ? p.run_longer : p.run);
  second.s.attempts = 2;
  const std::string how = longer ? " with " + p.longer_note : "";
  if (second.clean()) {
    second.s.verdict = first.busy ? "re-run, clean (first attempt: " + describe_interference(first.s) + ")"
                                  : "re-run" + how + ", clean (first attempt: repeats disagreed)";
    append(out, std::move(second.m));
    return second.s;
  }
  // Still disturbed: keep the less disturbed attempt, its rows out of the roofs.
  attempt& kept = (first.s.other_cpu_fraction + first.s.steal_fraction < second.s.other_cpu_fraction + second.s.steal_fraction ||
                   (first.busy == second.busy && first.noisy.size() < second.noisy.size()))
                      ? first
                      : second;
  kept.s.attempts = 2;
  if (kept.busy) {
    const std::string why = "unreliable: machine busy while measured, twice (" + describe_interference(kept.s) + ")";
    reject_all(kept.m, why);
    kept.s.verdict = why;
  } else {
    const std::string why = fmt::format("unreliable: repeats disagree (IQR above {} % of the median), twice{}",
                                        units::fixed(100 * plan.policy.spread, 0), longer ? " (the second time" + how + ")" : "");
    reject_rows(kept.m, kept.noisy, why);
    kept.s.verdict = fmt::format("{} ({} row(s))", why, kept.noisy.size());
  }
  const interference_sample s = kept.s;
  append(out, std::move(kept.m));
  return s;
}

}  // namespace

bool probe_selected(const std::vector<std::string>& only, const probe& p) {
  if (only.empty()) return true;
  for (const auto& o : only)
    if (o == p.group || o == p.name) return true;
  return false;
}

bool clock_explains_spread(const std::optional<telemetry_summary>& t, double spread) {
  return t && t->sm_clock_mhz && !t->throttle_reasons.empty() && t->sm_clock_mhz->n >= 2 &&
         t->sm_clock_mhz->range >= spread;
}

std::vector<std::string> noisy_rows(const measured_roofs& m, double bound) {
  std::vector<std::string> out;
  for (const auto& b : m.bandwidth)
    if (!b.rejected && b.spread > bound && !clock_explains_spread(b.telemetry, b.spread)) out.push_back(row_label(b));
  for (const auto& c : m.compute)
    if (!c.rejected && c.spread > bound && !clock_explains_spread(c.telemetry, c.spread)) out.push_back(row_label(c));
  return out;
}

int reject_all(measured_roofs& m, const std::string& reason) {
  int n = 0;
  for (auto& b : m.bandwidth)
    if (!b.rejected) b.rejected = true, b.rejected_reason = reason, ++n;
  for (auto& c : m.compute)
    if (!c.rejected) c.rejected = true, c.rejected_reason = reason, ++n;
  return n;
}

measured_roofs combine_runs(const std::vector<measured_roofs>& runs) {
  if (runs.empty()) return {};
  if (runs.size() == 1) return runs.front();
  measured_roofs out;
  // Rows keyed by label, in first-seen order; each run's row for that key.
  auto combine = [&](auto member, auto rate) {
    using row_t = typename std::decay_t<decltype((runs.front().*member))>::value_type;
    std::vector<std::string> order;
    std::map<std::string, std::vector<const row_t*>> rows;
    for (const auto& run : runs) {
      // The k-th row with a label in one run is the k-th in every run (probes run in one order;
      // e.g. fp16 GEMMs with fp32 and with fp16 accumulation share precision, engine and size).
      std::map<std::string, int> seen;
      for (const auto& row : run.*member) {
        const std::string label = row_label(row);
        const std::string k = label + "#" + std::to_string(seen[label]++);
        if (!rows.count(k)) order.push_back(k);
        rows[k].push_back(&row);
      }
    }
    for (const auto& k : order) {
      auto v = rows[k];
      std::vector<double> best;
      for (const auto* r : v) best.push_back(rate(*r));
      std::sort(v.begin(), v.end(), [&](const row_t* a, const row_t* b) { return rate(*a) < rate(*b); });
      row_t chosen = *v[(v.size() - 1) / 2];
      chosen.across_runs = summarize(best);
      (out.*member).push_back(std::move(chosen));
    }
  };
  combine(&measured_roofs::bandwidth, [](const bandwidth_result& b) { return b.bytes_per_s; });
  combine(&measured_roofs::compute, [](const compute_result& c) { return c.flops_per_s; });
  out.launch = runs.back().launch;
  out.small_work = runs.back().small_work;
  out.gemm_rows = runs.back().gemm_rows;
  out.gemm_attention = runs.back().gemm_attention;
  out.telemetry = runs.back().telemetry;
  out.skipped = runs.back().skipped;
  return out;
}

bool measure_probes(const std::vector<probe>& probes, const measure_plan& plan, results& r) {
  const int repeat = std::max(1, plan.repeat);
  r.repeat = repeat;
  interference_report report;
  if (plan.judge_cpu_interference) {  // an idle check before anything is measured
    const cpu_accounting a = read_cpu_accounting();
    const double until = a.wall_s + 0.3;
    while (now_s() < until) ::usleep(20000);
    report.before = interference_between(a, read_cpu_accounting());
    report.before.probe = "idle check before measuring";
    report.before.verdict = disturbed(report.before, plan.policy) ? "busy" : "idle";
  }
  if (plan.device_users) {  // another process on the GPU before anything runs
    report.before.probe = "idle check before measuring";
    report.before.device_processes = plan.device_users();
    if (!report.before.device_processes.empty()) report.before.verdict = "busy";
    else if (report.before.verdict.empty()) report.before.verdict = "idle";
  }
  if (report.before.verdict == "busy" && plan.on_busy_before) plan.on_busy_before(report.before);  // said at once
  bool lost = false;
  std::vector<measured_roofs> runs;
  for (int run = 0; run < repeat; ++run) {
    measured_roofs m;
    std::size_t done = 0;
    for (const auto& p : probes) {
      ++done;
      if (!probe_selected(plan.only, p)) {
        m.skipped.push_back({p.name, "not run", "not selected by --only"});
        continue;
      }
      const bool stop = plan.interrupted && plan.interrupted();
      if (stop || lost) {
        m.skipped.push_back({p.name, "not run", lost ? "device lost earlier in the run" : "interrupted"});
        continue;
      }
      if (plan.progress) {
        const std::string what = repeat > 1 ? fmt::format("{} (run {}/{})", p.name, run + 1, repeat) : p.name;
        plan.progress(what, 0.05 + 0.55 * (run * probes.size() + done - 1) / std::max<std::size_t>(1, repeat * probes.size()));
      }
      try {
        if (!plan.fail_probe.empty() && p.name.find(plan.fail_probe) != std::string::npos)
          throw probe_error("injected failure (ROOFLINE_FAIL_PROBE)");
        interference_sample s = run_judged(p, plan, m);
        if (repeat > 1) s.probe += fmt::format(" (run {})", run + 1);
        report.probes.push_back(std::move(s));
      } catch (const device_lost_error& e) {
        lost = true;
        r.errors.push_back({p.name, e.what()});
        m.skipped.push_back({p.name, "failed", e.what()});
      } catch (const probe_error& e) {
        r.errors.push_back({p.name, e.what()});
        m.skipped.push_back({p.name, "failed", e.what()});
      }
    }
    runs.push_back(std::move(m));
  }
  r.measured = combine_runs(runs);
  for (const auto& b : r.measured.bandwidth) report.unreliable_results += b.rejected && b.rejected_reason.rfind("unreliable", 0) == 0;
  for (const auto& c : r.measured.compute) report.unreliable_results += c.rejected && c.rejected_reason.rfind("unreliable", 0) == 0;
  report.busy = busy_verdict(report);
  report.summary = summarize_interference(report, plan.judge_cpu_interference);
  const bool device_shared =
      !report.before.device_processes.empty() ||
      std::any_of(report.probes.begin(), report.probes.end(), [](const interference_sample& s) { return !s.device_processes.empty(); });
  if (plan.judge_cpu_interference || report.unreliable_results > 0 || report.busy || device_shared) r.interference = std::move(report);
  return lost;
}

}  // namespace roofline::job
