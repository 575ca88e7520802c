// Stream kernels: what they compute, the bytes they move and how they are checked are in
// stream_kernels.hpp. Kept free of roofline's host headers so nvcc compiles only CUDA here.
#include "backends/cuda/stream_kernels.hpp"

namespace roofline::cuda {

namespace {

template <load_hint H>
__device__ __forceinline__ uint4 load16(const uint4* p) {
  uint4 v;
  if constexpr (H == load_hint::ca)
    asm volatile("ld.global.ca.v4.u32 {%0,%1,%2,%3}, [%4];" : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w) : "l"(p));
  else if constexpr (H == load_hint::cs)
    asm volatile("ld.global.cs.v4.u32 {%0,%1,%2,%3}, [%4];" : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w) : "l"(p));
  else
    asm volatile("ld.global.cg.v4.u32 {%0,%1,%2,%3}, [%4];" : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w) : "l"(p));
  return v;
}

__device__ __forceinline__ uint4 load16_l1(const uint4* p) {
  uint4 v;
  asm volatile("ld.global.ca.v4.u32 {%0,%1,%2,%3}, [%4];" : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w) : "l"(p));
  return v;
}

/// The L2 cache policy "evict last" for every line (PTX createpolicy, sm_80+); 0 where unsupported.
__device__ __forceinline__ std::uint64_t evict_last_policy() {
  std::uint64_t pol = 0;
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm volatile("createpolicy.fractional.L2::evict_last.b64 %0, 1.0;" : "=l"(pol));
#endif
  return pol;
}

template <store_hint H>
__device__ __forceinline__ void store16(uint4* p, uint4 v, std::uint64_t pol) {
  if constexpr (H == store_hint::cs) {
    asm volatile("st.global.cs.v4.u32 [%0], {%1,%2,%3,%4};" ::"l"(p), "r"(v.x), "r"(v.y), "r"(v.z), "r"(v.w) : "memory");
  } else if constexpr (H == store_hint::cg) {
    asm volatile("st.global.cg.v4.u32 [%0], {%1,%2,%3,%4};" ::"l"(p), "r"(v.x), "r"(v.y), "r"(v.z), "r"(v.w) : "memory");
  } else if constexpr (H == store_hint::evict_last) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    asm volatile("st.global.L2::cache_hint.v4.u32 [%0], {%1,%2,%3,%4}, %5;" ::"l"(p), "r"(v.x), "r"(v.y), "r"(v.z),
                 "r"(v.w), "l"(pol)
                 : "memory");
#else
    (void)pol;
    asm volatile("st.global.wb.v4.u32 [%0], {%1,%2,%3,%4};" ::"l"(p), "r"(v.x), "r"(v.y), "r"(v.z), "r"(v.w) : "memory");
#endif
  } else {
    asm volatile("st.global.wb.v4.u32 [%0], {%1,%2,%3,%4};" ::"l"(p), "r"(v.x), "r"(v.y), "r"(v.z), "r"(v.w) : "memory");
  }
}

__device__ __forceinline__ uint4 pattern_at(std::size_t i, std::uint32_t mult, std::uint32_t add) {
  const auto j = static_cast<std::uint32_t>(4 * i);  // wraps mod 2^32 as the closed form does
  return make_uint4(j * mult + add, (j + 1) * mult + add, (j + 2) * mult + add, (j + 3) * mult + add);
}

__device__ __forceinline__ uint4 triad(uint4 b, uint4 c, std::uint32_t s) {
  return make_uint4(b.x + s * c.x, b.y + s * c.y, b.z + s * c.z, b.w + s * c.w);
}

// Block reduction of one uint32 per thread into out[blockIdx.x] (wrapping uint32 sum is associative,
// so the order does not matter).
__device__ __forceinline__ void block_sum(std::uint32_t acc, std::uint32_t* out) {
  for (int off = 16; off > 0; off >>= 1) acc += __shfl_down_sync(0xffffffffu, acc, off);
  __shared__ std::uint32_t warp_sums[stream_block / 32];
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  if (lane == 0) warp_sums[warp] = acc;
  __syncthreads();
  if (threadIdx.x == 0) {
    std::uint32_t s = 0;
    for (int w = 0; w < stream_block / 32; ++w) s += warp_sums[w];
    out[blockIdx.x] = s;
  }
}

