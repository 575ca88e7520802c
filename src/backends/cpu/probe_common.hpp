// What the CPU probes share (private to src/backends/cpu): the detected cache sizes, the per-point
// timing of a sweep, the progress report on the driver's scale, the samples after a verification run,
// and the sampled-entry check of a GEMM's output against a dot product in double.
#pragma once
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "backends/cpu/cpu_detect.hpp"
#include "backends/cpu/stream_kernels.hpp"
#include "roofline/backend.hpp"
#include "roofline/error.hpp"

namespace roofline::cpu::detail {

/// How many probes cpu_probes() lists (probes.cpp), the denominator of the progress report.
inline constexpr int probe_count = 10;

/// The detected L1d, L2 and L3 sizes of this host (bytes).
inline cache_sizes detected_caches() {
  const auto& d = detect_cpu().desc;
  return {d.l1d_bytes, d.l2_bytes, d.l3_bytes};
}

/// Timing for one point of a sweep: 40% of the minimum time and 25% of the maximum per point, so
/// that the whole sweep fits the budget (docs/methodology-cpu.md).
inline timing_options sweep_timing(timing_options t) {
  t.min_time_s *= 0.4;
  t.max_time_s *= 0.25;
  return t;
}

/// Progress within probe `index` of `count`, on the driver's scale (probes span 5%..60% of a run).
inline void report(const probe_options& opt, const std::string& what, int index, int count, double within) {
  if (opt.progress) opt.progress(what, 0.05 + 0.55 * (index + within) / count);
}

/// The timed samples of a probe whose verification run was its first warm-up: time_repeated with
/// one warm-up fewer.
inline std::vector<double> samples_after_verification(const std::function<double()>& once, timing_options timing) {
  timing.warmups = std::max(0, timing.warmups - 1);
  return time_repeated(once, timing);
}

/// Checks 16 sampled entries of the row-major C(m×n) = A(m×k)·B(k×n) against a dot product in
/// double, within the bound k·eps·Σ|a||b| (Higham, Accuracy and Stability of Numerical Algorithms,
/// §3.1); throws probe_error "<what>: C[i,j] = got but reference ref" on the first that misses.
/// b_transposed: `b` holds Bᵀ (n×k row-major), as for S = Q·Kᵀ with K stored keys × head_dim.
template <class T>
void check_sampled_entries(const T* a, const T* b, const T* c, std::int64_t m, std::int64_t n, std::int64_t k,
                           const std::string& what, bool b_transposed = false) {
  const double eps = sizeof(T) == 4 ? 0x1.0p-24 : 0x1.0p-53;
  for (int q = 0; q < 16; ++q) {
    const std::int64_t i = (q * 7919) % m, j = (q * 104729 + 3) % n;
    double ref = 0, mag = 0;
    for (std::int64_t l = 0; l < k; ++l) {
      const double x = a[i * k + l], y = b_transposed ? b[j * k + l] : b[l * n + j];
      ref += x * y;
      mag += std::abs(x * y);
    }
    const double got = c[i * n + j];
    if (!(std::abs(got - ref) <= static_cast<double>(k) * eps * mag + 1e-30))
      throw probe_error(fmt::format("{}: C[{},{}] = {} but reference {}", what, i, j, got, ref));
  }
}

}  // namespace roofline::cpu::detail
