// For EVERY GPU in the device table: each derived dense peak and the bandwidth reproduce the
// datasheet's printed numbers within 1%, unless the table carries a note that the datasheet is
// itself inconsistent for that field (those notes are pinned in spec_inconsistency tests below).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "roofline/spec.hpp"

using namespace roofline;

namespace {

bool has_note(const datasheet_values& d, const std::string& field) {
  return std::any_of(d.notes.begin(), d.notes.end(), [&](const auto& n) { return n.first == field; });
}

double rel(double a, double b) { return std::fabs(a - b) / b; }

}  // namespace

TEST(SpecDatasheet, TableHasEveryRequiredGpu) {
  const auto names = gpu_names();
  for (const char* want : {"t4", "v100 sxm2", "v100 pcie", "a10", "a30", "a100 40gb sxm", "a100 80gb sxm", "a100 80gb pcie", "l4",
                           "l40s", "h100 sxm", "h100 pcie", "h100 nvl", "h200", "b200", "rtx 3090", "rtx 4090", "rtx 5090"}) {
    const std::string n = match_gpu_name(want);
    EXPECT_NE(std::find(names.begin(), names.end(), n), names.end()) << want;
  }
  EXPECT_GE(names.size(), 18u);
}

TEST(SpecDatasheet, EveryGpuReproducesItsPrintedPeaksAndBandwidthWithin1Percent) {
  for (const auto& name : gpu_names()) {
    SCOPED_TRACE(name);
    const auto n = gpu_nominal(name);
    const auto d = gpu_datasheet(name);
    ASSERT_FALSE(d.tensor.empty());
    for (const auto& t : d.tensor) {
      const auto* p = [&]() -> const nominal_peak* {
        for (const auto& q : n.peaks)
          if (q.engine == "tensor" && q.precision == t.precision && q.accumulate == t.accumulate) return &q;
        return nullptr;
      }();
      ASSERT_NE(p, nullptr) << t.precision << "/" << t.accumulate;
      if (!has_note(d, "tensor")) EXPECT_LT(rel(p->flops_per_s, t.flops_per_s), 0.01) << t.precision << "/" << t.accumulate;
      EXPECT_FALSE(p->formula.empty());
      EXPECT_GE(p->factors.size(), 5u);
      for (const auto& f : p->factors) EXPECT_FALSE(f.source.empty()) << f.name;
    }
    const auto* fp32 = find_peak(n, "fp32", "vector");
    ASSERT_NE(fp32, nullptr);
    EXPECT_LT(rel(fp32->flops_per_s, d.fp32_flops_per_s), 0.01);
    ASSERT_TRUE(n.memory_bandwidth_bytes_per_s.has_value());
    if (!has_note(d, "bandwidth")) EXPECT_LT(rel(*n.memory_bandwidth_bytes_per_s, d.bandwidth_bytes_per_s), 0.01);
    for (const auto& f : n.factors) EXPECT_EQ(f.source.rfind("table: ", 0), 0u) << f.name;
  }
}

TEST(SpecDatasheet, SparseFiguresAreNeverThePeak) {
  const auto n = gpu_nominal("H100 SXM");
  const auto* bf16 = find_peak(n, "bf16");
  ASSERT_NE(bf16, nullptr);
  EXPECT_NEAR(bf16->flops_per_s / 1e12, 989.4, 0.5);          // dense
  ASSERT_TRUE(bf16->sparse_flops_per_s.has_value());
  EXPECT_NEAR(*bf16->sparse_flops_per_s / 1e12, 1978.9, 1.0);  // the datasheet's headline, labelled sparse
  // Turing has no structured sparsity: no sparse figure at all.
  EXPECT_FALSE(find_peak(gpu_nominal("T4"), "fp16")->sparse_flops_per_s.has_value());
}

