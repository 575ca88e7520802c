// Which memory level a working set exercises, and the working sets of the sweep. Pure host code,
// unit-tested in tests/cudahost. Methodology and sources: docs/methodology-gpu.md, "Memory levels".
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace roofline::cuda {

struct memory_level {
  std::string level;  ///< "l1" | "l2" | "dram" | "l2+dram" (a transition, never a roof)
  std::string flag;   ///< why this level: the rule that gave it, with the numbers
};

/// Label of a grid-stride sweep point (all SMs, L1 bypassed) with a working set of `bytes` on a GPU
/// with an L2 of `l2_bytes`:
///   bytes <= l2/2     -> "l2", near: fits twice, once in each L2 partition (A100/H100 whitepapers);
///   bytes <= 3/4 · l2 -> "l2", far: fits once; part of it is served by the other partition;
///   bytes >= 4 × l2   -> "dram" (at most a quarter can hit in L2; STREAM's rule of 4×), flag
///                        names "hbm" when `hbm`;
///   otherwise         -> "l2+dram", a transition, with the ratio to the L2 size.
/// l2_bytes <= 0 labels everything "dram".
memory_level label_memory_level(std::int64_t bytes, std::int64_t l2_bytes, bool hbm);

/// Label of an L1 sweep point: `per_sm_bytes` re-read by the blocks of each SM, against an L1 of
/// `l1_bytes` per SM: "l1" when per_sm_bytes <= l1_bytes / 2 (room for an uneven spread of blocks
/// over SMs), otherwise "l1+l2".
memory_level label_l1_level(std::int64_t per_sm_bytes, std::int64_t l1_bytes);

/// Estimated L1 data capacity per SM with no shared memory carved out: the maximum shared memory per
/// SM + 28 KiB. Matches the unified L1/shared sizes of the CUDA C++ Programming Guide's compute
/// capability tables: 9.0 228 + 28 = 256 KiB, 8.0 164 + 28 = 192 KiB, 8.6/8.9 100 + 28 = 128 KiB.
std::int64_t l1_bytes_per_sm(std::int64_t shared_mem_per_sm_bytes);

/// Per-SM working sets of the L1 sweep: powers of two from 16 KiB up to l1_bytes / 2 (quick: the
/// smallest and the largest only).
std::vector<std::int64_t> l1_sweep_sizes(std::int64_t l1_bytes, bool quick);

/// Working sets (total bytes over all arrays) of the grid-stride sweep, each <= max_bytes:
///   L2:          l2 × {1/8, 3/16, 1/4, 3/8, 1/2, 5/8, 3/4}   (quick: 1/4, 1/2)
///   transitions: l2 × {1, 3/2, 2, 3}                          (quick: 2)
///   DRAM:        l2 × 4 and max(512 MiB, the first power of two >= 8 × l2) (quick: the first)
/// rounded down to whole 64 KiB. The device-memory roof (largest arrays) is added by the probe.
std::vector<std::int64_t> sweep_sizes(std::int64_t l2_bytes, std::int64_t max_bytes, bool quick);

}  // namespace roofline::cuda
