#include "backends/cpu/stream_kernels.hpp"
#include "backends/cpu/probe_sizing.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <fmt/format.h>
#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include "roofline/error.hpp"
#ifdef ROOFLINE_HAVE_OPENMP
#include <omp.h>
#endif

// One binary for every x86-64 CPU: GCC compiles each kernel for AVX-512, AVX2 and the baseline and
// picks at load time (target_clones). Loop-pattern distribution is off so that GCC does not turn the
// copy / write loops into memcpy / memset calls (glibc switches to non-temporal stores for large
// sizes, which would change what is measured).
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define ROOFLINE_STREAM_KERNEL \
  __attribute__((noinline, target_clones("avx512f", "avx2", "default"), optimize("no-tree-loop-distribute-patterns")))
#else
#define ROOFLINE_STREAM_KERNEL __attribute__((noinline))
#endif

namespace roofline::cpu {

namespace {

// 32 independent partial sums (8 ymm / 4 zmm registers) so that the loop is bound by loads, not by
// the latency of one vector add chain.
ROOFLINE_STREAM_KERNEL double sum_chunk(const double* __restrict a, std::int64_t n) {
  double s[32] = {};
  std::int64_t i = 0;
  for (; i + 32 <= n; i += 32) {
#pragma omp simd
    for (int l = 0; l < 32; ++l) s[l] += a[i + l];
  }
  double r = 0;
  for (int l = 0; l < 32; ++l) r += s[l];
  for (; i < n; ++i) r += a[i];
  return r;
}

ROOFLINE_STREAM_KERNEL void write_chunk(double* __restrict a, std::int64_t n, double v) {
#pragma omp simd
  for (std::int64_t i = 0; i < n; ++i) a[i] = v;
}

ROOFLINE_STREAM_KERNEL void copy_chunk(double* __restrict a, const double* __restrict b, std::int64_t n) {
#pragma omp simd
  for (std::int64_t i = 0; i < n; ++i) a[i] = b[i];
}

ROOFLINE_STREAM_KERNEL void triad_chunk(double* __restrict a, const double* __restrict b, const double* __restrict c,
                                        std::int64_t n, double s) {
#pragma omp simd
  for (std::int64_t i = 0; i < n; ++i) a[i] = b[i] + s * c[i];
}

// Four concurrent streams per thread (the quarters of its chunk), two accumulators each: more lines
// in flight for the hardware prefetchers than one stream.
ROOFLINE_STREAM_KERNEL double sum_chunk4(const double* __restrict a, std::int64_t n) {
  const std::int64_t q = n / 64 * 16;  // each quarter: a multiple of 16 elements
  double s[64] = {};
  for (std::int64_t i = 0; i < q; i += 16) {
#pragma omp simd
    for (int l = 0; l < 16; ++l) {
      s[l] += a[i + l];
      s[16 + l] += a[q + i + l];
      s[32 + l] += a[2 * q + i + l];
      s[48 + l] += a[3 * q + i + l];
    }
  }
  double r = 0;
  for (int l = 0; l < 64; ++l) r += s[l];
  for (std::int64_t i = 4 * q; i < n; ++i) r += a[i];
  return r;
}

// Non-temporal stores: the line is written without being read first (no read-for-ownership) and
// bypasses the caches (Intel SDM vol. 1 §10.4.6.2; AMD64 APM vol. 1 §3.9.1). `a` must be 64-byte
// aligned: chunks start on 8-element boundaries of 64-byte aligned arrays. An sfence orders them.
enum class isa_level { sse2, avx2, avx512 };
isa_level store_isa() {
#if defined(__x86_64__) && defined(__GNUC__)
  static const isa_level l = __builtin_cpu_supports("avx512f") ? isa_level::avx512
                             : __builtin_cpu_supports("avx2")  ? isa_level::avx2
                                                               : isa_level::sse2;
  return l;
#else
  return isa_level::sse2;
#endif
}

#if defined(__x86_64__)
// op: 0 write v, 1 copy b, 2 triad b + s·c.
template <int OP>
__attribute__((target("avx512f"))) void nt_chunk512(double* a, const double* b, const double* c, std::int64_t n, double v) {
  const __m512d vv = _mm512_set1_pd(v);
  std::int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    if constexpr (OP == 0) _mm512_stream_pd(a + i, vv);
    if constexpr (OP == 1) _mm512_stream_pd(a + i, _mm512_load_pd(b + i));
    if constexpr (OP == 2) _mm512_stream_pd(a + i, _mm512_add_pd(_mm512_load_pd(b + i), _mm512_mul_pd(vv, _mm512_load_pd(c + i))));
  }
  for (; i < n; ++i) a[i] = OP == 0 ? v : OP == 1 ? b[i] : b[i] + v * c[i];
  _mm_sfence();
}
template <int OP>
__attribute__((target("avx2"))) void nt_chunk256(double* a, const double* b, const double* c, std::int64_t n, double v) {
  const __m256d vv = _mm256_set1_pd(v);
  std::int64_t i = 0;
  for (; i + 4 <= n; i += 4) {
    if constexpr (OP == 0) _mm256_stream_pd(a + i, vv);
    if constexpr (OP == 1) _mm256_stream_pd(a + i, _mm256_load_pd(b + i));
    if constexpr (OP == 2) _mm256_stream_pd(a + i, _mm256_add_pd(_mm256_load_pd(b + i), _mm256_mul_pd(vv, _mm256_load_pd(c + i))));
  }
  for (; i < n; ++i) a[i] = OP == 0 ? v : OP == 1 ? b[i] : b[i] + v * c[i];
  _mm_sfence();
}
template <int OP>
void nt_chunk128(double* a, const double* b, const double* c, std::int64_t n, double v) {
  const __m128d vv = _mm_set1_pd(v);
  std::int64_t i = 0;
  for (; i + 2 <= n; i += 2) {
    if constexpr (OP == 0) _mm_stream_pd(a + i, vv);
    if constexpr (OP == 1) _mm_stream_pd(a + i, _mm_load_pd(b + i));
    if constexpr (OP == 2) _mm_stream_pd(a + i, _mm_add_pd(_mm_load_pd(b + i), _mm_mul_pd(vv, _mm_load_pd(c + i))));
  }
  for (; i < n; ++i) a[i] = OP == 0 ? v : OP == 1 ? b[i] : b[i] + v * c[i];
  _mm_sfence();
}
#endif

template <int OP>
void nt_chunk(double* a, const double* b, const double* c, std::int64_t n, double v) {
#if defined(__x86_64__)
  switch (store_isa()) {
    case isa_level::avx512: nt_chunk512<OP>(a, b, c, n, v); return;
    case isa_level::avx2: nt_chunk256<OP>(a, b, c, n, v); return;
    case isa_level::sse2: nt_chunk128<OP>(a, b, c, n, v); return;
  }
#else
  for (std::int64_t i = 0; i < n; ++i) a[i] = OP == 0 ? v : OP == 1 ? b[i] : b[i] + v * c[i];
#endif
}

/// Thread t's share [lo, hi) of n elements, split on 8-element (64 B) boundaries.
std::pair<std::int64_t, std::int64_t> chunk(std::int64_t n, int t, int nt) {
  const std::int64_t blocks = n / 8;
  const std::int64_t lo = blocks * t / nt * 8;
  const std::int64_t hi = t + 1 == nt ? n : blocks * (t + 1) / nt * 8;
  return {lo, hi};
}

int thread_id() {
#ifdef ROOFLINE_HAVE_OPENMP
  return omp_get_thread_num();
#else
  return 0;
#endif
}
int team_size() {
#ifdef ROOFLINE_HAVE_OPENMP
  return omp_get_num_threads();
#else
  return 1;
#endif
}

}  // namespace

