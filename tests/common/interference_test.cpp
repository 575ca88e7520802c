// Interference accounting from /proc text (proc(5)), on fixed inputs.
#include <gtest/gtest.h>

#include "roofline/interference.hpp"
#include "roofline/timing_windows.hpp"

#include <functional>
#include <optional>

using namespace roofline;

namespace {
const char* proc_stat =
    "cpu  1000 10 500 80000 20 30 40 50 0 0\n"
    "cpu0 500 5 250 40000 10 15 20 25 0 0\n"
    "cpu1 500 5 250 40000 10 15 20 25 0 0\n"
    "intr 12345\nctxt 999\nprocs_running 3\n";
}

TEST(Interference, ProcStatGivesBusyStealAndCpus) {
  cpu_accounting a;
  ASSERT_TRUE(parse_proc_stat(proc_stat, a));
  EXPECT_DOUBLE_EQ(a.busy_ticks, 1000 + 10 + 500 + 30 + 40);  // user nice system irq softirq
  EXPECT_DOUBLE_EQ(a.steal_ticks, 50);
  EXPECT_EQ(a.cpus, 2);
  cpu_accounting b;
  EXPECT_FALSE(parse_proc_stat("cpu  1 2 3\n", b));
  EXPECT_FALSE(parse_proc_stat("", b));
}

TEST(Interference, SelfStatCountsFieldsAfterTheCommandName) {
  // A command name with spaces and a parenthesis; utime 250, stime 50.
  const std::string line = "4242 (my (odd) prog) R 1 4242 4242 0 -1 4194560 100 0 0 0 250 50 0 0 20 0 3 0 12345";
  ASSERT_TRUE(parse_self_stat_ticks(line).has_value());
  EXPECT_DOUBLE_EQ(*parse_self_stat_ticks(line), 300);
  EXPECT_FALSE(parse_self_stat_ticks("4242 no-paren R 1").has_value());
  EXPECT_FALSE(parse_self_stat_ticks("4242 (x) R 1 2").has_value());
}

TEST(Interference, OtherProcessesShareIsBusyMinusOwnOverCapacity) {
  cpu_accounting a, b;
  a.valid = b.valid = true;
  a.cpus = b.cpus = 2;
  a.ticks_per_s = b.ticks_per_s = 100;
  a.wall_s = 10, b.wall_s = 11;            // 1 s × 2 CPUs × 100 ticks = 200 ticks of capacity
  a.busy_ticks = 1000, b.busy_ticks = 1180;  // 180 busy ticks ...
  a.self_ticks = 50, b.self_ticks = 130;     // ... 80 of them ours: others used 100 = 50 %
  a.steal_ticks = 7, b.steal_ticks = 27;     // 20 ticks stolen: 10 %
  const interference_sample s = interference_between(a, b);
  EXPECT_DOUBLE_EQ(s.wall_s, 1.0);
  EXPECT_DOUBLE_EQ(s.other_cpu_fraction, 0.5);
  EXPECT_DOUBLE_EQ(s.steal_fraction, 0.1);
  EXPECT_TRUE(disturbed(s));
  interference_sample quiet = s;
  quiet.other_cpu_fraction = 0.02, quiet.steal_fraction = 0.01;
  EXPECT_FALSE(disturbed(quiet));
  interference_sample brief = s;
  brief.wall_s = 0.01;  // one tick: not judged
  EXPECT_FALSE(disturbed(brief));
  b.valid = false;
  EXPECT_DOUBLE_EQ(interference_between(a, b).other_cpu_fraction, 0.0);
}

TEST(Interference, ThisMachineCanBeRead) {
  const cpu_accounting a = read_cpu_accounting();
  if (!a.valid) GTEST_SKIP() << "/proc not readable here";
  EXPECT_GE(a.cpus, 1);
  EXPECT_GT(a.ticks_per_s, 0);
}

