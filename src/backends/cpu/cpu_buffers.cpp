#include "backends/cpu/cpu_buffers.hpp"

#include <algorithm>
#include <cstdint>
#include <fstream>
#include <sstream>

#if defined(__linux__)
#include <sys/mman.h>
#endif

#include <fmt/format.h>

#include "backends/cpu/cpu_detect.hpp"
#ifdef ROOFLINE_HAVE_OPENBLAS
#include <cblas.h>
#endif
#ifdef ROOFLINE_HAVE_OPENMP
#include <omp.h>
#endif

namespace roofline::cpu {

int worker_threads() {
  int cores = std::max(1, detect_cpu().desc.cores);
#ifdef ROOFLINE_HAVE_OPENMP
  return std::max(1, std::min(cores, omp_get_max_threads()));
#else
  (void)cores;
  return 1;
#endif
}

std::string openblas_version() {
#ifdef ROOFLINE_HAVE_OPENBLAS
  std::string v = OPENBLAS_VERSION;  // " OpenBLAS 0.3.21 "
  v.erase(0, v.find_first_not_of(' '));
  v.erase(v.find_last_not_of(' ') + 1);
  return v;
#else
  return "OpenBLAS (not built in)";
#endif
}

bool openblas_is_openmp_build() {
#ifdef ROOFLINE_HAVE_OPENBLAS
  return openblas_get_parallel() == 2;
#else
  return false;
#endif
}

std::string openblas_pool_note(int openblas_parallel) {
  if (openblas_parallel != 1) return "";
  return "; OpenBLAS is its pthreads build: its workers keep spinning after each GEMM while the next op's OpenMP "
         "threads start, two pools on the same cores, so a whole step can take twice the sum of its isolated ops "
         "(2-vCPU Zen 4 guest) or more (9x on a 16-vCPU Xeon, bench/results/cpu-xeon/2026-12-02-e987392); OpenBLAS's "
         "OpenMP build (Debian: libopenblas-openmp-dev) shares one pool";
}

std::string openblas_threading(int threads) {
#ifdef ROOFLINE_HAVE_OPENBLAS
  const int p = openblas_get_parallel();
  const char* kind = p == 2 ? "OpenMP build" : p == 1 ? "pthreads build" : "sequential build";
  return fmt::format("{} threads, {}", p == 0 ? 1 : threads, kind);
#else
  return fmt::format("{} threads", threads);
#endif
}

bool huge_page_advice_stalls(const std::string& text) {
  const auto open = text.find('['), close = text.find(']');
  if (open == std::string::npos || close == std::string::npos || close < open) return false;
  const std::string mode = text.substr(open + 1, close - open - 1);
  return mode == "always" || mode == "madvise" || mode == "defer+madvise";
}

bool huge_page_advice_stalls() {
  static const bool stalls = [] {
    std::ifstream f("/sys/kernel/mm/transparent_hugepage/defrag");
    std::stringstream ss;
    ss << f.rdbuf();
    return f ? huge_page_advice_stalls(ss.str()) : false;
  }();
  return stalls;
}

void advise_huge_pages(void* p, std::size_t bytes) {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  constexpr std::uintptr_t huge = std::uintptr_t{2} << 20;
  if (bytes < 2 * huge || huge_page_advice_stalls()) return;
  const auto begin = (reinterpret_cast<std::uintptr_t>(p) + huge - 1) & ~(huge - 1);
  const auto end = (reinterpret_cast<std::uintptr_t>(p) + bytes) & ~(huge - 1);
  if (end > begin) (void)madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE);
#else
  (void)p;
  (void)bytes;
#endif
}

namespace {
inline std::uint64_t splitmix64(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}
template <class T>
void fill(T* x, std::size_t n, std::uint64_t seed, T lo, T hi) {
  const std::int64_t nn = static_cast<std::int64_t>(n);
#pragma omp parallel for schedule(static) if (nn > 65536)
  for (std::int64_t i = 0; i < nn; ++i) {
    const double u = static_cast<double>(splitmix64(seed * 0x100000001B3ull + static_cast<std::uint64_t>(i)) >> 11) * 0x1.0p-53;
    x[i] = static_cast<T>(lo + (hi - lo) * u);
  }
}
}  // namespace

void fill_uniform(float* x, std::size_t n, std::uint64_t seed, float lo, float hi) { fill(x, n, seed, lo, hi); }
void fill_uniform(double* x, std::size_t n, std::uint64_t seed, double lo, double hi) { fill(x, n, seed, lo, hi); }

}  // namespace roofline::cpu
