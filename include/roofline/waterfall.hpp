// The two attribution waterfalls of results.analysis: the compute gap of the GEMM roof (nominal →
// clock → wave quantization → tile quantization → remainder) and the bandwidth gap (nominal → best
// pattern → each pattern; L2; ECC; DRAM overheads as labelled estimates). Computed once by
// analyse(); the report renders these structs. Formulas and sources: docs/formulas-analysis.md §2, §3;
// fields and units: docs/results-schema.md "analysis".
// The blocks' types: roofline/schema/waterfall.hpp.
#pragma once
#include "roofline/schema/waterfall.hpp"

namespace roofline {

struct results;  // roofline/results.hpp, which holds these blocks

/// Compute-gap waterfall per GEMM precision measured (results.analysis.compute_waterfall).
compute_waterfall analyse_compute_waterfall(const results& r);
/// Bandwidth-gap waterfall (results.analysis.bandwidth_waterfall).
bandwidth_waterfall analyse_bandwidth_waterfall(const results& r);

}  // namespace roofline