TEST(DeviceProcesses, OthersAreNamedOursIsNot) {
  const std::vector<device_process> seen = {{100, 2.0 * (1 << 30), "roofline"}, {4242, 12.0 * (1 << 30), "python3"}, {77, 0, ""}};
  EXPECT_EQ(other_device_processes(seen, 100), (std::vector<std::string>{"pid 4242 (python3, 12.0 GiB)", "pid 77"}));
  EXPECT_TRUE(other_device_processes({{100, 1e9, "roofline"}}, 100).empty());
}

TEST(DeviceProcesses, InAnotherPidNamespaceOneEntryIsOursAndTheRestAreCounted) {
  // NVML reports host PIDs; in a container getpid() is another number: our own entry cannot be named.
  EXPECT_TRUE(other_device_processes({{811, 1e9, ""}}, 12).empty());
  EXPECT_EQ(other_device_processes({{811, 1e9, ""}, {9001, 5e9, ""}}, 12),
            (std::vector<std::string>{"1 other process(es) (PIDs from another PID namespace: 811, 9001)"}));
  EXPECT_TRUE(other_device_processes({}, 12).empty());
}

// ---- the run's verdict and the timings judged in windows (numbers fed, never the machine's) ----

namespace {

/// A sample of `other` CPU share over `wall` s, as interference_between gives it.
interference_sample sample(double other, double wall = 0.3) {
  interference_sample s;
  s.wall_s = wall, s.other_cpu_fraction = other;
  return s;
}

/// Scripted CPU accounting on 2 CPUs at 100 ticks/s: each reading advances the wall clock by `step` s,
/// other processes by `other` of the machine over that step, this process by nothing.
struct scripted_accounting {
  double wall = 100, busy = 0, step = 0.06, other = 0;
  int reads = 0;
  cpu_accounting operator()() {
    cpu_accounting a;
    a.valid = true, a.cpus = 2, a.ticks_per_s = 100;
    a.wall_s = wall, a.busy_ticks = busy;
    wall += step, busy += other * step * 2 * 100;
    ++reads;
    return a;
  }
};

}  // namespace

TEST(InterferenceSummary, SaysWhatWasKeptOutAndWhy) {
  interference_report r;
  r.before = sample(0.93), r.before.verdict = "busy";
  r.probes = {sample(0.9), sample(0.9), sample(0.0)};
  r.probes[0].verdict = "unreliable: machine busy while measured, twice (…)";
  r.probes[1].verdict = "unreliable: machine busy while measured, twice (…)";
  r.probes[2].verdict = "re-run, clean (first attempt: …)";
  r.unreliable_results = 9;
  r.ops_kept_out = 46, r.steps_kept_out = 4;
  EXPECT_EQ(busy_probes(r), 2);
  EXPECT_TRUE(busy_verdict(r));
  EXPECT_EQ(summarize_interference(r, true),
            "the machine was busy: 2 of 3 probe(s) stayed disturbed after a re-run, 9 result(s) kept out of the roofs; "
            "46 op timing(s) and 4 whole step(s) taken while it was busy kept out; before measuring, other processes used "
            "93 % of the CPU time, steal 0 %, over 0.30 s");
  // Busy during the ops only: the probes' clause is left out, the timings said.
  interference_report ops_only;
  ops_only.probes = {sample(0.0)};
  ops_only.probes[0].verdict = "clean";
  ops_only.ops_kept_out = 3;
  EXPECT_TRUE(busy_verdict(ops_only));
  EXPECT_EQ(summarize_interference(ops_only, true),
            "the machine was busy: 3 op timing(s) taken while it was busy kept out");
  interference_report quiet;
  quiet.probes = ops_only.probes;
  EXPECT_FALSE(busy_verdict(quiet));
  EXPECT_EQ(summarize_interference(quiet, true), "the machine was quiet: no probe was disturbed");
  quiet.unreliable_results = 2;
  EXPECT_EQ(summarize_interference(quiet, true), "2 result(s) kept out of the roofs: their repeats disagreed twice");
}

TEST(KeepOutTiming, TheCountsSayOnlyWhatWasKeptOut) {
  EXPECT_EQ(kept_out_timings(46, 4), "46 op timing(s) and 4 whole step(s)");
  EXPECT_EQ(kept_out_timings(46, 0), "46 op timing(s)");
  EXPECT_EQ(kept_out_timings(0, 1), "1 whole step(s)");
  EXPECT_EQ(kept_out_timings(0, 0), "");
}

