// `roofline report` and `roofline compare` end to end through the built binary.
#include <gtest/gtest.h>

#include <filesystem>

#include "roofline/analysis.hpp"
#include "roofline/error.hpp"
#include "roofline/json.hpp"
#include "roofline/model_record.hpp"
#include "roofline/report.hpp"
#include "roofline/spec.hpp"
#include "test_util.hpp"

namespace roofline {
namespace {

namespace fs = std::filesystem;
const std::string bin = ROOFLINE_BINARY;

TEST(ReportCli, RerendersAllFourOutputs) {
  test::temp_dir d("rerender");
  const auto r = test::run_command(bin + " report " + test::data("results-gpu.json") + " --out " + (d / "out"));
  ASSERT_EQ(r.code, 0) << r.err;
  for (const char* f : {"results.json", "report.md", "roofline.svg", "report.html"}) EXPECT_TRUE(fs::exists(d / ("out/" + std::string(f)))) << f;
  results loaded = load_results_with_model(test::data("results-gpu.json"));  // as `report` reads it
  ASSERT_TRUE(reanalyse_if_older(loaded));  // a schema 1.0 file: `report` re-analyses it
  EXPECT_EQ(read_file(d / "out/report.md"), render_markdown(loaded));
  EXPECT_EQ(read_file(d / "out/roofline.svg"), render_svg(loaded));
  EXPECT_NO_THROW(load_results(d / "out/results.json"));
  for (const auto& e : fs::directory_iterator(d.path / "out")) EXPECT_EQ(e.path().string().find(".tmp."), std::string::npos);
}

TEST(ReportCli, ASchema10FileIsReanalysed) {
  // results-cpu.json (schema 1.0) carries no analysis: `report` computes every block, so the
  // report shows the waterfalls instead of "Not computed", and results.json carries them.
  test::temp_dir d("reanalyse");
  const auto r = test::run_command(bin + " report " + test::data("results-cpu.json") + " --out " + (d / "out"));
  ASSERT_EQ(r.code, 0) << r.err;
  const results out = load_results(d / "out/results.json");
  for (const char* k : {"compute_waterfall", "bandwidth_waterfall", "ridge", "mfu", "fusion", "accuracy", "record_table"})
    EXPECT_TRUE(json(out.analysis).contains(k)) << k;
  const std::string md = read_file(d / "out/report.md");
  EXPECT_EQ(md.find("Not computed"), std::string::npos);
  EXPECT_NE(md.find("#### Ridge analysis"), std::string::npos);
}

TEST(ReportCli, OldSchemaIsRefusedAndNothingIsWritten) {
  test::temp_dir d("old");
  const auto r = test::run_command(bin + " report " + test::data("results-old-schema.json") + " --out " + (d / "out"));
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("unsupported schema version '0.3'"), std::string::npos) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << "one error line: " << r.err;
  EXPECT_FALSE(fs::exists(d / "out"));
}

TEST(ReportCli, MalformedFileIsRefusedAndNothingIsWritten) {
  test::temp_dir d("malformed");
  fs::create_directories(d / "out");
  const auto r = test::run_command(bin + " report " + test::data("results-malformed.json") + " --out " + (d / "out"));
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("not valid JSON"), std::string::npos) << r.err;
  EXPECT_TRUE(fs::is_empty(d / "out"));
  const auto missing = test::run_command(bin + " report " + (d / "nope.json") + " --out " + (d / "out"));
  EXPECT_EQ(missing.code, 2);
  EXPECT_TRUE(fs::is_empty(d / "out"));
}

TEST(ReportCli, UnwritableOutIsInputError) {
  test::temp_dir d("unwritable");
  write_file_atomic(d / "file", "x");
  const results r = load_results(test::data("results-cpu.json"));
  EXPECT_THROW(write_outputs(r, d / "file/sub"), input_error);
}

/// The "B ÷ A" cell of the compare.md row that starts with `quantity`.
std::string ratio_cell(const std::string& md, const std::string& quantity) {
  const auto p = md.find("| " + quantity + " |");
  if (p == std::string::npos) return "(no row " + quantity + ")";
  const std::string line = md.substr(p, md.find('\n', p) - p);
  const auto end = line.rfind(" |");
  const auto start = line.rfind("| ", end - 1);
  return line.substr(start + 2, end - start - 2);
}

