// CSV text (RFC 4180), written and read; see roofline/csv.hpp.
#include "roofline/csv.hpp"

#include <fmt/format.h>

#include "roofline/error.hpp"

namespace roofline {

std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\r\n") == std::string::npos) return s;
  std::string o = "\"";
  for (char c : s) o += c == '"' ? std::string("\"\"") : std::string(1, c);
  return o + "\"";
}

std::string csv_line(const std::vector<std::string>& fields) {
  std::string o;
  for (std::size_t i = 0; i < fields.size(); ++i) {
    if (i) o += ',';
    o += csv_field(fields[i]);
  }
  return o + "\n";
}

std::vector<std::vector<std::string>> parse_csv(const std::string& text, const std::string& file) {
  std::vector<std::vector<std::string>> rows;
  std::vector<std::string> row;
  std::string cur;
  bool quoted = false, any = false;
  std::size_t line = 1;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (quoted) {
      if (c == '"' && i + 1 < text.size() && text[i + 1] == '"') {
        cur += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        if (c == '\n') ++line;
        cur += c;
      }
      continue;
    }
    if (c == '"' && cur.empty()) {
      quoted = any = true;
    } else if (c == ',') {
      row.push_back(cur);
      cur.clear();
      any = true;
    } else if (c == '\n' || c == '\r') {
      if (c == '\r' && i + 1 < text.size() && text[i + 1] == '\n') ++i;
      if (any || !cur.empty()) {
        row.push_back(cur);
        rows.push_back(row);
      }
      row.clear();
      cur.clear();
      any = false;
      ++line;
    } else {
      cur += c;
      any = true;
    }
  }
  if (quoted) throw input_error(file, "", fmt::format("CSV: unterminated quoted field (line {})", line));
  if (any || !cur.empty()) {
    row.push_back(cur);
    rows.push_back(row);
  }
  return rows;
}

}  // namespace roofline
