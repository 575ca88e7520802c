// Stream kernels (host interface): read, write, copy and triad over arrays of 16-byte elements
// (uint4), with a grid-stride loop that keeps `unroll` independent 16-byte accesses in flight per
// thread. Integer data so every output is checked exactly against a closed form:
//   element j (a uint32 lane, j = 4·i + lane) of a "pattern (mult, add)" array holds j·mult + add (mod 2^32).
//   read : partials[block] = Σ of its elements over `reps` passes (wrapping uint32 sum)  — bytes: 16·n read
//   write: a[i] = pattern (mult, add)                                                     — 16·n written
//   copy : a[i] = b[i]                                                                    — 16·n read + 16·n written
//   triad: a[i] = b[i] + s·c[i] (uint32 lanes; same traffic as STREAM's FP triad)          — 32·n read + 16·n written
// Loads are ld.global.cg (L2, not L1, so L2-resident sweeps measure L2) or ld.global.cs (streaming);
// stores are st.global.wb or st.global.cs; all are volatile asm so no pass can be merged or dropped.
// Defined in stream_kernels.cu.
#pragma once
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

namespace roofline::cuda {

enum class stream_op { read, write, copy, triad };

/// A kernel variant: independent 16-byte accesses per thread per loop trip, and cache hints.
struct stream_variant {
  int unroll;    ///< 4 or 8
  bool streaming;  ///< ld.global.cs / st.global.cs instead of ld.global.cg / st.global.wb
};
inline constexpr stream_variant stream_variants[] = {{4, false}, {8, false}, {4, true}, {8, true}};
inline constexpr int stream_variant_count = 4;
/// Copy only: one more candidate beside our kernels, the driver's device-to-device cudaMemcpyAsync
/// (what PyTorch's copy_ of a contiguous tensor runs); same bytes, same verification.
inline constexpr int stream_memcpy_variant = stream_variant_count;

inline constexpr int stream_block = 256;

/// Arguments of one launch. n = elements (uint4) per array. Unused pointers may be null.
struct stream_args {
  uint4* a = nullptr;        ///< written (write, copy, triad)
  const uint4* b = nullptr;  ///< read (read, copy, triad)
  const uint4* c = nullptr;  ///< read (triad)
  std::uint32_t* partials = nullptr;  ///< read: one per block
  std::size_t n = 0;
  int reps = 1;              ///< passes over the arrays inside the kernel (L2-resident sizes)
  std::uint32_t mult = 0, add = 0;  ///< write: the pattern written
  std::uint32_t scalar = 3;  ///< triad
};

/// Blocks of stream_block threads per SM at full occupancy for this kernel (cudaOccupancy API).
int stream_blocks_per_sm(stream_op op, int variant);
/// Enqueues one launch on `stream` (errors are checked by the caller with cudaGetLastError).
void launch_stream(stream_op op, int variant, int grid, const stream_args& args, cudaStream_t stream);

/// a = pattern(mult, add) with a simple kernel (setup only, not timed).
void fill_pattern(uint4* a, std::size_t n, std::uint32_t mult, std::uint32_t add, cudaStream_t stream);
/// *mismatches (device counter, zeroed by the caller) += number of uint32 lanes j of `a` that differ from j·mult + add.
void count_pattern_mismatches(const uint4* a, std::size_t n, std::uint32_t mult, std::uint32_t add,
                              unsigned long long* mismatches, cudaStream_t stream);

/// The wrapping uint32 sum of pattern (mult, add) over `lanes` uint32 lanes (closed form:
/// mult·lanes·(lanes−1)/2 + add·lanes mod 2^32).
std::uint32_t pattern_sum(std::uint64_t lanes, std::uint32_t mult, std::uint32_t add);

}  // namespace roofline::cuda
