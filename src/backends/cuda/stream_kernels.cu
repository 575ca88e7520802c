// Stream kernels: what they compute, the bytes they move and how they are checked are in
// stream_kernels.hpp. Kept free of roofline's host headers so nvcc compiles only CUDA here.
#include "backends/cuda/stream_kernels.hpp"

namespace roofline::cuda {

namespace {

template <bool STREAMING>
__device__ __forceinline__ uint4 load16(const uint4* p) {
  uint4 v;
  if constexpr (STREAMING)
    asm volatile("ld.global.cs.v4.u32 {%0,%1,%2,%3}, [%4];" : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w) : "l"(p));
  else
    asm volatile("ld.global.cg.v4.u32 {%0,%1,%2,%3}, [%4];" : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w) : "l"(p));
  return v;
}

template <bool STREAMING>
__device__ __forceinline__ void store16(uint4* p, uint4 v) {
  if constexpr (STREAMING)
    asm volatile("st.global.cs.v4.u32 [%0], {%1,%2,%3,%4};" ::"l"(p), "r"(v.x), "r"(v.y), "r"(v.z), "r"(v.w) : "memory");
  else
    asm volatile("st.global.wb.v4.u32 [%0], {%1,%2,%3,%4};" ::"l"(p), "r"(v.x), "r"(v.y), "r"(v.z), "r"(v.w) : "memory");
}

__device__ __forceinline__ uint4 pattern_at(std::size_t i, std::uint32_t mult, std::uint32_t add) {
  const auto j = static_cast<std::uint32_t>(4 * i);  // wraps mod 2^32 as the closed form does
  return make_uint4(j * mult + add, (j + 1) * mult + add, (j + 2) * mult + add, (j + 3) * mult + add);
}

__device__ __forceinline__ uint4 triad(uint4 b, uint4 c, std::uint32_t s) {
  return make_uint4(b.x + s * c.x, b.y + s * c.y, b.z + s * c.z, b.w + s * c.w);
}

template <stream_op OP, int U, bool ST>
__global__ void __launch_bounds__(stream_block) stream_kernel(stream_args p) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  const std::size_t tid = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const std::size_t n = p.n;
  std::uint32_t acc = 0;
  for (int r = 0; r < p.reps; ++r) {
    std::size_t i = tid;
    for (; i + (U - 1) * stride < n; i += U * stride) {
      if constexpr (OP == stream_op::read) {
        uint4 v[U];
#pragma unroll
        for (int k = 0; k < U; ++k) v[k] = load16<ST>(p.b + i + k * stride);
#pragma unroll
        for (int k = 0; k < U; ++k) acc += v[k].x + v[k].y + v[k].z + v[k].w;
      } else if constexpr (OP == stream_op::write) {
#pragma unroll
        for (int k = 0; k < U; ++k) store16<ST>(p.a + i + k * stride, pattern_at(i + k * stride, p.mult, p.add));
      } else if constexpr (OP == stream_op::copy) {
        uint4 v[U];
#pragma unroll
        for (int k = 0; k < U; ++k) v[k] = load16<ST>(p.b + i + k * stride);
#pragma unroll
        for (int k = 0; k < U; ++k) store16<ST>(p.a + i + k * stride, v[k]);
      } else {
        uint4 v[U], w[U];
#pragma unroll
        for (int k = 0; k < U; ++k) {
          v[k] = load16<ST>(p.b + i + k * stride);
          w[k] = load16<ST>(p.c + i + k * stride);
        }
#pragma unroll
        for (int k = 0; k < U; ++k) store16<ST>(p.a + i + k * stride, triad(v[k], w[k], p.scalar));
      }
    }
    for (; i < n; i += stride) {  // the tail: fewer than U strides left
      if constexpr (OP == stream_op::read) {
        const uint4 v = load16<ST>(p.b + i);
        acc += v.x + v.y + v.z + v.w;
      } else if constexpr (OP == stream_op::write) {
        store16<ST>(p.a + i, pattern_at(i, p.mult, p.add));
      } else if constexpr (OP == stream_op::copy) {
        store16<ST>(p.a + i, load16<ST>(p.b + i));
      } else {
        store16<ST>(p.a + i, triad(load16<ST>(p.b + i), load16<ST>(p.c + i), p.scalar));
      }
    }
  }
  if constexpr (OP == stream_op::read) {
    // Block reduction (wrapping uint32 sum is associative, so the order does not matter).
    for (int off = 16; off > 0; off >>= 1) acc += __shfl_down_sync(0xffffffffu, acc, off);
    __shared__ std::uint32_t warp_sums[stream_block / 32];
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    if (lane == 0) warp_sums[warp] = acc;
    __syncthreads();
    if (threadIdx.x == 0) {
      std::uint32_t s = 0;
      for (int w = 0; w < stream_block / 32; ++w) s += warp_sums[w];
      p.partials[blockIdx.x] = s;
    }
  }
}

template <stream_op OP>
void* kernel_for(int variant) {
  switch (variant) {
    case 0: return reinterpret_cast<void*>(&stream_kernel<OP, 4, false>);
    case 1: return reinterpret_cast<void*>(&stream_kernel<OP, 8, false>);
    case 2: return reinterpret_cast<void*>(&stream_kernel<OP, 4, true>);
    default: return reinterpret_cast<void*>(&stream_kernel<OP, 8, true>);
  }
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

int stream_blocks_per_sm(stream_op op, int variant) {
  if (variant == stream_memcpy_variant) return 1;  // the driver picks its own launch
  int blocks = 0;
  const cudaError_t e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, kernel_for(op, variant), stream_block, 0);
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
  (void)cudaLaunchKernel(kernel_for(op, variant), dim3(grid), dim3(stream_block), params, 0, stream);
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
