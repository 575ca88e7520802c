// l2_write_scaling: is the GPU's L2 write rate limited by the SMs' store path or by the L2?
//
// Build and run (bench/l2-write.sh does both): nvcc -O3 -std=c++17 -arch=sm_90 -o l2_write_scaling
// bench/l2_write_scaling.cu && ./l2_write_scaling > table.md
//
// Question. On an H200 (132 SMs, 1.98 GHz, 60 MiB L2) roofline's write probe reaches 4.0–4.6 TB/s at
// L2-resident working sets (7.5–45 MiB), the same as its 4 GiB HBM write (4.65 TB/s), while L2 reads
// reach ~10 TB/s. 4.6e12 B/s / (132 SMs × 1.98e9 clk/s) ≈ 17.6 B per clock per SM. Hypothesis: the
// limit is each SM's st.global path (LSU → L1 → L2 request rate), not the L2.
//
// Method. The same kernels run on 16, 33, 66, 99 and all SMs (132 on an H200). A grid of (all SMs) ×
// (blocks per SM at full occupancy) is launched, so every SM gets its full complement of blocks; a
// block whose SM (%smid) is not among the chosen N exits after holding its slot for 50 µs (so the
// scheduler cannot hand an active SM's share to it), and the active blocks take 64 KiB chunks from an
// atomic ticket counter (dynamic balance: the work is done by whichever blocks run). The N SMs are
// spread evenly over the sorted list of SM ids seen on the device. Kernels:
//   read           ld.global.cg.v4 (L1 bypassed), 4 loads in flight per thread, wrapping uint32 sum;
//   write st.global st.global.v4 (write-back hint), 4 stores in flight per thread;
//   write TMA 4K / TMA 16K: each block computes a 4 or 16 KiB tile of the output in shared memory
//                  (4 tiles per block, refilled once their store has read them) and stores it with
//                  one cp.async.bulk.global.shared::cta.bulk_group (PTX ISA 8.0, "Data Movement and
//                  Conversion Instructions: cp.async.bulk"; the Tensor Memory Accelerator), one
//                  thread issuing;
//   write TMA 16K fixed: the same bulk stores of one 16 KiB tile filled once (no per-tile shared-
//                  memory writes: the bulk-store path alone; the output is periodic, checked as such).
// Working sets: 15 MiB (L2: a quarter of the H200's L2, resident in both L2 halves) re-swept so one
// launch moves ~4 GiB, and 4 GiB (HBM, one pass). Every output is checked exactly: element j (uint32
// lane) of a written array holds j·mult + add (mod 2^32) (fixed tile: j mod (tile lanes)); a read's
// block sums add up to reps × Σ pattern. Timing: CUDA events, 1 warm-up + 5 launches, best and
// median. The SM clock is measured in the kernel (clock64 against %globaltimer, median over the
// active blocks), and B/clk/SM = rate / (N × that clock).
//
// Reading the table (15 MiB rows decide; the 4 GiB rows show where HBM takes over):
//   * st.global write B/clk/SM about constant (~17–18) from 16 to 132 SMs, i.e. the rate grows
//     linearly with the SMs up to 132, while reads on the same SMs reach ~38 B/clk/SM: each SM's store
//     path is the limit, not the L2. If the TMA writes then exceed the st.global write at 132 SMs,
//     the L2 accepts writes faster than st.global can issue them: the L2 write roof is (at least) the
//     TMA number, and a kernel that stores through the TMA (or a larger GPU) can use it.
//   * st.global write per-SM rate falling as SMs are added (the total flattening near ~4.6 TB/s) and
//     the TMA writes flattening at the same total: the limit is shared, beyond the SMs (the L2's write
//     path or the crossbar), and ~4.6 TB/s is the L2 write rate; that it matches HBM's is then a
//     coincidence of this chip, not a flaw of the probe.
//   * TMA faster than st.global at 16 SMs but both flattening at 132: both limits are real; the
//     shared one sets the roof.
//   * The 4 GiB rows should flatten at the HBM rate (~4.6–4.8 TB/s) for every kernel; if a kernel is
//     slower there than at 15 MiB on few SMs, HBM latency (bytes in flight per SM), not bandwidth,
//     limits it at that SM count.
// Columns: "SMs used" is the number of distinct SMs on which blocks did work in the last launch
// (should equal N), "blocks" the active blocks; "× linear" = (rate / N) / (rate at the fewest SMs /
// that N): 1.00 is perfect scaling.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#define CK(call)                                                                                    \
  do {                                                                                              \
    const cudaError_t e_ = (call);                                                                  \
    if (e_ != cudaSuccess) {                                                                        \
      std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(e_)); \
      std::exit(1);                                                                                 \
    }                                                                                               \
  } while (0)

