// CSV out (ops, mfu, run's op table) and in (place --csv): RFC 4180 quoting both ways.
#include <gtest/gtest.h>

#include "roofline/csv.hpp"
#include "roofline/error.hpp"
#include "roofline/json.hpp"
#include "roofline/report.hpp"
#include "test_util.hpp"

namespace roofline {
namespace {

TEST(Csv, QuotesWhatNeedsIt) {
  EXPECT_EQ(csv_line({"a", "b,c", "say \"hi\"", "two\nlines"}), "a,\"b,c\",\"say \"\"hi\"\"\",\"two\nlines\"\n");
}

TEST(Csv, ReadsBackWhatItWrites) {
  const json rows = json::array({{{"name", "silu, then mul"}, {"flops", 1.5e9}, {"measured_s", nullptr}, {"n", 3}},
                                 {{"name", "q \"proj\""}, {"flops", 0.1}, {"measured_s", 2.5e-6}, {"n", 4}}});
  const std::string text = render_csv(rows, {"name", "flops"});
  EXPECT_EQ(text, "name,flops,measured_s,n\n\"silu, then mul\",1500000000,,3\n\"q \"\"proj\"\"\",0.1,2.5e-06,4\n");
  const auto back = parse_csv(text, "x.csv");
  ASSERT_EQ(back.size(), 3u);
  EXPECT_EQ(back[1], (std::vector<std::string>{"silu, then mul", "1500000000", "", "3"}));
  EXPECT_EQ(back[2][0], "q \"proj\"");
  EXPECT_EQ(back[2][2], "2.5e-06");
}

TEST(Csv, CrlfAndAnUnterminatedQuote) {
  EXPECT_EQ(parse_csv("a,b\r\n1,2\r\n", "f").size(), 2u);
  EXPECT_THROW(parse_csv("a,\"b\n", "f.csv"), input_error);
}

TEST(Csv, RunsOpTableHasOneLinePerOpWithTheMeasuredRatio) {
  const results r = load_results(test::data("results-gpu.json"));
  const std::string csv = render_ops_csv(r);
  const auto rows = parse_csv(csv, "ops.csv");
  ASSERT_EQ(rows.size(), r.ops.size() + 1);
  EXPECT_EQ(rows[0][0], "number");
  EXPECT_EQ(rows[1][1], "q_proj");
  // q_proj decode b1: measured 4.1 µs; the row carries measured_s and measured ÷ predicted
  std::size_t ms = 0, ratio = 0;
  for (std::size_t i = 0; i < rows[0].size(); ++i) {
    if (rows[0][i] == "measured_s") ms = i;
    if (rows[0][i] == "measured_over_predicted") ratio = i;
  }
  EXPECT_EQ(rows[1][ms], "4.1e-06");
  EXPECT_NEAR(std::stod(rows[1][ratio]), 4.1e-6 / r.ops[0].predicted_s, 1e-12);
  EXPECT_EQ(rows.back()[ms], "");  // attention_naive failed: no measured time
}

}  // namespace
}  // namespace roofline