TEST(CompareCli, TwoResultsFilesGiveRatios) {
  test::temp_dir d("compare");
  const auto r = test::run_command(bin + " compare " + test::data("results-cpu.json") + " " + test::data("results-gpu.json") + " --out " + (d / "out"));
  ASSERT_EQ(r.code, 0) << r.err;
  for (const char* f : {"compare.md", "compare.svg", "compare.html"}) EXPECT_TRUE(fs::exists(d / ("out/" + std::string(f)))) << f;
  const std::string md = read_file(d / "out/compare.md");
  EXPECT_EQ(ratio_cell(md, "fp32 nominal peak"), "373×");              // 66.9 TFLOP/s ÷ 179.2 GFLOP/s
  // The compute roof is the best GEMM, the FMA chain only without one (roofline/vocabulary.hpp):
  EXPECT_EQ(ratio_cell(md, "fp32 measured compute roof"), "341×");  // 51.2 TFLOP/s GEMM ÷ 150 GFLOP/s GEMM
  EXPECT_EQ(ratio_cell(md, "memory bandwidth, measured read"), "413×");  // 4.05 TB/s ÷ 9.80 GB/s
  EXPECT_EQ(ratio_cell(md, "decode TPOT, batch 1"), "—");  // the CPU did not run every decode op
  const std::string svg = read_file(d / "out/compare.svg");
  // the figure's panel is the ops' precision (A's: fp32), each device's compute roof and device memory;
  // the other precisions are compare.html's small panels
  EXPECT_EQ(test::count(svg, "class=\"roof compute measured "), 1u + 1u);  // A: fp32 GEMM; B: fp32 GEMM
  EXPECT_EQ(test::count(svg, "class=\"roof memory measured "), 1u + 1u);  // A: DRAM; B: HBM
}

TEST(CompareCli, SpecOnlySideFromSpecJson) {
  test::temp_dir d("compare-spec");
  const auto r = test::run_command(bin + " compare " + test::data("results-gpu.json") + " " + test::data("results-spec-t4.json") + " --out " + (d / "out"));
  ASSERT_EQ(r.code, 0) << r.err;
  const std::string md = read_file(d / "out/compare.md");
  EXPECT_EQ(ratio_cell(md, "fp16 nominal peak"), "0.0657×");           // T4 65 TFLOP/s ÷ H200 989.4 TFLOP/s
  EXPECT_EQ(ratio_cell(md, "memory bandwidth, nominal"), "0.0667×");   // 320 GB/s ÷ 4.8 TB/s
  EXPECT_NE(md.find("spec only: fp16 not measured"), std::string::npos);
  // the H200's ops are predicted on the T4's nominal roofs: q_proj decode b1 = 8.01 MiB ÷ 320 GB/s = 26.2 µs
  EXPECT_NE(md.find("26.2 µs predicted"), std::string::npos);
  const std::string svg = read_file(d / "out/compare.svg");
  EXPECT_EQ(test::count(svg, "class=\"roof compute nominal "), 1u + 1u);  // the ops' precision, fp16: the H200's and the T4's tensor peak
}

TEST(CompareCli, BadSideIsInputError) {
  test::temp_dir d("compare-bad");
  const auto r = test::run_command(bin + " compare " + test::data("results-old-schema.json") + " " + test::data("results-gpu.json") + " --out " + (d / "out"));
  EXPECT_EQ(r.code, 2);
  EXPECT_FALSE(fs::exists(d / "out"));
  const auto m = test::run_command(bin + " compare " + (d / "missing.json") + " " + test::data("results-gpu.json") + " --out " + (d / "out"));
  EXPECT_EQ(m.code, 2);
  EXPECT_NE(m.err.find("cannot open"), std::string::npos) << m.err;
}

TEST(CompareCli, T4AgainstA100FromTheSpecTable) {
  if (gpu_names().empty()) GTEST_SKIP() << "spec table not merged yet (gpu_names() is empty)";
  test::temp_dir d("compare-names");
  const auto r = test::run_command(bin + " compare t4 a100-80gb-sxm --out " + (d / "out"));
  ASSERT_EQ(r.code, 0) << r.err;
  const std::string md = read_file(d / "out/compare.md");
  // A100 312 TFLOP/s dense fp16 tensor ÷ T4 65 TFLOP/s (datasheets) = 4.8
  const double fp16 = std::stod(ratio_cell(md, "fp16 nominal peak"));
  EXPECT_NEAR(fp16, 4.8, 0.1);
  // A100 80GB SXM 2039 GB/s ÷ T4 320 GB/s = 6.37
  const double bw = std::stod(ratio_cell(md, "memory bandwidth, nominal"));
  EXPECT_NEAR(bw, 6.37, 0.1);
  // fp64: the T4 has vector units only, the A100 tensor cores too; vector is compared with vector
  // (A100 9.7 TFLOP/s ÷ T4 0.25 TFLOP/s ≈ 38), never the A100's tensor fp64 with the T4's vector.
  EXPECT_EQ(md.find("| fp64 nominal peak |"), std::string::npos) << md;
  EXPECT_NEAR(std::stod(ratio_cell(md, "fp64 nominal peak (vector)")), 38, 2);
  EXPECT_NE(md.find("no fp64 tensor peak"), std::string::npos) << md;
}

}  // namespace
}  // namespace roofline
