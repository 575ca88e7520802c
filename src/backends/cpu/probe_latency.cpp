// CPU small-work probe (docs/formulas-analysis.md §7.2).
//  floor: a chain of dependent OpenMP parallel regions on the worker threads; each region's thread 0
//         reads the counter the previous region wrote and writes it + 1 (the fork and the join
//         barrier are what an op's parallel loop pays); per region = chain time ÷ regions.
//  ramp:  one parallel region summing S bytes (uint64 words, split evenly over the threads) from a
//         pool of ≥ 3 × LLC (and ≥ S), rotating through the pool so that each read starts from DRAM;
//         the words hold their own index, so a read of words [a, a + n) must sum to
//         n·a + n(n − 1)/2 (mod 2^64) — checked for every timed read.
//  serial: what an op below serial_below_elements pays: the same chain of regions whose `if`
//          clause is false (one thread), and the same cold reads on the calling thread alone,
//          no region around them, 4 KiB … 1 MiB.
//  write cost: a cold copy of 64 MiB with ordinary stores against the ramp's read of 64 MiB: what a
//          written byte costs in read bytes (write-allocate fetches each line before it is written).
#include "backends/cpu/probe_latency.hpp"

#ifdef ROOFLINE_HAVE_OPENMP
#include <omp.h>
#else
namespace {
int omp_get_thread_num() { return 0; }
int omp_get_num_threads() { return 1; }
}  // namespace
#endif

#include <algorithm>
#include <atomic>
#include <fmt/format.h>

#include "backends/cpu/cpu_buffers.hpp"
#include "backends/cpu/cpu_detect.hpp"
#include "backends/cpu/op_kernels.hpp"
#include "backends/cpu/probe_sizing.hpp"
#include "roofline/error.hpp"
#include "roofline/measure.hpp"
#include "roofline/model.hpp"

