// Nsight Compute CSV exports → kernel_records: the long form (`ncu --csv [--page details]`, one row
// per (launch, metric)) and the raw page (`ncu --csv --page raw`, one row per launch, metric names as
// columns, a units row under the header). Which metric gives which count, and the formulas, are in
// docs/ingest.md ("Nsight Compute"). Only the metrics used are converted: a column with a unit this
// reader does not know is an error only when the reader needs that column.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <regex>
#include <set>

#include "ingest/text.hpp"
#include "roofline/csv.hpp"
#include "roofline/error.hpp"
#include "roofline/ingest.hpp"
#include "roofline/io.hpp"

namespace roofline::ingest {

namespace {

using detail::lower;
using detail::parse_number;
using detail::trim;

// ---- units ----

/// An ncu unit: the factor to SI base units (byte, second, Hz, count) and what it measures
/// ("time", "frequency", or the base words, e.g. "byte", "inst/cycle", "" for a plain count).
struct unit_meaning {
  double scale = 1;
  std::string quantity;
};

/// One word of a unit, lowercased: "kbyte" → (1e3, byte), "msecond" → (1e-3, second), "ghz" → (1e9, hz).
std::optional<std::pair<double, std::string>> unit_word(const std::string& w) {
  static const std::map<std::string, std::pair<double, std::string>> fixed = {
      {"s", {1, "second"}},        {"ms", {1e-3, "second"}},      {"us", {1e-6, "second"}},      {"ns", {1e-9, "second"}},
      {"second", {1, "second"}},   {"msecond", {1e-3, "second"}}, {"usecond", {1e-6, "second"}}, {"nsecond", {1e-9, "second"}},
      {"hz", {1, "hz"}},           {"khz", {1e3, "hz"}},          {"mhz", {1e6, "hz"}},          {"ghz", {1e9, "hz"}}};
  if (const auto it = fixed.find(w); it != fixed.end()) return it->second;
  static const std::set<std::string> counted = {"byte", "flop", "inst", "cycle"};  // take SI prefixes K M G T P
  static const std::set<std::string> plain = {"",     "%",        "warp", "block",   "thread",  "register", "sm",
                                              "pass", "cluster",  "sector", "request", "wavefront", "op"};
  if (counted.count(w) || plain.count(w)) return std::pair<double, std::string>{1.0, w};
  static const std::map<char, double> si = {{'k', 1e3}, {'m', 1e6}, {'g', 1e9}, {'t', 1e12}, {'p', 1e15}};
  if (w.size() > 1 && si.count(w[0]) && counted.count(w.substr(1))) return std::pair<double, std::string>{si.at(w[0]), w.substr(1)};
  return std::nullopt;
}

/// "Gbyte/second" → (1e9, "byte/second"); "cycle/nsecond" → (1e9, "frequency"); nullopt when unknown.
std::optional<unit_meaning> parse_unit(const std::string& unit) {
  const std::string u = lower(trim(unit));
  const auto slash = u.find('/');
  if (slash == std::string::npos) {
    const auto a = unit_word(u);
    if (!a) return std::nullopt;
    const std::string q = a->second == "second" ? "time" : a->second == "hz" ? "frequency" : a->second;
    return unit_meaning{a->first, q};
  }
  const auto a = unit_word(u.substr(0, slash)), b = unit_word(u.substr(slash + 1));
  if (!a || !b) return std::nullopt;
  const std::string q = a->second == "cycle" && b->second == "second" ? "frequency" : a->second + "/" + b->second;
  return unit_meaning{a->first / b->first, q};
}

// ---- one launch as read ----

struct cell {
  std::string value, unit;
};

struct ncu_launch {
  std::string id, name, device, stream, block, grid;
  std::map<std::string, cell> metrics;
};

std::string short_name(const std::string& n) { return n.size() > 60 ? n.substr(0, 59) + "…" : n; }

/// The product of "(x, y, z)"; nullopt when the text is not that.
std::optional<std::int64_t> dims_product(const std::string& text) {
  std::string t = trim(text);
  if (t.size() < 2 || t.front() != '(' || t.back() != ')') return std::nullopt;
  t = t.substr(1, t.size() - 2);
  std::int64_t p = 1;
  std::size_t pos = 0;
  int n = 0;
  while (pos <= t.size()) {
    const auto comma = t.find(',', pos);
    const auto v = parse_number(t.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos));
    // a launch dimension is below 2^31 (CUDA's limit); anything larger is not one (and would overflow)
    if (!v || *v < 0 || *v != std::floor(*v) || *v > 2147483647.0) return std::nullopt;
    p *= static_cast<std::int64_t>(*v);
    ++n;
    if (comma == std::string::npos) break;
    pos = comma + 1;
  }
  return n == 3 ? std::optional<std::int64_t>(p) : std::nullopt;
}

std::optional<std::int64_t> integer(const std::string& text) {
  const auto v = parse_number(text);
  // only values an int64 holds (the cast of a larger double is undefined)
  return v && *v == std::floor(*v) && std::abs(*v) < 9.2e18 ? std::optional<std::int64_t>(static_cast<std::int64_t>(*v)) : std::nullopt;
}

/// Reads the metrics of one launch that the reader uses, in SI base units; collects the notes.
class metric_reader {
 public:
  metric_reader(const std::string& file, const ncu_launch& l) : file_(file), l_(l) {}

