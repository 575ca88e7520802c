// Rows added for the GPUs people rent and ship today, one test each, every number pinned to its
// published source (the table row cites the same): the H200 NVL (NVIDIA H200 datasheet, H200 NVL
// column), B300 (HGX B300 datasheet per GPU; NVIDIA blog 'Inside NVIDIA Blackwell Ultra'), GB200
// (GB200 NVL72 specifications, individual GPU), A10G (runtime-reported SMs and clock on AWS G5), L20
// (third-party database: no NVIDIA datasheet found), RTX 6000 Ada (Ada whitepaper Appendix A), Jetson
// AGX Orin 64/32 GB (Jetson AGX Orin Series Technical Brief v1.2) and MI355X / MI350X (AMD MI350
// Series launch figures; ISSCC 2026). Each name is checked against the string the runtime prints,
// and against the existing row it could be taken for. Where each name was seen:
//   "NVIDIA H200 NVL"          nvidia-smi / torch on H200 NVL hosts (public benchmark logs: 132 SMs, 1785 MHz, 600 W)
//   "NVIDIA B300 SXM6 AC"      torch.cuda.get_device_name on HGX B300 (NVIDIA/cosmos-framework PR #114; cc 10.3)
//   "NVIDIA GB200"             sglang issue #11208 env dump (cc 10.0); MLPerf Inference v6.1 Crusoe GB200 system JSON
//   "NVIDIA A10G"              nvidia-smi on AWS G5 ("NVIDIA A10G, 23028 MiB"; public logs)
//   "NVIDIA L20"               nvidia-smi ("NVIDIA L20, 46068 MiB", cc 8.9; public logs)
//   "NVIDIA RTX 6000 Ada Generation"  nvidia-smi ("..., 49140 MiB"; public logs)
//   "Orin (nvgpu)"             nvidia-smi on JetPack 6 (anduril/jetpack-nixos PR #371), on AGX, NX and Nano alike
//   "AMD Instinct MI355X"      rocm-smi / torch on gfx950 (public benchmark README)
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "roofline/error.hpp"
#include "roofline/spec.hpp"
#include "roofline/vocabulary.hpp"

using namespace roofline;

namespace {

bool has_note(const nominal_roofs& n, const std::string& text) {
  return std::any_of(n.notes.begin(), n.notes.end(),
                     [&](const std::string& s) { return s.find(text) != std::string::npos; });
}

double tflops(const nominal_roofs& n, const std::string& precision, const std::string& engine = "tensor") {
  const auto* p = peak_for(n, precision, engine == "vector" ? peak_engine::vector : peak_engine::tensor);
  return p ? p->flops_per_s / 1e12 : -1;
}

}  // namespace

// NVIDIA H200 datasheet, H200 NVL column: BF16 1671* (835.5 dense), FP8 3341*, TF32 835*, FP32 60, FP64
// Tensor 60, 4.8 TB/s, 600 W, NVLink bridge 900 GB/s. Tensor peaks at the implied 1545 MHz (as the H100
// NVL), FP32/FP64 at the runtime's 1785 MHz max SM clock.
TEST(SpecRows, H200NvlIsItsOwnRowNotTheSxm) {
  EXPECT_EQ(match_gpu_name("NVIDIA H200 NVL"), "NVIDIA H200 NVL");
  EXPECT_EQ(match_gpu_name("h200-nvl"), "NVIDIA H200 NVL");
  EXPECT_EQ(match_gpu_name("NVIDIA H200"), "NVIDIA H200");  // what the SXM prints stays the SXM
  const auto n = gpu_nominal("NVIDIA H200 NVL");
  EXPECT_NEAR(tflops(n, "bf16"), 132 * 4 * 512 * 2 * 1.545e9 / 1e12, 1e-9);  // 835.6
  EXPECT_NEAR(tflops(n, "bf16"), 835.5, 835.5 * 0.01);
  EXPECT_NEAR(tflops(n, "fp8"), 1670.5, 1670.5 * 0.01);
  EXPECT_NEAR(tflops(n, "tf32"), 417.5, 417.5 * 0.01);
  EXPECT_NEAR(tflops(n, "fp32", "vector"), 60, 60 * 0.01);  // 60.3
  EXPECT_NEAR(tflops(n, "fp64", "tensor"), 60, 60 * 0.01);  // 132 × 4 × 32 × 2 × 1.785 GHz
  EXPECT_NEAR(tflops(n, "fp64", "vector"), 30, 30 * 0.01);  // 30.2
  EXPECT_NEAR(*n.memory_bandwidth_bytes_per_s / 1e12, 4.8, 1e-9);
  EXPECT_LT(tflops(n, "bf16"), tflops(gpu_nominal("NVIDIA H200"), "bf16"));  // lower clocks than the SXM
  EXPECT_DOUBLE_EQ(*gpu_links("NVIDIA H200 NVL").nvlink_bytes_per_s(), 900e9);
  EXPECT_THROW(match_gpu_name("H200 PCIe"), input_error);  // no such product: the NVL is the PCIe H200
}

