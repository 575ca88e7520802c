// The probe loop's judgement on scripted probes: re-run on disagreeing repeats, rejection when they
// disagree twice, the median of N whole runs; and, end to end, a measurement beside a CPU hog.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <thread>
#include <vector>

#include "run/measure_driver.hpp"
#include "common/run_binary.hpp"
#include "roofline/io.hpp"
#include "roofline/json.hpp"
#include "roofline/report.hpp"

namespace fs = std::filesystem;
using namespace roofline;
using namespace roofline::job;

namespace {

compute_result row(double rate, double spread) {
  compute_result c;
  c.precision = "fp32";
  c.engine = "vector";
  c.flops_per_s = rate;
  c.median_flops_per_s = rate;
  c.spread = spread;
  c.verified = true;
  return c;
}

/// A probe that returns the next scripted row each time it runs.
probe scripted(std::vector<compute_result> script, int& calls) {
  return {"compute/fp32", "compute", [script, &calls](measured_roofs& out) {
            out.compute.push_back(script[std::min<std::size_t>(calls, script.size() - 1)]);
            ++calls;
          }};
}

}  // namespace

TEST(MeasureDriver, NoisyProbeIsReRunAndKeptWhenTheSecondAttemptAgrees) {
  int calls = 0;
  results r;
  measure_plan plan;
  measure_probes({scripted({row(100, 0.40), row(110, 0.02)}, calls)}, plan, r);
  EXPECT_EQ(calls, 2);
  ASSERT_EQ(r.measured.compute.size(), 1u);
  EXPECT_DOUBLE_EQ(r.measured.compute[0].flops_per_s, 110);
  EXPECT_FALSE(r.measured.compute[0].rejected);
}

TEST(MeasureDriver, DisagreeingRepeatsAreReMeasuredWithLongerSamplesWhereTheProbeHasThem) {
  int calls = 0, longer_calls = 0;
  probe p = scripted({row(100, 0.40)}, calls);
  p.run_longer = [&longer_calls](measured_roofs& out) {
    ++longer_calls;
    out.compute.push_back(row(105, 0.03));
  };
  p.longer_note = "4× longer samples";
  results r;
  measure_plan plan;
  measure_probes({p}, plan, r);
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(longer_calls, 1);
  ASSERT_EQ(r.measured.compute.size(), 1u);
  EXPECT_DOUBLE_EQ(r.measured.compute[0].flops_per_s, 105);
  // the verdict, and on a second disagreement the rejection reason, say that the samples were longer
  calls = longer_calls = 0;
  p.run_longer = [&longer_calls](measured_roofs& out) {
    ++longer_calls;
    out.compute.push_back(row(95, 0.30));
  };
  results r2;
  measure_probes({p}, plan, r2);
  EXPECT_EQ(longer_calls, 1);
  ASSERT_TRUE(r2.interference.has_value());
  ASSERT_EQ(r2.interference->probes.size(), 1u);
  EXPECT_EQ(r2.interference->probes[0].verdict,
            "unreliable: repeats disagree (IQR above 10 % of the median), twice (the second time with 4× longer samples) (1 row(s))");
  ASSERT_EQ(r2.measured.compute.size(), 1u);
  EXPECT_TRUE(r2.measured.compute[0].rejected);
}

// The CPU bandwidth sweep re-measures a noisy point itself with 4× longer samples; on a quiet machine a
// point that still disagrees is kept out without the whole 13-point sweep running again.
TEST(MeasureDriver, AProbeThatReMeasuresItsNoisyRowsIsNotRunAgain) {
  int calls = 0, longer_calls = 0;
  probe p = scripted({row(100, 0.40), row(110, 0.02)}, calls);
  p.run_longer = [&longer_calls](measured_roofs& out) { ++longer_calls, out.compute.push_back(row(105, 0.03)); };
  p.longer_note = "4× longer samples";
  p.remeasures_noisy_rows = true;
  results r;
  measure_plan plan;
  measure_probes({p}, plan, r);
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(longer_calls, 0);
  ASSERT_EQ(r.measured.compute.size(), 1u);
  EXPECT_TRUE(r.measured.compute[0].rejected);
  EXPECT_EQ(r.measured.compute[0].rejected_reason,
            "unreliable: repeats disagree (IQR above 10 % of the median), twice (the second time with 4× longer samples)");
  ASSERT_TRUE(r.interference.has_value());
  EXPECT_NE(r.interference->probes[0].verdict.find("each re-measured by the probe itself"), std::string::npos);
}

