// What fusing ops saves (results.analysis.fusion): measured (unfused SiLU + mul vs the fused
// SiLU·mul kernel, per scenario) and predicted (the model's fusion_savings() in time at the roofs).
// Formulas: docs/formulas-analysis.md §5, §7.4; fields and units: docs/results-schema.md.
// The block's types: roofline/schema/fusion_analysis.hpp.
#pragma once
#include "roofline/schema/fusion_analysis.hpp"

namespace roofline {

struct results;  // roofline/results.hpp, which holds these blocks

/// Measured and predicted fusion savings of r (results.analysis.fusion).
fusion_analysis analyse_fusion(const results& r);

}  // namespace roofline