// HGX B300 datasheet (per GPU = /8): FP16/BF16 36* PF → 2.25 dense, FP8 72* → 4.5, TF32 18* → 1.125,
// FP4 105 PF dense → 13.125, FP32 75 TF, FP64 1.25 TF. The Blackwell Ultra rate (1.5 × GB100's FP4)
// would give 13.49 PF FP4 at 1.855 GHz: the printed 13.125 caps it.
TEST(SpecRows, B300IsBlackwellUltraNotTheB200) {
  EXPECT_EQ(match_gpu_name("NVIDIA B300 SXM6 AC"), "NVIDIA B300");
  EXPECT_EQ(match_gpu_name("B200"), "NVIDIA B200");
  const auto n = gpu_nominal("NVIDIA B300 SXM6 AC");
  EXPECT_NEAR(tflops(n, "bf16"), 148 * 4 * 1024 * 2 * 1.855e9 / 1e12, 1e-9);  // 2248.5
  EXPECT_NEAR(tflops(n, "bf16"), 2250, 2250 * 0.01);
  EXPECT_NEAR(tflops(n, "fp8"), 4500, 4500 * 0.01);
  EXPECT_NEAR(tflops(n, "fp4"), 13125, 1e-6);
  EXPECT_NE(peak_for(n, "fp4", peak_engine::tensor)->formula.find("min("), std::string::npos);
  EXPECT_NEAR(tflops(n, "fp64", "tensor"), 1.25, 1e-9);
  EXPECT_NEAR(tflops(n, "fp64", "vector"), 1.25, 1e-9);
  EXPECT_NEAR(tflops(n, "fp32", "vector"), 75, 75 * 0.01);
  EXPECT_EQ(peak_for(n, "int8", peak_engine::tensor), nullptr);  // unknown, with its reason
  EXPECT_TRUE(has_note(n, "int8 tensor peak: unknown"));
  EXPECT_NEAR(*n.memory_bandwidth_bytes_per_s / 1e12, 8.0, 1e-9);
  EXPECT_TRUE(has_note(n, "compute capability 10.3"));
}

// GB200 NVL72 specifications, individual GPU: FP16/BF16 5* PF (2.5 dense), FP8 10*, FP4 20*, INT8
// 10* POPS, TF32 2.5*, FP32 80 TF, FP64 40 TF, 186 GB, 8 TB/s, up to 1200 W: one GPU of a superchip.
TEST(SpecRows, Gb200IsOneGpuOfTheSuperchipNotTheB200) {
  EXPECT_EQ(match_gpu_name("NVIDIA GB200"), "NVIDIA GB200");
  EXPECT_EQ(match_gpu_name("NVIDIA B200"), "NVIDIA B200");
  const auto n = gpu_nominal("NVIDIA GB200");
  EXPECT_NEAR(tflops(n, "bf16"), 2500, 2500 * 0.01);   // 148 × 4 × 1024 × 2 × 2.062 GHz = 2499.7
  EXPECT_NEAR(tflops(n, "fp4"), 10000, 10000 * 0.01);  // × 4096
  EXPECT_NEAR(tflops(n, "int8"), 5000, 5000 * 0.01);
  EXPECT_NEAR(tflops(n, "fp32", "vector"), 80, 80 * 0.01);  // 148 × 128 × 2 × 2.112 GHz
  EXPECT_NEAR(tflops(n, "fp64", "tensor"), 40, 40 * 0.01);
  EXPECT_NEAR(*n.memory_bandwidth_bytes_per_s / 1e12, 8.0, 1e-9);
  EXPECT_TRUE(has_note(n, "superchip"));
  // The same GB100 FP4 rate on the B200 (HGX B200: FP4 18* PF per GPU = 9 dense at 1.855 GHz).
  EXPECT_NEAR(tflops(gpu_nominal("B200"), "fp4"), 9000, 9000 * 0.01);
}

