// `roofline place` over real runs as a user reads it: the answer first, every line within 120 columns,
// no list of kernel numbers; the GPU from the file; another GPU's roofs refused; a baseline compared per
// step; an Nsight Compute export with the model (model beside hardware FLOPs) and one that failed
// half-way. The files: tests/data/h100-2026-12-05 and tests/data/h200-2026-12-03 (their READMEs).
// Goldens (tests/golden/place-*.txt, run from the data directory so no path is in them):
//   ROOFLINE_UPDATE_GOLDEN=1 ./build/cpu/tests/test_app --gtest_filter='PlaceRun.Golden*'
#include <gtest/gtest.h>

#include <cstdlib>
#include <algorithm>
#include <regex>
#include <string>

#include "common/run_binary.hpp"
#include "roofline/io.hpp"

using roofline::read_file;
using roofline::test::run_command;
using roofline::test::run_roofline;

namespace {

const std::string data = ROOFLINE_TEST_DATA;
const std::string h100 = data + "/h100-2026-12-05/";
const std::string h200 = data + "/h200-2026-12-03/";

std::size_t glyphs(const std::string& line) {
  std::size_t n = 0;
  for (unsigned char c : line) n += (c & 0xC0) != 0x80;
  return n;
}

/// Every line at most 120 glyphs and no list of three or more kernel numbers ("#39 #40 #41").
void expect_readable(const std::string& out, const std::string& what) {
  const std::regex numbers(R"(#\d+[ ,]+#\d+[ ,]+#\d+)");
  std::size_t pos = 0, line_no = 0;
  while (pos < out.size()) {
    std::size_t nl = out.find('\n', pos);
    if (nl == std::string::npos) nl = out.size();
    const std::string line = out.substr(pos, nl - pos);
    ++line_no;
    EXPECT_LE(glyphs(line), 120u) << what << " line " << line_no << ": " << line;
    EXPECT_FALSE(std::regex_search(line, numbers)) << what << " line " << line_no << ": " << line;
    pos = nl + 1;
  }
}

std::string golden(const std::string& name, std::string text) {
  for (std::size_t p; (p = text.find(data)) != std::string::npos;) text.replace(p, data.size(), "DATA");
  const std::string path = std::string(ROOFLINE_SOURCE_DIR) + "/tests/golden/" + name;
  if (const char* u = std::getenv("ROOFLINE_UPDATE_GOLDEN"); u && std::string(u) == "1") roofline::write_file_atomic(path, text);
  return text;
}

}  // namespace

// Every kept real trace opens with the answer and reads on a terminal.
TEST(PlaceRun, EveryRealTraceOpensWithTheAnswerAndFitsTheTerminal) {
  struct c {
    std::string args;
    bool steps;
  };
  const c cases[] = {
      {"--trace " + h200 + "torch-trace-tinyllama-eager.json.gz --results " + h200 + "results.json --model tinyllama-1.1b", true},
      {"--trace " + h200 + "trace-tinyllama-compiled.json.gz --results " + h200 + "results.json --model tinyllama-1.1b", true},
      {"--trace " + h200 + "trace-tinyllama-graphs.json.gz --results " + h200 + "results.json --model tinyllama-1.1b", true},
      {"--trace " + h100 + "train-qwen2-2l.json.gz --results " + h100 + "results.json --model " + h100 + "qwen2-2l.json", true},
      {"--trace " + h100 + "train-gpt2-2l.json.gz --results " + h100 + "results.json --model " + h100 + "gpt2-2l.json", true},
      {"--trace " + h100 + "train-llama-1l-flash.json.gz --results " + h100 + "results.json --model " + h100 + "tinyllama-1l.json", true},
      {"--trace " + h100 + "trace-tinyllama-graphs-h100.json.gz --results " + h100 + "results.json --model tinyllama-1.1b", true},
      {"--trace " + h100 + "train-qwen2-2l.json.gz --results " + h100 + "results.json", true},
      {"--ncu " + h100 + "ncu-fail.csv --results " + h100 + "results.json", false},
  };
  for (const auto& x : cases) {
    const auto r = run_roofline("place " + x.args);
    ASSERT_EQ(r.code, 0) << x.args << "\n" << r.all();
    expect_readable(r.out, x.args);
    if (x.steps) EXPECT_EQ(r.out.rfind("One ", 0), 0u) << x.args << "\n" << r.out.substr(0, 300);
  }
}

