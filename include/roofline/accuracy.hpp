// Prediction accuracy (results.analysis.accuracy): predicted ÷ measured time per measured op and
// per measured whole step, with the median |ratio − 1| against the targets. Formulas:
// docs/formulas-analysis.md §5; fields and units: docs/results-schema.md "analysis". The block's
// types: roofline/schema/accuracy.hpp.
#pragma once
#include "roofline/schema/accuracy.hpp"

namespace roofline {

struct results;  // roofline/results.hpp, which holds these blocks

/// Per-op and whole-step prediction accuracy of r (results.analysis.accuracy).
prediction_accuracy analyse_accuracy(const results& r);

}  // namespace roofline