// A10G: 80 SMs and a 1710 MHz max SM clock as the runtime reports them on AWS G5 (NVIDIA publishes no
// datasheet); 600 GB/s; the A10 (72 SMs, 1695 MHz) keeps its datasheet's 125 TFLOPS. Its fp32-accumulate
// tensor math runs at half the GA102 rate, the class public GEMMs on g5 show (69.5 TFLOP/s bf16 and
// fp16, 34.7 TFLOP/s tf32: 99 % of 70.0 and 35.0), not the A10's full rate (140 TFLOP/s).
TEST(SpecRows, A10gIsNotTheA10) {
  EXPECT_EQ(match_gpu_name("NVIDIA A10G"), "NVIDIA A10G");
  EXPECT_EQ(match_gpu_name("NVIDIA A10"), "NVIDIA A10");
  const auto n = gpu_nominal("NVIDIA A10G");
  EXPECT_NEAR(tflops(n, "bf16"), 80 * 4 * 128 * 2 * 1.71e9 * 0.5 / 1e12, 1e-9);  // 70.0
  EXPECT_NEAR(tflops(n, "fp16"), 70.04, 0.01);   // the roof: fp32 accumulate, as PyTorch's GEMMs
  EXPECT_NEAR(tflops(n, "tf32"), 35.02, 0.01);
  EXPECT_NEAR(69.5 / tflops(n, "bf16"), 0.99, 0.01);  // the public GEMM sits at 99 % of it
  const auto fp16_acc = std::find_if(n.peaks.begin(), n.peaks.end(),
                                     [](const nominal_peak& p) { return p.precision == "fp16" && p.accumulate == "fp16"; });
  ASSERT_NE(fp16_acc, n.peaks.end());
  EXPECT_NEAR(fp16_acc->flops_per_s / 1e12, 140.1, 0.05);  // fp16 accumulate keeps the full rate
  EXPECT_NEAR(tflops(n, "fp32", "vector"), 35.0, 0.05);
  EXPECT_DOUBLE_EQ(*n.memory_bandwidth_bytes_per_s, 600e9);
  EXPECT_NEAR(tflops(gpu_nominal("A10"), "bf16"), 125, 125 * 0.01);
  const auto d = gpu_datasheet("A10G");
  EXPECT_EQ(d.source.rfind("none: ", 0), 0u) << d.source;
  EXPECT_TRUE(d.tensor.empty());
}

// L20: no NVIDIA datasheet found; third-party databases give 92 SMs at 2520 MHz (FP32 59.35 TFLOPS),
// 384-bit GDDR6 at 18 Gbit/s (864 GB/s). Its tensor rates are export-limited: the class public
// measurements show is half the AD10x rate (a public bf16 GEMM reaches 114 TFLOP/s, 96 % of 118.7;
// vendor listings print 119.5 TFLOPS dense FP16), never the full AD10x rate (237 TFLOP/s) nor the fp16
// vector rate (59.4 TFLOP/s, which a 114 TFLOP/s GEMM would exceed). No vendor figure: the peaks say so.
TEST(SpecRows, L20IsNotTheL40OrTheL4AndItsTensorPeaksAreHalfTheAd10xRate) {
  EXPECT_EQ(match_gpu_name("NVIDIA L20"), "NVIDIA L20");
  EXPECT_EQ(match_gpu_name("L40"), "NVIDIA L40");
  EXPECT_EQ(match_gpu_name("L4"), "NVIDIA L4");
  const auto n = gpu_nominal("NVIDIA L20");
  EXPECT_NEAR(tflops(n, "bf16"), 92 * 4 * 128 * 2 * 2.52e9 * 0.5 / 1e12, 1e-9);  // 118.7
  EXPECT_NEAR(tflops(n, "fp8"), 237.4, 0.05);
  EXPECT_GT(tflops(n, "bf16"), 114);  // the public GEMM is under the roof, not IMPOSSIBLE
  const auto bf16 = std::find_if(n.peaks.begin(), n.peaks.end(), [](const nominal_peak& p) { return p.precision == "bf16"; });
  ASSERT_NE(bf16, n.peaks.end());
  EXPECT_NE(bf16->note.find("no vendor datasheet"), std::string::npos) << bf16->note;
  EXPECT_NEAR(tflops(n, "fp32", "vector"), 59.35, 0.01);
  EXPECT_DOUBLE_EQ(*n.memory_bandwidth_bytes_per_s, 864e9);
}

