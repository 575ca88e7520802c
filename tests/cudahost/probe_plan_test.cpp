// The CUDA probes a GPU runs, from its compute capability alone (backends/cuda/probe_plan.hpp): the
// plans of the course's machines, a T4 (Turing, 7.5: fp16 and int8 tensor cores, no bf16, tf32 or
// fp8; 70 W) and an A100 (Ampere, 8.0: bf16 and tf32, no fp8), beside an H100 (Hopper, 9.0: all of
// them). The capabilities: NVIDIA's T4, A100 and H100 datasheets and the CUDA C++ Programming Guide,
// "Compute Capabilities" (T4 7.5, A100 8.0, H100 9.0) and "Warp Matrix Functions" (types by architecture).
#include <gtest/gtest.h>

#include <map>

#include "backends/cuda/probe_plan.hpp"

using namespace roofline::cuda;

namespace {

/// The plan as name → "runs" or the reason it is skipped.
std::map<std::string, std::string> plan_of(int major, int minor, const std::string& model_precision) {
  std::map<std::string, std::string> m;
  for (const auto& p : cuda_probe_plan(major, minor, model_precision)) m[p.name] = p.runs ? "runs" : p.reason;
  return m;
}

}  // namespace

TEST(ProbePlan, T4RunsFp16AndInt8TensorGemmsAndSkipsBf16Tf32Fp8WithTheReason) {
  const auto t4 = plan_of(7, 5, "fp16");
  for (const char* p : {"gemm/fp16", "gemm/fp16-acc16", "gemm/int8", "gemm/fp32", "compute/fp64", "compute/fp32", "compute/fp16",
                        "bandwidth/read", "bandwidth/write", "bandwidth/copy", "bandwidth/triad", "launch"})
    EXPECT_EQ(t4.at(p), "runs") << p;
  EXPECT_EQ(t4.at("gemm/bf16"), "bf16 tensor cores need compute capability 8.0 (Ampere); this GPU is 7.5");
  EXPECT_EQ(t4.at("gemm/tf32"), "tf32 tensor cores need compute capability 8.0 (Ampere); this GPU is 7.5");
  EXPECT_EQ(t4.at("gemm/fp8"), "fp8 (e4m3) tensor cores need compute capability 8.9 (Ada) or 9.0 (Hopper); this GPU is 7.5");
  EXPECT_EQ(t4.at("gemm/attention (fp16)"),
            "the fused attention kernel needs compute capability 8.0+ (cp.async, mma.sync m16n8k16); this GPU is 7.5");
  EXPECT_EQ(t4.at("bandwidth: TMA bulk-store variants"), "cp.async.bulk needs compute capability 9.0 (Hopper); this GPU is 7.5");
  // with the model in fp16 only the fp16 attention rates are planned
  EXPECT_EQ(t4.count("gemm/attention (bf16)"), 0u);
}

TEST(ProbePlan, A100RunsBf16AndTf32AndAttentionAndSkipsFp8AndBulkStores) {
  const auto a100 = plan_of(8, 0, "");
  for (const char* p : {"gemm/fp16", "gemm/fp16-acc16", "gemm/bf16", "gemm/tf32", "gemm/int8", "gemm/fp32", "gemm/attention (fp16)",
                        "gemm/attention (bf16)"})
    EXPECT_EQ(a100.at(p), "runs") << p;
  EXPECT_EQ(a100.at("gemm/fp8"), "fp8 (e4m3) tensor cores need compute capability 8.9 (Ada) or 9.0 (Hopper); this GPU is 8.0");
  EXPECT_EQ(a100.at("bandwidth: TMA bulk-store variants"), "cp.async.bulk needs compute capability 9.0 (Hopper); this GPU is 8.0");
}

TEST(ProbePlan, H100RunsEveryProbe) {
  for (const auto& p : cuda_probe_plan(9, 0, "")) EXPECT_TRUE(p.runs) << p.name << ": " << p.reason;
  // Ada (8.9) is the first with fp8
  EXPECT_FALSE(gemm_not_applicable("fp8", 8, 9).has_value());
  EXPECT_TRUE(gemm_not_applicable("fp8", 8, 6).has_value());
}

TEST(ProbePlan, EveryGemmProbeIsPlannedOnceAndAnUnknownOneIsAnError) {
  EXPECT_EQ(gemm_probe_names().size(), 7u);  // fp16, fp16-acc16, bf16, fp32, tf32, fp8, int8
  std::size_t gemms = 0;
  for (const auto& p : cuda_probe_plan(7, 5, "")) gemms += p.name.rfind("gemm/", 0) == 0 && p.name.find("attention") == std::string::npos;
  EXPECT_EQ(gemms, 7u);
  EXPECT_THROW(gemm_not_applicable("fp4", 10, 0), std::invalid_argument);
}