TEST(MeasureDriver, RepeatsThatDisagreeTwiceAreKeptOutOfTheRoofs) {
  int calls = 0;
  results r;
  measure_plan plan;
  measure_probes({scripted({row(100, 0.40), row(90, 0.50)}, calls)}, plan, r);
  EXPECT_EQ(calls, 2);
  ASSERT_EQ(r.measured.compute.size(), 1u);
  EXPECT_TRUE(r.measured.compute[0].rejected);
  EXPECT_NE(r.measured.compute[0].rejected_reason.find("repeats disagree"), std::string::npos);
  ASSERT_TRUE(r.interference.has_value());
  EXPECT_EQ(r.interference->unreliable_results, 1);
}

/// The H200 fp16 GEMM at n = 8192 of 2026-12-03 (bench/results/h200): 13 telemetry samples at
/// 1140–1395 MHz, median 1380 (range 18.5 %), sw_power_cap active; the times' IQR 18.0 % of the median.
compute_result power_capped_row(double time_spread) {
  compute_result c = row(680e12, time_spread);
  telemetry_summary t;
  t.samples = 13;
  stats_summary clock;
  clock.n = 13, clock.min = 1140, clock.max = 1395, clock.median = 1380, clock.range = (1395.0 - 1140.0) / 1380.0;
  t.sm_clock_mhz = clock;
  t.throttle_reasons = {"sw_power_cap"};
  t.throttled_fraction = 1.0;
  c.telemetry = t;
  return c;
}

TEST(MeasureDriver, ASpreadTheClockControllerExplainsIsKeptWithAFlagAndNotReRun) {
  EXPECT_TRUE(clock_explains_spread(power_capped_row(0.180).telemetry, 0.180));
  EXPECT_FALSE(clock_explains_spread(power_capped_row(0.190).telemetry, 0.190));  // wider than the clock moved
  compute_result no_reason = power_capped_row(0.180);
  no_reason.telemetry->throttle_reasons.clear();  // the clock moved without a slowdown reason: not explained
  EXPECT_FALSE(clock_explains_spread(no_reason.telemetry, 0.180));
  EXPECT_FALSE(clock_explains_spread(std::nullopt, 0.180));

  int calls = 0;
  results r;
  measure_plan plan;
  measure_probes({scripted({power_capped_row(0.180)}, calls)}, plan, r);
  EXPECT_EQ(calls, 1);
  ASSERT_EQ(r.measured.compute.size(), 1u);
  EXPECT_FALSE(r.measured.compute[0].rejected);
  ASSERT_FALSE(r.measured.compute[0].flags.empty());
  EXPECT_EQ(r.measured.compute[0].flags.back(),
            "repeats spread 18.0 %, within the SM clock's range while they ran (1140–1395 MHz, sw_power_cap): the clock "
            "controller, not interference; kept");
  // a spread wider than the clock's range is still a disagreement
  calls = 0;
  results r2;
  measure_probes({scripted({power_capped_row(0.25), row(110, 0.02)}, calls)}, plan, r2);
  EXPECT_EQ(calls, 2);
}

TEST(MeasureDriver, OnAnUnsharedGpuDisagreeingRepeatsAreNotReRunAsTheyWere) {
  int calls = 0;
  results r;
  measure_plan plan;
  plan.rerun_identical = false;  // what run_pipeline sets for a GPU
  measure_probes({scripted({row(100, 0.40), row(110, 0.02)}, calls)}, plan, r);
  EXPECT_EQ(calls, 1);
  ASSERT_EQ(r.measured.compute.size(), 1u);
  EXPECT_TRUE(r.measured.compute[0].rejected);
  EXPECT_EQ(r.measured.compute[0].rejected_reason,
            "unreliable: repeats disagree (IQR above 10 % of the median); not re-run: the device was not shared and an "
            "identical re-run repeats the spread");
  // a probe with longer samples still gets its longer second attempt
  calls = 0;
  int longer_calls = 0;
  probe p = scripted({row(100, 0.40)}, calls);
  p.run_longer = [&longer_calls](measured_roofs& out) {
    ++longer_calls;
    out.compute.push_back(row(105, 0.03));
  };
  results r2;
  measure_probes({p}, plan, r2);
  EXPECT_EQ(longer_calls, 1);
  ASSERT_EQ(r2.measured.compute.size(), 1u);
  EXPECT_FALSE(r2.measured.compute[0].rejected);
}

