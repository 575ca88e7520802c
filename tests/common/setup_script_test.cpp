// `make run` installs only what the run needs (scripts/setup.sh run) and builds the tool without its
// tests; the packages only the tests use (GoogleTest, clang and its sanitizer runtime, Chromium,
// xmllint, the Prometheus client) come with `make test` (scripts/setup.sh test). Read from the script
// and from `make -n`, so the README's promise fails here when either changes.
#include <gtest/gtest.h>

#include <algorithm>
#include <sstream>

#include "common/run_binary.hpp"

namespace roofline {
namespace {

std::vector<std::string> words(const std::string& s) {
  std::vector<std::string> v;
  std::istringstream in(s);
  for (std::string w; in >> w;) v.push_back(w);
  return v;
}

TEST(SetupScript, RunInstallsNoTestOnlyPackage) {
  const std::string src = ROOFLINE_SOURCE_DIR;
  const auto run = test::run_command("bash " + src + "/scripts/setup.sh --list-run");
  const auto tst = test::run_command("bash " + src + "/scripts/setup.sh --list-test");
  ASSERT_EQ(run.code, 0) << run.err;
  ASSERT_EQ(tst.code, 0) << tst.err;
  const auto run_pkgs = words(run.out), test_pkgs = words(tst.out);
  for (const char* p : {"libgtest-dev", "googletest", "clang", "libclang-rt-14-dev", "chromium", "libxml2-utils", "python3-prometheus-client"}) {
    EXPECT_EQ(std::count(run_pkgs.begin(), run_pkgs.end(), p), 0) << p << " is installed by make run";
    EXPECT_EQ(std::count(test_pkgs.begin(), test_pkgs.end(), p), 1) << p << " is not installed by make test";
  }
  for (const char* p : {"build-essential", "cmake", "ninja-build", "libcli11-dev", "nlohmann-json3-dev", "libfmt-dev", "libopenblas-dev"})
    EXPECT_EQ(std::count(run_pkgs.begin(), run_pkgs.end(), p), 1) << p << " missing from make run";
}

TEST(SetupScript, MakeRunCallsTheRunSetupAndBuildsWithoutTests) {
  if (!test::have_command("make")) GTEST_SKIP() << "make not installed";
  const std::string src = ROOFLINE_SOURCE_DIR;
  const auto dry = test::run_command("make -n -C " + src + " run");
  ASSERT_EQ(dry.code, 0) << dry.err;
  EXPECT_NE(dry.out.find("scripts/setup.sh run"), std::string::npos) << dry.out;
  EXPECT_EQ(dry.out.find("scripts/setup.sh test"), std::string::npos) << dry.out;
  EXPECT_NE(dry.out.find("-DROOFLINE_TESTS=OFF"), std::string::npos) << dry.out;
  EXPECT_NE(dry.out.find("--target roofline"), std::string::npos) << dry.out;
  const auto t = test::run_command("make -n -C " + src + " test");
  EXPECT_NE(t.out.find("scripts/setup.sh test"), std::string::npos) << t.out;
}

}  // namespace
}  // namespace roofline
