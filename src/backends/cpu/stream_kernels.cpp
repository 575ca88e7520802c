#include "backends/cpu/stream_kernels.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>

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

std::string memory_level(std::int64_t working_set_bytes, int threads, const cache_sizes& c) {
  const int t = std::max(1, threads);
  const double per_thread = static_cast<double>(working_set_bytes) / t;
  if (c.l1d > 0 && per_thread <= c.l1d) return "l1";
  if (c.l2 > 0 && per_thread <= c.l2) return "l2";
  if (c.l3_total > 0 && per_thread <= static_cast<double>(c.l3_total) / t) return "llc";
  const double llc = c.l3_total > 0 ? static_cast<double>(c.l3_total) : static_cast<double>(c.l2) * t;
  if (llc <= 0) return c.l1d > 0 ? "mixed" : "unknown";
  return static_cast<double>(working_set_bytes) >= 4.0 * llc ? "dram" : "mixed";
}

std::vector<std::int64_t> sweep_sizes(const cache_sizes& c, int threads, int points) {
  const int t = std::max(1, threads);
  const std::int64_t quantum = 384 * static_cast<std::int64_t>(t);  // 8 B × 8 lanes × lcm(1,2,3) × 2 per thread
  const double llc = c.l3_total > 0 ? c.l3_total : c.l2 > 0 ? static_cast<double>(c.l2) * t : 64.0 * 1048576;
  const double lo = std::max<double>(static_cast<double>(t) * (c.l1d > 0 ? c.l1d : 32768) / 2.0, 8.0 * quantum);
  const double hi = 4.0 * llc;
  std::vector<std::int64_t> out;
  const int n = std::max(2, points);
  for (int i = 0; i < n; ++i) {
    const double x = lo * std::pow(hi / lo, static_cast<double>(i) / (n - 1));
    std::int64_t s = static_cast<std::int64_t>(std::llround(x / quantum)) * quantum;
    if (i == n - 1) s = static_cast<std::int64_t>(std::ceil(hi / quantum)) * quantum;  // ≥ 4 × LLC
    if (out.empty() || s > out.back()) out.push_back(s);
  }
  return out;
}

double read_closed_form(std::int64_t n) {
  const std::int64_t full = n / 1024, rem = n % 1024;
  const double block = 1023.0 * 1024.0 / 2.0 + 512.0;  // sum_{j<1024} (j + 0.5)
  return static_cast<double>(full) * block + static_cast<double>(rem) * static_cast<double>(rem - 1) / 2.0 +
         0.5 * static_cast<double>(rem);
}

stream_arrays::stream_arrays(std::int64_t max_working_set_bytes, int threads)
    : threads_(std::max(1, threads)),
      a_(static_cast<std::size_t>(max_working_set_bytes / 8 + 8)),
      b_(static_cast<std::size_t>(max_working_set_bytes / 16 + 8)),
      c_(static_cast<std::size_t>(max_working_set_bytes / 24 + 8)) {
  double* a = a_.data();
  double* b = b_.data();
  double* c = c_.data();
  const std::int64_t na = a_.size(), nb = b_.size(), nc = c_.size();
#pragma omp parallel num_threads(threads_)
  {
    const int t = thread_id(), nt = team_size();
    auto [alo, ahi] = chunk(na, t, nt);
    for (std::int64_t i = alo; i < ahi; ++i) a[i] = init_b(i);
    auto [blo, bhi] = chunk(nb, t, nt);
    for (std::int64_t i = blo; i < bhi; ++i) b[i] = init_b(i);
    auto [clo, chi] = chunk(nc, t, nt);
    for (std::int64_t i = clo; i < chi; ++i) c[i] = init_c(i);
  }
}

std::int64_t stream_arrays::max_elements(stream_pattern p) const {
  switch (p) {
    case stream_pattern::read:
    case stream_pattern::write: return static_cast<std::int64_t>(a_.size()) - 8;
    case stream_pattern::copy: return static_cast<std::int64_t>(b_.size()) - 8;
    case stream_pattern::triad: return static_cast<std::int64_t>(c_.size()) - 8;
  }
  return 0;
}

double stream_arrays::run(stream_pattern p, std::int64_t n, int passes) {
  if (n <= 0 || n > max_elements(p)) throw probe_error(fmt::format("bandwidth/{}: bad size {}", to_string(p), n));
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
    for (int k = 0; k < passes; ++k) {
      switch (p) {
        case stream_pattern::read: acc += sum_chunk(a + lo, hi - lo); break;
        case stream_pattern::write: write_chunk(a + lo, hi - lo, write_base + k); break;
        case stream_pattern::copy: copy_chunk(a + lo, b + lo, hi - lo); break;
        case stream_pattern::triad: triad_chunk(a + lo, b + lo, c + lo, hi - lo, scalar); break;
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