TEST(KeepOutTiming, MovesTheTimeOutAndSaysWhyFirst) {
  std::optional<double> measured = 7.96e-3, disturbed;
  std::string note = "verified against a reference";
  EXPECT_TRUE(keep_out_timing(measured, disturbed, note, sample(0.85, 0.21)));
  EXPECT_FALSE(measured.has_value());
  ASSERT_TRUE(disturbed.has_value());
  EXPECT_DOUBLE_EQ(*disturbed, 7.96e-3);
  EXPECT_EQ(note, "kept out: timed at 7.96 ms while the machine was busy (other processes used 85 % of the CPU time, steal "
                  "0 %, over 0.21 s); verified against a reference");
  std::optional<double> none, d2;
  std::string why = "not run (interrupted)";
  EXPECT_FALSE(keep_out_timing(none, d2, why, sample(0.85)));
  EXPECT_EQ(why, "not run (interrupted)");
  EXPECT_FALSE(d2.has_value());
}

TEST(TimingWindows, ShortTimingsShareAWindowJudgedOnceItIsLongEnough) {
  // Other processes take 60 % of the machine: every window is disturbed and every timing in it kept out.
  scripted_accounting acc;
  acc.other = 0.6;
  timing_windows w(true, {}, std::ref(acc), [] {});
  std::vector<std::optional<double>> times(5, 1e-3), disturbed(5);
  std::vector<std::string> notes(5);
  for (int i = 0; i < 5; ++i) {
    w.begin();
    w.end("op " + std::to_string(i + 1), [&, i](const interference_sample& s) {
      return keep_out_timing(times[i], disturbed[i], notes[i], s);
    });
  }
  w.close();
  // Each reading is 0.06 s after the last (begin reads once per window, end once per timing): ops 1–2
  // fill the policy's 0.1 s window, so do ops 3–4; op 5 is judged alone when the window closes.
  ASSERT_EQ(w.windows().size(), 3u);
  EXPECT_EQ(w.windows()[0].probe, "2 timing(s): op 1 … op 2");
  EXPECT_EQ(w.windows()[2].probe, "1 timing(s): op 5");
  EXPECT_GE(w.windows()[2].wall_s, 0.1);
  EXPECT_NEAR(w.windows()[0].other_cpu_fraction, 0.6, 1e-9);
  EXPECT_EQ(w.windows()[0].verdict.rfind("kept out: machine busy (other processes used 60 %", 0), 0u) << w.windows()[0].verdict;
  EXPECT_EQ(w.kept_out(), 5);
  for (int i = 0; i < 5; ++i) {
    EXPECT_FALSE(times[i].has_value());
    EXPECT_DOUBLE_EQ(disturbed[i].value_or(0), 1e-3);
  }
}

TEST(TimingWindows, AQuietWindowKeepsEveryTimingAndAnUnjudgedRunReadsNothing) {
  scripted_accounting acc;
  acc.other = 0.05;  // under the policy's 10 %
  timing_windows w(true, {}, std::ref(acc), [] {});
  int called = 0;
  for (int i = 0; i < 3; ++i) {
    w.begin();
    w.end("step", [&](const interference_sample&) { return ++called > 0; });
  }
  w.close();
  EXPECT_EQ(called, 0);
  EXPECT_EQ(w.kept_out(), 0);
  ASSERT_FALSE(w.windows().empty());
  EXPECT_EQ(w.windows()[0].verdict, "clean");
  // Not judged (a GPU run, a fleet rank): no reading, no window, nothing kept out.
  scripted_accounting idle;
  timing_windows off(false, {}, std::ref(idle), [] {});
  off.begin();
  off.end("op", [&](const interference_sample&) { return ++called > 0; });
  off.close();
  EXPECT_EQ(idle.reads, 0);
  EXPECT_TRUE(off.windows().empty());
  EXPECT_EQ(called, 0);
}