namespace {

constexpr int block = 256;
constexpr std::size_t chunk_elems = 4096;  // one ticket: 64 KiB of 16-B elements
constexpr int stages = 4;                  // bulk-store tiles per block
constexpr int max_smid = 4096;
constexpr unsigned long long hold_ns = 50000;
constexpr std::uint32_t mult = 2246822519u, add = 99u;

enum kind { k_read, k_write_st, k_write_tma4, k_write_tma16, k_write_tma16_fixed, k_count };
const char* kind_name(int k) {
  switch (k) {
    case k_read: return "read (ld.global.cg.v4)";
    case k_write_st: return "write st.global.v4";
    case k_write_tma4: return "write TMA bulk, 4 KiB tiles";
    case k_write_tma16: return "write TMA bulk, 16 KiB tiles";
    default: return "write TMA bulk, one fixed 16 KiB tile";
  }
}
int tile_elems_of(int k) {
  return k == k_write_tma4 ? 256 : (k == k_write_tma16 || k == k_write_tma16_fixed) ? 1024 : 0;
}

struct block_info {
  unsigned smid;
  unsigned active;
  unsigned long long tickets;
  long long clk0, clk1;
  unsigned long long ns0, ns1;
};

struct launch_args {
  uint4* a;                       // read source / write destination
  std::size_t n;                  // elements of 16 B (a multiple of chunk_elems)
  unsigned long long total;       // tickets in this launch (passes × n / chunk_elems)
  unsigned long long* ticket;     // zeroed before every launch
  const unsigned char* sm_on;     // [max_smid]
  block_info* info;               // [grid]
  std::uint32_t* partials;        // [grid] read sums
};

__device__ __forceinline__ unsigned smid() {
  unsigned r;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(r));
  return r;
}
__device__ __forceinline__ unsigned long long gtimer() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}
__device__ __forceinline__ uint4 pattern_at(std::size_t i) {
  const auto j = static_cast<std::uint32_t>(4 * i);
  return make_uint4(j * mult + add, (j + 1) * mult + add, (j + 2) * mult + add, (j + 3) * mult + add);
}
__device__ __forceinline__ uint4 load_cg(const uint4* p) {
  uint4 v;
  asm volatile("ld.global.cg.v4.u32 {%0,%1,%2,%3}, [%4];" : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w) : "l"(p));
  return v;
}
__device__ __forceinline__ void store_wb(uint4* p, uint4 v) {
  asm volatile("st.global.wb.v4.u32 [%0], {%1,%2,%3,%4};" ::"l"(p), "r"(v.x), "r"(v.y), "r"(v.z), "r"(v.w) : "memory");
}
__device__ __forceinline__ void bulk_store(uint4* dst, const uint4* src, unsigned bytes) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  const auto s = static_cast<unsigned>(__cvta_generic_to_shared(src));
  asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;" ::"l"(dst), "r"(s), "r"(bytes) : "memory");
  asm volatile("cp.async.bulk.commit_group;" ::: "memory");
#endif
}
template <int N>
__device__ __forceinline__ void bulk_wait_read() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("cp.async.bulk.wait_group.read %0;" ::"n"(N) : "memory");
#endif
}
__device__ __forceinline__ void bulk_wait_all() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");
#endif
}
__device__ __forceinline__ void fence_async_shared() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
#endif
}

