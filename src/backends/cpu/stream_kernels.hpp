// STREAM-style memory kernels (McCalpin, STREAM; BabelStream's read/write/copy/triad set), all
// threads, fp64 arrays, each thread on its own contiguous chunk (first-touched by that thread, on
// transparent huge pages where the kernel allows them).
//
//   read   s += a[i]            bytes = 8 n        (sum reduction; 1 array)
//   write  a[i] = v             bytes = 8 n        (write-allocate reads NOT counted)
//   copy   a[i] = b[i]          bytes = 16 n       (read + write)
//   triad  a[i] = b[i] + s c[i] bytes = 24 n       (2 reads + 1 write)
//
// Each pattern has kernel variants (stream_kernel); the probe times the allowed ones briefly and keeps
// the fastest: read with 1 or 4 concurrent streams per thread; write/copy/triad with plain stores or
// non-temporal stores (AVX-512 / AVX2 / SSE2 streaming stores: no read-for-ownership, only for
// working sets beyond the caches); copy also with the C library's memcpy.
//
// Checked like BabelStream's check_solution: the read sum equals its closed form exactly (inputs
// are half-integers, so every partial sum is exact in double), copy/triad/write outputs are
// compared at sampled indices after every timed run.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "backends/cpu/cpu_buffers.hpp"
#include "roofline/measure.hpp"

namespace roofline::cpu {

enum class stream_pattern { read, write, copy, triad };
std::string to_string(stream_pattern p);
int arrays_of(stream_pattern p);  ///< arrays touched: 1, 1, 2, 3

/// Kernel variants: plain loops (read: one stream per thread), read with four concurrent streams per
/// thread, non-temporal (streaming) stores, and the C library's memcpy (copy only).
enum class stream_kernel { plain, read4, nontemporal, memcpy };
std::string to_string(stream_kernel k);
/// The variants of pattern p; non-temporal stores only when `beyond_caches` (they bypass the caches).
std::vector<stream_kernel> kernels_for(stream_pattern p, bool beyond_caches);

/// Per-core L1d and L2, total L3 (bytes; 0 = unknown).
struct cache_sizes {
  std::int64_t l1d = 0, l2 = 0, l3_total = 0;
};

/// A level and why (the capacities it was compared with).
struct level_label {
  std::string level;  ///< l1 | l1+l2 | l2 | l2+llc | llc | llc+dram | dram | unknown
  std::string why;
};

/// Memory level a working set of `working_set_bytes` (all arrays, all threads) streams from when
/// split over `threads` threads. A level "holds" a set when it is at most 3/4 of its capacity (room
/// for the stack, code and a replacement policy that is not LRU), and is "left" when the set is at
/// least twice its capacity (a cyclic sweep then evicts every line before its reuse); in between is
/// the transition "a+b". Private caches (L1d, L2) are compared with the thread's share, the LLC with
/// the total; "dram" once the total is >= 4 × the LLC. "unknown" without cache sizes.
level_label memory_level(std::int64_t working_set_bytes, int threads, const cache_sizes& c);

/// Total working sets of the sweep for a pattern touching `arrays` arrays: three points inside each
/// cache level (L1d/4, L1d/2, 3/4 L1d per thread; 2 L1d … 3/4 L2 per thread; 2 L2 per thread …
/// 3/4 LLC in total, geometric), one in each transition, and the device-memory point with every
/// array at 4 × the LLC (STREAM's rule). quick: one point per level plus device memory. Each is a
/// multiple of 384 B × threads, strictly increasing.
std::vector<std::int64_t> sweep_sizes(const cache_sizes& c, int threads, int arrays, bool quick);

/// Closed form of sum_{i<n} (i mod 1024 + 0.5): the read kernel's expected sum per pass.
double read_closed_form(std::int64_t n);

/// Value the arrays are initialised with: b[i] = i mod 1024 + 0.5, c[i] = 0.25 (1 + i mod 7).
inline double init_b(std::int64_t i) { return static_cast<double>(i % 1024) + 0.5; }
inline double init_c(std::int64_t i) { return 0.25 * static_cast<double>(1 + i % 7); }

/// Three arrays of `max_elements` each; every array first-touched in parallel with the same static
/// split the kernels use.
class stream_arrays {
 public:
  stream_arrays(std::int64_t max_elements, int threads);
  /// One timed sample: `passes` passes of `p` with kernel `k` over the first n elements of each
  /// array it uses (the working set is arrays_of(p) × 8 n bytes), checked afterwards. Returns seconds.
  /// Throws probe_error when the check fails or k is not a variant of p.
  double run(stream_pattern p, std::int64_t n, int passes, stream_kernel k = stream_kernel::plain);
  /// Largest n the arrays allow.
  std::int64_t max_elements() const { return static_cast<std::int64_t>(a_.size()) - 8; }
  int threads() const { return threads_; }

 private:
  int threads_;
  aligned_buffer<double> a_, b_, c_;
  std::int64_t sample_ = 0;
  bool a_dirty_ = false;
};

}  // namespace roofline::cpu
