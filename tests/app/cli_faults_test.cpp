// Nothing lost: an injected probe failure and an interrupted run both leave a complete results.json
// with every finished probe and the rest marked, and exit 1.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>

#include "common/run_binary.hpp"
#include "roofline/results.hpp"

namespace fs = std::filesystem;
using namespace roofline;

namespace {

fs::path fresh_dir(const std::string& name) {
  const fs::path d = fs::temp_directory_path() / ("roofline_fault_" + name + "_" + std::to_string(::getpid()));
  fs::remove_all(d);
  return d;
}

std::string slurp(const fs::path& p) {
  std::ifstream in(p);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

}  // namespace

TEST(Faults, InjectedProbeFailureKeepsEverythingElse) {
  const fs::path d = fresh_dir("inject");
  const auto run = test::run_command("ROOFLINE_FAIL_PROBE=bandwidth/copy " + std::string(ROOFLINE_BINARY) +
                                     " run --device cpu --quick --out " + d.string());
  ASSERT_NE(run.code, -1) << "killed: " << run.err;
  EXPECT_EQ(run.code, 1) << "a failed probe makes the exit code 1";
  const results r = load_results((d / "results.json").string());
  EXPECT_EQ(r.status, "partial");
  bool error_recorded = false;
  for (const auto& e : r.errors) error_recorded = error_recorded || e.probe.find("bandwidth/copy") != std::string::npos;
  EXPECT_TRUE(error_recorded);
  bool copy = false, read = false;
  for (const auto& b : r.measured.bandwidth) {
    copy = copy || b.pattern == "copy";
    read = read || b.pattern == "read";
  }
  EXPECT_FALSE(copy) << "the failed probe publishes nothing";
  EXPECT_TRUE(read) << "the other probes are kept";
  EXPECT_FALSE(r.measured.compute.empty());
  EXPECT_TRUE(fs::exists(d / "report.md"));
  fs::remove_all(d);
}

TEST(Faults, SigintLeavesAnInterruptedResultsFile) {
  const fs::path d = fresh_dir("sigint");
  fs::create_directories(d);
  const fs::path log = d / "stderr.log";
  const pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    const int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    ::dup2(fd, 2);
    const int null = ::open("/dev/null", O_WRONLY);
    ::dup2(null, 1);
    const std::string out = (d / "out").string();
    ::execl(ROOFLINE_BINARY, ROOFLINE_BINARY, "run", "--device", "cpu", "--out", out.c_str(), (char*)nullptr);
    ::_exit(127);
  }
  // Wait until the first probe has started, then interrupt.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (slurp(log).find("bandwidth") == std::string::npos && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  ASSERT_EQ(::kill(pid, SIGINT), 0);
  int st = 0;
  ASSERT_EQ(::waitpid(pid, &st, 0), pid);
  ASSERT_TRUE(WIFEXITED(st)) << "roofline handles SIGINT instead of dying";
  EXPECT_EQ(WEXITSTATUS(st), 1);
  const results r = load_results((d / "out" / "results.json").string());
  EXPECT_EQ(r.status, "interrupted");
  bool marked = false;
  for (const auto& s : r.measured.skipped) marked = marked || s.reason == "interrupted";
  for (const auto& op : r.ops) marked = marked || op.measured_note.find("interrupted") != std::string::npos;
  EXPECT_TRUE(marked) << "what did not run says why";
  fs::remove_all(d);
}
