// The house plan (docs/architecture.md, "Four libraries, linked one way"): roofline_base sits beneath
// every other library, so nothing it compiles may include a header of a higher one. This test reads
// every file of roofline_base — src/common, src/measure, src/model/op_shapes.cpp and
// src/model/weight_format.cpp — and the base headers themselves (include/roofline/schema/ and the
// list below), follows their includes transitively ("roofline/…" from include/, the others from
// the including file's folder or src/), and fails naming the including file:line for every include
// of a header that is not a base header: a header whose functions roofline_spec, roofline_cuda or
// roofline_core define (the analysis, the model catalogue, the backends). A block of results.json
// keeps its types in include/roofline/schema/ and its analysis in the header of the same name
// outside it (roofline/schema/accuracy.hpp, roofline/accuracy.hpp).
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace {

namespace fs = std::filesystem;

/// The headers of include/roofline/ that belong to roofline_base, besides include/roofline/schema/:
/// each is types only or has its functions defined in the base's own sources.
const std::vector<std::string> base_headers = {
    "roofline/json_mapping.hpp",      // src/common/results_json.cpp, analysis_json.cpp
    "roofline/analysis_results.hpp",  // the typed results.analysis; src/common/analysis_json.cpp
    "roofline/csv.hpp",               // src/common/csv.cpp
    "roofline/energy.hpp",            // src/measure/energy.cpp
    "roofline/error.hpp",             // header only
    "roofline/interference.hpp",      // src/measure/interference.cpp
    "roofline/io.hpp",                // src/common/io.cpp
    "roofline/json.hpp",              // src/common/json_value.cpp
    "roofline/json_fwd.hpp",          // src/common/json_value.cpp
    "roofline/library_search.hpp",    // src/common/library_search.cpp
    "roofline/measure.hpp",           // src/measure/statistics.cpp
    "roofline/op_shapes.hpp",         // src/model/op_shapes.cpp, src/common/names.cpp
    "roofline/op_timing.hpp",         // types only
    "roofline/repeat_clock.hpp",      // src/measure/repeat_clock.cpp
    "roofline/results.hpp",           // src/common/results_json.cpp
    "roofline/sanity.hpp",            // src/measure/sanity.cpp
    "roofline/text.hpp",              // src/common/text.cpp
    "roofline/timing_windows.hpp",    // src/measure/timing_windows.cpp
    "roofline/units.hpp",             // src/common/units.cpp
    "roofline/vocabulary.hpp",        // src/common/vocabulary.cpp
    "roofline/weight_format.hpp",     // src/model/weight_format.cpp
    "roofline/whole_step.hpp",        // src/measure/whole_step.cpp
};

/// The source folders and files roofline_base compiles (CMakeLists.txt, ROOFLINE_BASE_SOURCES).
const std::vector<std::string> base_source_dirs = {"src/common", "src/measure"};
const std::vector<std::string> base_source_files = {"src/model/op_shapes.cpp", "src/model/weight_format.cpp"};

bool is_base_header(const std::string& inc) {
  return inc.rfind("roofline/schema/", 0) == 0 ||
         std::find(base_headers.begin(), base_headers.end(), inc) != base_headers.end();
}

/// A file of src/ that roofline_base compiles, or a private header beside them.
bool is_base_source(const std::string& rel) {
  for (const auto& d : base_source_dirs)
    if (rel.rfind(d + "/", 0) == 0) return true;
  return std::find(base_source_files.begin(), base_source_files.end(), rel) != base_source_files.end();
}

std::string read(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string rel_path(const fs::path& p, const fs::path& root) { return p.lexically_relative(root).generic_string(); }

/// Every include of a file outside roofline_base reached from `starts` (paths relative to `root`, a
/// tree with include/ and src/), one "file:line: includes X (…)" each, the file being the one whose
/// line names X, followed by the chain of includes it was reached through.
std::vector<std::string> upward_includes(const fs::path& root, const std::vector<std::string>& starts) {
  static const std::regex include_line(R"(^\s*#\s*include\s*["<]([^">]+)[">])");
  std::vector<std::string> found;
  std::map<std::string, std::string> reached_from;  // file → the file that first included it
  std::vector<std::string> queue = starts;
  std::set<std::string> done;
  const auto chain = [&](std::string file) {
    std::string c;
    for (auto it = reached_from.find(file); it != reached_from.end(); it = reached_from.find(file)) {
      c += " ← " + it->second;
      file = it->second;
    }
    return c;
  };
  while (!queue.empty()) {
    const std::string file = queue.front();
    queue.erase(queue.begin());
    if (!done.insert(file).second) continue;
    std::istringstream in(read(root / file));
    int line_no = 0;
    for (std::string line; std::getline(in, line);) {
      ++line_no;
      std::smatch m;
      if (!std::regex_search(line, m, include_line)) continue;
      const std::string inc = m[1].str();
      std::string target;  // the included file, relative to root; empty: not the project's
      bool base = false;
      if (inc.rfind("roofline/", 0) == 0) {
        target = "include/" + inc;
        base = is_base_header(inc);
      } else {
        for (const fs::path& cand : {(root / file).parent_path() / inc, root / "src" / inc}) {
          if (fs::is_regular_file(cand)) {
            target = rel_path(cand.lexically_normal(), root);
            break;
          }
        }
        if (target.empty()) continue;  // a system or third-party header
        base = is_base_source(target);
      }
      if (!base) {
        found.push_back(file + ":" + std::to_string(line_no) + ": includes " + inc + ", not a roofline_base header" +
                        (reached_from.count(file) ? " (reached" + chain(file) + ")" : ""));
        continue;
      }
      if (!done.count(target) && reached_from.emplace(target, file).second) queue.push_back(target);
    }
  }
  return found;
}

/// The files the base compiles, then the base headers, relative to `root` (the sources first, so that
/// a header they include is reported with the chain it was reached through).
std::vector<std::string> base_files(const fs::path& root) {
  std::vector<std::string> sources, headers;
  for (const auto& d : base_source_dirs)
    for (const auto& e : fs::directory_iterator(root / d))
      if (e.is_regular_file() && (e.path().extension() == ".cpp" || e.path().extension() == ".hpp"))
        sources.push_back(rel_path(e.path(), root));
  for (const auto& f : base_source_files) sources.push_back(f);
  if (fs::is_directory(root / "include/roofline/schema"))
    for (const auto& e : fs::directory_iterator(root / "include/roofline/schema"))
      if (e.is_regular_file()) headers.push_back(rel_path(e.path(), root));
  for (const auto& h : base_headers) headers.push_back("include/" + h);
  std::sort(sources.begin(), sources.end());
  std::sort(headers.begin(), headers.end());
  sources.insert(sources.end(), headers.begin(), headers.end());
  return sources;
}

void write(const fs::path& p, const std::string& text) {
  fs::create_directories(p.parent_path());
  std::ofstream(p, std::ios::binary) << text;
}

// The scan finds an upward include wherever it hides: in a base source, in a schema header reached
// from one, and through a private header of src/; includes of base headers, of system headers and
// commented-out lines pass.
TEST(HousePlan, ScanFindsSeededUpwardIncludes) {
  const fs::path root = fs::temp_directory_path() / ("house_plan_seeded_" + std::to_string(::getpid()));
  fs::remove_all(root);
  write(root / "src/common/a.cpp",
        "#include <vector>\n"                      // 1: system
        "#include \"roofline/results.hpp\"\n"      // 2: base
        "// #include \"roofline/analysis.hpp\"\n"  // 3: a comment
        "#include \"roofline/model.hpp\"\n");      // 4: upward
  write(root / "src/measure/b.cpp",
        "#include \"roofline/schema/block.hpp\"\n"  // 1: base, which includes upward
        "#include \"analysis/helper.hpp\"\n");      // 2: a private header of core
  write(root / "include/roofline/results.hpp", "#pragma once\n#include \"roofline/json_fwd.hpp\"\n");
  write(root / "include/roofline/json_fwd.hpp", "#pragma once\n");
  write(root / "include/roofline/schema/block.hpp", "#pragma once\n\n#include \"roofline/accuracy.hpp\"\n");
  write(root / "src/analysis/helper.hpp", "#pragma once\n");
  const auto found = upward_includes(root, {"src/common/a.cpp", "src/measure/b.cpp"});
  fs::remove_all(root);
  std::string all;
  for (const auto& f : found) all += f + "\n";
  ASSERT_EQ(found.size(), 3u) << all;
  EXPECT_NE(all.find("src/common/a.cpp:4: includes roofline/model.hpp"), std::string::npos) << all;
  EXPECT_NE(all.find("include/roofline/schema/block.hpp:3: includes roofline/accuracy.hpp, not a roofline_base "
                     "header (reached ← src/measure/b.cpp)"),
            std::string::npos)
      << all;
  EXPECT_NE(all.find("src/measure/b.cpp:2: includes analysis/helper.hpp"), std::string::npos) << all;
}

TEST(HousePlan, BaseIncludesNoHeaderOfAHigherLibrary) {
  const fs::path root = ROOFLINE_SOURCE_DIR;
  for (const auto& h : base_headers)
    ASSERT_TRUE(fs::is_regular_file(root / "include" / h)) << h << " is listed as a base header and is not there";
  const auto files = base_files(root);
  ASSERT_GE(files.size(), 40u) << "roofline_base should hold src/common, src/measure and the schema headers";
  std::string all;
  for (const auto& f : upward_includes(root, files)) all += f + "\n";
  EXPECT_TRUE(all.empty()) << "roofline_base includes a header of a higher library (docs/architecture.md, "
                              "\"Four libraries, linked one way\"): move the types it needs into "
                              "include/roofline/schema/ or another base header:\n"
                           << all;
}

}  // namespace