template <stream_op OP, int U, load_hint LH, store_hint SH, bool ROT>
__global__ void __launch_bounds__(stream_block) stream_kernel(stream_args p) {
  const std::uint64_t pol = SH == store_hint::evict_last ? evict_last_policy() : 0;
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  const std::size_t tid = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const std::size_t n = p.n;
  const std::size_t shift = ROT ? rotate_shift(gridDim.x, blockDim.x) : 0;
  std::uint32_t acc = 0;
  std::size_t start = tid;  // rotate_start(tid, r, shift, stride) in pass r
  for (int r = 0; r < p.reps; ++r, start = ROT ? rotate_next(start, shift, stride) : start) {
    std::size_t i = start;
    for (; i + (U - 1) * stride < n; i += U * stride) {
      if constexpr (OP == stream_op::read) {
        uint4 v[U];
#pragma unroll
        for (int k = 0; k < U; ++k) v[k] = load16<LH>(p.b + i + k * stride);
#pragma unroll
        for (int k = 0; k < U; ++k) acc += v[k].x + v[k].y + v[k].z + v[k].w;
      } else if constexpr (OP == stream_op::write) {
#pragma unroll
        for (int k = 0; k < U; ++k) store16<SH>(p.a + i + k * stride, pattern_at(i + k * stride, p.mult, p.add), pol);
      } else if constexpr (OP == stream_op::copy) {
        uint4 v[U];
#pragma unroll
        for (int k = 0; k < U; ++k) v[k] = load16<LH>(p.b + i + k * stride);
#pragma unroll
        for (int k = 0; k < U; ++k) store16<SH>(p.a + i + k * stride, v[k], pol);
      } else {
        uint4 v[U], w[U];
#pragma unroll
        for (int k = 0; k < U; ++k) {
          v[k] = load16<LH>(p.b + i + k * stride);
          w[k] = load16<LH>(p.c + i + k * stride);
        }
#pragma unroll
        for (int k = 0; k < U; ++k) store16<SH>(p.a + i + k * stride, triad(v[k], w[k], p.scalar), pol);
      }
    }
    for (; i < n; i += stride) {  // the tail: fewer than U strides left
      if constexpr (OP == stream_op::read) {
        const uint4 v = load16<LH>(p.b + i);
        acc += v.x + v.y + v.z + v.w;
      } else if constexpr (OP == stream_op::write) {
        store16<SH>(p.a + i, pattern_at(i, p.mult, p.add), pol);
      } else if constexpr (OP == stream_op::copy) {
        store16<SH>(p.a + i, load16<LH>(p.b + i), pol);
      } else {
        store16<SH>(p.a + i, triad(load16<LH>(p.b + i), load16<LH>(p.c + i), p.scalar), pol);
      }
    }
  }
  if constexpr (OP == stream_op::read) block_sum(acc, p.partials);
}

// L1 read: block k re-reads its own slice [k·n, (k+1)·n) `reps` times with L1-allocating loads, so
// after the first pass every load hits the L1 of the SM the block runs on (the slices of the blocks
// resident on one SM together are the SM's working set). n is a multiple of U × stream_block.
template <int U>
__global__ void __launch_bounds__(stream_block) l1_read_kernel(stream_args p) {
  const uint4* s = p.b + static_cast<std::size_t>(blockIdx.x) * p.n + threadIdx.x;
  const std::size_t n = p.n;
  std::uint32_t acc[U] = {};
  for (int r = 0; r < p.reps; ++r) {
    for (std::size_t j = 0; j < n; j += U * stream_block) {
      uint4 v[U];
#pragma unroll
      for (int k = 0; k < U; ++k) v[k] = load16_l1(s + j + k * stream_block);
#pragma unroll
      for (int k = 0; k < U; ++k) acc[k] += (v[k].x + v[k].y) + (v[k].z + v[k].w);
    }
  }
  std::uint32_t total = 0;
#pragma unroll
  for (int k = 0; k < U; ++k) total += acc[k];
  block_sum(total, p.partials);
}

