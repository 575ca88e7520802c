// The report's views format numbers with roofline/units.hpp (the one formatter of the project).
#pragma once
#include "roofline/units.hpp"

#include <cstddef>
#include <string>

namespace roofline::report {
using namespace roofline::units;

/// `s` cut to `n` characters, the last one an ellipsis when it was longer (kernel names in tables and figures).
inline std::string shorten(const std::string& s, std::size_t n) { return s.size() > n ? s.substr(0, n - 1) + "…" : s; }

/// A compute rate in the precision's unit; a kernel of no known precision is shown in fp16's.
inline std::string kernel_rate(double v, const std::string& precision) {
  return compute_rate(v, precision.empty() ? "fp16" : precision);
}
}  // namespace roofline::report
