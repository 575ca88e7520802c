// Parse checks for the fleet's HTML (xmllint from libxml2, as a browser-free parser): the page parses
// as HTML with no error other than libxml2 not knowing an HTML5 element name, and every inline
// <svg>…</svg> parses as strict XML. Used by the fleet.html unit test and the CPU fleet test.
#pragma once
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace roofline::test {

inline bool have_xmllint() { return std::system("command -v xmllint >/dev/null 2>&1") == 0; }

/// Runs `cmd`; returns its stderr+stdout text, and its exit status in `rc`.
inline std::string run_capture(const std::string& cmd, int& rc) {
  std::string out;
  FILE* p = ::popen((cmd + " 2>&1").c_str(), "r");
  if (!p) {
    rc = -1;
    return "popen failed";
  }
  char buf[4096];
  while (std::fgets(buf, sizeof buf, p)) out += buf;
  rc = ::pclose(p);
  return out;
}

/// "" when `html` parses; else the parser's complaints. libxml2's HTML parser predates HTML5 and
/// reports "Tag nav invalid" for <nav>, <section>, <figure>, <details>, <summary>, <svg> children:
/// those lines alone are not errors.
inline std::string html_problems(const std::string& html) {
  const auto dir = std::filesystem::temp_directory_path() / ("roofline-markup-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const auto page = dir / "page.html";
  std::ofstream(page) << html;
  int rc = 0;
  std::string bad;
  std::istringstream lines(run_capture("xmllint --html --noout '" + page.string() + "'", rc));
  for (std::string line; std::getline(lines, line);) {
    if (line.find("parser error") == std::string::npos) continue;
    if (line.find("invalid") != std::string::npos && line.find("Tag ") != std::string::npos) continue;
    bad += line + "\n";
  }
  // every inline SVG: strict XML
  std::size_t at = 0;
  for (int i = 0; (at = html.find("<svg", at)) != std::string::npos; ++i) {
    const auto end = html.find("</svg>", at);
    if (end == std::string::npos) return bad + "an <svg> is not closed\n";
    const auto svg = dir / ("figure-" + std::to_string(i) + ".svg");
    std::ofstream(svg) << html.substr(at, end + 6 - at);
    const std::string out = run_capture("xmllint --noout '" + svg.string() + "'", rc);
    if (rc != 0) bad += "svg " + std::to_string(i) + ": " + out;
    at = end;
  }
  std::filesystem::remove_all(dir);
  return bad;
}

}  // namespace roofline::test
