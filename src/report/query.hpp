// Questions only the report views ask of a results struct: the decode TPOT, the ridge pair, the
// achieved rate. Everything else (roofs, levels, peaks, precisions) is roofline/vocabulary.hpp.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "roofline/results.hpp"
#include "roofline/vocabulary.hpp"

namespace roofline::report {

/// Decode step at batch 1: TPOT = Σ count × measured_s over the decode batch-1 ops, FLOPs and bytes
/// likewise. `tpot_s` is null (with `why`) when an op was not measured.
struct decode_step {
  int ops = 0, measured = 0;
  double flops = 0, bytes = 0;
  std::optional<double> tpot_s;
  std::string why;
};
decode_step decode_batch1(const results& r);

/// Measured and nominal ridge for `precision`: peak ÷ device-memory bandwidth (FLOP/B).
struct ridge_pair {
  std::optional<double> nominal, measured;
  std::optional<double> peak_nominal, peak_measured, bw_nominal, bw_measured;
};
ridge_pair ridge_for(const results& r, const std::string& precision);

/// Achieved FLOP/s of an op: flops / seconds (0 when seconds <= 0).
double achieved(double flops, double seconds);

}  // namespace roofline::report
