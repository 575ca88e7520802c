// Costs for the kernels a reader could not cost from their own counters or shapes: CUDA-graph
// replays, kernels of the profiler's warm-up step whose launches were dropped, and (with a model)
// compiled and replayed kernels matched to the model's own step. Each filled count says where it came
// from (ingest::count_source: capture, same_kernel, catalogue) and each kernel why (cost_from).
// Nothing is invented: a kernel no source fits stays unattributed with the reason. Rules and their
// order: docs/ingest.md, "Where a kernel's cost comes from".
#pragma once
#include <cstddef>
#include <string>
#include <vector>

#include "roofline/ingest.hpp"

namespace roofline {

/// What fill_costs did.
struct cost_fill {
  std::size_t capture = 0;      ///< replayed kernels costed from their graph's captured launches
  std::size_t same_kernel = 0;  ///< kernels costed from the same kernel (or the same launch of a repeated step)
  std::vector<std::string> notes;  ///< what could not be matched, one line each
};

/// Fills the FLOPs and bytes of the kernels of `in` that have none, in order of trust:
///  1. capture: the kernels of one CUDA-graph replay (kernel_record::replay), in start order, against
///     the graph's captured launches (ingest_result::captured, one segment of consecutive launches
///     with no kernel launched between them, of exactly as many launches as the replay has kernels,
///     the last such before the replay); the kernels of one captured op call share its cost as
///     eager kernels do (all on the longest, or split by time over launches of one kernel);
///  2. same kernel, by position: kernels with no recorded launch at the start of the trace (the
///     tail of the profiler's warm-up step, whose host events torch.profiler drops) against the tail
///     of the first ProfilerStep's kernels, name by name from the end, while the names agree;
///  3. same kernel, by identity: (name, grid, block) costed identically everywhere else it ran.
/// Kernels already costed are left as they are.
cost_fill fill_costs(ingest::ingest_result& in);

/// Whether a kernel carries a cost (FLOPs or bytes from any source, or a share of its op's cost
/// placed on a sibling kernel).
bool has_cost(const ingest::kernel_record& k);

}  // namespace roofline
