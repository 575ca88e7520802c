// Helpers of the GEMM probe (host interface; defined in gemm_kernels.cu):
//  - random inputs from a counter hash (SplitMix64 finaliser, Steele et al., OOPSLA 2014): normal(0,1)
//    for floating types (Box–Muller, what torch.randn draws), integers uniform in [−16, 15] for int8
//    (gemm_plan.hpp gemm_inputs names them); the probe's all-zero run clears the buffers with a memset;
//  - a reference for a few output entries computed in double from the same (already rounded) inputs.
// Layouts (column-major, B stored K×N (ldb = K), D stored M×N (ldd = M)):
//   "TN": op(A) = Aᵀ with A stored K×M (lda = K): D(i,j) = Σ_k A[k + i·K] · B[k + j·K];
//   "NN": A stored M×K (lda = M):                  D(i,j) = Σ_k A[i + k·M] · B[k + j·K]
// (row-major torch.matmul(x, w) is the NN case; F.linear(x, W) the TN case).
#pragma once
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

namespace roofline::cuda {

enum class gemm_elem { fp32, fp16, bf16, fp8_e4m3, int8, int32 };

std::size_t gemm_elem_bytes(gemm_elem e);

/// Fills `count` elements of type `e` at `p` with hash(seed, index) values (see above).
void fill_random(void* p, gemm_elem e, std::size_t count, std::uint64_t seed, cudaStream_t stream);

/// For each sample s: ref[s] = Σ_k A(i_s,k)·B(k,j_s) in double, scale[s] = sqrt(Σ_k (A·B)²), got[s] = D(i_s,j_s)
/// as double. rows/cols/ref/scale/got are device arrays of `samples` entries. `a_transposed`: the TN
/// layout (A stored K×M); else NN (A stored M×K).
void reference_entries(const void* a, const void* b, const void* d, gemm_elem in, gemm_elem out, std::int64_t m,
                       std::int64_t k, const std::int32_t* rows, const std::int32_t* cols, double* ref,
                       double* scale, double* got, int samples, cudaStream_t stream, bool a_transposed = true);

}  // namespace roofline::cuda