// The active blocks' ticket loop: body(first element of the chunk) per ticket; thread 0 fetches the
// next ticket while the block works on this one (two shared slots, so the one being written is never
// the one being read). Returns the tickets this block did.
template <class Body>
__device__ unsigned long long ticket_loop(const launch_args& p, Body&& body) {
  __shared__ unsigned long long next[2];
  const std::size_t chunks = p.n / chunk_elems;
  if (threadIdx.x == 0) next[0] = atomicAdd(p.ticket, 1ull);
  __syncthreads();
  int par = 0;
  unsigned long long done = 0;
  for (unsigned long long t = next[0]; t < p.total; ++done) {
    unsigned long long mine = 0;
    if (threadIdx.x == 0) mine = atomicAdd(p.ticket, 1ull);
    body(static_cast<std::size_t>(t % chunks) * chunk_elems);
    if (threadIdx.x == 0) next[par ^ 1] = mine;
    __syncthreads();
    par ^= 1;
    t = next[par];
  }
  return done;
}

template <int K>
__global__ void __launch_bounds__(block, 8) scaling_kernel(launch_args p) {
  const unsigned sm = smid();
  block_info* me = p.info + blockIdx.x;
  if (sm >= max_smid || !p.sm_on[sm]) {
    if (threadIdx.x == 0) {
      me->smid = sm, me->active = 0, me->tickets = 0;
      if (K == k_read) p.partials[blockIdx.x] = 0;
    }
    const unsigned long long t0 = gtimer();
    while (gtimer() - t0 < hold_ns) __nanosleep(2000);
    return;
  }
  if (threadIdx.x == 0) me->clk0 = clock64(), me->ns0 = gtimer();  // in memory: no register held across the loop
  unsigned long long done = 0;
  if constexpr (K == k_read) {
    std::uint32_t acc = 0;
    done = ticket_loop(p, [&](std::size_t first) {
      for (std::size_t j = first + threadIdx.x; j < first + chunk_elems; j += 4 * block) {
        uint4 v[4];
#pragma unroll
        for (int k = 0; k < 4; ++k) v[k] = load_cg(p.a + j + k * block);
#pragma unroll
        for (int k = 0; k < 4; ++k) acc += (v[k].x + v[k].y) + (v[k].z + v[k].w);
      }
    });
    for (int off = 16; off > 0; off >>= 1) acc += __shfl_down_sync(0xffffffffu, acc, off);
    __shared__ std::uint32_t warp_sums[block / 32];
    if (threadIdx.x % 32 == 0) warp_sums[threadIdx.x / 32] = acc;
    __syncthreads();
    if (threadIdx.x == 0) {
      std::uint32_t s = 0;
      for (int w = 0; w < block / 32; ++w) s += warp_sums[w];
      p.partials[blockIdx.x] = s;
    }
  } else if constexpr (K == k_write_st) {
    done = ticket_loop(p, [&](std::size_t first) {
      for (std::size_t j = first + threadIdx.x; j < first + chunk_elems; j += 4 * block) {
#pragma unroll
        for (int k = 0; k < 4; ++k) store_wb(p.a + j + k * block, pattern_at(j + k * block));
      }
    });
  } else {
    constexpr int tile = K == k_write_tma4 ? 256 : 1024;  // elements
    constexpr int per_thread = tile / block;
    extern __shared__ uint4 tiles[];  // stages × tile
    if constexpr (K == k_write_tma16_fixed) {
      for (int e = threadIdx.x; e < tile; e += block) tiles[e] = pattern_at(e);
      fence_async_shared();
      __syncthreads();
      done = ticket_loop(p, [&](std::size_t first) {
        if (threadIdx.x == 0)
          for (std::size_t t = 0; t < chunk_elems; t += tile) {
            bulk_store(p.a + first + t, tiles, tile * 16);
            bulk_wait_read<stages - 1>();  // bound the groups in flight as the refilled kernels do
          }
      });
    } else {
      // Tile buffer s is refilled `stages` tiles after its store was issued; thread 0 waited for that
      // store's reads (wait_group.read stages − 2) before the barrier the fillers pass first.
      int s = 0;
      done = ticket_loop(p, [&](std::size_t first) {
        for (std::size_t t = 0; t < chunk_elems; t += tile) {
          uint4* buf = tiles + s * tile;
#pragma unroll
          for (int k = 0; k < per_thread; ++k) {
            const int e = threadIdx.x + k * block;
            buf[e] = pattern_at(first + t + e);
          }
          fence_async_shared();
          __syncthreads();
          if (threadIdx.x == 0) {
            bulk_store(p.a + first + t, buf, tile * 16);
            bulk_wait_read<stages - 2>();
          }
          s = s + 1 == stages ? 0 : s + 1;
        }
      });
    }
    if (threadIdx.x == 0) bulk_wait_all();
  }
  if (threadIdx.x == 0) {
    me->smid = sm, me->active = 1, me->tickets = done;
    me->clk1 = clock64(), me->ns1 = gtimer();
  }
}