TEST(SpecDatasheet, GeForceRunsFp32AccumulateAtHalfRate) {
  // Ada whitepaper Appendix A (RTX 4090): FP16 tensor 330.3 TFLOPS with FP16 accumulate, 165.2 with FP32.
  const auto n = gpu_nominal("RTX 4090");
  double f16acc = 0, f32acc = 0;
  for (const auto& p : n.peaks)
    if (p.engine == "tensor" && p.precision == "fp16") (p.accumulate == "fp16" ? f16acc : f32acc) = p.flops_per_s;
  EXPECT_NEAR(f16acc / 1e12, 330.3, 0.5);
  EXPECT_NEAR(f32acc / 1e12, 165.2, 0.5);
  // The same AD10x rates on a datacenter part (L4) run fp32 accumulate at full rate: 121 TFLOPS.
  EXPECT_NEAR(find_peak(gpu_nominal("L4"), "fp16")->flops_per_s / 1e12, 121.2, 0.2);
}

TEST(SpecInconsistency, L40sPrintedDenseTensorImpliesAnotherClock) {
  // L40S datasheet: 362.05 TFLOPS dense BF16 but 733 with sparsity; 142 × 4 × 128 × 2 × 2.52 GHz = 366.4.
  const auto d = gpu_datasheet("L40S");
  ASSERT_TRUE(has_note(d, "tensor"));
  EXPECT_NE(d.notes.front().second.find("362.05"), std::string::npos);
  EXPECT_NEAR(find_peak(gpu_nominal("L40S"), "bf16")->flops_per_s / 1e12, 366.4, 0.1);
}

TEST(SpecInconsistency, H200PrintedBandwidthIsNotBusTimesRate) {
  // H200 datasheet: 4.8 TB/s; NVML max memory clock 3201 MHz → 6.402 Gbit/s × 6144 bit / 8 = 4917 GB/s.
  const auto d = gpu_datasheet("H200");
  ASSERT_TRUE(has_note(d, "bandwidth"));
  EXPECT_NE(d.notes.front().second.find("4.8 TB/s"), std::string::npos);
  EXPECT_DOUBLE_EQ(d.bandwidth_bytes_per_s, 4.8e12);
  const auto n = gpu_nominal("H200");
  EXPECT_NEAR(*n.memory_bandwidth_bytes_per_s / 1e9, 4916.7, 0.5);
  EXPECT_TRUE(std::any_of(n.notes.begin(), n.notes.end(), [](const std::string& s) { return s.find("bandwidth: ") == 0; }));
}

TEST(SpecInconsistency, HopperTensorPeaksAssumeALowerClockThanTheBoost) {
  // H100 whitepaper Table 3: SXM5 tensor boost 1830 MHz, non-tensor 1980 MHz; PCIe 1620 / 1755 MHz.
  const auto sxm = gpu_nominal("H100 SXM");
  EXPECT_NE(find_peak(sxm, "bf16")->formula.find("1.83 GHz"), std::string::npos);
  EXPECT_NE(find_peak(sxm, "fp32", "vector")->formula.find("1.98 GHz"), std::string::npos);
  EXPECT_FALSE(find_peak(sxm, "bf16")->note.empty());
  EXPECT_NEAR(find_peak(sxm, "fp64", "tensor")->flops_per_s / 1e12, 66.9, 0.1);  // FP64 tensor at 1980 MHz
  EXPECT_NEAR(find_peak(gpu_nominal("H100 PCIe"), "bf16")->flops_per_s / 1e12, 756.4, 0.5);
}

TEST(SpecLinks, NvlinkIsLinksTimesPerLinkBandwidth) {
  // H200 datasheet: NVLink 900 GB/s = 18 NVLink4 links × 50 GB/s; PCIe Gen5 x16 128 GB/s.
  const auto h200 = gpu_links("H200");
  EXPECT_EQ(h200.nvlink_links, 18);
  EXPECT_DOUBLE_EQ(*h200.nvlink_bytes_per_s(), 900e9);
  EXPECT_EQ(h200.pcie_generation, 5);
  EXPECT_DOUBLE_EQ(h200.pcie_bytes_per_s, 128e9);
  // GA102 whitepaper: two RTX 3090 over NVLink, 112.5 GB/s = 4 links × 28.125 GB/s.
  EXPECT_DOUBLE_EQ(*gpu_links("RTX 3090").nvlink_bytes_per_s(), 112.5e9);
  EXPECT_FALSE(gpu_links("L4").nvlink_bytes_per_s().has_value());
}
