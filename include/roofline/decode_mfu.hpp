// MFU and HFU of the measured decode steps (results.analysis.mfu), one scenario per decode batch of
// the op table. Formulas: docs/formulas-analysis.md §4; fields and units: docs/results-schema.md.
// The block's types: roofline/schema/decode_mfu.hpp.
#pragma once
#include "roofline/schema/decode_mfu.hpp"

namespace roofline {

struct results;  // roofline/results.hpp, which holds these blocks

/// MFU/HFU of the measured decode scenarios of r (results.analysis.mfu).
decode_mfu analyse_mfu(const results& r);

}  // namespace roofline
