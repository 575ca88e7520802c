// The commands are parse → compute → render (docs/architecture.md, "The layers"): no file of src/app
// formats a number. Every number a command prints is computed in src/analysis, src/model, src/spec
// or src/fleet and printed by src/report through roofline/units.hpp. This test reads every file of
// src/app and fails naming file:line for a format specifier: a fmt replacement field with a format
// spec ("{:.3g}", "{:>10}", "{0:x}") in a string literal, a printf conversion ("%.1f", "%s", "%zu")
// in a string literal inside a printf-family call, std::setprecision, std::fixed or std::scientific
// in code. Plain "{}" placeholders are allowed (joining words; numbers only through units::).
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

namespace {

struct literal {
  std::string text;
  int line = 0;
  std::size_t offset = 0;  ///< position of the opening quote in the source
};

/// The source split into its string literals (with their lines) and its code with comments and
/// literals blanked out (the same length, newlines kept, so offsets and lines still match).
struct lexed {
  std::vector<literal> literals;
  std::string code;
};

lexed lex(const std::string& src) {
  lexed out;
  out.code = src;
  int line = 1;
  std::size_t i = 0;
  const auto blank = [&](std::size_t a, std::size_t b) {
    for (std::size_t k = a; k < b && k < out.code.size(); ++k)
      if (out.code[k] != '\n') out.code[k] = ' ';
  };
  while (i < src.size()) {
    const char c = src[i];
    if (c == '\n') {
      ++line, ++i;
    } else if (c == '/' && i + 1 < src.size() && src[i + 1] == '/') {
      const std::size_t end = src.find('\n', i);
      const std::size_t stop = end == std::string::npos ? src.size() : end;
      blank(i, stop);
      i = stop;
    } else if (c == '/' && i + 1 < src.size() && src[i + 1] == '*') {
      const std::size_t end = src.find("*/", i + 2);
      const std::size_t stop = end == std::string::npos ? src.size() : end + 2;
      line +=
          static_cast<int>(std::count(src.begin() + static_cast<long>(i), src.begin() + static_cast<long>(stop), '\n'));
      blank(i, stop);
      i = stop;
    } else if (c == 'R' && i + 1 < src.size() && src[i + 1] == '"' &&
               (i == 0 || !(std::isalnum(static_cast<unsigned char>(src[i - 1])) || src[i - 1] == '_'))) {
      const std::size_t open = src.find('(', i + 2);
      const std::string delim = ")" + src.substr(i + 2, open - (i + 2)) + "\"";
      const std::size_t close = src.find(delim, open);
      const std::size_t stop = close == std::string::npos ? src.size() : close + delim.size();
      out.literals.push_back({src.substr(open + 1, close - open - 1), line, i + 1});
      line +=
          static_cast<int>(std::count(src.begin() + static_cast<long>(i), src.begin() + static_cast<long>(stop), '\n'));
      blank(i, stop);
      i = stop;
    } else if (c == '"' || c == '\'') {
      std::size_t k = i + 1;
      std::string text;
      while (k < src.size() && src[k] != c && src[k] != '\n') {
        if (src[k] == '\\' && k + 1 < src.size()) text += src[k++];
        text += src[k++];
      }
      if (c == '"') out.literals.push_back({text, line, i});
      blank(i, k + 1);
      i = k + 1;
    } else {
      ++i;
    }
  }
  return out;
}

int line_at(const std::string& src, std::size_t offset) {
  return 1 +
         static_cast<int>(std::count(src.begin(), src.begin() + static_cast<long>(std::min(offset, src.size())), '\n'));
}

/// "file:line: what" for every format specifier in `src` (see the file comment).
std::vector<std::string> format_specifiers(const std::string& src, const std::string& file) {
  std::vector<std::string> found;
  const lexed l = lex(src);
  const std::regex fmt_spec(R"(\{[0-9]*:[^}]*\})");
  for (const auto& s : l.literals) {
    std::smatch m;
    if (std::regex_search(s.text, m, fmt_spec))
      found.push_back(file + ":" + std::to_string(s.line) + ": format spec " + m.str() + " in \"" + s.text + "\"");
  }
  // printf-family calls: the literals between the call's parentheses
  const std::regex call(R"(\b(printf|fprintf|sprintf|snprintf|vprintf|vfprintf|vsprintf|vsnprintf|dprintf)\s*\()");
  const std::regex conversion(R"(%[-+ #0]*[0-9.*]*(hh|h|ll|l|z|j|t|L)?[dfgesxuioaEGXc])");
  for (auto it = std::sregex_iterator(l.code.begin(), l.code.end(), call); it != std::sregex_iterator(); ++it) {
    const std::size_t open = static_cast<std::size_t>(it->position(0) + it->length(0)) - 1;
    std::size_t close = open;
    for (int depth = 0; close < l.code.size(); ++close) {
      if (l.code[close] == '(') ++depth;
      if (l.code[close] == ')' && --depth == 0) break;
    }
    for (const auto& s : l.literals) {
      std::smatch m;
      if (s.offset > open && s.offset < close && std::regex_search(s.text, m, conversion))
        found.push_back(file + ":" + std::to_string(s.line) + ": printf conversion " + m.str() + " in " +
                        (*it)[1].str() + "(\"" + s.text + "\")");
    }
  }
  // iostream manipulators (units::fixed, the one formatter's, is not one)
  const std::regex stream_fmt(R"(\bstd::(fixed|scientific|setprecision|setw)\b|(^|[^:\w])(setprecision|setw)\b)");
  for (auto it = std::sregex_iterator(l.code.begin(), l.code.end(), stream_fmt); it != std::sregex_iterator(); ++it)
    found.push_back(file + ":" + std::to_string(line_at(src, static_cast<std::size_t>(it->position(0)))) + ": " +
                    it->str());
  return found;
}

std::string read(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// The scanner finds each kind of violation it is meant to find, with its line, and nothing in
// comments, plain "{}" placeholders or a literal percent sign in text.
TEST(AppLayer, ScannerFindsSeededViolations) {
  const std::string seeded =
      "// a comment may say {:.3g} and %d\n"             // 1: comment: allowed
      "auto a = fmt::format(\"{} of {}\", x, y);\n"      // 2: plain: allowed
      "auto b = fmt::format(\"{:.1f} ms\", t);\n"        // 3: fmt spec
      "std::fprintf(stderr, \"%s: %5.2f\\n\", w, v);\n"  // 4: printf
      "out << std::setprecision(3) << x;\n"              // 5: setprecision
      "auto c = \"50% slower\";\n"                       // 6: not a printf call: allowed
      "auto d = fmt::format(\"{0:>8}\", n);\n"           // 7: positional with spec
      "/* {:x} */ auto e = R\"(raw {:>4})\";\n"          // 8: raw literal spec
      "auto f = units::fixed(x, 1) + std::fixed;\n";     // 9: units::fixed allowed, std::fixed not
  const auto found = format_specifiers(seeded, "seeded.cpp");
  std::string all;
  for (const auto& f : found) all += f + "\n";
  ASSERT_EQ(found.size(), 6u) << all;
  EXPECT_NE(all.find("seeded.cpp:3: format spec {:.1f}"), std::string::npos) << all;
  EXPECT_NE(all.find("seeded.cpp:4: printf conversion %s"), std::string::npos) << all;
  EXPECT_NE(all.find("seeded.cpp:5: std::setprecision"), std::string::npos) << all;
  EXPECT_NE(all.find("seeded.cpp:7: format spec {0:>8}"), std::string::npos) << all;
  EXPECT_NE(all.find("seeded.cpp:8: format spec {:>4}"), std::string::npos) << all;
  EXPECT_NE(all.find("seeded.cpp:9: std::fixed"), std::string::npos) << all;
}

TEST(AppLayer, NoCommandFileFormatsANumber) {
  const std::filesystem::path dir = std::filesystem::path(ROOFLINE_SOURCE_DIR) / "src" / "app";
  ASSERT_TRUE(std::filesystem::is_directory(dir)) << dir;
  std::vector<std::filesystem::path> files;
  for (const auto& e : std::filesystem::directory_iterator(dir))
    if (e.is_regular_file() && (e.path().extension() == ".cpp" || e.path().extension() == ".hpp"))
      files.push_back(e.path());
  std::sort(files.begin(), files.end());
  ASSERT_GE(files.size(), 10u) << "src/app should hold the commands, options, pipeline: found " << files.size();
  std::string all;
  for (const auto& p : files)
    for (const auto& f : format_specifiers(read(p), "src/app/" + p.filename().string())) all += f + "\n";
  EXPECT_TRUE(all.empty()) << "number formatting belongs in src/report (roofline/units.hpp):\n" << all;
}

}  // namespace