  bool has(const std::string& name) const { return l_.metrics.count(name) > 0; }

  /// The value of `name` in base units; nullopt when absent or "n/a"/empty (noted). Throws
  /// input_error on an unknown unit, a unit of another quantity than `want` ("" = any), or a value
  /// that is not a number.
  std::optional<double> get(const std::string& name, const std::string& want = "") {
    const auto it = l_.metrics.find(name);
    if (it == l_.metrics.end()) return std::nullopt;
    const auto v = parse_number(it->second.value);
    if (!v || !std::isfinite(*v)) {
      const std::string t = lower(trim(it->second.value));
      if (t.empty() || t == "n/a" || t == "-" || t == "nan") {  // nan: ncu could not profile the launch
        notes.push_back(fmt::format("{} is {}", name, t.empty() ? "empty" : t));
        return std::nullopt;
      }
      throw input_error(file_, name, fmt::format("kernel ID {}: '{}' is not a number", l_.id, it->second.value));
    }
    const auto u = parse_unit(it->second.unit);
    if (!u) throw input_error(file_, name, fmt::format("kernel ID {}: unknown unit '{}'", l_.id, it->second.unit));
    if (!want.empty() && u->quantity != want && !(want == "frequency" && u->quantity.empty()))
      throw input_error(file_, name, fmt::format("kernel ID {}: unit '{}' is not a {}", l_.id, it->second.unit, want));
    return *v * u->scale;
  }

  std::vector<std::string> notes;

 private:
  const std::string& file_;
  const ncu_launch& l_;
};

constexpr const char* duration_metric = "gpu__time_duration.sum";

/// rate × duration when the product is a whole number (ncu's `.per_second` is the count divided by
/// gpu__time_duration.sum, so the count comes back exactly when both were printed exactly).
std::optional<double> count_from_rate(metric_reader& r, const std::string& rate_metric, double duration_s, const std::string& what) {
  const auto rate = r.get(rate_metric);
  if (!rate) return std::nullopt;
  const double p = *rate * duration_s, whole = std::round(p);
  if (std::fabs(p - whole) <= 0.01) return whole;
  r.notes.push_back(fmt::format("{} not derived: {} × {} = {:.4f} is not a whole number (rounded rate)", what, rate_metric, duration_metric, p));
  return std::nullopt;
}

/// The vocabulary precision of a tensor-counter source type; "" for types outside it (int1, int4).
std::string tensor_precision(const std::string& src) {
  static const std::map<std::string, std::string> m = {{"fp64", "fp64"}, {"fp32", "fp32"}, {"tf32", "tf32"}, {"fp16", "fp16"},
                                                       {"bf16", "bf16"}, {"fp8", "fp8"},   {"e4m3", "fp8"},  {"e5m2", "fp8"},
                                                       {"int8", "int8"}};
  const auto it = m.find(src);
  return it == m.end() ? "" : it->second;
}

std::string join(const std::vector<std::string>& v, const std::string& sep) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : sep) + x;
  return s;
}