namespace roofline::cpu {

std::vector<std::int64_t> ramp_sizes(std::int64_t max_bytes) {
  std::vector<std::int64_t> s;
  for (std::int64_t b = 4096; b <= max_bytes; b *= 4) s.push_back(b);
  return s;
}

std::vector<double> parallel_region_chain(int threads, int regions, const timing_options& timing) {
  if (threads < 1 || regions < 1) throw probe_error("parallel_region_chain: threads and regions must be positive");
  std::int64_t counter = 0;
  std::int64_t expected = 0;
  auto chain = [&] {
    for (int i = 0; i < regions; ++i) {
      // threads == 1: the region an op below serial_below_elements opens (its `if` clause false)
#pragma omp parallel num_threads(threads) if (threads > 1)
      {
        if (omp_get_thread_num() == 0) {
          std::atomic_ref<std::int64_t> c(counter);
          c.store(c.load(std::memory_order_acquire) + 1, std::memory_order_release);
        }
      }
    }
  };
  auto samples = time_repeated(
      [&] {
        const double t0 = now_s();
        chain();
        const double t = now_s() - t0;
        expected += regions;
        return t / regions;
      },
      timing);
  // every run (warm-ups included) added `regions`: the counter is the chain's proof of work
  if (counter != expected)
    throw probe_error(fmt::format("latency/small-work: the parallel-region chain counted {} instead of {}", counter,
                                  expected));
  return samples;
}

namespace {

/// Σ words [a, a + n) where word i holds i: n·a + n(n − 1)/2 (mod 2^64).
std::uint64_t closed_sum(std::uint64_t a, std::uint64_t n) {
  const std::uint64_t tri = n % 2 == 0 ? (n / 2) * (n - 1) : n * ((n - 1) / 2);
  return n * a + tri;
}

/// Σ words [lo, hi) of the pool, four independent accumulators.
std::uint64_t sum_words(const std::uint64_t* pool, std::uint64_t lo, std::uint64_t hi) {
  std::uint64_t s0 = 0, s1 = 0, s2 = 0, s3 = 0;
  std::uint64_t i = lo;
  for (; i + 4 <= hi; i += 4) s0 += pool[i], s1 += pool[i + 1], s2 += pool[i + 2], s3 += pool[i + 3];
  for (; i < hi; ++i) s0 += pool[i];
  return s0 + s1 + s2 + s3;
}

/// Cold-read ramp over the index-filled pool: for each size S, reads of S bytes at rotating slots,
/// median seconds per read. threads > 0: one parallel region of that many threads per read, each
/// summing its share; threads == 0: the calling thread alone, no region. Every sum is checked
/// against closed_sum; probe_error names `what` and S on a mismatch.
std::vector<ramp_point> cold_read_ramp(const std::uint64_t* pool, std::size_t words, const std::vector<std::int64_t>& sizes,
                                       int threads, const timing_options& rt, const char* what) {
  std::vector<std::uint64_t> partial(static_cast<std::size_t>(std::max(1, threads)) * 8);
  std::vector<ramp_point> out;
  for (const std::int64_t bytes : sizes) {
    const std::uint64_t n = static_cast<std::uint64_t>(bytes / 8);
    const std::uint64_t slots = std::max<std::uint64_t>(1, words / n);
    std::uint64_t slot = 0;
    bool ok = true;
    const auto samples = time_repeated(
        [&] {
          const std::uint64_t a = (slot++ % slots) * n;
          std::uint64_t sum = 0;
          const double t0 = now_s();
          if (threads == 0) {
            sum = sum_words(pool, a, a + n);
          } else {
#pragma omp parallel num_threads(threads)
            {
              const int t = omp_get_thread_num(), nt = omp_get_num_threads();
              partial[static_cast<std::size_t>(t) * 8] = sum_words(pool, a + n * t / nt, a + n * (t + 1) / nt);
            }
          }
          const double dt = now_s() - t0;
          for (int t = 0; t < threads; ++t) sum += partial[static_cast<std::size_t>(t) * 8];
          if (sum != closed_sum(a, n)) ok = false;
          return dt;
        },
        rt);
    if (!ok) throw probe_error(fmt::format("latency/small-work: {} of {} B summed to the wrong value", what, bytes));
    out.push_back({static_cast<double>(bytes), median(samples)});
  }
  return out;
}

/// Median seconds of a cold copy of `bytes` with ordinary stores, one parallel region of `threads`
/// threads each copying its share: word i of a source slot goes complemented to word i of a
/// destination slot half the pool away, both slots rotating through the pool so that each copy
/// starts from DRAM. The complement keeps the compiler from calling memcpy, whose large copies may
/// use non-temporal stores (no write-allocate); 16 words of every copy are checked.
double cold_copy_seconds(std::uint64_t* pool, std::size_t words, std::int64_t bytes, int threads, const timing_options& rt) {
  const std::uint64_t n = static_cast<std::uint64_t>(bytes / 8);
  const std::uint64_t slots = std::max<std::uint64_t>(2, words / n);
  if (slots * n > words) throw probe_error(fmt::format("latency/small-work: a copy of {} B needs a pool of two slots", bytes));
  std::uint64_t slot = 0;
  bool ok = true;
  const auto samples = time_repeated(
      [&] {
        const std::uint64_t* src = pool + (slot % slots) * n;
        std::uint64_t* dst = pool + ((slot + slots / 2) % slots) * n;
        ++slot;
        const double t0 = now_s();
#pragma omp parallel num_threads(threads)
        {
          const int t = omp_get_thread_num(), nt = omp_get_num_threads();
          const std::uint64_t lo = n * t / nt, hi = n * (t + 1) / nt;
          for (std::uint64_t i = lo; i < hi; ++i) dst[i] = ~src[i];
        }
        const double dt = now_s() - t0;
        for (std::uint64_t j = 0; j < 16; ++j) {
          const std::uint64_t i = (n - 1) * j / 15;
          if (dst[i] != ~src[i]) ok = false;
        }
        return dt;
      },
      rt);
  if (!ok) throw probe_error(fmt::format("latency/small-work: a cold copy of {} B wrote the wrong words", bytes));
  return median(samples);
}

}  // namespace

small_work_result measure_small_work(const timing_options& timing, bool quick) {
  const auto& d = detect_cpu().desc;
  return measure_small_work(timing, quick, {d.l1d_bytes, d.l2_bytes, d.l3_bytes});
}

small_work_result measure_small_work(const timing_options& timing, bool quick, const cache_sizes& caches) {
  const int threads = worker_threads();
  const small_work_plan plan = plan_small_work(caches, threads, quick);
  if (const auto bad = small_work_violations(plan); !bad.empty())
    throw probe_error("latency/small-work: sizing: " + bad.front());  // small_work_violations is tested over geometries

  timing_options chain_t = timing;
  chain_t.min_repeats = std::max(chain_t.min_repeats, 5);
  chain_t.min_time_s = std::min(chain_t.min_time_s, 0.05);
  chain_t.max_time_s = std::min(chain_t.max_time_s, 0.5);
  const auto chain = parallel_region_chain(threads, 1000, chain_t);

  const std::int64_t pool_bytes = plan.pool_bytes;
  const std::size_t words = static_cast<std::size_t>(pool_bytes / 8);
  aligned_buffer<std::uint64_t> pool(words);
  // Huge pages, as the op runner's and the bandwidth probe's buffers have: the ramp predicts those
  // ops' memory time, so it reads under the same TLB conditions (on a 2-vCPU Zen 4 guest the 1 GiB
  // point went from 36.4 to 32.1 ms with them).
  advise_huge_pages(pool.data(), words * sizeof(std::uint64_t));
#pragma omp parallel for num_threads(threads) schedule(static)
  for (std::size_t i = 0; i < words; ++i) pool[i] = i;

  small_work_result r;
  r.floor_s = median(chain);
  r.serial_below_elements = serial_below_elements;
  r.serial_floor_s = median(parallel_region_chain(1, 1000, chain_t));
  timing_options rt = timing;
  rt.min_time_s = std::min(rt.min_time_s, 0.05);
  rt.max_time_s = std::min(rt.max_time_s, 0.5);
  rt.min_repeats = std::max(rt.min_repeats, 5);
  r.ramp = cold_read_ramp(pool.data(), words, plan.ramp, threads, rt, "a cold read");
  // The one-thread ramp: the largest op below serial_below_elements moves a few hundred KiB.
  r.serial_ramp = cold_read_ramp(pool.data(), words, plan.serial_ramp, 0, rt, "a one-thread cold read");
  // Write-allocate: a cold copy of the ramp's 64 MiB point against the cold read of the same bytes
  // (last, because it overwrites the pool's index words).
  const std::int64_t copy_bytes = plan.copy_bytes;
  const auto read_at = std::find_if(r.ramp.begin(), r.ramp.end(), [&](const ramp_point& p) { return p.bytes == copy_bytes; });
  const double copy_s = cold_copy_seconds(pool.data(), words, copy_bytes, threads, rt);
  r.write_copy = ramp_point{static_cast<double>(copy_bytes), copy_s};
  // Unknown (absent) when the floor is not below both: a busy machine (other processes on the cores)
  // can stretch the parallel-region floor past a 64 MiB read, and a difference of two busy times is noise.
  if (read_at != r.ramp.end() && read_at->seconds > r.floor_s && copy_s > r.floor_s)
    r.write_cost = (copy_s - r.floor_s) / (read_at->seconds - r.floor_s) - 1.0;
  r.write_in_place = {to_string(op_kind::rope)};  // rope_kernel rotates q and k in place (op_kernels.hpp)
  r.verified = true;
  r.method = fmt::format(
      "floor: median per region of a chain of 1000 dependent OpenMP parallel regions on {} threads (each reads the "
      "counter the previous one wrote); ramp: one parallel region summing S bytes of a {} MiB pool (>= 3 x LLC and two copy slots), "
      "rotating through the pool so each read starts from DRAM, median per S, floor included; sums checked against "
      "their closed form; serial (ops writing fewer than {} elements): the same chain with the regions' if clause false "
      "(one thread), and the same cold reads of 4 KiB … 1 MiB on the calling thread alone, no region around them; "
      "write cost: a cold copy of {} MiB with ordinary stores (each word complemented into a slot half the pool away, "
      "16 words checked) against the ramp's cold read of the same bytes, floor subtracted from both: "
      "write_cost = copy ÷ read − 1 read-bytes per written byte",
      threads, pool_bytes >> 20, serial_below_elements, copy_bytes >> 20);
  return r;
}

probe small_work_probe(const probe_options& opt) {
  return {"latency/small-work", "latency", [opt](measured_roofs& out) {
            if (opt.progress) opt.progress("latency/small-work: parallel-region floor and cold-read ramp", 0.58);
            out.small_work = measure_small_work(opt.timing, opt.quick);
          }};
}

}  // namespace roofline::cpu
