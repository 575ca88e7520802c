// The CPU's small-work regime (measured.small_work): the floor of a dependent chain of OpenMP
// parallel regions, and the time of a cold parallel read from 4 KiB up to 1 GiB (the ramp).
// Methodology: docs/formulas-analysis.md §7.2.
#pragma once
#include <cstdint>
#include <vector>

#include "backends/cpu/stream_kernels.hpp"
#include "roofline/backend.hpp"

namespace roofline::cpu {

/// Ramp sizes: 4 KiB × 4^i up to `max_bytes` (4 KiB, 16 KiB, …, 1 GiB).
std::vector<std::int64_t> ramp_sizes(std::int64_t max_bytes);

/// Per-region floor of `regions` dependent parallel regions on `threads` threads (1: regions whose
/// `if` clause is false, as a small op opens them): region i reads the
/// counter region i − 1 wrote and writes it + 1; the final counter must equal `regions` (else
/// probe_error). Returns the per-region seconds of each timed chain.
std::vector<double> parallel_region_chain(int threads, int regions, const timing_options& timing);

/// Measures floor and ramp (sizes up to 1 GiB, 64 MiB when quick), and the one-thread floor and
/// ramp (4 KiB … 1 MiB) of ops below serial_below_elements (op_kernels.hpp); every read's sum is
/// checked against its closed form. Throws probe_error on a failed check.
small_work_result measure_small_work(const timing_options& timing, bool quick);
/// The same, sized for `caches` instead of the detected ones (plan_small_work): the pool, the ramp
/// and the copy follow the geometry given, whatever the host's.
small_work_result measure_small_work(const timing_options& timing, bool quick, const cache_sizes& caches);

/// The probe "latency/small-work" (group "latency") that writes measured.small_work.
probe small_work_probe(const probe_options& opt);

}  // namespace roofline::cpu