// Bulk-store kernel (write and copy; stream_kernels.hpp): the grid strides over tiles of TILE = U ×
// stream_block elements, as one sequence of reps × tiles trips (trip g stores tile g mod tiles, so
// every tile is stored `reps` times and the blocks stay balanced even when a pass has few tiles per
// block). Per trip: the threads fill tile buffer s (U elements each: the pattern's values at the
// destination, or the copy's .cg loads), make their shared-memory writes visible to the async proxy
// (fence.proxy.async.shared::cta, PTX ISA "Parallel Synchronization and Communication Instructions:
// membar/fence"), and after a barrier thread 0 stores the tile with one
// cp.async.bulk.global.shared::cta.bulk_group, commits it as a bulk group and waits
// (wait_group.read bulk_stages − 2) until at most bulk_stages − 2 groups still read shared memory.
// Buffer s is refilled bulk_stages trips later: thread 0's wait for the group that last read it
// came before the previous trip's barrier, which every thread passes before filling it. At the end
// thread 0 waits for every group to complete (wait_group 0, writes included) before the block exits.
// Compiled empty below sm_90 (variant_runs_on keeps it from being launched there).
template <stream_op OP, int U>
__global__ void __launch_bounds__(stream_block) bulk_store_kernel(stream_args p) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  static_assert(bulk_stages >= 3, "a buffer must be free one trip before it is refilled");
  constexpr int tile = U * stream_block;
  extern __shared__ uint4 bulk_tiles[];  // bulk_stages × tile, 16-B aligned (cp.async.bulk needs 16)
  const std::size_t n = p.n;
  const std::size_t tiles = (n + tile - 1) / tile;
  const std::size_t trips = tiles * static_cast<std::size_t>(p.reps);
  int s = 0;
  for (std::size_t g = blockIdx.x; g < trips; g += gridDim.x) {
    const std::size_t first = (g % tiles) * tile;
    const int count = n - first < static_cast<std::size_t>(tile) ? static_cast<int>(n - first) : tile;
    uint4* buf = bulk_tiles + s * tile;
    if constexpr (OP == stream_op::write) {
#pragma unroll
      for (int k = 0; k < U; ++k) {
        const int e = threadIdx.x + k * stream_block;
        if (e < count) buf[e] = pattern_at(first + e, p.mult, p.add);
      }
    } else {
      uint4 v[U];
#pragma unroll
      for (int k = 0; k < U; ++k) {
        const int e = threadIdx.x + k * stream_block;
        v[k] = e < count ? load16<load_hint::cg>(p.b + first + e) : make_uint4(0, 0, 0, 0);
      }
#pragma unroll
      for (int k = 0; k < U; ++k) {
        const int e = threadIdx.x + k * stream_block;
        if (e < count) buf[e] = v[k];
      }
    }
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    __syncthreads();
    if (threadIdx.x == 0) {
      const auto src = static_cast<unsigned>(__cvta_generic_to_shared(buf));
      asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;" ::"l"(p.a + first), "r"(src),
                   "r"(static_cast<unsigned>(count) * 16u)
                   : "memory");
      asm volatile("cp.async.bulk.commit_group;" ::: "memory");
      asm volatile("cp.async.bulk.wait_group.read %0;" ::"n"(bulk_stages - 2) : "memory");
    }
    s = s + 1 == bulk_stages ? 0 : s + 1;
  }
  if (threadIdx.x == 0) asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");
#else
  (void)p;
#endif
}

template <int U>
void* bulk_kernel_for(stream_op op) {
  return op == stream_op::copy ? reinterpret_cast<void*>(&bulk_store_kernel<stream_op::copy, U>)
                               : reinterpret_cast<void*>(&bulk_store_kernel<stream_op::write, U>);
}

// One row per entry of stream_variants (same order).
template <stream_op OP>
void* kernel_for(int variant) {
  switch (variant) {
    case 0: return reinterpret_cast<void*>(&stream_kernel<OP, 4, load_hint::cg, store_hint::wb, false>);
    case 1: return reinterpret_cast<void*>(&stream_kernel<OP, 8, load_hint::cg, store_hint::wb, false>);
    case 2: return reinterpret_cast<void*>(&stream_kernel<OP, 4, load_hint::cg, store_hint::cg, false>);
    case 3: return reinterpret_cast<void*>(&stream_kernel<OP, 4, load_hint::cg, store_hint::cs, false>);
    case 4: return reinterpret_cast<void*>(&stream_kernel<OP, 4, load_hint::cg, store_hint::evict_last, false>);
    case 5: return reinterpret_cast<void*>(&stream_kernel<OP, 4, load_hint::cs, store_hint::cs, false>);
    case 6: return reinterpret_cast<void*>(&stream_kernel<OP, 8, load_hint::cs, store_hint::cs, false>);
    case 7: return reinterpret_cast<void*>(&stream_kernel<OP, 4, load_hint::ca, store_hint::wb, true>);
    case 8: return reinterpret_cast<void*>(&stream_kernel<OP, 8, load_hint::ca, store_hint::wb, true>);
    // The bulk rows: write and copy only (variant_allowed); read and triad fall back to row 0.
    case 9: return OP == stream_op::write || OP == stream_op::copy ? bulk_kernel_for<1>(OP) : kernel_for<OP>(0);
    case 10: return OP == stream_op::write || OP == stream_op::copy ? bulk_kernel_for<2>(OP) : kernel_for<OP>(0);
    default: return OP == stream_op::write || OP == stream_op::copy ? bulk_kernel_for<4>(OP) : kernel_for<OP>(0);
  }
}
static_assert(stream_variant_count == 12, "kernel_for has one case per stream_variants row");
static_assert(bulk_tile_bytes(stream_variants[9]) == 4096 && bulk_tile_bytes(stream_variants[10]) == 8192 &&
                  bulk_tile_bytes(stream_variants[11]) == 16384,
              "kernel_for's bulk cases instantiate the rows' tiles");

