#include "app/place_csv.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>
#include <optional>

#include "roofline/error.hpp"
#include "roofline/io.hpp"
#include "roofline/report.hpp"

namespace roofline::app {

namespace {

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  return s;
}

std::string trim(const std::string& s) {
  const auto a = s.find_first_not_of(" \t");
  if (a == std::string::npos) return "";
  return s.substr(a, s.find_last_not_of(" \t") - a + 1);
}

/// A number as ncu prints it ("1,234,567.5", "n/a" is not one). Throws input_error.
double number(const std::string& text, const std::string& file, const std::string& what, std::size_t row) {
  std::string t;
  for (char c : trim(text))
    if (c != ',') t += c;
  try {
    std::size_t used = 0;
    const double v = std::stod(t, &used);
    if (used == t.size() && std::isfinite(v) && v >= 0) return v;
  } catch (const std::exception&) {
  }
  throw input_error(file, what, fmt::format("row {}: '{}' is not a non-negative number", row, text));
}

/// The SI scale of an ncu unit: nsecond 1e-9 … second 1, byte 1 … Gbyte 1e9; 1 for a count.
double unit_scale(const std::string& unit, const std::string& file, std::size_t row) {
  const std::string u = lower(trim(unit));
  static const std::map<std::string, double> scale = {
      {"", 1},          {"inst", 1},       {"second", 1},  {"msecond", 1e-3}, {"usecond", 1e-6}, {"nsecond", 1e-9},
      {"byte", 1},      {"kbyte", 1e3},    {"mbyte", 1e6}, {"gbyte", 1e9},    {"tbyte", 1e12},   {"s", 1},
      {"ms", 1e-3},     {"us", 1e-6},      {"ns", 1e-9},   {"b", 1}};
  const auto it = scale.find(u);
  if (it == scale.end()) throw input_error(file, "Metric Unit", fmt::format("row {}: unknown unit '{}'", row, unit));
  return it->second;
}

/// Kernel metrics (already in base units) → a kernel_row.
kernel_row from_metrics(const std::string& name, const std::map<std::string, double>& m, const std::string& file) {
  auto get = [&](const std::string& k) -> std::optional<double> {
    const auto it = m.find(k);
    return it == m.end() ? std::nullopt : std::optional<double>(it->second);
  };
  kernel_row k;
  k.name = name;
  const auto t = get("gpu__time_duration.sum");
  if (!t) throw input_error(file, "gpu__time_duration.sum", "missing for kernel '" + name + "' (profile with --metrics gpu__time_duration.sum,...)");
  k.seconds = *t;
  if (const auto b = get("dram__bytes.sum")) {
    k.bytes = *b;
  } else {
    const auto r = get("dram__bytes_read.sum"), w = get("dram__bytes_write.sum");
    if (!r && !w) throw input_error(file, "dram__bytes.sum", "missing for kernel '" + name + "' (or dram__bytes_read.sum and dram__bytes_write.sum)");
    k.bytes = r.value_or(0) + w.value_or(0);
  }
  std::vector<std::string> used;
  for (const char p : {'d', 'f', 'h'})
    for (const char* op : {"add", "mul", "fma"}) {
      const std::string key = fmt::format("smsp__sass_thread_inst_executed_op_{}{}_pred_on.sum", p, op);
      if (const auto v = get(key)) {
        k.flops += (std::string(op) == "fma" ? 2.0 : 1.0) * *v;
        used.push_back(fmt::format("{}{}", p, op));
      }
    }
  if (used.empty())
    throw input_error(file, "smsp__sass_thread_inst_executed_op_ffma_pred_on.sum",
                      "no FLOP metric for kernel '" + name + "' (profile the sass_thread_inst_executed_op_{d,f,h}{add,mul,fma}_pred_on metrics)");
  std::string u;
  for (const auto& x : used) u += (u.empty() ? "" : " ") + x;
  k.note = "Nsight Compute: FLOPs = add + mul + 2 × fma (" + u + ")";
  if (get("sm__inst_executed_pipe_tensor.sum").value_or(0) > 0) k.note += "; tensor-core instructions present and not counted";
  return k;
}

std::size_t column(const std::vector<std::string>& header, std::initializer_list<const char*> names) {
  for (const char* n : names)
    for (std::size_t i = 0; i < header.size(); ++i)
      if (lower(trim(header[i])) == n) return i;
  return std::string::npos;
}

}  // namespace