// RTX 6000 Ada (Ada whitepaper Appendix A: 142 SMs, FP16 364.2 TFLOPS either accumulate; datasheet
// 48 GB GDDR6 ECC, 960 GB/s) is not the Ampere RTX A6000 (154.8 TFLOPS, 768 GB/s).
TEST(SpecRows, RtxSixThousandAdaIsNotTheRtxA6000) {
  EXPECT_EQ(match_gpu_name("NVIDIA RTX 6000 Ada Generation"), "NVIDIA RTX 6000 Ada Generation");
  EXPECT_EQ(match_gpu_name("NVIDIA RTX A6000"), "NVIDIA RTX A6000");
  const auto ada = gpu_nominal("NVIDIA RTX 6000 Ada Generation");
  EXPECT_NEAR(tflops(ada, "fp16"), 364.2, 0.2);
  EXPECT_DOUBLE_EQ(*ada.memory_bandwidth_bytes_per_s, 960e9);
  EXPECT_NEAR(tflops(gpu_nominal("NVIDIA RTX A6000"), "bf16"), 154.8, 0.05);
}

// Jetson AGX Orin Series Technical Brief v1.2: 64 GB module 16 SMs (2048 cores, 64 Tensor Cores) at
// 1.3 GHz, 170 sparse INT8 TOPS (85 dense), 5.3 FP32 TFLOPS; 32 GB module 14 SMs (1792, 56) at 930 MHz;
// both 256-bit LPDDR5 at 204.8 GB/s shared with the CPU; the GPU is on the SoC (no PCIe).
TEST(SpecRows, JetsonAgxOrinSharesItsMemoryWithTheCpu) {
  const auto o64 = gpu_nominal("Jetson AGX Orin 64GB");
  EXPECT_EQ(o64.device_name, "NVIDIA Jetson AGX Orin 64GB");
  EXPECT_NEAR(tflops(o64, "int8"), 16 * 4 * 512 * 2 * 1.3e9 / 1e12, 1e-9);  // 85.2
  EXPECT_NEAR(tflops(o64, "fp32", "vector"), 5.3, 5.3 * 0.01);
  EXPECT_NEAR(tflops(o64, "fp16"), 42.6, 0.05);  // half the INT8 rate
  EXPECT_DOUBLE_EQ(*o64.memory_bandwidth_bytes_per_s, 204.8e9);
  EXPECT_TRUE(has_note(o64, "memory: LPDDR5 shared with"));
  EXPECT_TRUE(has_note(o64, "PCIe: none"));
  EXPECT_EQ(peak_for(o64, "fp64", peak_engine::vector), nullptr);
  EXPECT_TRUE(has_note(o64, "fp64 vector peak: unknown"));  // GA10B's FP64 units are not published
  const auto l = gpu_links("Jetson AGX Orin 64GB");
  EXPECT_EQ(l.pcie_bytes_per_s, 0);
  EXPECT_EQ(l.pcie_source.rfind("none: ", 0), 0u);
  const auto o32 = gpu_nominal("Jetson AGX Orin 32GB");
  EXPECT_NEAR(tflops(o32, "fp32", "vector"), 14 * 128 * 2 * 0.93e9 / 1e12, 1e-9);  // 3.33
  EXPECT_DOUBLE_EQ(*o32.memory_bandwidth_bytes_per_s, 204.8e9);
  // The runtime's name does not tell the module: refused with both rows.
  try {
    match_gpu_name("Orin (nvgpu)");
    FAIL() << "expected an ambiguity error";
  } catch (const input_error& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("ambiguous"), std::string::npos) << m;
    EXPECT_NE(m.find("NVIDIA Jetson AGX Orin 64GB"), std::string::npos) << m;
    EXPECT_NE(m.find("NVIDIA Jetson AGX Orin 32GB"), std::string::npos) << m;
  }
}

