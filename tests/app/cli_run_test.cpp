// End-to-end: the CLI as a user runs it. `roofline run --quick` on the CPU writes all four outputs;
// bad input exits 2 with one error line and writes nothing.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <string>

#include "common/run_binary.hpp"
#include "roofline/io.hpp"
#include "roofline/report.hpp"
#include "roofline/results.hpp"

namespace fs = std::filesystem;
using namespace roofline;
using roofline::test::run_roofline;

namespace {

fs::path fresh_dir(const std::string& name) {
  const fs::path d = fs::temp_directory_path() / ("roofline_test_" + name + "_" + std::to_string(::getpid()));
  fs::remove_all(d);
  return d;
}

/// The last non-progress line of stderr (the error line).
std::string last_line(const std::string& s) {
  std::string line, last;
  for (char c : s) {
    if (c == '\n') { if (!line.empty()) last = line; line.clear(); } else line += c;
  }
  return line.empty() ? last : line;
}

}  // namespace

class QuickRun : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = fresh_dir("quick");
    // the model part's flags, and the model as the README spells it
    const auto r = run_roofline("run --device cpu --quick --tpot 0.025 --model TinyLlama-1.1B --batch 1,4 --context 512 --seq 256 "
                           "--threads 2 --out " + dir_.string());
    code_ = r.code;
    err_ = r.err;
    out_ = r.out;
  }
  static void TearDownTestSuite() { fs::remove_all(dir_); }
  static inline fs::path dir_;
  static inline int code_ = -1;
  static inline std::string err_, out_;
};

// What holds on any machine, quiet or busy (ctest runs beside other work; CI machines are shared): the
// exit code is the verdict on the results (judge_run: 0 when they stand, 1 when a roof measured has no
// result standing or timings were taken while the machine was busy), and a failed run says why on the
// summary's first line and on stderr's last.
TEST_F(QuickRun, ExitsWithTheVerdictOnItsResultsAndWritesAllFourFiles) {
  for (const char* f : {"results.json", "report.md", "roofline.svg", "report.html", "ops.csv"})
    EXPECT_TRUE(fs::exists(dir_ / f)) << f;
  EXPECT_NE(err_.find("[roofline"), std::string::npos) << "progress goes to stderr";
  const results r = load_results((dir_ / "results.json").string());
  const std::string failure = run_failure(r);
  EXPECT_EQ(code_, failure.empty() ? 0 : 1) << err_;
  if (failure.empty()) return;
  const std::string first = out_.substr(0, out_.find('\n'));
  EXPECT_NE(first.find("run failed: " + failure.substr(0, 20)), std::string::npos) << out_;
  EXPECT_NE(last_line(err_).find("roofline: run failed: " + failure), std::string::npos) << err_;
  if (r.interference && r.interference->busy) EXPECT_EQ(failure.rfind("the machine was busy", 0), 0u) << failure;
}

TEST_F(QuickRun, TpotFillsTheRecordTablesMfuRow) {
  std::ifstream in(dir_ / "report.md");
  const std::string md(std::istreambuf_iterator<char>(in), {});
  EXPECT_NE(md.find(" in 25.0 ms ["), std::string::npos);
  EXPECT_NE(md.find("TPOT from --tpot"), std::string::npos);
}

TEST_F(QuickRun, TheTerminalShowsTheAnswer) {
  // stdout: the device and the verdict, the three opening sentences, the record table (each row with
  // its reason) and the three ops slowest against their prediction, the ranking named as what it is;
  // under 45 lines. On a busy machine the same holds: the failure's reason first, a busy rejection
  // said once (not under every row), and with every op timing kept out no ranking but a line saying so.
  const results r = load_results((dir_ / "results.json").string());
  EXPECT_EQ(out_.rfind("roofline: ", 0), 0u) << out_;
  EXPECT_NE(out_.find("\nThe "), std::string::npos) << "the machine sentence follows the first line: " << out_;
  EXPECT_NE(out_.find("DRAM read bandwidth"), std::string::npos) << out_;
  const bool ranked = out_.find("slowest against their prediction (ranked by measured ÷ predicted") != std::string::npos;
  const bool any_measured = std::any_of(r.ops.begin(), r.ops.end(), [](const op_result& o) { return o.measured_s && o.alternative_to.empty(); });
  EXPECT_EQ(ranked, any_measured) << out_;
  if (!any_measured) EXPECT_NE(out_.find("no op was measured"), std::string::npos) << out_;
  EXPECT_EQ(out_.find("furthest below their roofs"), std::string::npos) << "the ranking is by prediction error, not by roof";
  EXPECT_LT(std::count(out_.begin(), out_.end(), '\n'), 45) << out_;
  EXPECT_EQ(out_.find("[roofline"), std::string::npos) << "progress stays on stderr";
  // Timings taken while the machine was busy are never headlined: no "takes … per step" from them.
  for (const auto& op : r.ops)
    if (op.disturbed_s && op.phase == "decode" && op.batch == 1)
      EXPECT_EQ(out_.find("Decode at batch 1 (context 512) takes"), std::string::npos) << out_;
}