std::vector<kernel_row> read_kernel_csv(const std::string& path) {
  const auto rows = parse_csv(read_file(path), path);
  // ncu may print "==PROF==" lines before the table: the header is the first row with a known column
  std::size_t h = 0;
  while (h < rows.size() && column(rows[h], {"kernel name", "name", "metric name"}) == std::string::npos) ++h;
  if (h == rows.size()) throw input_error(path, "", "no header with a 'name' or 'Kernel Name' column");
  const auto& header = rows[h];
  std::vector<kernel_row> out;
  const std::size_t metric = column(header, {"metric name"}), value = column(header, {"metric value"});
  const std::size_t kname = column(header, {"kernel name"}), id = column(header, {"id"});
  if (metric != std::string::npos && value != std::string::npos && kname != std::string::npos) {
    // Nsight Compute long form: one row per (kernel launch, metric)
    const std::size_t unit = column(header, {"metric unit"});
    std::vector<std::string> order;
    std::map<std::string, std::pair<std::string, std::map<std::string, double>>> launches;
    for (std::size_t i = h + 1; i < rows.size(); ++i) {
      const auto& row = rows[i];
      if (row.size() <= std::max({metric, value, kname})) continue;
      const std::string key = id != std::string::npos && id < row.size() ? row[id] : row[kname];
      if (!launches.count(key)) order.push_back(key);
      auto& l = launches[key];
      l.first = row[kname];
      const double scale = unit != std::string::npos && unit < row.size() ? unit_scale(row[unit], path, i + 1) : 1.0;
      l.second[trim(row[metric])] = number(row[value], path, trim(row[metric]), i + 1) * scale;
    }
    for (const auto& key : order) {
      kernel_row k = from_metrics(launches[key].first, launches[key].second, path);
      if (id != std::string::npos) k.name += " (ID " + key + ")";
      out.push_back(std::move(k));
    }
  } else if (kname != std::string::npos) {
    // Nsight Compute raw page: one row per launch, metrics as columns, a units row under the header
    std::size_t first = h + 1;
    std::vector<double> scale(header.size(), 1.0);
    if (first < rows.size() && (id == std::string::npos || id >= rows[first].size() || trim(rows[first][id]).empty())) {
      for (std::size_t c = 0; c < header.size() && c < rows[first].size(); ++c)
        if (header[c].find("__") != std::string::npos) scale[c] = unit_scale(rows[first][c], path, first + 1);
      ++first;
    }
    for (std::size_t i = first; i < rows.size(); ++i) {
      const auto& row = rows[i];
      std::map<std::string, double> m;
      for (std::size_t c = 0; c < header.size() && c < row.size(); ++c)
        if (header[c].find("__") != std::string::npos && !trim(row[c]).empty()) m[trim(header[c])] = number(row[c], path, header[c], i + 1) * scale[c];
      kernel_row k = from_metrics(kname < row.size() ? row[kname] : "?", m, path);
      if (id != std::string::npos && id < row.size()) k.name += " (ID " + row[id] + ")";
      out.push_back(std::move(k));
    }
  } else {
    // roofline's own form: name, flops, bytes, time_s
    const std::size_t n = column(header, {"name"}), f = column(header, {"flops"}), b = column(header, {"bytes"}),
                      t = column(header, {"time_s", "seconds", "time"});
    if (f == std::string::npos) throw input_error(path, "flops", "no 'flops' column (expected name, flops, bytes, time_s)");
    if (b == std::string::npos) throw input_error(path, "bytes", "no 'bytes' column (expected name, flops, bytes, time_s)");
    if (t == std::string::npos) throw input_error(path, "time_s", "no 'time_s' column (expected name, flops, bytes, time_s)");
    for (std::size_t i = h + 1; i < rows.size(); ++i) {
      const auto& row = rows[i];
      if (row.size() <= std::max({n, f, b, t})) throw input_error(path, "", fmt::format("row {}: {} fields, expected {}", i + 1, row.size(), header.size()));
      out.push_back({row[n], number(row[f], path, "flops", i + 1), number(row[b], path, "bytes", i + 1), number(row[t], path, "time_s", i + 1), ""});
    }
  }
  if (out.empty()) throw input_error(path, "", "no kernels in the file");
  return out;
}

}  // namespace roofline::app
