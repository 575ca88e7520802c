#include <cmath>
#include <fmt/format.h>

#include "roofline/analysis.hpp"

namespace roofline {

std::string format_si(double v, const std::string& unit) {
  if (!std::isfinite(v)) return fmt::format("{} {}", v, unit);
  static const char* prefixes[] = {"", "k", "M", "G", "T", "P", "E"};
  const double a = std::fabs(v);
  int i = 0;
  while (i < 6 && a >= std::pow(1000.0, i + 1)) ++i;
  if (a > 0 && a < 1) return fmt::format("{:.3g} {}", v, unit);
  return fmt::format("{:.3g} {}{}", v / std::pow(1000.0, i), prefixes[i], unit);
}

}  // namespace roofline
