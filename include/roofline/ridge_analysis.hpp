// Nominal vs measured ridge point per precision and how far it moved (results.analysis.ridge).
// Formulas: docs/formulas-analysis.md §1; fields and units: docs/results-schema.md "analysis".
// The block's types: roofline/schema/ridge_analysis.hpp.
#pragma once
#include "roofline/schema/ridge_analysis.hpp"

namespace roofline {

struct results;  // roofline/results.hpp, which holds these blocks

/// Nominal vs measured ridge per precision of r (results.analysis.ridge).
ridge_analysis analyse_ridge(const results& r);

}  // namespace roofline
