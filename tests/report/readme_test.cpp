// The README as a tested artifact: every ```console block of README.md holds commands ("$ roofline …")
// each followed by the text it prints, and this test runs each command (from the repository root, its
// --out DIR moved into a temporary directory) and checks that the text shown is the tool's current
// stdout: every shown line is an output line, in order; a line "…" stands for any number of lines, and
// a shown line ending in "…" for an output line that starts with the text before it. When the tool's
// words or numbers change, this fails and prints the command's whole output to paste in.
#include <gtest/gtest.h>

#include <sstream>

#include "test_util.hpp"

namespace roofline {
namespace {

struct example {
  std::string command;
  std::vector<std::string> shown;
  int line = 0;  ///< README line of the command
};

std::vector<example> console_examples(const std::string& readme) {
  std::vector<example> out;
  std::istringstream in(readme);
  std::string l;
  bool console = false;
  int n = 0;
  while (std::getline(in, l)) {
    ++n;
    if (!console && l == "```console") {
      console = true;
      continue;
    }
    if (console && l == "```") {
      console = false;
      continue;
    }
    if (!console) continue;
    if (l.rfind("$ ", 0) == 0) out.push_back({l.substr(2), {}, n});
    else if (!out.empty()) out.back().shown.push_back(l);
  }
  return out;
}

std::vector<std::string> lines_of(const std::string& s) {
  std::vector<std::string> v;
  std::istringstream in(s);
  for (std::string l; std::getline(in, l);) v.push_back(l);
  return v;
}

/// Empty when `shown` is an excerpt of `actual` (the rules above), else the first shown line not found.
std::string excerpt_mismatch(const std::vector<std::string>& shown, const std::vector<std::string>& actual) {
  std::size_t a = 0;
  bool skip = false;  // after a "…" line: the next shown line may come after any number of lines
  for (const auto& s : shown) {
    if (s == "…") {
      skip = true;
      continue;
    }
    const bool prefix = s.size() >= 3 && s.compare(s.size() - 3, 3, "…") == 0;
    std::string want = prefix ? s.substr(0, s.size() - 3) : s;
    while (prefix && !want.empty() && want.back() == ' ') want.pop_back();
    auto matches = [&](const std::string& x) { return prefix ? x.rfind(want, 0) == 0 : x == want; };
    bool found = false;
    for (; a < actual.size(); ++a) {
      if (matches(actual[a])) {
        found = true;
        ++a;
        break;
      }
      if (!skip) break;
    }
    if (!found) return s;
    skip = false;
  }
  return "";
}

TEST(Readme, EveryConsoleExampleShowsTheToolsCurrentOutput) {
  const std::string src = ROOFLINE_SOURCE_DIR;
  const auto examples = console_examples(read_file(src + "/README.md"));
  // report, compare, spec, ops, export and the top-level help at least
  ASSERT_GE(examples.size(), 6u);
  test::temp_dir d("readme");
  int k = 0;
  for (const auto& ex : examples) {
    ASSERT_EQ(ex.command.rfind("roofline ", 0), 0u) << "README.md:" << ex.line << ": a console example runs roofline: " << ex.command;
    std::string args = ex.command.substr(9);
    // --out DIR → a fresh temporary directory
    if (const auto at = args.find("--out "); at != std::string::npos) {
      const auto end = args.find(' ', at + 6);
      args.replace(at + 6, (end == std::string::npos ? args.size() : end) - at - 6, d / ("out" + std::to_string(k++)));
    }
    const auto r = test::run_command("cd " + src + " && " + ROOFLINE_BINARY + " " + args);
    EXPECT_EQ(r.code, 0) << "README.md:" << ex.line << ": " << ex.command << "\n" << r.err;
    EXPECT_FALSE(ex.shown.empty()) << "README.md:" << ex.line << ": no output shown for " << ex.command;
    const std::string miss = excerpt_mismatch(ex.shown, lines_of(r.out));
    EXPECT_EQ(miss, "") << "README.md:" << ex.line << ": `" << ex.command << "` no longer prints the line above; its output now:\n"
                        << r.out;
  }
}

TEST(Readme, TheExcerptRulesCatchAChangedNumber) {
  // the README once said "ridge 203" where `roofline spec t4` prints 204: such a line must fail
  const std::vector<std::string> actual{"T4", "  ridge point 204 FLOP/B", "done"};
  EXPECT_EQ(excerpt_mismatch({"T4", "  ridge point 204 FLOP/B"}, actual), "");
  EXPECT_EQ(excerpt_mismatch({"T4", "  ridge point 203 FLOP/B"}, actual), "  ridge point 203 FLOP/B");
  EXPECT_EQ(excerpt_mismatch({"T4", "  ridge point 2…"}, actual), "");      // a shortened line
  EXPECT_EQ(excerpt_mismatch({"T4", "…", "done"}, actual), "");            // lines left out
  EXPECT_EQ(excerpt_mismatch({"T4", "done"}, actual), "done");             // but not silently
  EXPECT_EQ(excerpt_mismatch({"…", "done", "T4"}, actual), "T4");          // in order
}

// docs/cli.md's generated part is every command's --help as the binary prints it
// (scripts/update-cli-doc.sh writes it; with --check it compares instead).
TEST(Readme, CliDocIsTheCurrentHelp) {
  const std::string src = ROOFLINE_SOURCE_DIR;
  const auto r = test::run_command("bash " + src + "/scripts/update-cli-doc.sh --check " + ROOFLINE_BINARY);
  EXPECT_EQ(r.code, 0) << r.out << r.err;
}

TEST(Readme, TopLevelHelpNamesEveryInputPlaceReads) {
  const auto r = test::run_roofline("--help");
  ASSERT_EQ(r.code, 0);
  const auto at = r.out.find("  place");
  ASSERT_NE(at, std::string::npos) << r.out;
  const std::string place = r.out.substr(at, r.out.find("\n  report", at) - at);
  for (const char* in : {"--trace", "--ncu", "--csv", "--flops", "--bytes", "--time", "--results", "--device", "--model", "--baseline"})
    EXPECT_NE(place.find(in), std::string::npos) << in << " missing from: " << place;
  EXPECT_NE(r.out.find("  export"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace roofline
