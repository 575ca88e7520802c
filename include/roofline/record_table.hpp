// The record table: the numbers people fill in by hand (bandwidth, GEMM, clock, power, ridge, ECC,
// TPOT → MFU), each beside its nominal value and the field's usual range. Computed once here from
// the typed fields of a results file; results.analysis.record_table is its JSON, report.md its view.
// Rows and sources: docs/formulas-analysis.md §6.
// The row's type: roofline/schema/record_table.hpp.
#pragma once
#include <vector>

#include "roofline/schema/record_table.hpp"

namespace roofline {

struct results;

/// The field's rules of thumb the "usually" column shows, as fractions of nominal: large GEMMs reach
/// 70–85% of the dense peak, streaming kernels 75–90% of the memory bandwidth; a ridge moves by under
/// 20% because both roofs shrink. docs/formulas-analysis.md §6 gives the sources.
inline constexpr double usual_compute_low = 0.70, usual_compute_high = 0.85;
inline constexpr double usual_bandwidth_low = 0.75, usual_bandwidth_high = 0.90;
inline constexpr double usual_ridge_low = 0.80, usual_ridge_high = 1.20;

/// The record table of `r`, in the order report.md shows it. Never throws on missing data: a missing
/// value is null with its note.
std::vector<record_row> record_table(const results& r);

}  // namespace roofline