void* l1_kernel_for(int unroll) {
  return unroll == 2 ? reinterpret_cast<void*>(&l1_read_kernel<2>) : reinterpret_cast<void*>(&l1_read_kernel<4>);
}

void* kernel_for(stream_op op, int variant) {
  switch (op) {
    case stream_op::read: return kernel_for<stream_op::read>(variant);
    case stream_op::write: return kernel_for<stream_op::write>(variant);
    case stream_op::copy: return kernel_for<stream_op::copy>(variant);
    default: return kernel_for<stream_op::triad>(variant);
  }
}

__global__ void fill_pattern_kernel(uint4* a, std::size_t n, std::uint32_t mult, std::uint32_t add) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride)
    a[i] = pattern_at(i, mult, add);
}

__global__ void count_mismatch_kernel(const uint4* a, std::size_t n, std::uint32_t mult, std::uint32_t add,
                                      unsigned long long* bad) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  unsigned long long mine = 0;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    const uint4 v = a[i], e = pattern_at(i, mult, add);
    mine += (v.x != e.x) + (v.y != e.y) + (v.z != e.z) + (v.w != e.w);
  }
  if (mine) atomicAdd(bad, mine);
}

int simple_grid(std::size_t n) {
  const std::size_t blocks = (n + 255) / 256;
  return static_cast<int>(blocks < 65536 ? (blocks ? blocks : 1) : 65536);
}

}  // namespace

int variant_shared_bytes(int variant) {
  if (variant < 0 || variant >= stream_variant_count) return 0;
  return bulk_stages * bulk_tile_bytes(stream_variants[variant]);
}

bool variant_runs_on(int variant, int cc_major, int cc_minor) {
  (void)cc_minor;
  if (variant < 0 || variant > stream_memcpy_variant) return false;
  if (variant < stream_variant_count && stream_variants[variant].store == store_hint::bulk) return cc_major >= 9;
  return true;
}

bool variant_allowed(stream_op op, int variant, int reps) {
  if (variant == stream_memcpy_variant) return op == stream_op::copy && reps == 1;
  if (variant < 0 || variant > stream_memcpy_variant) return false;
  const stream_variant v = stream_variants[variant];
  // Bulk stores: a kernel for write and copy only.
  if (v.store == store_hint::bulk) return op == stream_op::write || op == stream_op::copy;
  // A re-read (reps > 1) with an L1-allocating load could hit L1, unless the passes rotate.
  if (reps > 1 && v.load != load_hint::cg && !v.rotate && op != stream_op::write) return false;
  // Reads have no stores: the store hint does not matter, keep one variant per (unroll, load hint).
  if (op == stream_op::read && v.store != (v.load == load_hint::cs ? store_hint::cs : store_hint::wb)) return false;
  // Writes have no loads: keep the .cg-load rows only (the others repeat their stores).
  if (op == stream_op::write && v.load != load_hint::cg) return false;
  return true;
}

