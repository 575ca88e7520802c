// FMA-chain kernels for the vector compute peak. Each thread runs `iterations` steps of
//   x_j <- fma(x_j, m, b)   for A independent vector accumulators x_j (lanes L each)
// with m = 1 and b = 2^-23 (fp32) or 2^-52 (fp64) loaded at run time (the compiler cannot fold
// them). Starting from 1, every lane ends at exactly 1 + iterations × b (each step adds one ulp of
// [1, 2), so no rounding occurs while iterations ≤ 2^22). The kernel returns Σ (x − 1) / b over all
// lanes, exactly A × L × iterations, which the probe checks: the work cannot be deleted and a wrong
// kernel cannot pass. FLOPs = threads × iterations × A × L × 2.
// A is chosen to cover FMA latency × pipes (Zen 3: 4 cycles × 2 pipes = 8; Skylake-SP AVX-512:
// 4 × 2 = 8): 12 ymm accumulators for AVX2, 24 zmm for AVX-512.
#pragma once
#include <cstdint>
#include <string>

namespace roofline::cpu {

struct fma_kernel {
  std::string isa;        ///< "avx512f", "avx2+fma", "sse2" (mul + add, no FMA), "generic"
  int accumulators = 0;
  int lanes_fp32 = 0;     ///< lanes per vector
  int lanes_fp64 = 0;
  bool fused = true;      ///< false: separate mul and add (still 2 FLOP per step)
};

/// The kernel for `isa` (as detect_simd_isa() names it).
fma_kernel fma_kernel_for(const std::string& isa);

/// Runs one thread's chain; returns Σ (x − 1) / b over all lanes of all accumulators (expected,
/// exactly: A × L × iterations). `one` must be 1 and `step` b; they are parameters so that the
/// compiler cannot know them.
double fma_chain_fp32(const fma_kernel& k, std::int64_t iterations, float one, float step);
double fma_chain_fp64(const fma_kernel& k, std::int64_t iterations, double one, double step);

}  // namespace roofline::cpu