std::string to_string(stream_pattern p) {
  switch (p) {
    case stream_pattern::read: return "read";
    case stream_pattern::write: return "write";
    case stream_pattern::copy: return "copy";
    case stream_pattern::triad: return "triad";
  }
  return "?";
}

int arrays_of(stream_pattern p) {
  switch (p) {
    case stream_pattern::read:
    case stream_pattern::write: return 1;
    case stream_pattern::copy: return 2;
    case stream_pattern::triad: return 3;
  }
  return 1;
}

std::string to_string(stream_kernel k) {
  switch (k) {
    case stream_kernel::plain: return "plain loads and stores";
    case stream_kernel::read4: return "four concurrent streams per thread";
    case stream_kernel::nontemporal: return "non-temporal stores";
    case stream_kernel::memcpy: return "the C library's memcpy";
  }
  return "?";
}

std::vector<stream_kernel> kernels_for(stream_pattern p, bool beyond_caches) {
  std::vector<stream_kernel> k{stream_kernel::plain};
  if (p == stream_pattern::read) k.push_back(stream_kernel::read4);
  if (p != stream_pattern::read && beyond_caches) k.push_back(stream_kernel::nontemporal);
  if (p == stream_pattern::copy && beyond_caches) k.push_back(stream_kernel::memcpy);
  return k;
}

namespace {
std::string kib(double b) { return fmt::format("{:.4g} KiB", b / 1024); }
std::string mib(double b) { return fmt::format("{:.4g} MiB", b / 1048576); }
}  // namespace

