// Text helpers shared by the CSV readers of src/ingest (private to the module).
#pragma once
#include <algorithm>
#include <cctype>
#include <cmath>
#include <optional>
#include <string>

namespace roofline::ingest::detail {

inline std::string trim(const std::string& s) {
  const auto a = s.find_first_not_of(" \t\r\n");
  if (a == std::string::npos) return "";
  return s.substr(a, s.find_last_not_of(" \t\r\n") - a + 1);
}

inline std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

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