TEST_F(QuickRun, TheModelPartFollowsItsFlagsWithOneOpSetPerBatch) {
  const results r = load_results((dir_ / "results.json").string());
  std::map<std::int64_t, std::set<std::string>> decode;
  std::set<std::pair<std::string, std::string>> seen;  // (phase + batch, name): unique
  for (const auto& op : r.ops) {
    EXPECT_TRUE(seen.insert({op.phase + std::to_string(op.batch), op.name}).second) << op.phase << " b" << op.batch << " " << op.name;
    if (op.phase == "decode") {
      decode[op.batch].insert(op.name);
      EXPECT_EQ(op.context, 512) << op.name;
    } else {
      EXPECT_EQ(op.seq, 256) << op.name;
    }
    if (op.phase == "prefill") EXPECT_NE(op.name, "attention") << "prefill attention is named by its kind";
  }
  ASSERT_EQ(decode.size(), 2u);
  EXPECT_EQ(decode[1], decode[4]) << "the same ops at every batch";
  EXPECT_TRUE(decode[1].count("silu_mul") && decode[1].count("input_norm_two_pass"));
  EXPECT_TRUE(seen.count({"prefill1", "attention_fused"}) && seen.count({"prefill1", "attention_naive"}));
}

TEST_F(QuickRun, TheRecordedCommandRunsAgainAsGiven) {
  const results r = load_results((dir_ / "results.json").string());
  const std::string& c = r.host.command;
  EXPECT_EQ(c.rfind("roofline run ", 0), 0u) << c;
  EXPECT_NE(c.find(" --quick"), std::string::npos) << c;
  EXPECT_EQ(c.find(" true"), std::string::npos) << c << ": a flag written with a value cannot be re-run";
  EXPECT_NE(c.find(" --batch 1,4"), std::string::npos) << c;
  EXPECT_NE(c.find(" --model TinyLlama-1.1B"), std::string::npos) << c;
}

TEST_F(QuickRun, ResultsJsonHasTheDesignFields) {
  const results r = load_results((dir_ / "results.json").string());  // validates DESIGN.md's fields
  EXPECT_EQ(r.schema_version, std::string(schema_version));
  EXPECT_EQ(r.device.kind, "cpu");
  EXPECT_FALSE(r.tool.version.empty());
  ASSERT_FALSE(r.nominal.peaks.empty());
  for (const auto& p : r.nominal.peaks) {
    EXPECT_GT(p.flops_per_s, 0) << p.precision;
    EXPECT_FALSE(p.formula.empty()) << p.precision;
    EXPECT_FALSE(p.factors.empty()) << p.precision;
  }
  EXPECT_TRUE(r.nominal.memory_bandwidth_bytes_per_s.has_value() || !r.nominal.memory_bandwidth_reason.empty());
  bool dram = false;
  for (const auto& b : r.measured.bandwidth) {
    EXPECT_GT(b.bytes_per_s, 0);
    EXPECT_TRUE(b.verified);
    dram = dram || b.level == "dram";
  }
  EXPECT_TRUE(dram) << "a DRAM bandwidth roof is measured";
  bool fp32 = false, fp64 = false;
  for (const auto& c : r.measured.compute) {
    EXPECT_GT(c.flops_per_s, 0);
    fp32 = fp32 || c.precision == "fp32";
    fp64 = fp64 || c.precision == "fp64";
  }
  EXPECT_TRUE(fp32 && fp64);
  // On a busy machine the disturbed results are kept out of the roofs: the ridge may then be
  // unknown, and the run must say why instead.
  if (r.interference && r.interference->busy)
    EXPECT_NE(r.interference->summary.find("busy"), std::string::npos);
  else
    EXPECT_GT(r.roofline.ridge_measured, 0);
  ASSERT_TRUE(r.model.has_value());
  EXPECT_EQ(r.model->parameters, 1100048384);
  EXPECT_GT(r.ops.size(), 20u);
  int measured = 0;  // measured, or timed while the machine was busy and kept out (disturbed_s, said in the note)
  const bool busy = r.interference && r.interference->busy;  // then roofs may be unknown
  for (const auto& op : r.ops) {
    EXPECT_GT(op.bytes, 0) << op.name;
    if (!busy) EXPECT_GT(op.predicted_s, 0) << op.name;
    if (!busy) EXPECT_TRUE(op.bound == "bandwidth" || op.bound == "compute" || op.bound == "latency") << op.name;
    if (op.measured_s || op.disturbed_s) ++measured;
    if (!op.measured_s) EXPECT_FALSE(op.measured_note.empty()) << op.name << ": an unmeasured op says why";
    if (op.disturbed_s) {
      EXPECT_EQ(op.measured_note.rfind("kept out: timed at ", 0), 0u) << op.measured_note;
      EXPECT_TRUE(busy) << op.name << ": a timing kept out makes the run busy";
    }
  }
  EXPECT_GT(measured, 0);
}