// The answer of a training trace and of a CUDA-graph decode trace, pinned: the sentences, the steps and the
// time per model op (golden files; review a diff before updating).
TEST(PlaceRun, GoldenTrainingAndDecode) {
  // Run from the data directory with relative file names: the wrapped lines must not depend on where the
  // repository was cloned (a longer path moves a line break).
  const std::string in_h100 = "cd " + h100 + " && " + std::string(ROOFLINE_BINARY) + " place ";
  const auto t = run_command(in_h100 + "--trace train-qwen2-2l.json.gz --results results.json --model qwen2-2l.json --top 5");
  ASSERT_EQ(t.code, 0) << t.all();
  const std::string train = golden("place-train-qwen2-2l.txt", t.out);
  EXPECT_EQ(train, read_file(std::string(ROOFLINE_SOURCE_DIR) + "/tests/golden/place-train-qwen2-2l.txt"));
  const auto d = run_command(in_h100 + "--trace trace-tinyllama-graphs-h100.json.gz --results results.json --model tinyllama-1.1b --top 5");
  ASSERT_EQ(d.code, 0) << d.all();
  const std::string decode = golden("place-decode-tinyllama-graphs.txt", d.out);
  EXPECT_EQ(decode, read_file(std::string(ROOFLINE_SOURCE_DIR) + "/tests/golden/place-decode-tinyllama-graphs.txt"));
}

// A trace names its GPU: without roofs it is placed on that GPU's; another GPU's roofs are refused in one
// line naming both, unless --other-gpu.
TEST(PlaceRun, TheGpuComesFromTheFile) {
  const auto own = run_roofline("place --trace " + h100 + "train-gpt2-2l.json.gz");
  ASSERT_EQ(own.code, 0) << own.all();
  EXPECT_NE(own.out.find("NVIDIA H100 SXM (spec table) (the GPU the file names)"), std::string::npos) << own.out.substr(0, 600);
  const auto other = run_roofline("place --trace " + h200 + "torch-trace-tinyllama-eager.json.gz --results " + h100 + "results.json");
  EXPECT_EQ(other.code, 2);
  EXPECT_TRUE(other.out.empty());
  EXPECT_NE(other.err.find("the file ran on NVIDIA H200 but the roofs are NVIDIA H100 80GB HBM3's"), std::string::npos) << other.err;
  EXPECT_EQ(std::count(other.err.begin(), other.err.end(), '\n'), 1) << other.err;
  const auto table = run_roofline("place --trace " + h200 + "torch-trace-tinyllama-eager.json.gz --device t4");
  EXPECT_EQ(table.code, 2) << table.all();
  const auto meant = run_roofline("place --trace " + h200 + "torch-trace-tinyllama-eager.json.gz --device t4 --other-gpu");
  EXPECT_EQ(meant.code, 0) << meant.all();
}

// 3 eager decode steps against 8 replayed ones: compared per step, not as totals.
TEST(PlaceRun, ABaselineIsComparedPerStep) {
  const auto r = run_roofline("place --trace " + h200 + "trace-tinyllama-graphs.json.gz --baseline " + h200 +
                              "torch-trace-tinyllama-eager.json.gz --results " + h200 + "results.json --model tinyllama-1.1b");
  ASSERT_EQ(r.code, 0) << r.all();
  const std::regex per_step(R"(against the baseline, per step: 3 decode step\(s\) of median [0-9.]+ ms → 8 decode step\(s\) of median [0-9.]+ ms \([0-9.]+× faster\))");
  EXPECT_TRUE(std::regex_search(r.out, per_step)) << r.out;
}

// An Nsight Compute export of the first 60 kernels of an eager TinyLlama decode step, with the model: each
// GEMM kernel matched to its linear in order; the q_proj GEMV does 2·1·2048·2048 = 8,388,608 FLOPs of model
// work where the tensor-op counter saw 67,108,864 (the GEMV padded to 8 rows): 12.5 %.
TEST(PlaceRun, AnNcuExportWithTheModelSaysModelBesideHardwareFlops) {
  const auto r = run_roofline("place --ncu " + h200 + "ncu-tinyllama-decode-recommended-metrics.csv --results " + h200 +
                              "results.json --model tinyllama-1.1b --phase decode --batch 1 --context 512 --top 60");
  ASSERT_EQ(r.code, 0) << r.all();
  EXPECT_TRUE(std::regex_search(r.out, std::regex(R"(#\d+ q_proj: model FLOPs 8\.39 MFLOP vs hardware 67\.1 MFLOP = 12\.5%)"))) << r.out;
  expect_readable(r.out, "ncu --model");
}

// Nsight Compute failed on the 7th kernel (its program wrote to an unmapped address): the 6 profiled
// kernels are placed, exit 0, and the first lines say the export is incomplete and why.
TEST(PlaceRun, APartialNcuExportIsPlacedAndSaysSo) {
  const auto r = run_roofline("place --ncu " + h100 + "ncu-fail.csv --results " + h100 + "results.json");
  ASSERT_EQ(r.code, 0) << r.all();
  EXPECT_NE(r.out.find("roofline place: 6 kernel(s)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("INCOMPLETE: Nsight Compute failed"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("failed: line 4: ==ERROR== LaunchFailed"), std::string::npos) << r.out;
}