// Marks the SM ids blocks run on; each block stays 20 µs so the blocks spread over every SM.
__global__ void smid_kernel(unsigned char* seen) {
  if (threadIdx.x == 0) seen[min(smid(), unsigned(max_smid - 1))] = 1;
  const unsigned long long t0 = gtimer();
  while (gtimer() - t0 < 20000) __nanosleep(1000);
}

__global__ void fill_kernel(uint4* a, std::size_t n) {
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < n; i += std::size_t{gridDim.x} * blockDim.x)
    a[i] = pattern_at(i);
}

// Counts uint32 lanes that differ from the pattern; period > 0: the pattern of (i mod period).
__global__ void check_kernel(const uint4* a, std::size_t n, std::size_t period, unsigned long long* bad) {
  unsigned long long mine = 0;
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < n; i += std::size_t{gridDim.x} * blockDim.x) {
    const uint4 v = a[i], e = pattern_at(period ? i % period : i);
    mine += (v.x != e.x) + (v.y != e.y) + (v.z != e.z) + (v.w != e.w);
  }
  if (mine) atomicAdd(bad, mine);
}

void* kernel_ptr(int k) {
  switch (k) {
    case k_read: return reinterpret_cast<void*>(&scaling_kernel<k_read>);
    case k_write_st: return reinterpret_cast<void*>(&scaling_kernel<k_write_st>);
    case k_write_tma4: return reinterpret_cast<void*>(&scaling_kernel<k_write_tma4>);
    case k_write_tma16: return reinterpret_cast<void*>(&scaling_kernel<k_write_tma16>);
    default: return reinterpret_cast<void*>(&scaling_kernel<k_write_tma16_fixed>);
  }
}

std::size_t shared_bytes(int k) {
  return tile_elems_of(k) == 0 ? 0 : static_cast<std::size_t>(k == k_write_tma16_fixed ? 1 : stages) * tile_elems_of(k) * 16;
}

// Wrapping uint32 sum of the pattern over `lanes` lanes (closed form, as the probe's pattern_sum).
std::uint32_t pattern_sum(std::uint64_t lanes) {
  const std::uint64_t tri = lanes % 2 == 0 ? (lanes / 2) * (lanes - 1) : lanes * ((lanes - 1) / 2);
  return static_cast<std::uint32_t>(tri * mult + lanes * add);
}

}  // namespace