TEST(MeasureDriver, CleanProbeRunsOnce) {
  int calls = 0;
  results r;
  measure_probes({scripted({row(100, 0.01)}, calls)}, measure_plan{}, r);
  EXPECT_EQ(calls, 1);
  EXPECT_FALSE(r.interference.has_value()) << "nothing to report on a GPU-style plan with clean rows";
}

TEST(MeasureDriver, AnotherProcessOnTheDeviceDisturbsEveryProbeItOverlaps) {
  // The device reports a second process (as NVML would) during the first attempt only: the probe is
  // re-run and kept; a process that stays makes the row unreliable, named in the verdict.
  int calls = 0, queries = 0;
  results r;
  measure_plan plan;
  plan.device_users = [&] { return ++queries <= 3 ? std::vector<std::string>{"pid 4242 (python3, 12.0 GiB)"} : std::vector<std::string>{}; };
  measure_probes({scripted({row(100, 0.01), row(101, 0.01)}, calls)}, plan, r);
  EXPECT_EQ(calls, 2);  // before-check + first attempt saw it; the second attempt was clean
  ASSERT_EQ(r.measured.compute.size(), 1u);
  EXPECT_FALSE(r.measured.compute[0].rejected);
  ASSERT_TRUE(r.interference.has_value());
  EXPECT_EQ(r.interference->before.verdict, "busy");
  EXPECT_EQ(r.interference->before.device_processes, std::vector<std::string>{"pid 4242 (python3, 12.0 GiB)"});

  calls = 0;
  results r2;
  measure_plan stays;
  stays.device_users = [] { return std::vector<std::string>{"pid 4242 (python3, 12.0 GiB)"}; };
  measure_probes({scripted({row(100, 0.01)}, calls)}, stays, r2);
  EXPECT_EQ(calls, 2);
  ASSERT_EQ(r2.measured.compute.size(), 1u);
  EXPECT_TRUE(r2.measured.compute[0].rejected);
  EXPECT_NE(r2.measured.compute[0].rejected_reason.find("other processes on the device: pid 4242 (python3, 12.0 GiB)"),
            std::string::npos)
      << r2.measured.compute[0].rejected_reason;
  ASSERT_TRUE(r2.interference.has_value());
  EXPECT_TRUE(r2.interference->busy);
}

TEST(MeasureDriver, RepeatKeepsTheMedianRunAndTheSpreadAcrossRuns) {
  int calls = 0;
  results r;
  measure_plan plan;
  plan.repeat = 3;
  measure_probes({scripted({row(100, 0.01), row(120, 0.01), row(110, 0.01)}, calls)}, plan, r);
  EXPECT_EQ(r.repeat, 3);
  ASSERT_EQ(r.measured.compute.size(), 1u);
  const auto& c = r.measured.compute[0];
  EXPECT_DOUBLE_EQ(c.flops_per_s, 110);
  ASSERT_TRUE(c.across_runs.has_value());
  EXPECT_EQ(c.across_runs->n, 3);
  EXPECT_DOUBLE_EQ(c.across_runs->min, 100);
  EXPECT_DOUBLE_EQ(c.across_runs->max, 120);
  EXPECT_DOUBLE_EQ(c.across_runs->range, 20.0 / 110);
}

