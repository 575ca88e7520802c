// The CUDA probes a GPU can run, by compute capability (probe_plan.hpp). One table: probe_gemm.cpp and
// cuda_backend.cpp ask it, the plan test reads it.
#include "backends/cuda/probe_plan.hpp"

#include <fmt/format.h>

#include <stdexcept>

namespace roofline::cuda {

namespace {

struct gemm_need {
  const char* probe;
  int min_cc;  ///< major·10 + minor
  const char* what;
};

// CUDA C++ Programming Guide, "Warp Matrix Functions" (element types by architecture) and cuBLASLt's
// cublasLtMatmul type table: fp16 HMMA from 7.0, int8 IMMA from 7.5, bf16 and tf32 from 8.0, fp8 e4m3
// from 8.9.
constexpr gemm_need gemm_needs[] = {
    {"fp16", 70, "fp16 tensor cores need compute capability 7.0 (Volta)"},
    {"fp16-acc16", 70, "fp16 tensor cores need compute capability 7.0 (Volta)"},
    {"bf16", 80, "bf16 tensor cores need compute capability 8.0 (Ampere)"},
    {"fp32", 50, "fp32 GEMM needs compute capability 5.0"},
    {"tf32", 80, "tf32 tensor cores need compute capability 8.0 (Ampere)"},
    {"fp8", 89, "fp8 (e4m3) tensor cores need compute capability 8.9 (Ada) or 9.0 (Hopper)"},
    {"int8", 75, "int8 tensor cores (IMMA) need compute capability 7.5 (Turing)"},
};

}  // namespace

const std::vector<std::string>& gemm_probe_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> v;
    for (const auto& g : gemm_needs) v.emplace_back(g.probe);
    return v;
  }();
  return names;
}

std::optional<std::string> gemm_not_applicable(const std::string& probe, int major, int minor) {
  for (const auto& g : gemm_needs) {
    if (probe != g.probe) continue;
    if (major * 10 + minor >= g.min_cc) return std::nullopt;
    return fmt::format("{}; this GPU is {}.{}", g.what, major, minor);
  }
  throw std::invalid_argument("unknown GEMM probe gemm/" + probe);
}

std::optional<std::string> fused_attention_not_applicable(int major, int minor) {
  if (major >= 8) return std::nullopt;
  return fmt::format("the fused attention kernel needs compute capability 8.0+ (cp.async, mma.sync m16n8k16); this GPU is {}.{}", major, minor);
}

std::vector<planned_probe> cuda_probe_plan(int major, int minor, const std::string& model_precision) {
  std::vector<planned_probe> plan;
  for (const char* p : {"bandwidth/read", "bandwidth/write", "bandwidth/copy", "bandwidth/triad"}) plan.push_back({p, true, ""});
  // stream_kernels.cu: the bulk-store variants (cp.async.bulk) are compiled empty below sm_90
  plan.push_back({"bandwidth: TMA bulk-store variants", major >= 9,
                  major >= 9 ? "" : fmt::format("cp.async.bulk needs compute capability 9.0 (Hopper); this GPU is {}.{}", major, minor)});
  for (const char* p : {"compute/fp64", "compute/fp32", "compute/fp16"}) plan.push_back({p, true, ""});
  for (const auto& g : gemm_probe_names()) {
    const auto why = gemm_not_applicable(g, major, minor);
    plan.push_back({"gemm/" + g, !why, why.value_or("")});
  }
  plan.push_back({"launch", true, ""});
  std::vector<std::string> dtypes{"fp16", "bf16"};
  if (model_precision == "fp16" || model_precision == "bf16") dtypes = {model_precision};
  const auto why = fused_attention_not_applicable(major, minor);
  for (const auto& d : dtypes) plan.push_back({"gemm/attention (" + d + ")", !why, why.value_or("")});
  return plan;
}

}  // namespace roofline::cuda