level_label memory_level(std::int64_t working_set_bytes, int threads, const cache_sizes& c) {
  const int t = std::max(1, threads);
  const double total = static_cast<double>(working_set_bytes);
  const double share = total / t;
  const double l1 = static_cast<double>(c.l1d), l2 = static_cast<double>(c.l2), llc = static_cast<double>(c.l3_total);
  if (l1 > 0 && share <= 0.75 * l1)
    return {"l1", fmt::format("L1: {} per thread <= 3/4 of the {} L1d", kib(share), kib(l1))};
  if (l1 > 0 && share < 2 * l1)
    return {"l1+l2", fmt::format("transition: {} per thread is {:.2f}× the {} L1d", kib(share), share / l1, kib(l1))};
  if (l2 > 0 && share <= 0.75 * l2)
    return {"l2", fmt::format("L2: {} per thread, >= 2× the L1d and <= 3/4 of the {} L2", kib(share), kib(l2))};
  if (l2 > 0 && share < 2 * l2 && (llc <= 0 || total < 0.75 * llc))
    return {"l2+llc", fmt::format("transition: {} per thread is {:.2f}× the {} L2", kib(share), share / l2, kib(l2))};
  if (llc > 0 && total <= 0.75 * llc)
    return {"llc", fmt::format("LLC: {} in total, >= 2× the L2 per thread and <= 3/4 of the {} LLC", mib(total), mib(llc))};
  bool assumed = false;
  const double last = static_cast<double>(sizing_cache_bytes(c, t, &assumed));
  if (assumed && total >= 4 * last)  // sized beyond the assumed LLC by sweep_sizes, so beyond a real one
    return {"dram", fmt::format("DRAM: {} in total >= 4× an assumed {} last-level cache (no cache size reported)", mib(total), mib(last))};
  if (assumed) return {c.l1d > 0 ? "l1+l2" : "unknown", "cache sizes unknown"};
  if (total >= 4 * last)
    return {"dram", fmt::format("DRAM: {} in total >= 4× the {} of L3 and L2 caches", mib(total), mib(last))};
  return {"llc+dram", fmt::format("transition: {} in total is {:.2f}× the {} of L3 and L2 caches", mib(total), total / last, mib(last))};
}

std::vector<std::int64_t> sweep_sizes(const cache_sizes& c, int threads, int arrays, bool quick) {
  const int t = std::max(1, threads);
  const double quantum = 384.0 * t;  // 8 B × 8 lanes × lcm(1,2,3) × 2 per thread
  const double l1 = c.l1d > 0 ? c.l1d : 32768.0;
  const double l2 = c.l2 > 0 ? c.l2 : 16 * l1;
  // the L3's own levels are bounded by the L3; device memory starts beyond all the caches, C
  const double caches = static_cast<double>(sizing_cache_bytes(c, t));
  const double llc = c.l3_total > 0 ? static_cast<double>(c.l3_total) : caches;
  // (bytes, rounding: +1 up, -1 down, 0 nearest) so that a point at a level's bound stays inside it.
  std::vector<std::pair<double, int>> want;
  auto inside = [&](double lo, double hi) {  // three points, geometric (quick: the middle one)
    if (hi < lo) return;
    const double mid = std::sqrt(lo * hi);
    if (quick) want.push_back({mid, 0});
    else want.insert(want.end(), {{lo, +1}, {mid, 0}, {hi, -1}});
  };
  auto between = [&](double lo, double hi) {
    if (!quick && hi > lo) want.push_back({std::sqrt(lo * hi), 0});
  };
  inside(0.25 * l1 * t, 0.75 * l1 * t);
  between(0.75 * l1 * t, 2 * l1 * t);
  inside(2 * l1 * t, 0.75 * l2 * t);
  between(0.75 * l2 * t, std::min(2 * l2 * t, 0.75 * llc));
  inside(2 * l2 * t, 0.75 * llc);
  between(0.75 * llc, 4 * caches);
  want.push_back({4 * caches * std::max(1, arrays), +1});  // every array >= 4 × (L3 + L2s) (STREAM's rule)
  std::vector<std::int64_t> out;
  for (const auto& [bytes, mode] : want) {
    const double x = bytes / quantum;
    const double q = mode > 0 ? std::ceil(x) : mode < 0 ? std::floor(x) : std::round(x);
    const auto v = static_cast<std::int64_t>(std::max(1.0, q) * quantum);
    if (out.empty() || v > out.back()) out.push_back(v);
  }
  return out;
}

double read_closed_form(std::int64_t n) {
  const std::int64_t full = n / 1024, rem = n % 1024;
  const double block = 1023.0 * 1024.0 / 2.0 + 512.0;  // sum_{j<1024} (j + 0.5)
  return static_cast<double>(full) * block + static_cast<double>(rem) * static_cast<double>(rem - 1) / 2.0 +
         0.5 * static_cast<double>(rem);
}

