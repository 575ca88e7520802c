// Results as CSV: `--csv` on ops, mfu and run's op table. The CSV text itself (fields, lines, the reader)
// is src/common/csv.cpp.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "roofline/csv.hpp"
#include "roofline/json.hpp"
#include "roofline/report.hpp"
#include "report/sections.hpp"

namespace roofline {

namespace {

/// A json scalar as a CSV field: numbers at full precision (17 significant digits, shortest form
/// that reads back the same), strings as they are, null empty, nested values as compact JSON.
std::string value(const json& v) {
  if (v.is_null()) return "";
  if (v.is_string()) return csv_field(v.get<std::string>());
  if (v.is_boolean()) return v.get<bool>() ? "true" : "false";
  if (v.is_number_integer()) return v.dump();
  if (v.is_number()) {
    const double x = v.get<double>();
    return std::isfinite(x) ? fmt::format("{}", x) : "";
  }
  return csv_field(v.dump());
}

}  // namespace

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

}  // namespace roofline
