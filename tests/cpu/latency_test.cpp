// The CPU small-work probe and the CPU whole step (correctness; no timing targets here).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "backends/cpu/op_kernels.hpp"
#include "backends/cpu/op_runner.hpp"
#include "backends/cpu/probe_latency.hpp"
#include "roofline/error.hpp"
#include "roofline/model.hpp"
#include "roofline/whole_step.hpp"

using namespace roofline;
using namespace roofline::cpu;

TEST(CpuSmallWork, RampSizesAre4KiBTimesPowersOf4) {
  const auto s = ramp_sizes(1ll << 30);
  ASSERT_EQ(s.size(), 10u);  // 4 KiB, 16 KiB, …, 1 GiB
  EXPECT_EQ(s.front(), 4096);
  EXPECT_EQ(s.back(), 1ll << 30);
  EXPECT_EQ(ramp_sizes(64ll << 20).size(), 8u);
}

TEST(CpuSmallWork, ParallelRegionChainCountsEveryRegion) {
  const auto per_region = parallel_region_chain(2, 50, quick_timing());  // throws when the counter is off
  ASSERT_FALSE(per_region.empty());
  for (const double t : per_region) {
    EXPECT_GT(t, 0);
    EXPECT_LT(t, 0.5);  // microseconds when quiet; 0.5 s only catches a unit error, not a busy machine
  }
}

TEST(CpuSmallWork, QuickProbeMeasuresFloorAndAVerifiedRamp) {
  const small_work_result r = measure_small_work(quick_timing(), true);
  EXPECT_TRUE(r.verified);
  EXPECT_GT(r.floor_s, 0);
  ASSERT_EQ(r.ramp.size(), 8u);  // 4 KiB … 64 MiB
  for (std::size_t i = 0; i < r.ramp.size(); ++i) {
    EXPECT_GT(r.ramp[i].seconds, 0);
    if (i > 0) EXPECT_EQ(r.ramp[i].bytes, 4 * r.ramp[i - 1].bytes);
  }
  // 64 MiB from DRAM cannot be read faster than 1 TB/s on any CPU of this decade. Only physical
  // lower bounds are checked: another process on the machine can make any point (the 4 KiB one
  // included) arbitrarily slow, so no ordering between points is asserted.
  EXPECT_EQ(r.ramp.front().bytes, 4096);
  EXPECT_GT(r.ramp.back().seconds, (64 << 20) / 1e12);
  EXPECT_FALSE(r.method.empty());
  // the one-thread regime of the small kernels: their threshold, a region floor and a 4 KiB … 1 MiB ramp
  EXPECT_EQ(r.serial_below_elements, serial_below_elements);
  EXPECT_EQ(r.serial_below_elements, 32768);
  EXPECT_GT(r.serial_floor_s, 0);
  ASSERT_EQ(r.serial_ramp.size(), 5u);
  for (std::size_t i = 0; i < r.serial_ramp.size(); ++i) {
    EXPECT_EQ(r.serial_ramp[i].bytes, 4096.0 * (1 << (2 * i)));
    EXPECT_GT(r.serial_ramp[i].seconds, r.serial_ramp[i].bytes / 1e12);  // one thread cannot read 1 TB/s
  }
  // write-allocate: a cold copy of the ramp's largest point (64 MiB when quick) with ordinary stores
  ASSERT_TRUE(r.write_copy.has_value());
  EXPECT_EQ(r.write_copy->bytes, 64ll << 20);
  EXPECT_GT(r.write_copy->seconds, 2.0 * (64 << 20) / 1e12);  // 64 MiB read + 64 MiB written, < 1 TB/s
  // Known when the parallel-region floor lies below both the read and the copy of 64 MiB (a quiet
  // machine: microseconds against milliseconds); a busy one (another process on the cores, as under
  // `ctest -j`) can stretch the floor past them, and then the write cost is unknown, not wrong.
  const auto read64 = std::find_if(r.ramp.begin(), r.ramp.end(), [](const ramp_point& p) { return p.bytes == (64 << 20); });
  ASSERT_NE(read64, r.ramp.end());
  EXPECT_EQ(r.write_cost.has_value(), read64->seconds > r.floor_s && r.write_copy->seconds > r.floor_s)
      << "floor " << r.floor_s << " s, read " << read64->seconds << " s, copy " << r.write_copy->seconds << " s";
  if (r.write_cost) {
    EXPECT_TRUE(std::isfinite(*r.write_cost));
    EXPECT_GT(*r.write_cost, -1.0);  // copy − floor > 0; no ordering with the read: a busy machine moves either
  }
  EXPECT_EQ(r.write_in_place, std::vector<std::string>{"rope"});
}

namespace {
model_config small_llama() {
  model_config cfg;
  cfg.name = "small";
  cfg.family = "llama";
  cfg.hidden = 256, cfg.intermediate = 512, cfg.layers = 3, cfg.heads = 4, cfg.kv_heads = 2, cfg.head_dim = 64;
  cfg.vocab = 1000;
  return cfg;
}
}  // namespace

TEST(CpuWholeStep, DecodeRunsEveryLaunchOfEveryLayerVerified) {
  catalogue_options o;
  o.ph = phase::decode;
  o.batch = 2;
  o.context = 64;
  o.dtype = "fp32";
  o.one_pass_norms = true;
  const auto step = build_catalogue(small_llama(), o);
  const op_timing t = run_cpu_step(step, quick_timing());
  EXPECT_GT(t.seconds, 0);
  EXPECT_TRUE(std::isfinite(t.seconds));
  EXPECT_GE(t.seconds, t.best_seconds);
  // 1 + 3 layers × 15 + 2 launches
  EXPECT_NE(t.note.find("one pass over 48 launches of 18 distinct ops"), std::string::npos) << t.note;
}

TEST(CpuWholeStep, PrefillRunsAndABrokenOpFailsTheStep) {
  catalogue_options o;
  o.ph = phase::prefill;
  o.seq = 32;
  o.dtype = "fp32";
  o.one_pass_norms = true;
  auto step = build_catalogue(small_llama(), o);
  EXPECT_GT(run_cpu_step(step, quick_timing()).seconds, 0);
  step[2].m = 0;  // q_proj without its m: the runner throws before the step is timed
  EXPECT_THROW(run_cpu_step(step, quick_timing()), probe_error);
}
