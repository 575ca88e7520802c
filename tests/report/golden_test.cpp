// Golden files pin report.md (CPU and GPU fixtures) and roofline.svg (GPU fixture) byte for byte.
// After an intended change to the report, regenerate them and review the diff:
//   ROOFLINE_UPDATE_GOLDEN=1 ./build/cpu/tests/test_report --gtest_filter='Golden*'
//   git diff tests/golden/
#include <gtest/gtest.h>

#include <cstdlib>

#include "roofline/analysis.hpp"
#include "roofline/json.hpp"
#include "roofline/model_record.hpp"
#include "roofline/report.hpp"
#include "test_util.hpp"

namespace roofline {
namespace {

void check_golden(const std::string& rendered, const std::string& name) {
  const std::string path = test::golden(name);
  if (const char* u = std::getenv("ROOFLINE_UPDATE_GOLDEN"); u && std::string(u) == "1") {
    write_file_atomic(path, rendered);
    GTEST_SKIP() << "updated " << path;
  }
  std::string expected;
  ASSERT_NO_THROW(expected = read_file(path)) << "missing golden file; run with ROOFLINE_UPDATE_GOLDEN=1";
  EXPECT_EQ(rendered, expected) << name << " differs from its golden file; if intended, regenerate with "
                                << "ROOFLINE_UPDATE_GOLDEN=1 and review the diff";
}

/// A fixture's measured inputs with the analysis analyse() writes today (never a frozen analysis
/// block): what a user gets from `roofline report` on that file.
results analysed(const std::string& fixture) {
  results r = load_results_with_model(test::data(fixture));
  analyse(r);
  return r;
}

TEST(Golden, ReportMarkdownGpu) { check_golden(render_markdown(analysed("results-gpu.json")), "report-gpu.md"); }
TEST(Golden, ReportMarkdownCpu) { check_golden(render_markdown(analysed("results-cpu.json")), "report-cpu.md"); }
TEST(Golden, RooflineSvgGpu) { check_golden(render_svg(analysed("results-gpu.json")), "roofline-gpu.svg"); }

TEST(Golden, ResultsJsonRoundTrips) {
  // results.json re-rendered from a loaded results.json is the same document.
  const std::string text = read_file(test::data("results-gpu.json"));
  const results r = parse_results(text, "results-gpu.json");
  EXPECT_EQ(json::parse(render_json(r)), json::parse(text));
}

}  // namespace
}  // namespace roofline
