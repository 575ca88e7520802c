// The CPU probes, one file per roof as in the CUDA backend: bandwidth (probe_bandwidth.cpp: read /
// write / copy / triad over a working-set sweep), compute (probe_compute.cpp: FP32 and FP64 FMA chains
// on all cores), gemm (probe_gemm.cpp: OpenBLAS SGEMM / DGEMM and the rows sweep), attention tiles
// (probe_attention.cpp) and small work (probe_latency.hpp: the floor and the cold-read ramp). Each
// probe verifies its result and publishes nothing when the check fails (probe_error). Methodology:
// docs/methodology-cpu.md.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "roofline/backend.hpp"

namespace roofline::cpu {

/// Every CPU probe for `opt` but small work (quick: 5 sweep sizes, short chains, GEMM n = 256, 512), in
/// this order (probes.cpp): bandwidth, compute, gemm, attention tiles.
std::vector<probe> cpu_probes(const probe_options& opt);

/// bandwidth/read, bandwidth/write, bandwidth/copy, bandwidth/triad (probe_bandwidth.cpp); their
/// progress is reported as probes first_index … first_index + 3 of detail::probe_count.
std::vector<probe> bandwidth_probes(const probe_options& opt, int first_index);
/// compute/fp32, compute/fp64 (probe_compute.cpp), probes first_index, first_index + 1.
std::vector<probe> compute_probes(const probe_options& opt, int first_index);
/// gemm/sgemm, gemm/dgemm, gemm/sgemm-rows (probe_gemm.cpp), probes first_index … first_index + 2.
std::vector<probe> gemm_probes(const probe_options& opt, int first_index);
/// gemm/attention-tiles (probe_attention.cpp), probe first_index.
std::vector<probe> attention_probes(const probe_options& opt, int first_index);

/// One FMA-peak measurement on all worker threads: precision "fp32" or "fp64".
compute_result measure_fma_peak(const std::string& precision, const timing_options& timing, bool quick);

/// One n×n×n GEMM through OpenBLAS ("fp32" sgemm, "fp64" dgemm), verified on sampled entries
/// against a dot product in double. Throws probe_error without OpenBLAS or on a failed check.
compute_result measure_gemm(const std::string& precision, std::int64_t n, const timing_options& timing);

/// GEMM rate against rows: C(M×nk) = A(M×nk)·W(nk×nk) through the op runner's gemm_kernel for
/// each M in `rows`, W rotated over copies past 2× the last-level cache, 16 entries of each
/// checked against a dot product in double. Throws probe_error without OpenBLAS or on a failed check.
std::vector<gemm_rows_result> measure_gemm_rows(const std::vector<std::int64_t>& rows, std::int64_t nk,
                                                const timing_options& timing);

/// GEMM rate at fused attention's tile shapes, for each head_dim d: S = Q·Kᵀ (tile_rows × keys,
/// inner d, row-major NT) and O = P·V (tile_rows × d, inner keys, NN) through cblas_sgemm, issued
/// as attention_fused_kernel issues them (one tile per thread at once with OpenBLAS's OpenMP build,
/// else one call at a time on OpenBLAS's threads); 16 entries of every tile checked against a dot
/// product in double. Rates count all threads. Throws probe_error without OpenBLAS or on a failed check.
std::vector<gemm_attention_result> measure_gemm_attention(const std::vector<std::int64_t>& head_dims,
                                                          std::int64_t tile_rows, std::int64_t keys,
                                                          const timing_options& timing);

}  // namespace roofline::cpu
