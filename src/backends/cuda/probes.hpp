// The CUDA probes (one file each): they append to measured_roofs, time through time_repeated with
// CUDA events on env.stream, verify every output, and attach the NVML telemetry of their window.
#pragma once
#include <vector>

#include "backends/cuda/cuda_env.hpp"
#include "roofline/backend.hpp"

namespace roofline::cuda {

/// bandwidth/read, bandwidth/write, bandwidth/copy, bandwidth/triad (probe_bandwidth.cpp).
std::vector<probe> bandwidth_probes(cuda_env& env, const probe_options& opt);
/// compute/fp64, compute/fp32, compute/fp16 (probe_compute.cpp).
std::vector<probe> compute_probes(cuda_env& env, const probe_options& opt);
/// gemm/fp16, gemm/fp16-acc16, gemm/bf16, gemm/tf32, gemm/fp8, gemm/int8 (probe_gemm.cpp).
std::vector<probe> gemm_probes(cuda_env& env, const probe_options& opt);

/// Launch floor (probe_launch.cpp): the empty kernel alone (host clock, launch to synchronize) and per
/// kernel in a CUDA graph of 100.
launch_result measure_launch(cuda_env& env, const timing_options& timing);

}  // namespace roofline::cuda
