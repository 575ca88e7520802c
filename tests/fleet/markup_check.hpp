// Parse checks for the fleet's HTML (xmllint from libxml2, as a browser-free parser): the page parses
// as HTML with no error other than libxml2 not knowing an HTML5 element name, and every inline
// <svg>…</svg> parses as strict XML. Used by the fleet.html unit test and the CPU fleet test.
#pragma once
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "common/run_binary.hpp"

namespace roofline::test {

inline bool have_xmllint() { return have_command("xmllint"); }

/// "" when `html` parses; else the parser's complaints. libxml2's HTML parser predates HTML5 and
/// reports "Tag nav invalid" for <nav>, <section>, <figure>, <details>, <summary>, <svg> children:
/// those lines alone are not errors.
inline std::string html_problems(const std::string& html) {
  const auto dir = std::filesystem::temp_directory_path() / ("roofline-markup-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const auto page = dir / "page.html";
  std::ofstream(page) << html;
  std::string bad;
  std::istringstream lines(run_command("xmllint --html --noout '" + page.string() + "'").all());
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
    const auto r = run_command("xmllint --noout '" + svg.string() + "'");
    if (r.code != 0) bad += "svg " + std::to_string(i) + ": " + r.all();
    at = end;
  }
  std::filesystem::remove_all(dir);
  return bad;
}

}  // namespace roofline::test
