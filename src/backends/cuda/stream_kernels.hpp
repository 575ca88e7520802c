// Stream kernels (host interface): read, write, copy and triad over arrays of 16-byte elements
// (uint4), with a grid-stride loop that keeps `unroll` independent 16-byte accesses in flight per
// thread, and an L1 read kernel in which every block re-reads its own small slice. Integer data so
// every output is checked exactly against a closed form:
//   element j (a uint32 lane, j = 4·i + lane) of a "pattern (mult, add)" array holds j·mult + add (mod 2^32).
//   read : partials[block] = Σ of its elements over `reps` passes (wrapping uint32 sum)  — bytes: 16·n read
//   write: a[i] = pattern (mult, add)                                                     — 16·n written
//   copy : a[i] = b[i]                                                                    — 16·n read + 16·n written
//   triad: a[i] = b[i] + s·c[i] (uint32 lanes; same traffic as STREAM's FP triad)          — 32·n read + 16·n written
//   l1 read: block k sums elements [k·slice, (k+1)·slice) `reps` times                    — 16·slice·blocks·reps read
// Cache hints (PTX ISA, "Cache Operators" and "createpolicy"): loads ld.global.cg (L2 only, never
// L1: every pass of an L2-sized sweep goes to L2), ld.global.cs (streaming: allocates in L1 with
// evict-first, so it is used only where no element is read twice by one launch), ld.global.ca (the
// L1 kernel: allocate in L1); stores st.global.wb, .cg, .cs, or with an L2 evict_last cache policy.
// All accesses are volatile inline PTX so no pass can be merged or dropped. Defined in stream_kernels.cu.
// Bulk-store variants (write and copy, compute capability 9.0+): each block fills a shared-memory tile
// with its chunk's values (the pattern, or the copy's .cg loads) and stores it with one Tensor Memory
// Accelerator bulk copy (PTX ISA 8.0, "Data Movement and Conversion Instructions: cp.async.bulk":
// cp.async.bulk.global.shared::cta.bulk_group, commit_group, wait_group.read), so the stores bypass
// the SM's per-thread st.global path.
#pragma once
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