/// Vector-pipe FLOPs: add + mul + 2·fma per precision from the SASS thread-instruction counters
/// (Yang, Kurth, Williams, "Hierarchical Roofline Analysis for GPUs", CCPE 2020, §3); the raw page's
/// per-cycle rates × cycles when only those are there (then not exact). Returns whether any
/// vector counter was present.
bool vector_flops(metric_reader& r, kernel_record& k, std::vector<std::string>& note) {
  struct prec {
    char c;
    const char* name;
  };
  bool any = false;
  for (const prec p : {prec{'d', "fp64"}, prec{'f', "fp32"}, prec{'h', "fp16"}}) {
    double flops = 0;
    std::vector<std::string> used;
    bool unknown = false;
    for (const char* op : {"add", "mul", "fma"}) {
      const std::string base = fmt::format("sass_thread_inst_executed_op_{}{}_pred_on.sum", p.c, op);
      // smsp__ and sm__ prefixes count the same instructions: the first present, never both
      const std::string name = r.has("smsp__" + base) ? "smsp__" + base : r.has("sm__" + base) ? "sm__" + base : "";
      if (name.empty()) continue;
      const auto v = r.get(name);
      if (!v) {
        unknown = true;
        continue;
      }
      const double w = std::string(op) == "fma" ? 2.0 : 1.0;
      flops += w * *v;
      used.push_back(w == 2.0 ? "2 × " + name : name);
    }
    if (unknown) {
      note.push_back(fmt::format("{} vector FLOPs unknown (a SASS counter is n/a)", p.name));
      any = true;
      continue;
    }
    if (!used.empty()) {
      any = true;
      if (used.size() < 3) note.push_back(fmt::format("{} vector FLOPs from {} of the 3 SASS counters (add, mul, fma) exported", p.name, used.size()));
      if (flops > 0) k.flops.push_back({p.name, "vector", flops, count_source::counter, join(used, " + "), true});
      continue;
    }
    // raw page: only `.sum.per_cycle_elapsed` rates (rounded to 0.01 inst/cycle); cycles = the SMSP
    // clock × duration (per_cycle_elapsed divides an smsp__ sum by smsp__cycles_elapsed.avg)
    std::vector<std::string> rates;
    double per_cycle = 0;
    for (const char* op : {"add", "mul", "fma"}) {
      const std::string name = fmt::format("smsp__sass_thread_inst_executed_op_{}{}_pred_on.sum.per_cycle_elapsed", p.c, op);
      if (!r.has(name)) continue;
      const auto v = r.get(name);
      if (!v) {
        unknown = true;
        continue;
      }
      const double w = std::string(op) == "fma" ? 2.0 : 1.0;
      per_cycle += w * *v;
      rates.push_back(w == 2.0 ? "2 × " + name : name);
    }
    if (rates.empty()) continue;
    any = true;
    const auto clock = r.get("smsp__cycles_elapsed.avg.per_second", "frequency");
    if (unknown || !clock) {
      note.push_back(fmt::format("{} vector FLOPs unknown (per-cycle rates without smsp__cycles_elapsed.avg.per_second, or n/a)", p.name));
      continue;
    }
    const double cycles = *clock * k.duration_s;
    if (per_cycle * cycles > 0) {
      k.flops.push_back({p.name, "vector", per_cycle * cycles, count_source::counter,
                         fmt::format("({}) × smsp__cycles_elapsed.avg.per_second × {}", join(rates, " + "), duration_metric), false});
      note.push_back(fmt::format("{} vector FLOPs from per-cycle rates (not exact: ± {:.0f} FLOP from the rates' rounding to 0.01, plus the "
                                 "pass-to-pass spread of cycles = clock × duration, ~1e-4 on the H200 export)",
                                 p.name, 0.005 * 4 * cycles));
    }
  }
  return any;
}

