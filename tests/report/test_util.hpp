// Shared helpers of the report tests: fixture paths, a temporary directory, counting substrings; running
// the CLI is common/run_binary.hpp.
#pragma once
#include <unistd.h>

#include <filesystem>
#include <string>

#include "common/run_binary.hpp"
#include "roofline/io.hpp"
#include "roofline/results.hpp"

namespace roofline::test {

inline std::string data(const std::string& name) { return std::string(ROOFLINE_TEST_DATA) + "/" + name; }
inline std::string golden(const std::string& name) { return std::string(ROOFLINE_TEST_DATA) + "/../golden/" + name; }

inline std::size_t count(const std::string& text, const std::string& needle) {
  std::size_t n = 0;
  for (auto p = text.find(needle); p != std::string::npos; p = text.find(needle, p + needle.size())) ++n;
  return n;
}

/// A fresh empty directory under the system temp dir, removed by the destructor.
struct temp_dir {
  std::filesystem::path path;
  explicit temp_dir(const std::string& tag) {
    path = std::filesystem::temp_directory_path() / ("roofline-report-" + tag + "-" + std::to_string(::getpid()));
    std::filesystem::remove_all(path);
    std::filesystem::create_directories(path);
  }
  ~temp_dir() {
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
  }
  std::string operator/(const std::string& f) const { return (path / f).string(); }
};

}  // namespace roofline::test
