// Small text helpers every layer uses (case-insensitive matching of names, trimming fields read
// from files): one implementation each.
#pragma once
#include <string>

namespace roofline {

/// ASCII lower case ("NVIDIA H200" → "nvidia h200"); other bytes unchanged.
std::string lowercase(std::string s);

/// `s` without leading and trailing spaces, tabs, carriage returns and newlines.
std::string trim(const std::string& s);

}  // namespace roofline
