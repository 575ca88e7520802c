// For EVERY GPU in the device table: each derived dense peak and the bandwidth reproduce the
// datasheet's printed numbers within 1%, unless the table carries a note that the datasheet is
// itself inconsistent for that field (those notes are pinned in spec_inconsistency tests below).
// A row no datasheet covers (A10G, L20) says so instead, and is pinned in spec_rows_test.cpp.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "roofline/spec.hpp"
#include "roofline/vocabulary.hpp"

using namespace roofline;

namespace {

bool has_note(const datasheet_values& d, const std::string& field) {
  return std::any_of(d.notes.begin(), d.notes.end(), [&](const auto& n) { return n.first == field; });
}

double rel(double a, double b) { return std::fabs(a - b) / b; }

}  // namespace

TEST(SpecDatasheet, TableHasEveryRequiredGpu) {
  const auto names = gpu_names();
  for (const char* want : {"t4", "v100 sxm2 32gb", "v100 sxm2 16gb", "v100 pcie 32gb", "a10", "a30", "a100 40gb sxm",
                           "a100 80gb sxm", "a100 80gb pcie", "a100 40gb pcie", "l4", "l40", "l40s", "a40", "a800 sxm",
                           "h100 sxm", "h100 pcie", "h100 nvl", "h800", "h20", "gh200 96gb", "gh200 144gb", "h200", "b200", "rtx 3090", "rtx 4080",
                           "rtx 4090", "rtx 5090", "rtx 6000 ada", "mi250x", "mi300x", "h200 nvl", "b300", "gb200",
                           "a10g", "l20", "jetson agx orin 64gb", "jetson agx orin 32gb", "mi355x", "mi350x"}) {
    const std::string n = match_gpu_name(want);
    EXPECT_NE(std::find(names.begin(), names.end(), n), names.end()) << want;
  }
  EXPECT_GE(names.size(), 41u);
}

TEST(SpecDatasheet, EveryGpuReproducesItsPrintedPeaksAndBandwidthWithin1Percent) {
  for (const auto& name : gpu_names()) {
    SCOPED_TRACE(name);
    const auto n = gpu_nominal(name);
    const auto d = gpu_datasheet(name);
    if (d.source.rfind("none: ", 0) == 0) {  // no datasheet prints the part's figures (A10G, L20): the row says why
      EXPECT_GT(d.source.size(), 12u) << d.source;
      EXPECT_TRUE(d.tensor.empty());
      continue;
    }
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
    const auto* fp32 = peak_for(n, "fp32", peak_engine::vector);
    ASSERT_NE(fp32, nullptr);
    if (!has_note(d, "fp32")) EXPECT_LT(rel(fp32->flops_per_s, d.fp32_flops_per_s), 0.01);
    ASSERT_TRUE(n.memory_bandwidth_bytes_per_s.has_value());
    if (!has_note(d, "bandwidth")) EXPECT_LT(rel(*n.memory_bandwidth_bytes_per_s, d.bandwidth_bytes_per_s), 0.01);
    for (const auto& f : n.factors) EXPECT_EQ(f.source.rfind("table: ", 0), 0u) << f.name;
  }
}

TEST(SpecDatasheet, SparseFiguresAreNeverThePeak) {
  const auto n = gpu_nominal("H100 SXM");
  const auto* bf16 = peak_for(n, "bf16");
  ASSERT_NE(bf16, nullptr);
  EXPECT_NEAR(bf16->flops_per_s / 1e12, 989.4, 0.5);          // dense
  ASSERT_TRUE(bf16->sparse_flops_per_s.has_value());
  EXPECT_NEAR(*bf16->sparse_flops_per_s / 1e12, 1978.9, 1.0);  // the datasheet's headline, labelled sparse
  // Turing has no structured sparsity: no sparse figure at all.
  EXPECT_FALSE(peak_for(gpu_nominal("T4"), "fp16")->sparse_flops_per_s.has_value());
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
  EXPECT_NEAR(peak_for(gpu_nominal("L4"), "fp16")->flops_per_s / 1e12, 121.2, 0.2);
}

