// Small text helpers every layer uses (case-insensitive matching of names, trimming fields read
// from files): one implementation each.
#pragma once
#include <string>
#include <string_view>

namespace roofline {

/// ASCII lower case ("NVIDIA H200" → "nvidia h200"); other bytes unchanged.
std::string lowercase(std::string s);

/// `s` without leading and trailing spaces, tabs, carriage returns and newlines.
std::string trim(const std::string& s);

/// Whether `w` occurs in `s` (std::string::contains of C++23).
inline bool contains(std::string_view s, std::string_view w) noexcept { return s.find(w) != std::string_view::npos; }

}  // namespace roofline
