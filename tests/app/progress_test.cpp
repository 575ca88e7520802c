// Progress on stderr: the percent never goes backwards (the probes' own fractions do: the driver's
// scale and a backend's scale disagree), an ETA follows, one rewritten line on a terminal.
#include <gtest/gtest.h>

#include <regex>

#include "run/progress.hpp"

namespace roofline::job {
namespace {

std::vector<double> percents(const std::string& text) {
  std::vector<double> v;
  const std::regex re(R"(\[roofline +([0-9]+)%)");
  for (auto it = std::sregex_iterator(text.begin(), text.end(), re); it != std::sregex_iterator(); ++it) v.push_back(std::stod((*it)[1]));
  return v;
}

TEST(Progress, PercentIsMonotoneAndAnEtaFollows) {
  double t = 0;
  progress_meter m(false, [&] { return t; });
  std::string out;
  // what the issue saw: 10 → 5 %, 27 → 22 %
  for (double f : {0.0, 0.10, 0.05, 0.27, 0.22, 0.6, 0.58, 0.93, 0.97, 1.0}) {
    t += 10;
    out += m.update("step", f);
  }
  const auto p = percents(out);
  ASSERT_EQ(p.size(), 10u) << out;
  for (std::size_t i = 1; i < p.size(); ++i) EXPECT_GE(p[i], p[i - 1]) << out;
  EXPECT_EQ(p.back(), 100);
  // at 10% after 20 s: 180 s left; at 27% after 40 s: 40 × 0.73 ÷ 0.27 = 108 s
  EXPECT_NE(out.find("[roofline  10% · ETA 3 min 00 s] step\n"), std::string::npos) << out;
  EXPECT_NE(out.find("[roofline  27% · ETA 1 min 48 s] step\n"), std::string::npos) << out;
  EXPECT_NE(out.find("[roofline 100% · took 1 min 40 s] step\n"), std::string::npos) << out;
  EXPECT_EQ(out.find('\r'), std::string::npos) << "plain lines when stderr is not a terminal";
  EXPECT_EQ(m.finish(), "");
}

TEST(Progress, OnATerminalOneLineIsRewrittenAndEndedOnce) {
  double t = 0;
  progress_meter m(true, [&] { return t; }, 60);
  const std::string a = m.update("bandwidth/read: a long description that does not fit in sixty columns at all", 0.1);
  EXPECT_EQ(a.rfind("\r\033[K", 0), 0u);
  EXPECT_EQ(a.find('\n'), std::string::npos) << "the line stays open";
  EXPECT_LE(a.size() - 4, 60u) << "kept within the terminal, so \\r returns to its start";
  const std::string b = m.update("gemm/fp16", 0.05);
  EXPECT_NE(b.find("[roofline  10%]"), std::string::npos) << b;
  EXPECT_EQ(m.finish(), "\n");
  EXPECT_EQ(m.finish(), "");
  progress_meter done(true, [&] { return t; });
  EXPECT_EQ(done.update("analysed", 1.0).back(), '\n');
  EXPECT_EQ(done.finish(), "");
}

}  // namespace
}  // namespace roofline::job