stream_arrays::stream_arrays(std::int64_t max_elements, int threads)
    : threads_(std::max(1, threads)),
      a_(static_cast<std::size_t>(max_elements + 8)),
      b_(static_cast<std::size_t>(max_elements + 8)),
      c_(static_cast<std::size_t>(max_elements + 8)) {
  double* a = a_.data();
  double* b = b_.data();
  double* c = c_.data();
  const std::int64_t n = static_cast<std::int64_t>(a_.size());
  for (double* x : {a, b, c}) advise_huge_pages(x, static_cast<std::size_t>(n) * sizeof(double));
#pragma omp parallel num_threads(threads_)
  {
    const int t = thread_id(), nt = team_size();
    auto [lo, hi] = chunk(n, t, nt);
    for (std::int64_t i = lo; i < hi; ++i) {
      a[i] = init_b(i);
      b[i] = init_b(i);
      c[i] = init_c(i);
    }
  }
}

double stream_arrays::run(stream_pattern p, std::int64_t n, int passes, stream_kernel k) {
  if (n <= 0 || n > max_elements()) throw probe_error(fmt::format("bandwidth/{}: bad size {}", to_string(p), n));
  const auto allowed = kernels_for(p, true);
  if (std::find(allowed.begin(), allowed.end(), k) == allowed.end())
    throw probe_error(fmt::format("bandwidth/{}: no kernel variant '{}'", to_string(p), to_string(k)));
  ++sample_;
  const double scalar = 1.0 + static_cast<double>(sample_ % 3);
  const double write_base = 1.0 + static_cast<double>((sample_ * 7) % 1024);
  std::vector<double> partial(static_cast<std::size_t>(threads_) * 8, 0.0);  // one cache line per thread
  double* a = a_.data();
  const double* b = b_.data();
  const double* c = c_.data();
  if (p == stream_pattern::read) {
    // read sums the b-initialised values held in a; restore them if a write ran before
    if (a_dirty_) {
      const std::int64_t na = static_cast<std::int64_t>(a_.size());
#pragma omp parallel for num_threads(threads_) schedule(static)
      for (std::int64_t i = 0; i < na; ++i) a[i] = init_b(i);
      a_dirty_ = false;
    }
  } else if (p != stream_pattern::copy) {
    a_dirty_ = true;  // write and triad leave other values in a
  }
  const double t0 = now_s();
#pragma omp parallel num_threads(threads_)
  {
    const int t = thread_id(), nt = team_size();
    const auto [lo, hi] = chunk(n, t, nt);
    double acc = 0;
    for (int pass = 0; pass < passes; ++pass) {
      const bool nt = k == stream_kernel::nontemporal;
      switch (p) {
        case stream_pattern::read:
          acc += k == stream_kernel::read4 ? sum_chunk4(a + lo, hi - lo) : sum_chunk(a + lo, hi - lo);
          break;
        case stream_pattern::write:
          if (nt) nt_chunk<0>(a + lo, nullptr, nullptr, hi - lo, write_base + pass);
          else write_chunk(a + lo, hi - lo, write_base + pass);
          break;
        case stream_pattern::copy:
          if (nt) nt_chunk<1>(a + lo, b + lo, nullptr, hi - lo, 0);
          else if (k == stream_kernel::memcpy) std::memcpy(a + lo, b + lo, static_cast<std::size_t>(hi - lo) * sizeof(double));
          else copy_chunk(a + lo, b + lo, hi - lo);
          break;
        case stream_pattern::triad:
          if (nt) nt_chunk<2>(a + lo, b + lo, c + lo, hi - lo, scalar);
          else triad_chunk(a + lo, b + lo, c + lo, hi - lo, scalar);
          break;
      }
      asm volatile("" ::: "memory");  // every pass reads and writes memory again
    }
    partial[static_cast<std::size_t>(t) * 8] = acc;
  }
  const double t1 = now_s();

  // check_solution
  const std::string name = "bandwidth/" + to_string(p);
  if (p == stream_pattern::read) {
    double sum = 0;
    for (int t = 0; t < threads_; ++t) sum += partial[static_cast<std::size_t>(t) * 8];
    const double expect = passes * read_closed_form(n);
    if (std::abs(sum - expect) > 1e-12 * expect)
      throw probe_error(fmt::format("{}: sum {} != closed form {} (n = {}, passes = {})", name, sum, expect, n, passes));
  } else {
    for (int q = 0; q <= 64; ++q) {
      const std::int64_t j = (n - 1) * q / 64;
      double expect = 0;
      if (p == stream_pattern::write) expect = write_base + (passes - 1);
      if (p == stream_pattern::copy) expect = b[j];
      if (p == stream_pattern::triad) expect = b[j] + scalar * c[j];
      if (a[j] != expect)
        throw probe_error(fmt::format("{}: a[{}] = {} but expected {} (n = {})", name, j, a[j], expect, n));
    }
  }
  return t1 - t0;
}

}  // namespace roofline::cpu
