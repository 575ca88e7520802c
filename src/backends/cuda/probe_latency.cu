// Kernels of the small-work probe (probe_latency.cpp):
//  chain_step  one thread adds 1 to a counter; launched with a full grid (the floor a real op pays
//              for its launch, block scheduling and drain) or one block. 8 B read + 8 B written.
//  chain_step_smem  the same update from another function with 128 threads per block and 96 KiB of
//              dynamic shared memory: alternated with chain_step, the floor of a chain of different
//              kernels (a model step) rather than one kernel repeated.
//  cold_read   sums 32-bit words with 16-byte loads, 4 independent loads in flight per thread, one
//              atomicAdd per block: reads 4·words bytes, writes 8 B per block. Checked by the caller
//              against the closed form Σ i over the words read (the pool holds its own index).
//  fill_index  pool[i] = i.
#include "backends/cuda/probe_latency.hpp"

namespace roofline::cuda {

namespace {

__global__ void chain_step(unsigned long long* counter) {
  if (blockIdx.x == 0 && threadIdx.x == 0) *counter += 1ull;
}

// The second kernel of the switch chain: another function, another block size and 96 KiB of dynamic
// shared memory (the SMs' shared-memory carve-out differs from chain_step's), same counter update.
__global__ void __launch_bounds__(128) chain_step_smem(unsigned long long* counter) {
  extern __shared__ unsigned long long smem_word[];
  if (threadIdx.x == 0) smem_word[0] = blockIdx.x;
  __syncthreads();
  if (blockIdx.x == 0 && threadIdx.x == 0) *counter += 1ull + smem_word[0];  // smem_word[0] == 0 in block 0
}

__global__ void __launch_bounds__(256) cold_read(const uint4* __restrict__ p, size_t n4, unsigned long long* sum) {
  const size_t stride = size_t(gridDim.x) * blockDim.x;
  unsigned long long s = 0;
  size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
  for (; i + 3 * stride < n4; i += 4 * stride) {
    const uint4 a = __ldg(p + i), b = __ldg(p + i + stride), c = __ldg(p + i + 2 * stride),
                d = __ldg(p + i + 3 * stride);
    s += (unsigned long long)a.x + a.y + a.z + a.w;
    s += (unsigned long long)b.x + b.y + b.z + b.w;
    s += (unsigned long long)c.x + c.y + c.z + c.w;
    s += (unsigned long long)d.x + d.y + d.z + d.w;
  }
  for (; i < n4; i += stride) {
    const uint4 a = __ldg(p + i);
    s += (unsigned long long)a.x + a.y + a.z + a.w;
  }
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) s += __shfl_xor_sync(0xffffffffu, s, o);
  __shared__ unsigned long long warp_sums[8];
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  if (lane == 0) warp_sums[warp] = s;
  __syncthreads();
  if (threadIdx.x == 0) {
    unsigned long long t = 0;
    for (int w = 0; w < int(blockDim.x >> 5); ++w) t += warp_sums[w];
    atomicAdd(sum, t);
  }
}

__global__ void fill_index(uint32_t* p, size_t n) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x)
    p[i] = uint32_t(i);
}

}  // namespace

void launch_chain_step(unsigned long long* counter, unsigned blocks, cudaStream_t s) {
  chain_step<<<blocks, 256, 0, s>>>(counter);
}

void prepare_chain_step_smem() {
  ROOFLINE_CUDA_CALL(cudaFuncSetAttribute(chain_step_smem, cudaFuncAttributeMaxDynamicSharedMemorySize, chain_smem_bytes));
}

void launch_chain_step_smem(unsigned long long* counter, unsigned blocks, cudaStream_t s) {
  chain_step_smem<<<blocks, 128, chain_smem_bytes, s>>>(counter);
}

void launch_cold_read(const std::uint32_t* pool, std::size_t first, std::size_t words, unsigned long long* sum,
                      unsigned max_blocks, cudaStream_t s) {
  const size_t n4 = words / 4;
  const size_t want = (n4 + 256 * 4 - 1) / (256 * 4);
  const unsigned blocks = unsigned(want < 1 ? 1 : (want > max_blocks ? max_blocks : want));
  cold_read<<<blocks, 256, 0, s>>>(reinterpret_cast<const uint4*>(pool + first), n4, sum);
}

void launch_fill_index(std::uint32_t* pool, std::size_t words, cudaStream_t s) {
  fill_index<<<1024, 256, 0, s>>>(pool, words);
}

}  // namespace roofline::cuda