TEST(BadInput, MissingModelFileExitsTwoAndWritesNothing) {
  const fs::path d = fresh_dir("nomodel");
  const auto r = run_roofline("run --device cpu --quick --model /nonexistent/config.json --out " + d.string());
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_NE(last_line(r.err).find("/nonexistent/config.json"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(d / "results.json"));
  fs::remove_all(d);
}

TEST(BadInput, MalformedConfigNamesTheFileAndField) {
  const fs::path d = fresh_dir("badcfg");
  fs::create_directories(d);
  const fs::path cfg = d / "config.json";
  std::ofstream(cfg) << R"({"model_type": "llama", "hidden_size": "wide", "num_hidden_layers": 2})";
  const auto r = run_roofline("run --device cpu --quick --model " + cfg.string() + " --out " + (d / "out").string());
  EXPECT_EQ(r.code, 2) << r.err;
  const std::string line = last_line(r.err);
  EXPECT_NE(line.find(cfg.string()), std::string::npos) << line;
  EXPECT_NE(line.find("hidden_size"), std::string::npos) << line;
  EXPECT_FALSE(fs::exists(d / "out" / "results.json"));
  fs::remove_all(d);
}

TEST(BadInput, UnknownDeviceExitsTwo) {
  const fs::path d = fresh_dir("baddev");
  const auto r = run_roofline("run --device tpu:0 --quick --out " + d.string());
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(last_line(r.err).find("--device"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(d / "results.json"));
}

TEST(BadInput, UnwritableOutExitsTwo) {
  const fs::path d = fresh_dir("unwritable");
  fs::create_directories(d);
  std::ofstream(d / "file") << "x";
  const auto r = run_roofline("run --device cpu --quick --out " + (d / "file" / "sub").string());
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_NE(last_line(r.err).find("--out"), std::string::npos) << r.err;
  fs::remove_all(d);
}

TEST(BadInput, OutWhereNothingCanBeCreatedFailsBeforeMeasuring) {
  // /proc refuses every mkdir, also root's (whom access(W_OK) tells otherwise): the check must
  // fail before the first probe, not after the whole measurement.
  if (!fs::is_directory("/proc")) GTEST_SKIP() << "no /proc";
  for (const char* cmd : {"run --device cpu --quick --out /proc/roofline-out", "measure --device cpu --quick --out /proc/roofline-out"}) {
    const auto r = run_roofline(cmd);
    EXPECT_EQ(r.code, 2) << cmd << ": " << r.err;
    EXPECT_NE(last_line(r.err).find("--out"), std::string::npos) << r.err;
    EXPECT_EQ(r.err.find("%]"), std::string::npos) << cmd << " started measuring first:\n" << r.err;
  }
}

TEST(BadInput, OnlySelectingNothingOnThisDeviceIsAnInputErrorAndCreatesNothing) {
  const fs::path d = fresh_dir("onlynothing");
  const auto r = run_roofline("measure --device cpu --quick --only gemm/bf16 --out " + d.string());
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_NE(last_line(r.err).find("--only"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(d)) << "nothing created on failure";
}

TEST(BadInput, AFailedRunLeavesNoOutputFolder) {
#ifndef ROOFLINE_HAVE_CUDA
  const fs::path d = fresh_dir("nocuda");
  const auto r = run_roofline("run --device cuda:0 --quick --out " + d.string());
  EXPECT_NE(r.code, 0) << r.err;
  EXPECT_FALSE(fs::exists(d)) << "nothing created on failure";
#endif
}

TEST(Measure, OutIsADirectoryAsForRun) {
  const fs::path d = fresh_dir("measuredir");
  const auto r = run_roofline("measure --device cpu --quick --only compute --out " + d.string());
  for (const char* f : {"results.json", "report.md", "roofline.svg", "report.html"}) EXPECT_TRUE(fs::exists(d / f)) << f;
  EXPECT_NE(r.out.find("roofline: "), std::string::npos) << "the terminal summary";
  const results res = load_results((d / "results.json").string());
  EXPECT_EQ(r.code, run_failure(res).empty() ? 0 : 1) << r.err;  // 1 on a busy machine: no compute roof stands
  EXPECT_TRUE(res.ops.empty()) << "measure: roofs only";
  fs::remove_all(d);
}
