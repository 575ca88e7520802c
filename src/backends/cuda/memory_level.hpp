// Which memory level a working set exercises, and the working-set sweep. Pure host code, unit-tested
// in tests/cudahost.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace roofline::cuda {

struct memory_level {
  std::string level;  ///< "l2" | "dram" | "l2+dram"
  std::string flag;   ///< "" or a note: "hbm" for HBM device memory, "transition: …" in between
};

/// Label of a working set of `bytes` on a GPU with an L2 of `l2_bytes`:
///   bytes <= l2/2     -> "l2" (fits with room for the other partition's copy and the replacement policy);
///   bytes >= 4 × l2   -> "dram" (at most a quarter can hit in L2), flag "hbm" when `hbm`;
///   otherwise         -> "l2+dram" with a flag naming the ratio (not a roof of either level).
/// l2_bytes <= 0 labels everything "dram".
memory_level label_memory_level(std::int64_t bytes, std::int64_t l2_bytes, bool hbm);

/// Working sets (total bytes over all arrays) of the sweep: powers of two from 256 KiB up to
/// max(512 MiB, the first power of two >= 8 × l2), each <= max_bytes. quick keeps every fourth size
/// (256 KiB, 4 MiB, 64 MiB, ...) plus the largest.
std::vector<std::int64_t> sweep_sizes(std::int64_t l2_bytes, std::int64_t max_bytes, bool quick);

}  // namespace roofline::cuda
