// Running the roofline binary (or any command line) from a test, as a user would: through /bin/sh,
// with its exit code and its stdout and stderr captured separately. The one helper every CLI test uses.
#pragma once
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <string>

#include "roofline/io.hpp"

namespace roofline::test {

/// What a command left: its exit code (-1 when it did not exit normally, e.g. killed by a signal),
/// its stdout and its stderr.
struct run_result {
  int code = -1;
  std::string out, err;
  /// stdout then stderr, for a check that does not care which stream a line went to.
  std::string all() const { return out + err; }
};

/// Runs the shell command line `cmd` (redirections and environment assignments allowed) and captures
/// its stdout and stderr into temporary files named after the process and a counter, removed after.
inline run_result run_command(const std::string& cmd) {
  static std::atomic<int> calls{0};
  const std::string tag = std::to_string(::getpid()) + "_" + std::to_string(calls++);
  const auto dir = std::filesystem::temp_directory_path();
  const std::string out = (dir / ("roofline_test_out_" + tag)).string();
  const std::string err = (dir / ("roofline_test_err_" + tag)).string();
  const int status = std::system((cmd + " >" + out + " 2>" + err).c_str());
  run_result r;
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.out = read_file(out);
  r.err = read_file(err);
  std::filesystem::remove(out);
  std::filesystem::remove(err);
  return r;
}

/// Whether `name` is a command on PATH (`command -v`), for a test that skips without it.
inline bool have_command(const std::string& name) {
  return std::system(("command -v " + name + " >/dev/null 2>&1").c_str()) == 0;
}

/// Runs the roofline binary under test (ROOFLINE_BINARY) with `args` (shell words, quoted as needed).
inline run_result run_roofline(const std::string& args) {
  return run_command(std::string(ROOFLINE_BINARY) + " " + args);
}

}  // namespace roofline::test
