// The decode batch sweep (results.analysis.batch_sweep): measured points written by `roofline run`
// (src/run/pipeline.cpp), knees filled in by analyse(). Formulas: docs/formulas-model.md §7;
// fields and units: docs/results-schema.md "analysis". The block's types:
// roofline/schema/batch_sweep.hpp.
#pragma once
#include <cstdint>
#include <optional>
#include <vector>

#include "roofline/schema/batch_sweep.hpp"

namespace roofline {

/// One time at one batch (a measured or predicted point of a batch curve).
struct batch_time {
  std::int64_t batch = 0;
  double seconds = 0;
};

/// The knee rule, one for every batch curve (a linear's sweep, the whole decode step's): where the
/// flat line — the median time of the points with B ≤ 8, the weights' bytes ÷ bandwidth — meets the
/// line through the origin and the largest batch's point (time ∝ B): knee = median(t, B ≤ 8) ÷
/// (t_max ÷ B_max), a batch (fractional). Points with seconds ≤ 0 are ignored. nullopt without a
/// point at B ≤ 8 or one above 8 (docs/formulas-model.md §7).
/// Worked: (1, 1 ms), (2, 1 ms), (8, 1.2 ms), (64, 4 ms) → 1 ms ÷ (4 ms ÷ 64) = 16.
std::optional<double> knee_of(const std::vector<batch_time>& points);

/// `sweep` with its knees and ridge_measured (FLOP/B; null when ≤ 0) filled in.
batch_sweep analyse_batch_sweep(batch_sweep sweep, double ridge_measured);

}  // namespace roofline
