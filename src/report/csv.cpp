// CSV (RFC 4180) out of and into roofline: `--csv` on ops, mfu and run's op table, and the kernel
// lists `place --csv` reads (its own format or an Nsight Compute export). One writer, one reader.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "roofline/error.hpp"
#include "roofline/json.hpp"
#include "roofline/report.hpp"
#include "report/sections.hpp"

namespace roofline {

namespace {

std::string field(const std::string& s) {
  if (s.find_first_of(",\"\r\n") == std::string::npos) return s;
  std::string o = "\"";
  for (char c : s) o += c == '"' ? std::string("\"\"") : std::string(1, c);
  return o + "\"";
}

/// A json scalar as a CSV field: numbers at full precision (17 significant digits, shortest form
/// that reads back the same), strings as they are, null empty, nested values as compact JSON.
std::string value(const json& v) {
  if (v.is_null()) return "";
  if (v.is_string()) return field(v.get<std::string>());
  if (v.is_boolean()) return v.get<bool>() ? "true" : "false";
  if (v.is_number_integer()) return v.dump();
  if (v.is_number()) {
    const double x = v.get<double>();
    return std::isfinite(x) ? fmt::format("{}", x) : "";
  }
  return field(v.dump());
}

}  // namespace

std::string csv_line(const std::vector<std::string>& fields) {
  std::string o;
  for (std::size_t i = 0; i < fields.size(); ++i) {
    if (i) o += ',';
    o += field(fields[i]);
  }
  return o + "\n";
}

std::string render_csv(const json& rows, const std::vector<std::string>& first) {
  const json arr = rows.is_array() ? rows : json::array({rows});
  std::vector<std::string> keys;
  for (const auto& k : first)
    if (std::any_of(arr.begin(), arr.end(), [&](const json& e) { return e.is_object() && e.contains(k); })) keys.push_back(k);
  for (const auto& e : arr)
    if (e.is_object())
      for (auto it = e.begin(); it != e.end(); ++it)
        if (std::find(keys.begin(), keys.end(), it.key()) == keys.end()) keys.push_back(it.key());
  std::string o = csv_line(keys);
  for (const auto& e : arr) {
    if (!e.is_object()) continue;
    std::string line;
    for (std::size_t i = 0; i < keys.size(); ++i) {
      if (i) line += ',';
      if (e.contains(keys[i])) line += value(e.at(keys[i]));
    }
    o += line + "\n";
  }
  return o;
}

std::string render_ops_csv(const results& r) {
  json rows = json::array();
  for (std::size_t i = 0; i < r.ops.size(); ++i) {
    const op_result& op = r.ops[i];
    rows.push_back({{"number", i + 1}, {"name", op.name}, {"phase", op.phase}, {"batch", op.batch}, {"seq", op.seq},
                    {"context", op.context}, {"shape", op.shape}, {"dtype", op.dtype}, {"count", op.count},
                    {"flops", op.flops}, {"bytes", op.bytes}, {"intensity", op.intensity}, {"bound", op.bound},
                    {"predicted_s", op.predicted_s}, {"measured_s", op.measured_s ? json(*op.measured_s) : json(nullptr)},
                    {"measured_over_predicted", op.measured_s && op.predicted_s > 0 ? json(*op.measured_s / op.predicted_s) : json(nullptr)},
                    {"alternative_to", op.alternative_to}, {"advice", op.advice}, {"measured_note", report::measured_note_text(op)}});
  }
  return render_csv(rows, {"number", "name", "phase", "batch", "seq", "context", "shape", "dtype", "count", "flops", "bytes",
                          "intensity", "bound", "predicted_s", "measured_s", "measured_over_predicted", "alternative_to", "advice",
                          "measured_note"});
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