/// Tensor-pipe FLOPs from sm__ops_path_tensor_* counters. One "op" is one FLOP (an FMA is 2): the
/// 4096³ fp16 GEMM of the real H200 export counts 137,438,953,472 = 2·4096³, and a 2048×2048 GEMV
/// padded to 8 rows counts 67,108,864 = 2·8·2048². Per precision the per-path counters (hmma,
/// hgmma, imma, igmma, ...) are summed when any is exported, else the all-path one
/// (sm__ops_path_tensor_src_*), never both. Sparsity-on counts are not dense FLOPs: noted only.
/// Returns whether any tensor-op counter was present.
bool tensor_flops(metric_reader& r, const ncu_launch& l, kernel_record& k, std::vector<std::string>& note) {
  static const std::regex re(R"(^sm__ops_path_tensor_(?:op_([a-z0-9]+)_)?src_([a-z0-9]+)(?:_dst_([a-z0-9]+))?(?:_sparsity_(on|off))?\.sum$)");
  struct sums {
    double dense = 0, sparse = 0;
    std::vector<std::string> dense_metrics, sparse_metrics;
    bool any = false, unknown = false;
  };
  std::map<std::string, std::pair<sums, sums>> by_precision;  // precision → (per path, all paths)
  bool any = false;
  for (const auto& [name, c] : l.metrics) {
    std::smatch m;
    if (!std::regex_match(name, m, re)) continue;
    any = true;
    const std::string prec = tensor_precision(m[2].str());
    const auto v = r.get(name);
    if (prec.empty()) {
      if (v && *v > 0) note.push_back(fmt::format("{} = {:.0f} ops of a type outside fp64…int8, not counted", name, *v));
      continue;
    }
    auto& s = m[1].matched ? by_precision[prec].first : by_precision[prec].second;
    s.any = true;
    if (!v) {
      s.unknown = true;
      continue;
    }
    if (m[4].matched && m[4].str() == "on") {
      s.sparse += *v;
      s.sparse_metrics.push_back(name);
    } else {
      s.dense += *v;
      s.dense_metrics.push_back(name);
    }
  }
  for (const auto& [prec, both] : by_precision) {
    const sums& s = both.first.any ? both.first : both.second;
    if (s.unknown) {
      note.push_back(fmt::format("{} tensor FLOPs unknown (a tensor-op counter is n/a)", prec));
      continue;
    }
    if (s.dense > 0) k.flops.push_back({prec, "tensor", s.dense, count_source::counter, join(s.dense_metrics, " + "), true});
    if (s.sparse > 0)
      note.push_back(fmt::format("{} sparse tensor ops {:.0f} ({}) not counted as dense FLOPs", prec, s.sparse, join(s.sparse_metrics, " + ")));
    if (both.first.any && both.second.any && !both.second.unknown && both.second.dense != both.first.dense)
      note.push_back(fmt::format("{} tensor: per-path sum {:.0f} differs from all-path {:.0f} ({})", prec, both.first.dense, both.second.dense,
                                 join(both.second.dense_metrics, " + ")));
  }
  return any;
}

/// Bytes at one level: the exact count `total`, else `read` + `write` (both), else `rates` × duration
/// when that comes back whole.
void level_bytes(metric_reader& r, kernel_record& k, std::vector<std::string>& note, const std::string& level, const std::string& total,
                 const std::string& read, const std::string& write, const std::vector<std::pair<std::string, std::string>>& rates) {
  if (const auto b = r.get(total)) {
    k.bytes.push_back({level, *b, count_source::counter, total});
    return;
  }
  if (!read.empty() && (r.has(read) || r.has(write))) {
    const auto rd = r.get(read), wr = r.get(write);
    if (rd && wr) {
      k.bytes.push_back({level, *rd + *wr, count_source::counter, read + " + " + write});
      return;
    }
    note.push_back(fmt::format("{} bytes unknown: {} and {} are not both recorded", level, read, write));
    return;
  }
  for (const auto& [rate, what] : rates) {
    if (!r.has(rate)) continue;
    if (const auto b = count_from_rate(r, rate, k.duration_s, level + " bytes")) {
      k.bytes.push_back({level, *b, count_source::counter, fmt::format("{} × {}{}", rate, duration_metric, what)});
      return;
    }
  }
}