TEST(SpecInconsistency, L40sPrintedDenseTensorImpliesAnotherClock) {
  // L40S datasheet: 362.05 TFLOPS dense BF16 but 733 with sparsity; 142 × 4 × 128 × 2 × 2.52 GHz = 366.4.
  const auto d = gpu_datasheet("L40S");
  ASSERT_TRUE(has_note(d, "tensor"));
  EXPECT_NE(d.notes.front().second.find("362.05"), std::string::npos);
  EXPECT_NEAR(peak_for(gpu_nominal("L40S"), "bf16")->flops_per_s / 1e12, 366.4, 0.1);
}

TEST(SpecInconsistency, H200BusIsNarrowerThanSixFullStacks) {
  // H200 datasheet: 4.8 TB/s. The runtime reports a 6016-bit bus (not 6 × 1024) and NVML a 3201 MHz
  // max memory clock → 6.402 Gbit/s × 6016 bit / 8 = 4814 GB/s, the printed figure within 0.3%.
  const auto d = gpu_datasheet("H200");
  ASSERT_TRUE(has_note(d, "bandwidth"));
  EXPECT_NE(d.notes.front().second.find("6016"), std::string::npos);
  EXPECT_DOUBLE_EQ(d.bandwidth_bytes_per_s, 4.8e12);
  const auto n = gpu_nominal("H200");
  EXPECT_NEAR(*n.memory_bandwidth_bytes_per_s / 1e9, 4814.3, 0.5);
  EXPECT_TRUE(std::any_of(n.notes.begin(), n.notes.end(), [](const std::string& s) { return s.find("bandwidth: ") == 0; }));
}

