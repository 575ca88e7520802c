// STREAM-style memory kernels (McCalpin, STREAM; BabelStream's read/write/copy/triad set), all
// threads, fp64 arrays, each thread on its own contiguous chunk (first-touched by that thread).
//
//   read   s += a[i]            bytes = 8 n        (sum reduction; 1 array)
//   write  a[i] = v             bytes = 8 n        (plain stores; write-allocate reads NOT counted)
//   copy   a[i] = b[i]          bytes = 16 n       (read + write)
//   triad  a[i] = b[i] + s c[i] bytes = 24 n       (2 reads + 1 write)
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

/// Per-core L1d and L2, total L3 (bytes; 0 = unknown).
struct cache_sizes {
  std::int64_t l1d = 0, l2 = 0, l3_total = 0;
};

/// Memory level a working set of `working_set_bytes` (all arrays, all threads) streams from when
/// split over `threads` threads: "l1" when the per-thread share fits in L1d, "l2" in L2, "llc"
/// when it fits the thread's share of L3; "dram" once the total is ≥ 4× the last-level cache;
/// "mixed" in between (partly cached). "unknown" when no cache size is known.
std::string memory_level(std::int64_t working_set_bytes, int threads, const cache_sizes& c);

/// Log-spaced total working sets from threads × L1d / 2 up to 4 × LLC (inclusive), `points` of
/// them, each rounded to a multiple of 64 B × threads × 3.
std::vector<std::int64_t> sweep_sizes(const cache_sizes& c, int threads, int points);

/// Closed form of sum_{i<n} (i mod 1024 + 0.5): the read kernel's expected sum per pass.
double read_closed_form(std::int64_t n);

/// Value the arrays are initialised with: b[i] = i mod 1024 + 0.5, c[i] = 0.25 (1 + i mod 7).
inline double init_b(std::int64_t i) { return static_cast<double>(i % 1024) + 0.5; }
inline double init_c(std::int64_t i) { return 0.25 * static_cast<double>(1 + i % 7); }

/// Arrays for the whole sweep: a holds the largest working set, b half of it, c a third; every
/// array first-touched in parallel with the same static split the kernels use.
class stream_arrays {
 public:
  stream_arrays(std::int64_t max_working_set_bytes, int threads);
  /// One timed sample: `passes` passes of `p` over the first n elements of each array it uses (the
  /// working set is arrays_of(p) × 8 n bytes), checked afterwards. Returns seconds.
  /// Throws probe_error when the check fails.
  double run(stream_pattern p, std::int64_t n, int passes);
  /// Largest n the arrays allow for pattern p.
  std::int64_t max_elements(stream_pattern p) const;
  int threads() const { return threads_; }

 private:
  int threads_;
  aligned_buffer<double> a_, b_, c_;
  std::int64_t sample_ = 0;
  bool a_dirty_ = false;
};

}  // namespace roofline::cpu
