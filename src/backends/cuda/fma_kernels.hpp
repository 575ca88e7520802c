// FMA-chain kernels on the CUDA cores (host interface). Each thread runs fma_chains independent chains
//   a ← fma(a, x, c)   with x = −1 and c = 0.5 passed at run time (so nothing folds at compile time),
// `iters` times (a multiple of fma_iter_multiple). Chain j starts at a₀ = (j+1)/4; two steps give
// −a₀ + 0.5 then a₀ again, every value exact in fp16, fp32 and fp64, so after an even count each chain
// is back at a₀ and each thread writes Σ_j (j+1)/4 = fma_expected_sum to out[thread] (half2: both lanes).
// FLOPs per launch = threads × fma_chains × iters × 2 (× 2 lanes for half2). Defined in fma_kernels.cu.
#pragma once
#include <cuda_runtime.h>

#include <cstdint>

namespace roofline::cuda {

enum class fma_type { fp64, fp32, fp16x2 };

inline constexpr int fma_chains = 8;
inline constexpr int fma_iter_multiple = 64;
inline constexpr int fma_block = 256;
inline constexpr double fma_expected_sum = 9.0;  // Σ_{j=0}^{7} (j+1)/4

/// Blocks of fma_block threads per SM at full occupancy (cudaOccupancy API); negative cudaError_t on error.
int fma_blocks_per_sm(fma_type t);
/// Enqueues one launch. `out` holds grid × fma_block elements of the type (double, float, __half2).
void launch_fma(fma_type t, int grid, void* out, std::int64_t iters, cudaStream_t stream);
/// Converts out[i] (as the kernel's type) to double on the host side: `host` holds the copied bytes.
double fma_output_value(fma_type t, const void* host, std::size_t i, int lane);
/// Bytes of one output element.
std::size_t fma_output_bytes(fma_type t);

}  // namespace roofline::cuda