const char* variant_hints(int variant) {
  switch (variant) {
    case 0: return "4 × 16 B in flight per thread, loads .cg, stores .wb";
    case 1: return "8 × 16 B in flight per thread, loads .cg, stores .wb";
    case 2: return "4 × 16 B in flight per thread, loads .cg, stores .cg";
    case 3: return "4 × 16 B in flight per thread, loads .cg, stores .cs";
    case 4: return "4 × 16 B in flight per thread, loads .cg, stores with an L2 evict_last policy";
    case 5: return "4 × 16 B in flight per thread, loads .cs, stores .cs";
    case 6: return "8 × 16 B in flight per thread, loads .cs, stores .cs";
    case 7: return "4 × 16 B in flight per thread, loads .ca in passes rotated over the SMs, stores .wb";
    case 8: return "8 × 16 B in flight per thread, loads .ca in passes rotated over the SMs, stores .wb";
    case 9: return "stores: TMA bulk (cp.async.bulk), tile 4 KiB, 4 tiles per block (copy: 1 × 16 B .cg load per thread per tile)";
    case 10: return "stores: TMA bulk (cp.async.bulk), tile 8 KiB, 4 tiles per block (copy: 2 × 16 B .cg loads per thread per tile)";
    case 11: return "stores: TMA bulk (cp.async.bulk), tile 16 KiB, 4 tiles per block (copy: 4 × 16 B .cg loads per thread per tile)";
    default: return "the driver's cudaMemcpyAsync device-to-device";
  }
}

int prepare_l1_kernels() {
  for (const int u : l1_unrolls) {
    const cudaError_t e =
        cudaFuncSetAttribute(l1_kernel_for(u), cudaFuncAttributePreferredSharedMemoryCarveout, cudaSharedmemCarveoutMaxL1);
    if (e != cudaSuccess) return static_cast<int>(e);
  }
  return 0;
}

void launch_l1_read(int unroll, int grid, const stream_args& args, cudaStream_t stream) {
  void* params[] = {const_cast<stream_args*>(&args)};
  (void)cudaLaunchKernel(l1_kernel_for(unroll), dim3(grid), dim3(stream_block), params, 0, stream);
}

int prepare_bulk_kernels() {
  for (int v = 0; v < stream_variant_count; ++v) {
    if (stream_variants[v].store != store_hint::bulk) continue;
    for (const stream_op op : {stream_op::write, stream_op::copy}) {
      cudaError_t e = cudaFuncSetAttribute(kernel_for(op, v), cudaFuncAttributeMaxDynamicSharedMemorySize,
                                           variant_shared_bytes(v));
      if (e == cudaSuccess)
        e = cudaFuncSetAttribute(kernel_for(op, v), cudaFuncAttributePreferredSharedMemoryCarveout,
                                 cudaSharedmemCarveoutMaxShared);
      if (e != cudaSuccess) return static_cast<int>(e);
    }
  }
  return 0;
}

int stream_blocks_per_sm(stream_op op, int variant) {
  if (variant == stream_memcpy_variant) return 1;  // the driver picks its own launch
  int blocks = 0;
  const cudaError_t e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, kernel_for(op, variant), stream_block,
                                                                      static_cast<std::size_t>(variant_shared_bytes(variant)));
  return e == cudaSuccess ? blocks : -static_cast<int>(e);
}

void launch_stream(stream_op op, int variant, int grid, const stream_args& args, cudaStream_t stream) {
  if (variant == stream_memcpy_variant && op == stream_op::copy) {
    for (int r = 0; r < args.reps; ++r)
      (void)cudaMemcpyAsync(args.a, args.b, args.n * sizeof(uint4), cudaMemcpyDeviceToDevice, stream);
    return;
  }
  void* params[] = {const_cast<stream_args*>(&args)};
  // The launch status is read by the caller through cudaGetLastError (ROOFLINE_CUDA_LAUNCH_CHECK);
  // cudaLaunchKernel also sets it.
  (void)cudaLaunchKernel(kernel_for(op, variant), dim3(grid), dim3(stream_block), params,
                         static_cast<std::size_t>(variant_shared_bytes(variant)), stream);
}

void fill_pattern(uint4* a, std::size_t n, std::uint32_t mult, std::uint32_t add, cudaStream_t stream) {
  fill_pattern_kernel<<<simple_grid(n), 256, 0, stream>>>(a, n, mult, add);
}

void count_pattern_mismatches(const uint4* a, std::size_t n, std::uint32_t mult, std::uint32_t add,
                              unsigned long long* mismatches, cudaStream_t stream) {
  count_mismatch_kernel<<<simple_grid(n), 256, 0, stream>>>(a, n, mult, add, mismatches);
}

std::uint32_t pattern_sum(std::uint64_t lanes, std::uint32_t mult, std::uint32_t add) {
  // lanes·(lanes−1)/2 without overflow for lanes < 2^63: halve the even factor first.
  const std::uint64_t tri = lanes % 2 == 0 ? (lanes / 2) * (lanes - 1) : lanes * ((lanes - 1) / 2);
  return static_cast<std::uint32_t>(tri * mult + lanes * add);
}

}  // namespace roofline::cuda
