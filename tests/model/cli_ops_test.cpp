// `roofline ops` end to end: the JSON parses and carries the catalogue; bad flags exit 2.
#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <string>
#include <sys/wait.h>

#include "roofline/json.hpp"

namespace {

struct outcome {
  int rc;
  std::string out;
};

outcome run(const std::string& args) {
  const std::string cmd = std::string(ROOFLINE_BINARY) + " " + args + " 2>/dev/null";
  FILE* p = ::popen(cmd.c_str(), "r");
  std::string out;
  std::array<char, 4096> buf{};
  while (std::size_t n = std::fread(buf.data(), 1, buf.size(), p)) out.append(buf.data(), n);
  const int status = ::pclose(p);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, out};
}

}  // namespace

TEST(CliOps, DecodeJsonParses) {
  const auto r = run("ops --model tinyllama-1.1b --phase decode --batch 1 --json");
  ASSERT_EQ(r.rc, 0);
  const auto j = roofline::json::parse(r.out);
  EXPECT_EQ(j["model"]["parameters"].get<std::int64_t>(), 1'100'048'384);
  EXPECT_EQ(j["phase"], "decode");
  EXPECT_EQ(j["ops"].size(), 18u);
  EXPECT_DOUBLE_EQ(j["totals"]["kv_cache_bytes_per_token"].get<double>(), 22528.0);
  EXPECT_TRUE(j["roofs"].is_null());
}

TEST(CliOps, SweepAndFusionJson) {
  const auto s = run("ops --model tinyllama-1.1b --batch 1:1024 --json");
  ASSERT_EQ(s.rc, 0);
  EXPECT_EQ(roofline::json::parse(s.out)["points"].size(), 88u);
  const auto f = run("ops --phase prefill --attention naive --fusion --json");
  ASSERT_EQ(f.rc, 0);
  EXPECT_FALSE(roofline::json::parse(f.out)["fusion"].empty());
}

TEST(CliOps, BadFlagsExitTwo) {
  EXPECT_EQ(run("ops --phase sideways").rc, 2);
  EXPECT_EQ(run("ops --batch 0").rc, 2);
  EXPECT_EQ(run("ops --batch 64:8").rc, 2);
  EXPECT_EQ(run("ops --attention sparse").rc, 2);
  EXPECT_EQ(run("ops --dtype fp13").rc, 2);
  EXPECT_EQ(run("ops --model no-such-model").rc, 2);
}
