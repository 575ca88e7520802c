// The GEMM probe's extra runs and input data (backends/cuda/gemm_plan.hpp): which sizes and precisions
// get the burst-versus-sustained run and the run on all-zero inputs, and what the inputs are.
#include <gtest/gtest.h>

#include "backends/cuda/gemm_plan.hpp"
#include "roofline/results.hpp"

using namespace roofline::cuda;

TEST(GemmPlan, TheModelsPrecisionRunsSustainedOnRandomAndZeroInputsAt8192) {
  const gemm_extra_runs x = gemm_extras("bf16", "bf16", 8192, false, "bf16");
  EXPECT_DOUBLE_EQ(x.burst_s, 1.5);
  EXPECT_TRUE(x.zeros);
  // the other sizes from 2048: a 0.4 s burst run, no zeros
  const gemm_extra_runs y = gemm_extras("bf16", "bf16", 4096, false, "bf16");
  EXPECT_DOUBLE_EQ(y.burst_s, 0.4);
  EXPECT_FALSE(y.zeros);
  // below 2048: nothing
  EXPECT_DOUBLE_EQ(gemm_extras("bf16", "bf16", 1024, false, "bf16").burst_s, 0.0);
}

TEST(GemmPlan, OtherPrecisionsQuickRunsAndTheFp16AccumulateProbeRunNeither) {
  EXPECT_DOUBLE_EQ(gemm_extras("fp8", "fp8", 8192, false, "bf16").burst_s, 0.0);  // not the model's
  EXPECT_FALSE(gemm_extras("fp8", "fp8", 8192, false, "bf16").zeros);
  EXPECT_DOUBLE_EQ(gemm_extras("bf16", "bf16", 8192, true, "bf16").burst_s, 0.0);  // --quick
  EXPECT_FALSE(gemm_extras("bf16", "bf16", 8192, true, "bf16").zeros);
  // gemm/fp16-acc16 is of precision fp16 too: its burst rate is measured, its zeros not (one zero run)
  const gemm_extra_runs acc16 = gemm_extras("fp16-acc16", "fp16", 8192, false, "fp16");
  EXPECT_DOUBLE_EQ(acc16.burst_s, 1.5);
  EXPECT_FALSE(acc16.zeros);
  EXPECT_TRUE(gemm_extras("fp16", "fp16", 8192, false, "fp16").zeros);
}

TEST(GemmPlan, WithoutAModelEveryPrecisionBurstsAndFp16RunsOnZeros) {
  EXPECT_DOUBLE_EQ(gemm_extras("tf32", "tf32", 8192, false, "").burst_s, 1.5);
  EXPECT_FALSE(gemm_extras("tf32", "tf32", 8192, false, "").zeros);
  EXPECT_TRUE(gemm_extras("fp16", "fp16", 8192, false, "").zeros);  // default_precision("cuda")
}

TEST(GemmPlan, InputsAreNormalExceptInt8) {
  EXPECT_EQ(gemm_inputs("bf16"), "normal(0,1)");
  EXPECT_EQ(gemm_inputs("fp8"), roofline::inputs_normal);
  EXPECT_EQ(gemm_inputs("int8"), "uniform integers in [−16, 15]");
}
