// Whether a run's results stand (roofline/run_verdict.hpp): the exit status of `run` and `measure`.
// Decided from numbers: the tests feed numbers and results built from them, never rely on the machine
// being busy or quiet.
#include "roofline/run_verdict.hpp"

#include <gtest/gtest.h>

#include "roofline/results.hpp"

namespace roofline {
namespace {

bandwidth_result dram(const std::string& pattern, double bps, bool rejected = false) {
  bandwidth_result b;
  b.pattern = pattern, b.level = "dram", b.working_set_bytes = 1 << 30, b.bytes_per_s = b.median_bytes_per_s = bps;
  b.rejected = rejected;
  if (rejected) b.rejected_reason = "unreliable: machine busy while measured, twice (other processes used 62 % of the CPU time)";
  return b;
}

compute_result fp32(const std::string& engine, double flops, bool rejected = false) {
  compute_result c;
  c.precision = "fp32", c.engine = engine, c.flops_per_s = c.median_flops_per_s = flops;
  if (engine == "gemm") c.size = 512;
  c.rejected = rejected;
  if (rejected) c.rejected_reason = "unreliable: machine busy while measured, twice (other processes used 91 % of the CPU time)";
  return c;
}

results cpu_run() {
  results r;
  r.device.kind = "cpu", r.device.name = "test CPU";
  r.measured.bandwidth = {dram("read", 40e9), dram("copy", 35e9)};
  r.measured.compute = {fp32("vector", 1.2e12), fp32("gemm", 1.0e12)};
  return r;
}

}  // namespace

TEST(RunVerdict, FromNumbersARoofWithNoResultStandingOrAKeptOutTimingFailsTheRun) {
  run_facts quiet{"fp32", 2, 2, 2, 2, false, 0, 0};
  EXPECT_TRUE(decide_run(quiet).stands);
  // The busy run: every roof rejected ("so no roof stands"), still exit 0. Now it fails.
  run_facts busy{"fp32", 2, 0, 2, 0, true, 46, 4};
  const run_verdict v = decide_run(busy);
  EXPECT_FALSE(v.stands);
  EXPECT_TRUE(v.no_compute_roof && v.no_memory_roof && v.busy);
  EXPECT_EQ(v.ops_kept_out, 46);
  // One roof gone is enough; one result of it standing is enough to keep it.
  EXPECT_FALSE(decide_run({"fp32", 2, 0, 2, 2, true, 0, 0}).stands);
  EXPECT_FALSE(decide_run({"fp32", 2, 2, 2, 0, false, 0, 0}).stands);  // quiet, but every DRAM result rejected
  EXPECT_TRUE(decide_run({"fp32", 2, 1, 2, 1, true, 0, 0}).stands);   // busy, some rejected, both roofs stand
  // Op or step timings kept out fail the run though the roofs stand.
  EXPECT_FALSE(decide_run({"fp32", 2, 2, 2, 2, true, 3, 0}).stands);
  EXPECT_FALSE(decide_run({"fp32", 2, 2, 2, 2, true, 0, 1}).stands);
  // A roof not measured at all (--only compute) fails nothing.
  EXPECT_TRUE(decide_run({"fp32", 2, 2, 0, 0, false, 0, 0}).stands);
  EXPECT_TRUE(decide_run({"fp32", 0, 0, 0, 0, false, 0, 0}).stands);
}

TEST(RunVerdict, ReadFromTheResults) {
  results r = cpu_run();
  EXPECT_TRUE(judge_run(r).stands);
  for (auto& c : r.measured.compute) c = fp32(c.engine, c.flops_per_s, true);
  const run_verdict v = judge_run(r);
  EXPECT_FALSE(v.stands);
  EXPECT_TRUE(v.no_compute_roof);
  EXPECT_FALSE(v.no_memory_roof);
  EXPECT_EQ(v.precision, "fp32");
  EXPECT_EQ(v.rejection, "unreliable: machine busy while measured, twice (other processes used 91 % of the CPU time)");
  // fp64 results do not hold up the fp32 roof the ops are placed against.
  compute_result fp64 = fp32("gemm", 5e11);
  fp64.precision = "fp64";
  r.measured.compute.push_back(fp64);
  EXPECT_FALSE(judge_run(r).stands);
  // A transition level (l2+dram) is never a roof: it neither holds up nor fails the memory roof.
  results m = cpu_run();
  for (auto& b : m.measured.bandwidth) b = dram(b.pattern, b.bytes_per_s, true);
  bandwidth_result mixed = dram("read", 80e9);
  mixed.level = "l2+dram";
  m.measured.bandwidth.push_back(mixed);
  EXPECT_TRUE(judge_run(m).no_memory_roof);
  // The busy counts come from results.interference.
  results t = cpu_run();
  interference_report i;
  i.busy = true, i.ops_kept_out = 12, i.summary = "the machine was busy: 12 op timing(s) taken while it was busy kept out";
  t.interference = i;
  const run_verdict w = judge_run(t);
  EXPECT_FALSE(w.stands);
  EXPECT_EQ(w.ops_kept_out, 12);
  EXPECT_EQ(w.busy_summary, i.summary);
}

}  // namespace roofline