namespace roofline::cuda {

enum class stream_op { read, write, copy, triad };

enum class load_hint { cg, cs, ca };
/// bulk: no st.global; the block's threads fill a shared-memory tile and one thread stores it with
/// cp.async.bulk (the TMA), see bulk_tile_bytes.
enum class store_hint { wb, cg, cs, evict_last, bulk };

/// A kernel variant of the grid-stride kernel: independent 16-byte accesses per thread per loop
/// trip, the cache hints of its loads and stores, and whether each pass rotates the threads over the
/// array (rotate_start) so that no SM re-reads what it read in the passes before. For store_hint::bulk
/// the loop trip is one tile of unroll × stream_block elements per block (each thread fills, or for
/// copy loads, `unroll` of them) and the grid strides over tiles.
struct stream_variant {
  int unroll;  ///< 4 or 8; bulk: 1, 2 or 4 (tile 4, 8 or 16 KiB)
  load_hint load;
  store_hint store;
  bool rotate = false;
};
inline constexpr stream_variant stream_variants[] = {
    {4, load_hint::cg, store_hint::wb},       {8, load_hint::cg, store_hint::wb},
    {4, load_hint::cg, store_hint::cg},       {4, load_hint::cg, store_hint::cs},
    {4, load_hint::cg, store_hint::evict_last}, {4, load_hint::cs, store_hint::cs},
    {8, load_hint::cs, store_hint::cs},       {4, load_hint::ca, store_hint::wb, true},
    {8, load_hint::ca, store_hint::wb, true},   {1, load_hint::cg, store_hint::bulk},
    {2, load_hint::cg, store_hint::bulk},     {4, load_hint::cg, store_hint::bulk},
};
inline constexpr int stream_variant_count = 12;

inline constexpr int stream_block = 256;

/// Bulk-store variants: tiles per block in shared memory, so that up to bulk_stages − 1 bulk stores
/// are in flight while the threads fill the next tile (a tile is refilled only after
/// cp.async.bulk.wait_group.read has seen its store's reads of shared memory complete).
inline constexpr int bulk_stages = 4;
/// Bytes of one bulk-store tile (one cp.async.bulk of this size per loop trip of a block): unroll ×
/// stream_block × 16 B; 0 for the variants that store with st.global.
constexpr int bulk_tile_bytes(const stream_variant& v) {
  return v.store == store_hint::bulk ? v.unroll * stream_block * 16 : 0;
}
/// Dynamic shared memory of a launch of `variant`: bulk_stages tiles for the bulk-store variants,
/// 0 otherwise (and for stream_memcpy_variant).
int variant_shared_bytes(int variant);

/// Rotation of the grid-stride sweep: in pass r thread t starts at element
/// (t + r · shift) mod stride, stride = grid × block threads, so every pass still touches every element
/// exactly once. shift = round(0.618 · grid) blocks (the golden ratio spreads the multiples r · shift
/// evenly), so the blocks of one SM read, pass after pass, slices other SMs read before: an SM meets
/// the same slice again only after the whole array has gone through it, and an L1-allocating load
/// (.ca) is an L2 hit, not an L1 hit, once the array exceeds the L1. Returns shift in threads.
__host__ __device__ inline std::size_t rotate_shift(std::size_t grid, std::size_t block) {
  const std::size_t blocks = (grid * 618 + 500) / 1000;
  return (blocks == 0 || blocks >= grid ? 1 : blocks) * block;
}
/// First element of thread t in pass r.
__host__ __device__ inline std::size_t rotate_start(std::size_t t, std::size_t r, std::size_t shift, std::size_t stride) {
  return (t + (r % stride) * (shift % stride)) % stride;
}
/// rotate_start of the next pass from this pass's, without a division (shift < stride): what the
/// kernel runs.
__host__ __device__ inline std::size_t rotate_next(std::size_t start, std::size_t shift, std::size_t stride) {
  start += shift;
  return start >= stride ? start - stride : start;
}
/// Copy only: one more candidate beside our kernels, the driver's device-to-device cudaMemcpyAsync
/// (what PyTorch's copy_ of a contiguous tensor runs); same bytes, same verification.
inline constexpr int stream_memcpy_variant = stream_variant_count;

/// Whether `variant` may time a sweep point whose launch passes over the same elements `reps` times:
/// with reps > 1 only L1-bypassing (.cg) loads, or L1-allocating ones (.ca) in rotating passes, so
/// that a re-read cannot be an L1 hit; the driver's memcpy only with reps == 1 (one pass per call,
/// as it is timed); the bulk-store variants for write and copy only. Device-independent: see also
/// variant_runs_on.
bool variant_allowed(stream_op op, int variant, int reps);
/// Whether the device of compute capability `cc_major`.`cc_minor` can run `variant`: the bulk-store
/// variants need 9.0+ (cp.async.bulk is sm_90+; on older devices their kernels are compiled empty);
/// every other variant runs everywhere.
bool variant_runs_on(int variant, int cc_major, int cc_minor);
/// "4 × 16 B in flight per thread, loads .cg, stores .wb", "stores: TMA bulk (cp.async.bulk), tile
/// 4 KiB, …", or the memcpy's name.
const char* variant_hints(int variant);

/// Arguments of one launch. n = elements (uint4) per array. Unused pointers may be null.
struct stream_args {
  uint4* a = nullptr;        ///< written (write, copy, triad)
  const uint4* b = nullptr;  ///< read (read, copy, triad, l1 read)
  const uint4* c = nullptr;  ///< read (triad)
  std::uint32_t* partials = nullptr;  ///< read: one per block
  std::size_t n = 0;
  int reps = 1;              ///< passes over the arrays inside the kernel (cache-resident sizes)
  std::uint32_t mult = 0, add = 0;  ///< write: the pattern written
  std::uint32_t scalar = 3;  ///< triad
};

/// Blocks of stream_block threads per SM at full occupancy for this kernel (cudaOccupancy API, with
/// variant_shared_bytes of dynamic shared memory). Call prepare_bulk_kernels first on a device that
/// runs the bulk variants.
int stream_blocks_per_sm(stream_op op, int variant);
/// Lets the bulk-store kernels (write and copy) of the current device use variant_shared_bytes of
/// dynamic shared memory (cudaFuncAttributeMaxDynamicSharedMemorySize; the 16 KiB tiles need 64 KiB,
/// over the default 48 KiB) and prefer the largest shared-memory carve-out. Only for devices on which
/// variant_runs_on is true for them. Returns the CUDA error code (0 = success).
int prepare_bulk_kernels();
/// Enqueues one launch on `stream` (errors are checked by the caller with cudaGetLastError).
void launch_stream(stream_op op, int variant, int grid, const stream_args& args, cudaStream_t stream);

/// The L1 read kernel's variants: loads in flight per thread per trip (2 or 4; a block's slice
/// must be a multiple of unroll × stream_block elements).
inline constexpr int l1_unrolls[] = {2, 4};
/// Sets the L1 kernels' preferred shared-memory carve-out to 0 (cudaSharedmemCarveoutMaxL1), so the
/// unified L1/shared array is all L1. Returns the CUDA error code (0 = success).
int prepare_l1_kernels();
/// Enqueues the L1 read: `grid` blocks, block k reads elements [k·slice, (k+1)·slice) of args.b with
/// ld.global.ca `args.reps` times and writes its wrapping sum to args.partials[k]. args.n = slice.
void launch_l1_read(int unroll, int grid, const stream_args& args, cudaStream_t stream);

/// a = pattern(mult, add) with a simple kernel (setup only, not timed).
void fill_pattern(uint4* a, std::size_t n, std::uint32_t mult, std::uint32_t add, cudaStream_t stream);
/// *mismatches (device counter, zeroed by the caller) += number of uint32 lanes j of `a` that differ from j·mult + add.
void count_pattern_mismatches(const uint4* a, std::size_t n, std::uint32_t mult, std::uint32_t add,
                              unsigned long long* mismatches, cudaStream_t stream);

/// The wrapping uint32 sum of pattern (mult, add) over `lanes` uint32 lanes (closed form:
/// mult·lanes·(lanes−1)/2 + add·lanes mod 2^32).
std::uint32_t pattern_sum(std::uint64_t lanes, std::uint32_t mult, std::uint32_t add);

}  // namespace roofline::cuda