// AMD MI350 Series (launch figures; ISSCC 2026: 256 CUs = 8 XCDs × 32, 8192 FP8 FLOPS per CU per clock):
// MI355X at 2.4 GHz FP16 2.5 PF dense, FP8 5, MXFP4 10.05, FP32 vector 157.3 TF, 8 TB/s; MI350X at 2.2 GHz.
TEST(SpecRows, Mi355xAndMi350xAreCdna4) {
  EXPECT_EQ(match_gpu_name("AMD Instinct MI355X"), "AMD Instinct MI355X");
  EXPECT_EQ(match_gpu_name("mi350x"), "AMD Instinct MI350X");
  const auto m = gpu_nominal("AMD Instinct MI355X");
  EXPECT_NEAR(tflops(m, "fp16"), 256 * 4 * 512 * 2 * 2.4e9 / 1e12, 1e-9);  // 2516.6
  EXPECT_NEAR(tflops(m, "fp8"), 5033.2, 0.1);
  EXPECT_NEAR(tflops(m, "fp4"), 10066.3, 0.1);
  EXPECT_NEAR(tflops(m, "fp32", "vector"), 157.3, 0.05);
  EXPECT_NEAR(tflops(m, "fp64", "vector"), 78.6, 0.05);
  EXPECT_NEAR(*m.memory_bandwidth_bytes_per_s / 1e12, 8.0, 1e-9);
  EXPECT_NEAR(tflops(gpu_nominal("AMD Instinct MI350X"), "fp16"), 2306.9, 0.1);
}

// ECC on GDDR parts: only the T4 carries the Best Practices Guide's derived bandwidth ceiling; every
// other GDDR datacenter/workstation row states what is documented for it (the capacity nvidia-smi
// reports, the datasheet's "with ECC") and says "not documented" for the rest, with no number made up.
// The rows that ship with ECC on (nvidia-smi: 23028 of 24576 MiB, 46068 of 49152 MiB: 15/16 less the
// driver's reserve) carry the capacity factor 15/16 and no bandwidth factor; the RTX A6000 (default not
// documented) and RTX 6000 Ada (off by default, costs not documented) carry none.
TEST(SpecRows, GddrRowsStateWhatEccIsDocumentedToCost) {
  for (const char* name : {"NVIDIA A10", "NVIDIA A10G", "NVIDIA A40", "NVIDIA RTX A6000", "NVIDIA L4", "NVIDIA L40",
                           "NVIDIA L40S", "NVIDIA RTX 6000 Ada Generation", "NVIDIA L20"}) {
    SCOPED_TRACE(name);
    const auto d = gpu_datasheet(name);
    const auto ecc = std::find_if(d.notes.begin(), d.notes.end(), [](const auto& n) { return n.first == "ecc"; });
    ASSERT_NE(ecc, d.notes.end());
    EXPECT_NE(ecc->second.find("not documented"), std::string::npos) << ecc->second;
    const auto c = gpu_ecc_ceiling(name);
    const std::string n = name;
    if (n == "NVIDIA RTX A6000" || n == "NVIDIA RTX 6000 Ada Generation") {
      EXPECT_FALSE(c.has_value());
      continue;
    }
    ASSERT_TRUE(c.has_value());
    EXPECT_TRUE(c->default_on);
    EXPECT_DOUBLE_EQ(c->capacity_factor, 0.9375);
    EXPECT_FALSE(c->bandwidth_factor.has_value());  // no derived bandwidth ceiling without a documented cost
    EXPECT_FALSE(c->bandwidth_bytes_per_s.has_value());
  }
  const auto a10g = gpu_datasheet("A10G");
  EXPECT_TRUE(std::any_of(a10g.notes.begin(), a10g.notes.end(),
                          [](const auto& n) { return n.second.find("23028 MiB") != std::string::npos; }));
  EXPECT_TRUE(gpu_ecc_ceiling("T4").has_value());
}