TEST(MeasureDriver, RepeatPairsRowsThatShareALabelByTheirOrder) {
  // Two variants of one roof per run (fp16 GEMM accumulating in fp32, then in fp16): each keeps its own.
  int calls = 0;
  results r;
  measure_plan plan;
  plan.repeat = 2;
  const probe p{"gemm/fp16", "gemm", [&calls](measured_roofs& out) {
                  out.compute.push_back(row(700 + calls, 0.01));
                  out.compute.push_back(row(300 + calls, 0.01));
                  ++calls;
                }};
  measure_probes({p}, plan, r);
  ASSERT_EQ(r.measured.compute.size(), 2u);
  EXPECT_EQ(r.measured.compute[0].across_runs->n, 2);
  EXPECT_EQ(r.measured.compute[1].across_runs->n, 2);
  EXPECT_DOUBLE_EQ(r.measured.compute[0].across_runs->min, 700);
  EXPECT_DOUBLE_EQ(r.measured.compute[1].across_runs->max, 301);
}

TEST(MeasureDriver, EveryMeasuredFieldOfAProbeIsKept) {
  results r;
  const probe p{"latency/small-work", "latency", [](measured_roofs& out) {
                  out.small_work = small_work_result{};
                  out.small_work->floor_s = 1e-6;
                  out.launch = launch_result{2e-6, 1e-6, 1e-6, "test"};
                  out.telemetry["sampler_hz"] = 50;
                }};
  measure_probes({p}, measure_plan{}, r);
  ASSERT_TRUE(r.measured.small_work.has_value());
  EXPECT_DOUBLE_EQ(r.measured.small_work->floor_s, 1e-6);
  ASSERT_TRUE(r.measured.launch.has_value());
  EXPECT_EQ(r.measured.telemetry["sampler_hz"], 50);
}

TEST(MeasureDriver, UnselectedAndFailedProbesAreListed) {
  results r;
  measure_plan plan;
  plan.only = {"bandwidth"};
  int calls = 0;
  measure_probes({scripted({row(1, 0)}, calls)}, plan, r);
  EXPECT_EQ(calls, 0);
  ASSERT_EQ(r.measured.skipped.size(), 1u);
  EXPECT_EQ(r.measured.skipped[0].reason, "not selected by --only");
}

// End to end: two processes spin on every CPU while `roofline measure` runs its FMA probes. The run
// must say the machine was busy, and no result measured beside the hog may be a roof.
TEST(MeasureBesideAHog, RunIsFlaggedAndNoPollutedValueBecomesARoof) {
  const unsigned cpus = std::max(1u, std::thread::hardware_concurrency());
  std::vector<pid_t> hogs;
  for (unsigned i = 0; i < cpus; ++i) {
    const pid_t pid = ::fork();
    if (pid == 0) {
      volatile unsigned long x = 0;
      for (;;) x = x + 1;  // spins until killed
    }
    ASSERT_GT(pid, 0);
    hogs.push_back(pid);
  }
  const fs::path dir = fs::temp_directory_path() / ("roofline_hog_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  const auto run = test::run_roofline("measure --device cpu --quick --only compute --out " + dir.string());
  for (const pid_t p : hogs) ::kill(p, SIGKILL);
  for (const pid_t p : hogs) ::waitpid(p, nullptr, 0);
  ASSERT_NE(run.code, -1) << "killed: " << run.err;
  ASSERT_TRUE(fs::exists(dir / "results.json"));
  const results r = load_results((dir / "results.json").string());
  fs::remove_all(dir);
  ASSERT_TRUE(r.interference.has_value());
  EXPECT_TRUE(r.interference->busy) << r.interference->summary;
  EXPECT_NE(r.interference->summary.find("busy"), std::string::npos);
  ASSERT_FALSE(r.measured.compute.empty());
  for (const auto& c : r.measured.compute) {
    EXPECT_TRUE(c.rejected) << c.precision << " " << c.engine << ": measured beside the hog";
    EXPECT_NE(c.rejected_reason.find("machine busy"), std::string::npos) << c.rejected_reason;
  }
  EXPECT_DOUBLE_EQ(r.roofline.peak_measured, 0.0) << "a polluted value became the compute roof";
  // No compute roof stands: the run failed, exit 1, the busy reason on the summary's first line.
  EXPECT_EQ(run.code, 1) << run.err;
  const std::string first = run.out.substr(0, run.out.find('\n'));
  EXPECT_NE(first.find("run failed: the machine was busy"), std::string::npos) << run.out;
  EXPECT_NE(run_failure(r).find("so no fp32 compute roof stands"), std::string::npos) << run_failure(r);
}
