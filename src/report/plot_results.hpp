// Building roofline figures from results: one device (roofline.svg) or two (compare.svg).
#pragma once
#include <string>

#include "report/plot.hpp"
#include "roofline/results.hpp"

namespace roofline::report {

/// Adds the roofs of one device: for each precision with a measured result (or in extra_nominal),
/// the flat part of its nominal roof (dashed) and of its measured roof (solid); the memory roofs as
/// diagonals: nominal device memory (dashed), then one measured roof per level (L1, L2, LLC, DRAM),
/// each in its own colour, labelled with level and pattern, from its best usable point; the ridge
/// points (diamonds). `tag` prefixes labels (compare: "A: "); `palette` ≥ 0 overrides the
/// precision colours with a per-device colour. `extra_nominal` names precisions whose nominal roof is
/// drawn even without a measured result (spec-only devices in a comparison).
/// Each measured roof is paired with the nominal peak of the same engine: a GEMM with the tensor peak
/// (the vector peak where the precision has no tensor one), an FMA chain with the vector peak; every
/// label names the engine. `only` non-empty: the compute roofs of those precisions alone (one panel).
/// `device_memory_only`: of the memory roofs only device memory's (nominal and measured), of the
/// compute roofs only the precision's roof engine (no second vector pair): two devices on one panel
/// (compare) stay at four roofs each.
void add_device_roofs(plot& p, const results& r, const std::string& tag, int palette,
                      const std::vector<std::string>& extra_nominal = {}, const std::vector<std::string>& only = {},
                      bool device_memory_only = false);

/// Adds every measured bandwidth point (working set, B/s, level, pattern; rejected ones marked) for
/// the second chart, with legend entries for the patterns and levels drawn.
void add_bandwidth_chart(plot& p, const results& r);

/// Adds every op with FLOPs > 0 as a hollow predicted point and, when run, a filled measured point;
/// returns the number of ops that could not be placed on log axes (0 FLOP or 0 B). `labels`: each
/// op's point carries its op-table number, and p.key lists every number with its op per scenario.
int add_ops(plot& p, const results& r, const std::string& tag, bool labels, int palette);

/// Adds the first shape of r.analysis.batch_sweep (the model's own linear) as a trace: each batch at
/// its intensity and measured FLOP/s (predicted where not run); false (and nothing added) with
/// fewer than two drawable points.
bool add_batch_sweep(plot& p, const batch_sweep& sweep, const std::string& color);

/// Colour of device `i` in a comparison (A blue, B orange) or a fleet (rank i; 8 colours, then again).
std::string device_color(int i, bool nominal);

}  // namespace roofline::report
