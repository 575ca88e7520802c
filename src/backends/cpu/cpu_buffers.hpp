// Small helpers shared by the CPU probes and op kernels: 64-byte aligned buffers, the thread count
// the probes use, and a reproducible non-zero random fill (splitmix64, Steele et al. 2014).
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <new>
#include <string>

namespace roofline::cpu {

/// An uninitialised, 64-byte aligned array of `n` T (first touch is the caller's, so that OpenMP
/// threads place their own pages). Throws std::bad_alloc.
template <class T>
class aligned_buffer {
 public:
  aligned_buffer() = default;
  explicit aligned_buffer(std::size_t n) : n_(n) {
    const std::size_t bytes = ((n * sizeof(T) + 63) / 64) * 64;
    p_.reset(static_cast<T*>(std::aligned_alloc(64, bytes > 0 ? bytes : 64)));
    if (!p_) throw std::bad_alloc();
  }
  T* data() { return p_.get(); }
  const T* data() const { return p_.get(); }
  std::size_t size() const { return n_; }
  T& operator[](std::size_t i) { return p_.get()[i]; }
  const T& operator[](std::size_t i) const { return p_.get()[i]; }

 private:
  struct freer {
    void operator()(T* p) const { std::free(p); }
  };
  std::unique_ptr<T, freer> p_;
  std::size_t n_ = 0;
};

/// Asks the kernel for transparent huge pages over the 2 MiB-aligned part of [p, p + bytes)
/// (madvise MADV_HUGEPAGE; Linux Documentation/admin-guide/mm/transhuge.rst), before the first touch,
/// so that streaming kernels are not limited by TLB misses where THP is in "madvise" mode. A hint:
/// failures are ignored; does nothing for buffers under 4 MiB, off Linux, or where the kernel would
/// compact memory synchronously for it (huge_page_advice_stalls).
void advise_huge_pages(void* p, std::size_t bytes);

/// True when THP's defrag policy (/sys/kernel/mm/transparent_hugepage/defrag, the bracketed word)
/// makes a page fault in a MADV_HUGEPAGE region stall for direct reclaim and compaction: "always",
/// "madvise" (Debian's default) and "defer+madvise" (transhuge.rst, "defrag"); false for "defer" and
/// "never", and when the file is unreadable. Measured on a 2-vCPU Xeon guest with "madvise" and
/// fragmented memory: the first touch of 2 GB took 12.3 s advised, 1.7 s not, and the
/// advised region got no huge page (AnonHugePages 0 kB) — the advice cost 8× and bought nothing.
bool huge_page_advice_stalls(const std::string& defrag_file_text);
bool huge_page_advice_stalls();

/// Threads the probes and kernels use: the physical cores (detected), capped by OMP_NUM_THREADS.
int worker_threads();

/// True where OpenBLAS is its OpenMP build (openblas_get_parallel() == 2): a call inside an OpenMP
/// parallel region then runs on the calling thread alone, so kernels may call it once per thread.
bool openblas_is_openmp_build();

/// The whole-step note on OpenBLAS's threads (`openblas_parallel` as openblas_get_parallel returns
/// it): "" for the OpenMP build (2: one pool with our OpenMP ops) and the sequential one (0: no pool of
/// its own); for the pthreads build (1), the warning that its workers and the OpenMP ops' threads are
/// two pools contending between ops, with the measured cost.
std::string openblas_pool_note(int openblas_parallel);

/// OpenBLAS's version as its header states it ("OpenBLAS 0.3.21"), trimmed; "OpenBLAS (not built in)".
std::string openblas_version();

/// "16 threads, OpenMP build": the threads an OpenBLAS call uses and how the library was built
/// (openblas_get_parallel: 0 sequential, 1 pthreads, 2 OpenMP). A pthreads build keeps its workers
/// spinning after a call (OPENBLAS_THREAD_TIMEOUT, read when the library loads), beside the next
/// OpenMP op's threads; the OpenMP build shares libgomp's pool with them.
std::string openblas_threading(int threads);

/// Fills x[0..n) with uniform values in [lo, hi) from a splitmix64 stream (parallel, reproducible
/// for a given seed). With lo > 0 or hi < 0 no value is zero.
void fill_uniform(float* x, std::size_t n, std::uint64_t seed, float lo = -1.0f, float hi = 1.0f);
void fill_uniform(double* x, std::size_t n, std::uint64_t seed, double lo = -1.0, double hi = 1.0);

}  // namespace roofline::cpu