/// One launch → a record; nullopt (and a line in `skipped`) when it has no duration.
std::optional<kernel_record> to_record(const ncu_launch& l, const std::string& file, std::vector<std::string>& skipped) {
  metric_reader r(file, l);
  kernel_record k;
  k.name = l.name;
  k.id = l.id;
  std::string time_metric = duration_metric;
  auto t = r.get(duration_metric, "time");
  if (!t && !r.has(duration_metric) && r.has("Duration")) {  // --page details without --metrics
    time_metric = "Duration";
    t = r.get("Duration", "time");
  }
  if (!t || *t <= 0) {
    skipped.push_back(fmt::format("kernel ID {} '{}': no {} ({}); not read", l.id, short_name(l.name), duration_metric,
                                  r.has(time_metric) ? "n/a or 0" : "not exported"));
    return std::nullopt;
  }
  k.duration_s = *t;
  k.device = integer(l.device);
  k.stream = integer(l.stream);
  k.grid_blocks = dims_product(l.grid);
  k.block_threads = dims_product(l.block);
  for (const char* m : {"sm__cycles_elapsed.avg.per_second", "gpc__cycles_elapsed.avg.per_second", "SM Frequency"})
    if (r.has(m)) {
      k.sm_clock_hz = r.get(m, "frequency");
      if (k.sm_clock_hz) break;
    }

  std::vector<std::string> note;
  const bool vector = vector_flops(r, k, note);
  const bool tensor = tensor_flops(r, l, k, note);
  if (!tensor) {
    double tensor_inst = 0;
    std::string inst_metric;
    for (const auto& [name, c] : l.metrics)
      if ((name.rfind("sm__inst_executed_pipe_tensor", 0) == 0 || name.rfind("smsp__inst_executed_pipe_tensor", 0) == 0) && name.size() > 4 &&
          name.compare(name.size() - 4, 4, ".sum") == 0)
        if (const auto v = r.get(name); v && *v > tensor_inst) {
          tensor_inst = *v;
          inst_metric = name;
        }
    k.tensor_flops_not_counted = true;
    if (tensor_inst > 0)
      note.push_back(fmt::format("tensor-core instructions present and not counted ({} = {:.0f}; export sm__ops_path_tensor_* for their FLOPs)",
                                 inst_metric, tensor_inst));
    else
      note.push_back("tensor-core FLOPs not in this export (no sm__ops_path_tensor_* metric): tensor work is invisible to the SASS counters");
  }
  if (!vector && !tensor) note.push_back("no FLOP counter exported");

  level_bytes(r, k, note, "dram", "dram__bytes.sum", "dram__bytes_read.sum", "dram__bytes_write.sum", {{"dram__bytes.sum.per_second", ""}});
  level_bytes(r, k, note, "l2", "lts__t_bytes.sum", "", "",
              {{"lts__t_bytes.sum.per_second", ""},
               {"derived__lts__lts2xbar_bytes.sum.per_second", " (L2 → SM crossbar bytes, the L2 level of ncu's roofline sections)"}});
  level_bytes(r, k, note, "l1", "l1tex__t_bytes.sum", "", "",
              {{"l1tex__t_bytes.sum.per_second", ""},
               {"derived__l1tex__lsu_writeback_bytes_mem_lgds.sum.per_second",
                " (L1 → register writeback bytes of global/local/shared loads, the L1 level of ncu's roofline sections)"}});

  std::vector<std::string> all = r.notes;  // n/a values first: they explain the unknowns after
  all.insert(all.end(), note.begin(), note.end());
  k.note = "Nsight Compute: " + (all.empty() ? std::string("all counts exact") : join(all, "; "));
  return k;
}

std::size_t column(const std::vector<std::string>& header, const std::string& name) {
  for (std::size_t i = 0; i < header.size(); ++i)
    if (trim(header[i]) == name) return i;
  return std::string::npos;
}

std::string field(const std::vector<std::string>& row, std::size_t c) { return c < row.size() ? trim(row[c]) : ""; }

}  // namespace

