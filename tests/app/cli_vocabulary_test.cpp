// One flag vocabulary: model names matched like GPU names (case, separators, the README's spelling)
// with suggestions on a miss, a missing file reported as such, `spec --list` with keys and peaks,
// `--context` for the decode KV length in mfu as in ops and run, `--csv` on ops and mfu.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>

#include "common/run_binary.hpp"
#include "roofline/io.hpp"
#include "roofline/json.hpp"

namespace fs = std::filesystem;
using namespace roofline;
using roofline::test::run_roofline;

namespace {

TEST(Vocabulary, ModelNamesAreMatchedLikeGpuNames) {
  for (const char* m : {"Llama-3-8B", "llama-3-8b", "LLAMA_3_8B", "llama3-8b", "TinyLlama-1.1B", "Qwen2.5-0.5B"}) {
    const auto r = run_roofline(std::string("ops --model ") + m + " --phase decode --json");
    EXPECT_EQ(r.code, 0) << m << ": " << r.err;
  }
  const auto a = run_roofline("ops --model Llama-3-8B --phase decode --json"), b = run_roofline("ops --model llama-3-8b --phase decode --json");
  EXPECT_EQ(json::parse(a.out)["model"]["parameters"], json::parse(b.out)["model"]["parameters"]);
}

TEST(Vocabulary, AMissSuggestsTheClosestNames) {
  const auto r = run_roofline("ops --model llama-3-7b --phase decode");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("did you mean llama-2-7b, llama-3-8b"), std::string::npos) << r.err;
  const auto several = run_roofline("ops --model llama --phase decode");
  EXPECT_EQ(several.code, 2);
  EXPECT_NE(several.err.find("matches several"), std::string::npos) << several.err;
}

TEST(Vocabulary, DeviceOfTheCalculatorsNamesAGpuAndSaysSo) {
  // --device in ops/mfu/place names a GPU of the spec table: "cpu" is pointed to --results, and an
  // unknown GPU is reported under --device (the matcher names the argument it was given).
  const auto cpu = run_roofline("ops --model tinyllama-1.1b --phase decode --device cpu");
  EXPECT_EQ(cpu.code, 2);
  EXPECT_NE(cpu.err.find("--device: 'cpu' names a device of this machine"), std::string::npos) << cpu.err;
  EXPECT_NE(cpu.err.find("--results"), std::string::npos) << cpu.err;
  const auto gpu = run_roofline("mfu --model tinyllama-1.1b --phase decode --tpot 0.025 --device h300");
  EXPECT_EQ(gpu.code, 2);
  EXPECT_NE(gpu.err.find("--device: unknown GPU 'h300'"), std::string::npos) << gpu.err;
  EXPECT_EQ(gpu.err.find("NAME"), std::string::npos) << gpu.err;
}

TEST(Vocabulary, ThreadsZeroIsRefused) {
  const auto r = run_roofline("run --device cpu --quick --threads 0 --out /tmp/roofline-threads-zero");
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_NE(r.err.find("--threads"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists("/tmp/roofline-threads-zero"));
}

TEST(Vocabulary, AStepBudgetOfZeroIsRefused) {
  const auto r = run_roofline("run --device cpu --quick --step-budget 0 --out /tmp/roofline-step-budget-zero");
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_NE(r.err.find("--step-budget"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists("/tmp/roofline-step-budget-zero"));
}

TEST(Vocabulary, AMissingFileIsReportedAsSuch) {
  const auto r = run_roofline("ops --model /nonexistent/config.json --phase decode");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("/nonexistent/config.json"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("no such file"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("shipped model"), std::string::npos) << r.err;
}

TEST(Vocabulary, SpecListShowsKeysAndHeadlinePeaks) {
  const auto r = run_roofline("spec --list");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("t4 "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("65.1 TFLOP/s"), std::string::npos) << r.out;  // T4 fp16 dense
  EXPECT_NE(r.out.find("320 GB/s"), std::string::npos) << r.out;
  const auto j = json::parse(run_roofline("spec --list --json").out);
  ASSERT_GE(j.size(), 18u);
  for (const auto& row : j) {
    const auto key = row["key"].get<std::string>();
    EXPECT_EQ(run_roofline("spec " + key + " --json").code, 0) << key << ": every listed key is accepted";
  }
}

TEST(Vocabulary, MfuTakesContextForDecodeAsOpsDoes) {
  const auto a = run_roofline("mfu --model tinyllama-1.1b --phase decode --tpot 0.025 --device t4 --context 2048 --json");
  const auto b = run_roofline("mfu --model tinyllama-1.1b --phase decode --tpot 0.025 --device t4 --seq 2048 --json");
  ASSERT_EQ(a.code, 0) << a.err;
  EXPECT_EQ(json::parse(a.out)["mfu"], json::parse(b.out)["mfu"]);
}

TEST(Vocabulary, CsvOnOpsAndMfu) {
  const auto ops = run_roofline("ops --model tinyllama-1.1b --phase decode --device t4 --csv");
  ASSERT_EQ(ops.code, 0) << ops.err;
  EXPECT_EQ(ops.out.rfind("name,", 0), 0u) << ops.out.substr(0, 200);
  EXPECT_NE(ops.out.find("\nq_proj,"), std::string::npos) << ops.out.substr(0, 400);
  const auto mfu = run_roofline("mfu --model tinyllama-1.1b --phase decode --tpot 0.025 --device t4 --csv");
  ASSERT_EQ(mfu.code, 0) << mfu.err;
  EXPECT_EQ(std::count(mfu.out.begin(), mfu.out.end(), '\n'), 2) << mfu.out;
  EXPECT_NE(mfu.out.find("mfu"), std::string::npos);
}

TEST(Vocabulary, ReportAndCompareCheckOutBeforeReading) {
  EXPECT_EQ(run_roofline("report /nonexistent/results.json --out /proc/nope").code, 2);
  EXPECT_EQ(run_roofline("compare t4 h200 --out /proc/nope").code, 2);
}

}  // namespace
