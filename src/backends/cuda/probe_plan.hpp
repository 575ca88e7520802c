// Which of the CUDA probes a GPU can run, from its compute capability alone: pure host code (no CUDA
// header), so that the plan of a T4 (7.5) or an A100 (8.0) is tested on a machine without either
// (tests/cudahost/probe_plan_test.cpp). The probes consult it before they touch the device; what a GPU
// cannot run is recorded as skipped ("not applicable") with the reason, never as a failure.
#pragma once
#include <optional>
#include <string>
#include <vector>

namespace roofline::cuda {

/// One probe (or one part of a probe) on a device: it runs, or it is skipped and why.
struct planned_probe {
  std::string name;    ///< "gemm/bf16", "gemm/attention (bf16)", "bandwidth: TMA bulk stores", …
  bool runs = true;
  std::string reason;  ///< why not, with the capability it needs and the device's ("… need 8.0 (Ampere); this GPU is 7.5")
};

/// Why GEMM probe `probe` (gemm/<probe>: "fp16", "fp16-acc16", "bf16", "fp32", "tf32", "fp8", "int8")
/// cannot run on compute capability major.minor, or nullopt when it can. The capabilities: fp16 tensor
/// cores 7.0 (Volta), int8 IMMA 7.5 (Turing), bf16 and tf32 8.0 (Ampere), fp8 e4m3 8.9 (Ada) / 9.0
/// (Hopper) (CUDA C++ Programming Guide, "Warp Matrix Functions" and the cuBLASLt type tables); plain
/// fp32 SGEMM 5.0. Throws std::invalid_argument for an unknown probe.
std::optional<std::string> gemm_not_applicable(const std::string& probe, int major, int minor);

/// The GEMM probes in the order they run.
const std::vector<std::string>& gemm_probe_names();

/// Why roofline's fused attention kernel (gemm/attention; mma.sync m16n8k16 and cp.async, sm_80+)
/// cannot run on compute capability `major`.x, or nullopt.
std::optional<std::string> fused_attention_not_applicable(int major, int minor);

/// The whole plan of a device: the bandwidth probes (and whether the TMA bulk-store variants run: 9.0+),
/// the FMA chains (fp64, fp32, fp16 half2: every capability the build targets), each GEMM probe, the
/// fused-attention rates in `model_precision` (fp16 or bf16; both without a model) and the launch floor.
std::vector<planned_probe> cuda_probe_plan(int major, int minor, const std::string& model_precision);

}  // namespace roofline::cuda
