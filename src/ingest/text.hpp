// Text helpers shared by the CSV readers of src/ingest (private to the module).
#pragma once
#include <algorithm>
#include <cctype>
#include <cmath>
#include <optional>
#include <string>
#include <utility>

#include "roofline/text.hpp"

namespace roofline::ingest::detail {

using roofline::trim;
inline std::string lower(std::string s) { return roofline::lowercase(std::move(s)); }

/// A number as the tools print it: "1,234,567.5" (thousands separators dropped), "2.5e9". nullopt for
/// "", "n/a", "N/A", "-" or anything that is not one finite number.
inline std::optional<double> parse_number(const std::string& text) {
  std::string t;
  for (char c : trim(text))
    if (c != ',') t += c;
  if (t.empty()) return std::nullopt;
  try {
    std::size_t used = 0;
    const double v = std::stod(t, &used);
    if (used == t.size() && std::isfinite(v)) return v;
  } catch (const std::exception&) {
  }
  return std::nullopt;
}

}  // namespace roofline::ingest::detail