int main() {
  int dev = 0;
  CK(cudaSetDevice(dev));
  cudaDeviceProp prop{};
  CK(cudaGetDeviceProperties(&prop, dev));
  int max_khz = 0;
  CK(cudaDeviceGetAttribute(&max_khz, cudaDevAttrClockRate, dev));
  const bool tma = prop.major >= 9;
  const int all_sms = prop.multiProcessorCount;

  // The SM ids that exist (not necessarily 0 … SMs − 1).
  unsigned char* d_seen = nullptr;
  CK(cudaMalloc(&d_seen, max_smid));
  CK(cudaMemset(d_seen, 0, max_smid));
  smid_kernel<<<all_sms * 64, 32>>>(d_seen);
  CK(cudaGetLastError());
  std::vector<unsigned char> seen(max_smid);
  CK(cudaMemcpy(seen.data(), d_seen, max_smid, cudaMemcpyDeviceToHost));
  std::vector<int> ids;
  for (int i = 0; i < max_smid; ++i)
    if (seen[i]) ids.push_back(i);

  std::vector<int> counts;
  for (const int c : {16, 33, 66, 99})
    if (c < static_cast<int>(ids.size())) counts.push_back(c);
  counts.push_back(static_cast<int>(ids.size()));

  std::size_t free_b = 0, total_b = 0;
  CK(cudaMemGetInfo(&free_b, &total_b));
  std::size_t big = std::size_t{4} << 30;
  while (big > free_b * 8 / 10) big /= 2;
  const std::size_t l2_ws = std::size_t{15} << 20;

  uint4* a = nullptr;
  CK(cudaMalloc(&a, big));
  unsigned long long *ticket = nullptr, *bad = nullptr;
  CK(cudaMalloc(&ticket, sizeof *ticket));
  CK(cudaMalloc(&bad, sizeof *bad));
  unsigned char* sm_on = nullptr;
  CK(cudaMalloc(&sm_on, max_smid));
  const int max_grid = all_sms * 32;
  block_info* info = nullptr;
  std::uint32_t* partials = nullptr;
  CK(cudaMalloc(&info, sizeof(block_info) * max_grid));
  CK(cudaMalloc(&partials, sizeof(std::uint32_t) * max_grid));
  cudaEvent_t e0, e1;
  CK(cudaEventCreate(&e0));
  CK(cudaEventCreate(&e1));

  std::printf("# L2 write scaling with SMs: st.global against TMA bulk stores\n\n");
  std::printf("- device: %s, compute capability %d.%d, %d SMs (ids seen: %zu, %d … %d), L2 %d MiB, max SM clock %d MHz\n",
              prop.name, prop.major, prop.minor, all_sms, ids.size(), ids.empty() ? -1 : ids.front(),
              ids.empty() ? -1 : ids.back(), prop.l2CacheSize >> 20, max_khz / 1000);
  std::printf("- working sets: 15 MiB (L2; re-swept to ~4 GiB per launch) and %zu MiB (HBM, one pass); 64 KiB tickets; "
              "1 warm-up + 5 timed launches\n",
              big >> 20);
  if (!tma) std::printf("- TMA rows skipped: cp.async.bulk needs compute capability 9.0\n");
  std::printf("\n| working set | kernel | SMs | SMs used | blocks (per SM) | GB/s best | GB/s median | SM MHz | B/clk/SM | × linear |\n");
  std::printf("|---|---|---|---|---|---|---|---|---|---|\n");

  int failures = 0;
  for (const std::size_t ws : {l2_ws, big}) {
    const std::size_t n = ws / 16;
    const int reps = ws < (std::size_t{1} << 30) ? static_cast<int>(((std::size_t{4} << 30) + ws - 1) / ws) : 1;
    const unsigned long long total = static_cast<unsigned long long>(reps) * (n / chunk_elems);
    const double bytes = static_cast<double>(ws) * reps;
    const std::string ws_name = ws == l2_ws ? "15 MiB (L2)" : std::to_string(ws >> 20) + " MiB (HBM)";
    for (int k = 0; k < k_count; ++k) {
      if (tile_elems_of(k) && !tma) continue;
      void* fn = kernel_ptr(k);
      const std::size_t smem = shared_bytes(k);
      CK(cudaFuncSetAttribute(fn, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(smem)));
      if (smem)  // the tiles need the shared-memory side of the unified L1/shared array
        CK(cudaFuncSetAttribute(fn, cudaFuncAttributePreferredSharedMemoryCarveout, cudaSharedmemCarveoutMaxShared));
      int per_sm = 0;
      CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, fn, block, smem));
      const int grid = std::min(all_sms * per_sm, max_grid);
      double first_rate_per_sm = 0;
      for (const int count : counts) {
        std::vector<unsigned char> on(max_smid, 0);
        for (int i = 0; i < count; ++i) on[ids[static_cast<std::size_t>(i) * ids.size() / count]] = 1;
        CK(cudaMemcpy(sm_on, on.data(), max_smid, cudaMemcpyHostToDevice));
        if (k == k_read) {
          fill_kernel<<<all_sms * 8, 256>>>(a, n);
        } else {
          CK(cudaMemset(a, 0xFF, ws));  // poison: the timed launches alone must write the output
        }
        CK(cudaGetLastError());
        launch_args args{a, n, total, ticket, sm_on, info, partials};
        void* params[] = {&args};
        std::vector<double> ms;
        for (int it = 0; it < 6; ++it) {
          CK(cudaMemsetAsync(ticket, 0, sizeof *ticket));
          CK(cudaEventRecord(e0));
          CK(cudaLaunchKernel(fn, dim3(grid), dim3(block), params, smem, nullptr));
          CK(cudaEventRecord(e1));
          CK(cudaEventSynchronize(e1));
          float t = 0;
          CK(cudaEventElapsedTime(&t, e0, e1));
          if (it > 0) ms.push_back(t);
        }
        // The last launch: who worked, how many tickets, at what clock.
        std::vector<block_info> bi(static_cast<std::size_t>(grid));
        CK(cudaMemcpy(bi.data(), info, sizeof(block_info) * grid, cudaMemcpyDeviceToHost));
        std::vector<unsigned char> used(max_smid, 0);
        unsigned long long tickets = 0;
        int active = 0;
        std::vector<double> mhz;
        for (const auto& b : bi) {
          if (!b.active) continue;
          ++active;
          tickets += b.tickets;
          used[b.smid % max_smid] = 1;
          if (b.ns1 > b.ns0) mhz.push_back(static_cast<double>(b.clk1 - b.clk0) / static_cast<double>(b.ns1 - b.ns0) * 1e3);
        }
        std::string problem;
        if (tickets != total) problem += " tickets " + std::to_string(tickets) + " != " + std::to_string(total) + ";";
        if (k == k_read) {
          std::vector<std::uint32_t> ps(static_cast<std::size_t>(grid));
          CK(cudaMemcpy(ps.data(), partials, sizeof(std::uint32_t) * grid, cudaMemcpyDeviceToHost));
          std::uint32_t got = 0;
          for (const auto v : ps) got += v;
          if (got != pattern_sum(4 * static_cast<std::uint64_t>(n)) * static_cast<std::uint32_t>(reps))
            problem += " read checksum wrong;";
        } else {
          CK(cudaMemset(bad, 0, sizeof *bad));
          check_kernel<<<all_sms * 8, 256>>>(a, n, k == k_write_tma16_fixed ? static_cast<std::size_t>(tile_elems_of(k)) : 0, bad);
          CK(cudaGetLastError());
          unsigned long long nbad = 0;
          CK(cudaMemcpy(&nbad, bad, sizeof nbad, cudaMemcpyDeviceToHost));
          if (nbad) problem += " " + std::to_string(nbad) + " wrong uint32 in the output;";
        }
        std::sort(ms.begin(), ms.end());
        std::sort(mhz.begin(), mhz.end());
        const int sms_used = static_cast<int>(std::count(used.begin(), used.end(), 1));
        const double best = bytes / (ms.front() * 1e-3) / 1e9, median = bytes / (ms[ms.size() / 2] * 1e-3) / 1e9;
        const double clock_mhz = mhz.empty() ? max_khz / 1e3 : mhz[mhz.size() / 2];
        const double per_clk = best * 1e9 / (count * clock_mhz * 1e6);
        if (first_rate_per_sm == 0) first_rate_per_sm = best / count;
        if (!problem.empty()) problem = " **FAILED:" + problem + "**";
        std::printf("| %s | %s | %d | %d | %d (%d) | %.0f | %.0f | %.0f | %.2f | %.2f |%s\n", ws_name.c_str(), kind_name(k),
                    count, sms_used, active, per_sm, best, median, clock_mhz, per_clk, best / count / first_rate_per_sm,
                    problem.c_str());
        std::fflush(stdout);
        if (!problem.empty()) ++failures;
      }
    }
  }
  std::printf("\n%s\n", failures ? "Some rows FAILED their check (marked): their rates mean nothing." : "Every row's output was checked exactly.");
  return failures ? 1 : 0;
}
