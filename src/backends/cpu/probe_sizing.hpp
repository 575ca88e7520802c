// Every buffer, pool and working set the CPU probes derive from the cache sizes, computed in one
// place from a cache geometry (not from the host), with the preconditions each probe relies on
// checked by one function per probe. The probes size themselves through these functions, and a
// test runs them over a table of geometries (LLC 0 … 1 GiB, L2 256 KiB … 64 MiB, 1 … 256 threads).
// Methodology: docs/methodology-cpu.md §"Sizing from the cache geometry".
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "backends/cpu/stream_kernels.hpp"

namespace roofline::cpu {

/// The LLC size assumed when the CPU reports neither an L3 nor an L2 (bytes): 64 MiB, larger than
/// the L3 of most desktop and laptop parts, so a working set sized "beyond the LLC" from it is
/// beyond a real one too. Over-estimating only makes the buffers larger; under-estimating would
/// leave a "cold" read in cache.
inline constexpr std::int64_t assumed_llc_bytes = 64ll << 20;

/// The cache capacity the probes size beyond (bytes): the L3 (total) plus every thread's L2, since
/// neither AMD's L3 (a victim cache of the L2s) nor recent Intel L3s are inclusive, so a line can sit
/// in an L2 and not in the L3; assumed_llc_bytes when neither is reported (`assumed` set).
/// STREAM's rule sizes each array at 4 × "the sum of all the last-level caches used in the run"
/// (McCalpin, STREAM FAQ); a 256-thread part with 2 MiB L2s holds 512 MiB in its L2s alone.
std::int64_t sizing_cache_bytes(const cache_sizes& c, int threads, bool* assumed = nullptr);

/// The small-work probe's sizes (probe_latency.cpp).
struct small_work_plan {
  std::vector<std::int64_t> ramp;         ///< all-thread cold-read sizes: 4 KiB × 4^i up to 64 MiB (quick) or 1 GiB
  std::vector<std::int64_t> serial_ramp;  ///< one-thread cold-read sizes: 4 KiB … 1 MiB
  std::int64_t copy_bytes = 0;            ///< the write-cost copy: 64 MiB (a ramp size, so its read is measured)
  std::int64_t llc_bytes = 0;             ///< sizing_cache_bytes
  /// max(largest ramp size, 2 × copy_bytes, 3 × LLC), a multiple of 8: one slot for the largest read,
  /// a source and a destination slot for the copy, and enough slots that the rotation evicts each
  /// read before it comes round again.
  std::int64_t pool_bytes = 0;
};
small_work_plan plan_small_work(const cache_sizes& c, int threads, bool quick);

/// The preconditions measure_small_work relies on, each violated one as a line (empty = all hold):
/// the pool holds the largest ramp read, two copy slots, and 3 × LLC; the copy size is one of the
/// ramp's sizes; sizes strictly increasing multiples of 8 B.
std::vector<std::string> small_work_violations(const small_work_plan& p);

/// The bandwidth sweep's preconditions (sweep_sizes for a pattern of `arrays` arrays): strictly
/// increasing multiples of 384 B × threads; the last point labelled "dram" by memory_level, with
/// every array ≥ 4 × the sizing LLC (STREAM's rule); each line names the violated rule.
std::vector<std::string> sweep_violations(const std::vector<std::int64_t>& sizes, const cache_sizes& c, int threads, int arrays);

/// Copies of a buffer of `bytes_per_copy` that a probe or op rotates over so that each run starts
/// with its inputs out of the caches: ceil(2 × C ÷ bytes), at least 1 and at most `max_copies`, so
/// the rotated set is ≥ 2 × C (C = sizing_cache_bytes) unless the cap binds. The cap bounds memory:
/// a whole step keeps every op's copies at once (about 8 GB for TinyLlama's decode step on a CPU
/// reporting a 260 MiB L3), and without it every 64-byte op would add 2 × 264 MiB more.
/// Callers: the op runner (at most 4096 copies: the timed runs of an op are at most 1000, so each
/// run still starts on a copy the previous runs did not touch) and the GEMM rows probe (at most 64).
int rotation_copies(double bytes_per_copy, std::int64_t cache_bytes, int max_copies);

/// One size of the square GEMM sweep, as the stopping rule reads it.
struct gemm_size_point {
  std::int64_t n = 0;
  double median_flops_per_s = 0;  ///< sets the time of one call
  double best_flops_per_s = 0;    ///< the rate the roof is taken from (best of repeats); 0: the median
};
/// Whether the square GEMM sweep (n = 256, 512 … 4096, each 8× the work of the one before) stops
/// after the last point: its call took at least `min_call_s` (2n³ ÷ its median rate) and its best
/// rate (the roof's statistic) is not above `gain` × the best rate of the sizes before it. Past that the rate has
/// levelled or fallen (the GEMM roof is the best size's) and a larger n only costs 8× the time: on a
/// 2-vCPU Xeon guest the fp32 roof stood at n = 512, fp64 at n = 256, while n = 4096 took
/// 11 s and 21 s of the run. Returns "" to go on, else the reason, for the probe's flags.
std::string gemm_sweep_stop(const std::vector<gemm_size_point>& so_far, double min_call_s = 0.1, double gain = 1.02);

}  // namespace roofline::cpu