TEST(SpecInconsistency, HopperTensorPeaksAssumeALowerClockThanTheBoost) {
  // H100 whitepaper Table 3: SXM5 tensor boost 1830 MHz, non-tensor 1980 MHz; PCIe 1620 / 1755 MHz.
  const auto sxm = gpu_nominal("H100 SXM");
  EXPECT_NE(peak_for(sxm, "bf16")->formula.find("1.83 GHz"), std::string::npos);
  EXPECT_NE(peak_for(sxm, "fp32", peak_engine::vector)->formula.find("1.98 GHz"), std::string::npos);
  EXPECT_FALSE(peak_for(sxm, "bf16")->note.empty());
  EXPECT_NEAR(peak_for(sxm, "fp64", peak_engine::tensor)->flops_per_s / 1e12, 66.9, 0.1);  // FP64 tensor at 1980 MHz
  EXPECT_NEAR(peak_for(gpu_nominal("H100 PCIe"), "bf16")->flops_per_s / 1e12, 756.4, 0.5);
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

TEST(SpecNewParts, L40IsNotTheL40s) {
  // L40 datasheet: BF16/FP16 181.05 | 362.1* TFLOPS, FP8 362, 864 GB/s; the L40S prints 362.05 dense.
  const auto l40 = gpu_nominal("NVIDIA L40");
  EXPECT_EQ(l40.device_name, "NVIDIA L40");
  const auto* fp16 = peak_for(l40, "fp16");
  ASSERT_NE(fp16, nullptr);
  EXPECT_NEAR(fp16->flops_per_s / 1e12, 181.05, 0.1);  // 142 × 4 × 128 × 0.5 × 2 × 2.49 GHz
  EXPECT_NEAR(*fp16->sparse_flops_per_s / 1e12, 362.1, 0.2);
  EXPECT_NE(fp16->formula.find("× 0.5 (product tensor rate)"), std::string::npos) << fp16->formula;
  EXPECT_NEAR(*l40.memory_bandwidth_bytes_per_s / 1e9, 864, 0.1);
  EXPECT_NEAR(peak_for(l40, "fp32", peak_engine::vector)->flops_per_s / 1e12, 90.5, 0.1);
}

TEST(SpecNewParts, ExportLimitedPartsAreCappedNotDerivedHigher) {
  // H800 SXM5 datasheet: FP64 1 TFLOPS (the H100's 33.5 vector / 66.9 tensor are export-limited).
  const auto h800 = gpu_nominal("H800");
  EXPECT_NEAR(peak_for(h800, "fp64", peak_engine::vector)->flops_per_s / 1e12, 1.0, 1e-9);
  EXPECT_NEAR(peak_for(h800, "fp64", peak_engine::tensor)->flops_per_s / 1e12, 1.0, 1e-9);
  EXPECT_NE(peak_for(h800, "fp64", peak_engine::tensor)->formula.find("min("), std::string::npos);
  EXPECT_NEAR(peak_for(h800, "bf16")->flops_per_s / 1e12, 989.4, 0.5);  // uncapped: H100 SXM rate
  EXPECT_EQ(gpu_links("H800").nvlink_links, 8);                         // 400 GB/s NVLink
  // H20: 148 TFLOPS dense BF16, 4.0 TB/s, 96 GB.
  const auto h20 = gpu_nominal("H20");
  EXPECT_EQ(h20.device_name, "NVIDIA H20");
  EXPECT_NEAR(peak_for(h20, "bf16")->flops_per_s / 1e12, 148, 1e-9);
  EXPECT_NEAR(peak_for(h20, "fp8")->flops_per_s / 1e12, 296, 1e-9);
  EXPECT_NEAR(*h20.memory_bandwidth_bytes_per_s / 1e12, 3.99, 0.01);
}

TEST(SpecNewParts, AmdPartsDeriveFromComputeUnits) {
  // MI300X datasheet: 304 CU, 2.1 GHz, FP16 1307.4 TFLOPS dense, FP32 vector 163.4, 5.3 TB/s, 192 GB.
  const auto mi300 = gpu_nominal("AMD Instinct MI300X");
  EXPECT_NEAR(peak_for(mi300, "fp16")->flops_per_s / 1e12, 1307.4, 0.1);
  EXPECT_NEAR(peak_for(mi300, "fp32", peak_engine::vector)->flops_per_s / 1e12, 163.4, 0.1);
  EXPECT_NEAR(*mi300.memory_bandwidth_bytes_per_s / 1e12, 5.32, 0.01);
  // MI250X datasheet: 220 CU, 1.7 GHz, FP16 383 TFLOPS, FP32 vector 47.9, no structured sparsity.
  const auto mi250 = gpu_nominal("mi250x");
  EXPECT_NEAR(peak_for(mi250, "fp16")->flops_per_s / 1e12, 383.0, 0.1);
  EXPECT_FALSE(peak_for(mi250, "fp16")->sparse_flops_per_s.has_value());
  EXPECT_NEAR(peak_for(mi250, "fp32", peak_engine::vector)->flops_per_s / 1e12, 47.9, 0.1);
}

TEST(SpecNewParts, WorkstationAndGeforceAda) {
  // Ada whitepaper Appendix A: RTX 6000 Ada FP16 tensor 364.2 TFLOPS with fp32 accumulate (full
  // rate), RTX 4080 97.5 with fp32 accumulate (GeForce half rate), 194.9 with fp16 accumulate.
  EXPECT_NEAR(peak_for(gpu_nominal("RTX 6000 Ada"), "fp16")->flops_per_s / 1e12, 364.2, 0.2);
  double f16 = 0, f32 = 0;
  for (const auto& p : gpu_nominal("RTX 4080").peaks)
    if (p.engine == "tensor" && p.precision == "fp16") (p.accumulate == "fp16" ? f16 : f32) = p.flops_per_s;
  EXPECT_NEAR(f16 / 1e12, 194.9, 0.2);
  EXPECT_NEAR(f32 / 1e12, 97.5, 0.1);
  EXPECT_NEAR(peak_for(gpu_nominal("A40"), "bf16")->flops_per_s / 1e12, 149.7, 0.1);
}
