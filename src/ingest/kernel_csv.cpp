// roofline's own kernel CSV (name, flops, bytes, time_s; optional precision): the form `place --csv`
// reads and writes (place.csv). One record per row; the counts are the user's, so source = counter.
#include <fmt/format.h>

#include <algorithm>

#include "ingest/text.hpp"
#include "roofline/csv.hpp"
#include "roofline/error.hpp"
#include "roofline/ingest.hpp"
#include "roofline/io.hpp"

namespace roofline::ingest {

namespace {

std::size_t column(const std::vector<std::string>& header, std::initializer_list<const char*> names) {
  for (const char* n : names)
    for (std::size_t i = 0; i < header.size(); ++i)
      if (detail::lower(detail::trim(header[i])) == n) return i;
  return std::string::npos;
}

/// A non-negative number (> 0 when `positive`); throws input_error naming the column and the row.
double number(const std::string& text, const std::string& file, const std::string& what, std::size_t row, bool positive) {
  const auto v = detail::parse_number(text);
  if (!v || *v < 0 || (positive && *v == 0))
    throw input_error(file, what, fmt::format("row {}: '{}' is not a {} number", row, text, positive ? "positive" : "non-negative"));
  return *v;
}

}  // namespace

ingest_result read_kernel_csv(const std::string& path) {
  const auto rows = parse_csv(read_file(path), path);
  ingest_result res;
  res.format = "roofline-csv";
  res.file = path;
  if (rows.empty()) throw input_error(path, "", "empty file (expected a header name,flops,bytes,time_s)");
  const auto& header = rows.front();
  const std::size_t n = column(header, {"name"}), f = column(header, {"flops"}), b = column(header, {"bytes"}),
                    t = column(header, {"time_s", "seconds", "time"}), p = column(header, {"precision"});
  if (n == std::string::npos) throw input_error(path, "name", "no 'name' column (expected name, flops, bytes, time_s)");
  if (f == std::string::npos) throw input_error(path, "flops", "no 'flops' column (expected name, flops, bytes, time_s)");
  if (b == std::string::npos) throw input_error(path, "bytes", "no 'bytes' column (expected name, flops, bytes, time_s)");
  if (t == std::string::npos) throw input_error(path, "time_s", "no 'time_s' column (expected name, flops, bytes, time_s)");
  for (std::size_t i = 1; i < rows.size(); ++i) {
    const auto& row = rows[i];
    if (row.size() <= std::max({n, f, b, t}))
      throw input_error(path, "", fmt::format("row {}: {} fields, expected {}", i + 1, row.size(), header.size()));
    kernel_record k;
    k.name = row[n];
    k.id = std::to_string(i + 1);
    k.duration_s = number(row[t], path, "time_s", i + 1, true);
    const std::string prec = p != std::string::npos && p < row.size() ? detail::trim(row[p]) : "";
    k.flops.push_back({prec, "", number(row[f], path, "flops", i + 1, false), count_source::counter, "flops column", true});
    k.bytes.push_back({"dram", number(row[b], path, "bytes", i + 1, false), count_source::counter, "bytes column"});
    k.note = "roofline CSV: the user's own counts";
    res.kernels.push_back(std::move(k));
  }
  if (res.kernels.empty()) throw input_error(path, "", "no kernels in the file");
  return res;
}

}  // namespace roofline::ingest