const std::vector<std::string>& recommended_ncu_metrics() {
  static const std::vector<std::string> m = [] {
    std::vector<std::string> v = {"gpu__time_duration.sum", "dram__bytes_read.sum", "dram__bytes_write.sum", "lts__t_bytes.sum",
                                  "l1tex__t_bytes.sum"};
    for (const char p : {'d', 'f', 'h'})
      for (const char* op : {"add", "mul", "fma"}) v.push_back(fmt::format("smsp__sass_thread_inst_executed_op_{}{}_pred_on.sum", p, op));
    for (const char* t : {"fp16", "bf16_dst_fp32", "tf32_dst_fp32", "fp8_sparsity_off", "int8", "fp64"})
      v.push_back(fmt::format("sm__ops_path_tensor_src_{}.sum", t));
    v.push_back("sm__cycles_elapsed.avg.per_second");
    return v;
  }();
  return m;
}

ingest_result read_ncu_csv(const std::string& path) {
  const std::string text = read_file(path);
  ingest_result res;
  res.file = path;
  res.tool_version = "Nsight Compute";
  if (trim(text).empty()) throw input_error(path, "", "empty file (expected an Nsight Compute CSV export)");

  // ==PROF== / ==WARNING== lines go to `skipped`; ==ERROR== lines to `failures` (ncu failed on a
  // kernel or the program died: what it profiled before is kept, and the export is incomplete)
  std::string csv;
  csv.reserve(text.size());
  std::size_t line_no = 0, first_error_line = 0;
  std::string first_error;
  for (std::size_t pos = 0; pos < text.size();) {
    std::size_t nl = text.find('\n', pos);
    if (nl == std::string::npos) nl = text.size();
    const std::string line = text.substr(pos, nl - pos);
    const std::string t = trim(line);
    ++line_no;
    pos = nl + 1;
    if (t.rfind("==", 0) == 0 && t.find("==", 2) != std::string::npos) {
      if (t.rfind("==ERROR==", 0) == 0) {
        if (first_error.empty()) first_error = t, first_error_line = line_no;
        res.failures.push_back(fmt::format("line {}: {}", line_no, t));
        continue;
      }
      res.skipped.push_back(fmt::format("line {}: {}", line_no, t));
      continue;
    }
    csv += line;
    csv += '\n';
  }
  // Without a table the error is the answer; with one, the kernels profiled before it are read.
  auto error_only = [&] {
    if (!first_error.empty())
      throw input_error(path, fmt::format("line {}", first_error_line),
                        fmt::format("Nsight Compute reported an error: \"{}\"", first_error));
  };
  std::vector<std::vector<std::string>> rows;
  try {
    rows = parse_csv(csv, path);
  } catch (const input_error&) {
    error_only();
    // a quoted field cut by the end of the file: keep the records before the cut
    const auto cut = csv.rfind('\n', csv.size() > 1 ? csv.size() - 2 : 0);
    rows = parse_csv(csv.substr(0, cut == std::string::npos ? 0 : cut + 1), path);
    res.incomplete = "the file ends inside a quoted field: the export is cut short";
  }
  std::size_t h = 0;
  while (h < rows.size() && (column(rows[h], "ID") == std::string::npos || column(rows[h], "Kernel Name") == std::string::npos)) ++h;
  if (h == rows.size()) {
    error_only();
    throw input_error(path, "", "not an Nsight Compute CSV export: no header row with \"ID\" and \"Kernel Name\"");
  }
  const auto& header = rows[h];
  const std::size_t id = column(header, "ID"), kname = column(header, "Kernel Name"), dev = column(header, "Device"),
                    stream = column(header, "Stream"), block = column(header, "Block Size"), grid = column(header, "Grid Size"),
                    mname = column(header, "Metric Name"), munit = column(header, "Metric Unit"), mvalue = column(header, "Metric Value");
  // A short last record is a cut export (kept up to the launch before it); a short record elsewhere
  // is not one table.
  std::size_t end = rows.size();
  if (end > h + 1 && rows[end - 1].size() != header.size()) {
    --end;
    res.incomplete = fmt::format("CSV record {} has {} fields, the header {}: the export is cut short there", end + 1,
                                 rows[end].size(), header.size());
  }
  auto check_width = [&](std::size_t i) {
    if (rows[i].size() != header.size())
      throw input_error(path, "", fmt::format("CSV record {} has {} fields, the header {}: the export is truncated or not one table", i + 1, rows[i].size(),
                                              header.size()));
  };
  auto start = [&](const std::vector<std::string>& row) {
    return ncu_launch{field(row, id), field(row, kname), field(row, dev), field(row, stream), field(row, block), field(row, grid), {}};
  };

  std::vector<ncu_launch> launches;
  if (mname != std::string::npos && mvalue != std::string::npos) {
    res.format = "ncu-long";
    std::map<std::string, std::size_t> index;  // ID → launches position
    for (std::size_t i = h + 1; i < end; ++i) {
      check_width(i);
      const auto& row = rows[i];
      const std::string key = field(row, id);
      auto [it, fresh] = index.emplace(key, launches.size());
      if (fresh) launches.push_back(start(row));
      launches[it->second].metrics.emplace(field(row, mname), cell{row[mvalue], munit == std::string::npos ? "" : row[munit]});
    }
  } else {
    res.format = "ncu-raw";
    std::set<std::size_t> fixed = {id, kname, dev, stream, block, grid};
    for (const char* n : {"Process ID", "Process Name", "Host Name", "Context", "CC"}) fixed.insert(column(header, n));
    std::size_t first = h + 1;
    std::vector<std::string> units(header.size());
    if (first < rows.size() && field(rows[first], id).empty()) {  // the units row
      for (std::size_t c = 0; c < header.size() && c < rows[first].size(); ++c) units[c] = rows[first][c];
      ++first;
    }
    for (std::size_t i = first; i < end; ++i) {
      check_width(i);
      ncu_launch l = start(rows[i]);
      for (std::size_t c = 0; c < header.size(); ++c)
        if (!fixed.count(c)) l.metrics.emplace(trim(header[c]), cell{rows[i][c], units[c]});
      launches.push_back(std::move(l));
    }
  }
  if (launches.empty()) throw input_error(path, "", "no kernel in the export");

  const ncu_launch* first_device = nullptr;
  for (const auto& l : launches) {
    if (l.device.empty()) continue;
    if (!first_device) first_device = &l;
    if (l.device != first_device->device)
      throw input_error(path, "Device",
                        fmt::format("two GPUs in one export: device {} (kernel ID {}) and device {} (kernel ID {}); split it with --devices",
                                    first_device->device, first_device->id, l.device, l.id));
  }

  // a long-form export cut inside a launch's rows: that launch's metrics are partial, so it is dropped
  if (!res.incomplete.empty() && res.format == "ncu-long" && launches.size() > 1) {
    res.incomplete += fmt::format("; the last launch (ID {}) is dropped: its metric rows are cut", launches.back().id);
    launches.pop_back();
  }
  for (const auto& l : launches) {
    // a launch whose every metric is nan: ncu started on it and failed (the program died under it)
    const bool failed = !l.metrics.empty() && std::all_of(l.metrics.begin(), l.metrics.end(), [](const auto& m) {
      return lower(trim(m.second.value)) == "nan";
    });
    if (failed) {
      res.failures.push_back(fmt::format("kernel ID {} '{}': every metric is nan: Nsight Compute did not profile it", l.id,
                                         short_name(l.name)));
      continue;
    }
    if (auto k = to_record(l, path, res.skipped)) res.kernels.push_back(std::move(*k));
  }
  if (!res.failures.empty() && !res.kernels.empty())
    res.incomplete = fmt::format("Nsight Compute failed ({} line(s) below): the export holds the {} kernel(s) profiled before{}",
                                 res.failures.size(), res.kernels.size(), res.incomplete.empty() ? "" : "; " + res.incomplete);
  if (res.kernels.empty())
    throw input_error(path, duration_metric,
                      fmt::format("no kernel of the {} has a duration: profile with --metrics {},... (or --section SpeedOfLight)", launches.size(),
                                  duration_metric));
  return res;
}

}  // namespace roofline::ingest
