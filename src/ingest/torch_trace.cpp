// PyTorch profiler / Kineto chrome trace (.json or .json.gz) -> kernel_records, streaming.
//
// One SAX pass (nlohmann::json::sax_parse over a gunzipping streambuf) keeps only compact tables:
// the GPU kernels, the runtime launches (correlation -> launch), the host intervals (cpu_op,
// user_annotation, python_function) with External id -> interval, and the recorded shapes of the
// ops the cost model knows. Kineto does not order traceEvents, so every link is resolved after the
// pass. Linking rules, the aten -> cost-model table and what stays unattributed: docs/ingest.md,
// "PyTorch profiler traces".
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <map>
#include <memory>
#include <streambuf>
#include <unordered_map>

#ifdef ROOFLINE_HAVE_ZLIB
#include <zlib.h>
#endif

#include "ingest/aten_cost.hpp"
#include "roofline/error.hpp"
#include "roofline/ingest.hpp"
#include "roofline/json.hpp"

namespace roofline::ingest {

namespace {

constexpr double us = 1e-6;  // Kineto ts/dur are microseconds

// ---- input: a plain or gzip file as a streambuf (bounded buffer, read in 1 MiB chunks) ----
class file_buf : public std::streambuf {
 public:
  explicit file_buf(const std::string& path) : path_(path), buf_(1 << 20) {
    f_ = std::fopen(path.c_str(), "rb");
    if (!f_) throw input_error(path, "", std::string("cannot open: ") + std::strerror(errno));
    unsigned char magic[2] = {0, 0};
    const auto n = std::fread(magic, 1, 2, f_);
    std::rewind(f_);
    if (n == 2 && magic[0] == 0x1f && magic[1] == 0x8b) {
#ifdef ROOFLINE_HAVE_ZLIB
      std::fclose(f_), f_ = nullptr;
      gz_ = gzopen(path.c_str(), "rb");
      if (!gz_) throw input_error(path, "gzip", "cannot open");
      gzbuffer(gz_, 1 << 18);
#else
      std::fclose(f_), f_ = nullptr;
      throw input_error(path, "gzip", "built without zlib: gunzip it first");
#endif
    }
  }
  ~file_buf() override {
    if (f_) std::fclose(f_);
#ifdef ROOFLINE_HAVE_ZLIB
    if (gz_) gzclose(gz_);
#endif
  }
  file_buf(const file_buf&) = delete;
  file_buf& operator=(const file_buf&) = delete;

  /// The next character or EOF: the nlohmann lexer's input (chunk_adapter), inline on the buffer.
  std::char_traits<char>::int_type next() {
    if (gptr() < egptr()) {
      const auto c = std::char_traits<char>::to_int_type(*gptr());
      gbump(1);
      return c;
    }
    const auto c = underflow();
    if (c != traits_type::eof()) gbump(1);
    return c;
  }
  std::uint64_t bytes() const { return total_; }
  const std::string& error() const { return error_; }  ///< a gzip stream that ended early or is corrupt
  bool gzip() const {
#ifdef ROOFLINE_HAVE_ZLIB
    return gz_ != nullptr;
#else
    return false;
#endif
  }

 protected:
  int_type underflow() override {
    if (gptr() < egptr()) return traits_type::to_int_type(*gptr());
    long n = 0;
    if (f_) {
      n = long(std::fread(buf_.data(), 1, buf_.size(), f_));
      if (n == 0 && std::ferror(f_)) error_ = std::string("read error: ") + std::strerror(errno);
    }
#ifdef ROOFLINE_HAVE_ZLIB
    if (gz_) {
      n = gzread(gz_, buf_.data(), unsigned(buf_.size()));
      int err = Z_OK;
      const char* msg = gzerror(gz_, &err);
      if (n < 0 || (n == 0 && err != Z_OK)) {
        error_ = fmt::format("gzip stream truncated or corrupt after {} uncompressed bytes (zlib: {})", total_,
                             msg ? msg : "?");
        n = 0;
      }
    }
#endif
    if (n <= 0) return traits_type::eof();
    total_ += std::uint64_t(n);
    setg(buf_.data(), buf_.data(), buf_.data() + n);
    return traits_type::to_int_type(*gptr());
  }

 private:
  std::string path_;
  std::vector<char> buf_;
  std::FILE* f_ = nullptr;
#ifdef ROOFLINE_HAVE_ZLIB
  gzFile gz_ = nullptr;
#endif
  std::uint64_t total_ = 0;
  std::string error_;
};

// The lexer's input: characters straight from file_buf's chunk (nlohmann's input_stream_adapter
// goes through std::istream; this is the same contract: get_character() returns a char or EOF).
struct chunk_adapter {
  using char_type = char;
  file_buf* buf;
  std::char_traits<char>::int_type get_character() { return buf->next(); }
};

// ---- the compact tables the pass keeps ----
enum class host_kind : std::uint8_t { cpu_op, user_annotation, python_function };

struct interval {
  double ts = 0, end = 0;  // µs
  std::int64_t tid = 0, ext = -1;
  std::uint32_t name = 0;
  host_kind kind = host_kind::cpu_op;
  std::int32_t parent = -1;
  std::int32_t call = -1;  // index into calls (ops with a cost model only)
};

struct launch {  // a runtime / driver launch call, or an ac2g flow start
  double ts = 0;
  std::int64_t tid = 0, ext = -1;
  std::uint32_t name = 0;
  bool from_flow = false;
};

struct raw_kernel {
  std::uint32_t name = 0;
  double ts = 0, dur = 0;
  std::optional<std::int64_t> stream, device, corr, ext, grid, block;
};

// The fields of the event being read.
struct event {
  std::string ph, cat, name;
  std::optional<double> ts, dur;
  std::int64_t tid = 0;
  std::optional<std::int64_t> ext, corr, device, stream, id;
  std::optional<double> bytes;
  std::optional<std::int64_t> grid, block;
  json dims, types, strides, concrete;  // record_shapes arguments (captured raw)
  void clear() {
    ph.clear(), cat.clear(), name.clear();
    ts.reset(), dur.reset(), tid = 0;
    ext.reset(), corr.reset(), device.reset(), stream.reset(), id.reset(), bytes.reset();
    grid.reset(), block.reset();
    dims = json(), types = json(), strides = json(), concrete = json();
  }
};

std::vector<std::int64_t> int_list(const json& j) {
  std::vector<std::int64_t> v;
  if (j.is_array())
    for (const auto& x : j)
      if (x.is_number_integer()) v.push_back(x.get<std::int64_t>());
      else if (x.is_number() && std::abs(x.get<double>()) < 9.2e18) v.push_back(static_cast<std::int64_t>(x.get<double>()));
  return v;
}

class trace_sax : public nlohmann::json_sax<json> {
 public:
  trace_sax(const std::string& file, const file_buf& in) : file_(file), in_(in) {}

  // results of the pass
  std::vector<std::string> names;
  std::vector<raw_kernel> kernels;
  std::vector<kernel_record> memory_ops;
  std::unordered_map<std::int64_t, launch> launches;  // correlation -> launch
  std::unordered_map<std::int64_t, launch> flows;     // ac2g flow start id -> launch point
  std::vector<interval> intervals;
  std::unordered_map<std::int64_t, std::int32_t> by_ext;  // External id -> interval
  std::vector<detail::aten_call> calls;
  std::map<std::string, std::int64_t> ignored;  // category -> events not read
  bool saw_events = false, top_object = false;
  double t_min = std::numeric_limits<double>::infinity(), t_max = -t_min;
  double gpu_min = t_min, gpu_max = -t_min;
  std::int64_t zero_duration = 0, events = 0;
  std::optional<std::int64_t> schema, cuda_runtime, cupti;
  std::string trace_id;
  std::vector<std::string> devices;

  std::uint32_t intern(const std::string& s) {
    auto [it, fresh] = name_ids_.try_emplace(s, std::uint32_t(names.size()));
    if (fresh) names.push_back(s);
    return it->second;
  }

  // ---- SAX callbacks ----
  bool null() override { return value(json()); }
  bool boolean(bool v) override { return value(json(v)); }
  bool number_integer(number_integer_t v) override { return number(double(v), v, json(v)); }
  bool number_unsigned(number_unsigned_t v) override {
    return number(double(v), std::int64_t(std::min<number_unsigned_t>(v, INT64_MAX)), json(v));
  }
  bool number_float(number_float_t v, const string_t&) override { return number(v, std::int64_t(v), json(v)); }
  bool binary(binary_t&) override { return true; }
  bool string(string_t& v) override {
    if (capture_) return add(json(std::move(v)));
    if (depth_ == 1) {
      if (top_key_ == "trace_id") trace_id = v;
    } else if (in_devices_ && depth_ == 3 && key3_ == "name") {
      devices.push_back(v);
    } else if (in_event_ && depth_ == 3) {
      if (key3_ == "ph") ev_.ph = std::move(v);
      else if (key3_ == "cat") ev_.cat = std::move(v);
      else if (key3_ == "name") ev_.name = std::move(v);
      else if (key3_ == "tid") ev_.tid = -1 - std::int64_t(intern(v));  // a named lane: negative id
      else if (key3_ == "id") ev_.id = -1 - std::int64_t(intern(v));
    }
    return true;
  }
  bool key(string_t& k) override {
    if (capture_) {
      pending_key_ = k;
      return true;
    }
    if (depth_ == 1) top_key_ = k;
    else if (depth_ == 3) key3_ = k;
    else if (depth_ == 4) key4_ = k;
    return true;
  }
  bool start_object(std::size_t) override {
    if (capture_) return open(json::object());
    ++depth_;
    if (depth_ == 1) top_object = true;
    if (depth_ == 3 && in_events_) in_event_ = true, ev_.clear();
    if (depth_ == 4 && in_event_ && key3_ == "args") in_args_ = true;
    return true;
  }
  bool end_object() override {
    if (capture_) return close();
    if (depth_ == 3 && in_event_) finish_event(), in_event_ = false;
    if (depth_ == 4) in_args_ = false;
    --depth_;
    return true;
  }
  bool start_array(std::size_t) override {
    if (capture_) return open(json::array());
    if (depth_ == 0) {  // the JSON Array Format of chrome traces: a bare array of events
      in_events_ = saw_events = true;
      depth_ = 1, array_root_ = true;
      ++depth_;
      return true;
    }
    ++depth_;
    if (depth_ == 2 && top_key_ == "traceEvents") in_events_ = saw_events = true;
    if (depth_ == 2 && top_key_ == "deviceProperties") in_devices_ = true;
    // Shapes are kept for cpu_ops the model can cost only (Kineto writes cat and name before args;
    // when they come later, everything is captured and dropped at the event's end); strides are
    // read by aten::gather only.
    const bool want = (ev_.cat.empty() || ev_.cat == "cpu_op") && (ev_.name.empty() || detail::has_cost_model(ev_.name));
    if (depth_ == 5 && in_args_ && !want && key4_ != "grid" && key4_ != "block") {
      // not captured: skipped like any other value
    } else if (depth_ == 5 && in_args_) {
      if (key4_ == "Input Strides" && !ev_.name.empty() && ev_.name != "aten::gather") {
      } else if (key4_ == "Input Dims") start_capture(&ev_.dims);
      else if (key4_ == "Input type") start_capture(&ev_.types);
      else if (key4_ == "Input Strides") start_capture(&ev_.strides);
      else if (key4_ == "Concrete Inputs") start_capture(&ev_.concrete);
      else if (key4_ == "grid" || key4_ == "block") dims3_ = 1, in_dims3_ = true;
    }
    return true;
  }
  bool end_array() override {
    if (capture_) return close();
    if (depth_ == 5 && in_dims3_) {
      (key4_ == "grid" ? ev_.grid : ev_.block) = dims3_;
      in_dims3_ = false;
    }
    if (depth_ == 2) in_events_ = in_devices_ = false;
    --depth_;
    if (array_root_ && depth_ == 1) depth_ = 0;
    return true;
  }
  bool parse_error(std::size_t position, const std::string& last_token, const nlohmann::detail::exception& e) override {
    if (!in_.error().empty()) throw input_error(file_, "gzip", in_.error());
    const std::string what = e.what();
    if (position <= 1 && last_token.empty()) throw input_error(file_, "", "not JSON: the file is empty");
    if (what.find("unexpected end of input") != std::string::npos)
      throw input_error(file_, "", fmt::format("truncated at byte {}: the JSON ends inside a value", position));
    const auto p = what.find("] ");
    throw input_error(file_, "", fmt::format("not JSON at byte {}: {}", position,
                                            p == std::string::npos ? what : what.substr(p + 2)));
  }

 private:
  bool number(double d, std::int64_t i, json j) {
    if (capture_) return add(std::move(j));
    if (in_dims3_) {
      dims3_ *= i;
      return true;
    }
    if (depth_ == 1) {
      if (top_key_ == "schemaVersion") schema = i;
      else if (top_key_ == "cuda_runtime_version") cuda_runtime = i;
      else if (top_key_ == "cupti_version") cupti = i;
    } else if (in_event_ && depth_ == 3) {
      if (key3_ == "ts") ev_.ts = d;
      else if (key3_ == "dur") ev_.dur = d;
      else if (key3_ == "tid") ev_.tid = i;
      else if (key3_ == "id") ev_.id = i;
    } else if (in_args_ && depth_ == 4) {
      if (key4_ == "External id") ev_.ext = i;
      else if (key4_ == "correlation") ev_.corr = i;
      else if (key4_ == "device") ev_.device = i;
      else if (key4_ == "stream") ev_.stream = i;
      else if (key4_ == "bytes") ev_.bytes = d;
    }
    return true;
  }
  bool value(json j) {
    if (capture_) return add(std::move(j));
    return true;
  }
  // Capture of one record_shapes argument (nested arrays of numbers / strings) as a json value.
  void start_capture(json* target) {
    *target = json::array();
    stack_.assign(1, target);
    capture_ = true;
  }
  bool open(json j) {
    json* top = stack_.back();
    if (top->is_array()) {
      top->push_back(std::move(j));
      stack_.push_back(&top->back());
    } else {
      stack_.push_back(&((*top)[pending_key_] = std::move(j)));
    }
    return true;
  }
  bool add(json j) {
    json* top = stack_.back();
    if (top->is_array()) top->push_back(std::move(j));
    else (*top)[pending_key_] = std::move(j);
    return true;
  }
  bool close() {
    stack_.pop_back();
    if (stack_.empty()) capture_ = false, --depth_;  // the captured array closed: back at args
    return true;
  }

  detail::aten_call make_call() const {
    detail::aten_call c;
    c.name = ev_.name;
    const std::size_t n = ev_.dims.is_array() ? ev_.dims.size() : 0;
    c.inputs.resize(n);
    for (std::size_t i = 0; i < n; ++i) {
      auto& in = c.inputs[i];
      const auto& d = ev_.dims[i];
      if (ev_.types.is_array() && i < ev_.types.size() && ev_.types[i].is_string()) in.type = ev_.types[i].get<std::string>();
      if (ev_.concrete.is_array() && i < ev_.concrete.size() && ev_.concrete[i].is_string())
        in.concrete = ev_.concrete[i].get<std::string>();
      if (ev_.strides.is_array() && i < ev_.strides.size()) in.strides = int_list(ev_.strides[i]);
      if (in.type == "TensorList" || (d.is_array() && !d.empty() && d[0].is_array())) {
        in.is_list = true;
        for (const auto& x : d) in.list.push_back(int_list(x));
      } else {
        in.dims = int_list(d);
      }
    }
    return c;
  }

  void finish_event() {
    ++events;
    if (ev_.ph == "X" && ev_.ts) {
      const double ts = *ev_.ts, dur = ev_.dur.value_or(0);
      t_min = std::min(t_min, ts), t_max = std::max(t_max, ts + dur);
      const auto& cat = ev_.cat;
      if (cat == "kernel" || cat == "gpu_memcpy" || cat == "gpu_memset") {
        gpu_min = std::min(gpu_min, ts), gpu_max = std::max(gpu_max, ts + dur);
        if (dur <= 0) {
          ++zero_duration;
          return;
        }
        if (cat == "kernel") {
          raw_kernel k;
          k.name = intern(ev_.name);
          k.ts = ts, k.dur = dur;
          k.stream = ev_.stream, k.device = ev_.device, k.corr = ev_.corr, k.ext = ev_.ext;
          k.grid = ev_.grid, k.block = ev_.block;
          kernels.push_back(k);
        } else {
          kernel_record r;
          r.name = ev_.name;
          if (ev_.corr) r.id = std::to_string(*ev_.corr);
          r.start_s = ts, r.duration_s = dur * us;  // start made relative at the end
          r.stream = ev_.stream, r.device = ev_.device;
          if (ev_.bytes) r.bytes.push_back({"dram", *ev_.bytes, count_source::counter, "args.bytes (CUPTI " + cat + " record)"});
          r.note = cat;
          memory_ops.push_back(std::move(r));
        }
      } else if (cat == "cuda_runtime" || cat == "cuda_driver") {
        if (ev_.corr) launches[*ev_.corr] = launch{ts, ev_.tid, ev_.ext.value_or(-1), intern(ev_.name), false};
      } else if (cat == "cpu_op" || cat == "user_annotation" || cat == "python_function") {
        interval iv;
        iv.ts = ts, iv.end = ts + dur, iv.tid = ev_.tid, iv.name = intern(ev_.name);
        iv.kind = cat == "cpu_op" ? host_kind::cpu_op
                  : cat == "user_annotation" ? host_kind::user_annotation : host_kind::python_function;
        if (ev_.ext && iv.kind != host_kind::python_function) {
          iv.ext = *ev_.ext;
          auto [it, fresh] = by_ext.try_emplace(*ev_.ext, std::int32_t(intervals.size()));
          if (!fresh && iv.kind == host_kind::cpu_op && intervals[std::size_t(it->second)].kind != host_kind::cpu_op)
            it->second = std::int32_t(intervals.size());  // a cpu_op wins a shared External id
        }
        if (iv.kind == host_kind::cpu_op && detail::has_cost_model(ev_.name) && ev_.dims.is_array()) {
          iv.call = std::int32_t(calls.size());
          calls.push_back(make_call());
        }
        intervals.push_back(iv);
      } else {
        ++ignored[cat.empty() ? ev_.ph : cat];
      }
    } else if (ev_.ph == "s" && ev_.cat == "ac2g" && ev_.id && ev_.ts) {
      flows[*ev_.id] = launch{*ev_.ts, ev_.tid, -1, 0, true};
    } else if (ev_.ph != "f" && ev_.ph != "M") {
      ++ignored[(ev_.cat.empty() ? "ph " + ev_.ph : ev_.cat)];
    }
  }

  std::string file_;
  const file_buf& in_;
  std::unordered_map<std::string, std::uint32_t> name_ids_;
  int depth_ = 0;
  bool in_events_ = false, in_event_ = false, in_args_ = false, in_devices_ = false, array_root_ = false;
  std::string top_key_, key3_, key4_, pending_key_;
  event ev_;
  bool capture_ = false, in_dims3_ = false;
  std::int64_t dims3_ = 1;
  std::vector<json*> stack_;
};

std::string version_string(std::int64_t v) {  // 13000 -> "13.0" (CUDA's major·1000 + minor·10)
  return fmt::format("{}.{}", v / 1000, (v % 1000) / 10);
}

bool starts_with(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }

bool is_triton(std::string_view name) { return starts_with(name, "triton_"); }

}  // namespace

ingest_result read_torch_trace(const std::string& path) {
  file_buf buf(path);
  trace_sax sax(path, buf);
  nlohmann::detail::parser<json, chunk_adapter>(chunk_adapter{&buf}, nullptr, true, false).sax_parse(&sax, true);
  if (!buf.error().empty()) throw input_error(path, "gzip", buf.error());
  if (!sax.saw_events)
    throw input_error(path, "traceEvents",
                      sax.top_object ? "not a Chrome/Kineto trace: no traceEvents array"
                                     : "not a Chrome/Kineto trace: the JSON is not an object");

  ingest_result res;
  res.format = "torch-trace";
  res.file = path;
  const auto& names = sax.names;
  const double origin = std::isfinite(sax.t_min) ? sax.t_min : 0;

  // tool_version: what the trace records of its tools (Kineto writes no PyTorch version).
  {
    std::string v = "PyTorch profiler (Kineto chrome trace";
    if (sax.schema) v += fmt::format(", schema {}", *sax.schema);
    if (sax.cuda_runtime) v += ", CUDA runtime " + version_string(*sax.cuda_runtime);
    if (sax.cupti) v += fmt::format(", CUPTI {}", *sax.cupti);
    v += ")";
    if (!sax.devices.empty()) v += " on " + sax.devices.front();
    res.tool_version = v;
  }

  // ---- host intervals: nesting per thread (sorted by start, longer first), parents by a stack ----
  auto& iv = sax.intervals;
  std::vector<std::int32_t> order(iv.size());
  for (std::size_t i = 0; i < iv.size(); ++i) order[i] = std::int32_t(i);
  std::sort(order.begin(), order.end(), [&](std::int32_t a, std::int32_t b) {
    const auto &x = iv[std::size_t(a)], &y = iv[std::size_t(b)];
    if (x.tid != y.tid) return x.tid < y.tid;
    if (x.ts != y.ts) return x.ts < y.ts;
    return x.end > y.end;
  });
  {
    std::vector<std::int32_t> stack;
    std::int64_t tid = 0;
    for (std::size_t j = 0; j < order.size(); ++j) {
      auto& x = iv[std::size_t(order[j])];
      if (j == 0 || x.tid != tid) stack.clear(), tid = x.tid;
      while (!stack.empty() && iv[std::size_t(stack.back())].end < x.end) stack.pop_back();
      if (!stack.empty() && iv[std::size_t(stack.back())].ts <= x.ts) x.parent = stack.back();
      stack.push_back(order[j]);
    }
  }
  // The innermost interval on `tid` enclosing time t (of kind cpu_op / user_annotation unless
  // python allowed); -1 when none.
  auto enclosing = [&](std::int64_t tid, double t, bool python) -> std::int32_t {
    auto it = std::upper_bound(order.begin(), order.end(), std::make_pair(tid, t),
                               [&](const std::pair<std::int64_t, double>& p, std::int32_t i) {
                                 const auto& x = iv[std::size_t(i)];
                                 return p.first != x.tid ? p.first < x.tid : p.second < x.ts;
                               });
    if (it == order.begin()) return -1;
    std::int32_t i = *(it - 1);
    if (iv[std::size_t(i)].tid != tid) return -1;
    while (i >= 0) {
      const auto& x = iv[std::size_t(i)];
      if (x.ts <= t && t <= x.end && (python || x.kind != host_kind::python_function)) return i;
      i = x.parent;
    }
    return -1;
  };
  {
    std::vector<std::int32_t> top;
    for (std::size_t i = 0; i < iv.size(); ++i)
      if (iv[i].parent < 0) top.push_back(std::int32_t(i));
    const std::size_t all = top.size();
    if (top.size() > max_host_intervals) {
      std::nth_element(top.begin(), top.begin() + std::ptrdiff_t(max_host_intervals), top.end(),
                       [&](std::int32_t a, std::int32_t b) {
                         return iv[std::size_t(a)].end - iv[std::size_t(a)].ts > iv[std::size_t(b)].end - iv[std::size_t(b)].ts;
                       });
      top.resize(max_host_intervals);
      res.skipped.push_back(fmt::format("host: {} of {} outermost host intervals kept (the longest)",
                                        max_host_intervals, all));
    }
    std::sort(top.begin(), top.end(), [&](std::int32_t a, std::int32_t b) { return iv[std::size_t(a)].ts < iv[std::size_t(b)].ts; });
    for (auto i : top) {
      const auto& x = iv[std::size_t(i)];
      res.host.push_back({names[x.name], (x.ts - origin) * us, (x.end - x.ts) * us});
    }
  }

  // ---- kernels: launch order (correlation ids grow with launches), links, costs ----
  auto& ks = sax.kernels;
  std::stable_sort(ks.begin(), ks.end(), [](const raw_kernel& a, const raw_kernel& b) {
    if (a.corr && b.corr && *a.corr != *b.corr) return *a.corr < *b.corr;
    return a.ts < b.ts;
  });
  res.kernels.resize(ks.size());
  std::vector<std::int32_t> op_of(ks.size(), -1);
  std::unordered_map<std::int32_t, std::vector<std::size_t>> by_op;  // cpu_op -> its kernels
  for (std::size_t i = 0; i < ks.size(); ++i) {
    const auto& k = ks[i];
    auto& r = res.kernels[i];
    r.name = names[k.name];
    if (k.corr) r.id = std::to_string(*k.corr);
    r.start_s = (k.ts - origin) * us;
    r.duration_s = k.dur * us;
    r.stream = k.stream, r.device = k.device;
    r.grid_blocks = k.grid, r.block_threads = k.block;
    const launch* l = nullptr;
    if (k.corr) {
      if (auto it = sax.launches.find(*k.corr); it != sax.launches.end()) l = &it->second;
      else if (auto f = sax.flows.find(*k.corr); f != sax.flows.end()) l = &f->second;
    }
    const std::string launch_name = l && !l->from_flow ? names[l->name] : "";
    r.graph_replay = launch_name.find("GraphLaunch") != std::string::npos;
    std::int32_t op = -1;
    const std::int64_t ext = k.ext.value_or(l ? l->ext : -1);
    if (!r.graph_replay && ext >= 0)
      if (auto it = sax.by_ext.find(ext); it != sax.by_ext.end()) op = it->second;
    if (op < 0 && l) op = enclosing(l->tid, l->ts, false);
    if (op < 0 && l) op = enclosing(l->tid, l->ts, true);
    if (op >= 0) r.framework_op = names[iv[std::size_t(op)].name];
    if (r.graph_replay) {
      r.note = "CUDA-graph replay: kernels not linked to ops";
    } else if (is_triton(r.name)) {
      r.note = "Triton kernel: no shapes in the trace";
    } else if (op < 0) {
      r.note = l ? "not linked: no op encloses its launch" : "not linked: no launch with its correlation id";
    } else if (iv[std::size_t(op)].kind != host_kind::cpu_op) {
      r.note = "launched under a scope, not an aten op: no shapes";
    } else {
      op_of[i] = op;
      by_op[op].push_back(i);
    }
  }
  // One op's FLOPs and bytes go once, to its longest kernel (a GEMM + split-K reduce, cuDNN
  // attention + its reduction): never counted twice.
  for (auto& [op, list] : by_op) {
    const auto& x = iv[std::size_t(op)];
    const std::size_t longest = *std::max_element(list.begin(), list.end(), [&](std::size_t a, std::size_t b) {
      return ks[a].dur < ks[b].dur;
    });
    std::string why;
    std::optional<detail::aten_cost> cost;
    std::string shapes;
    if (x.call >= 0) {
      const auto& call = sax.calls[std::size_t(x.call)];
      shapes = detail::format_shapes(call);
      cost = detail::cost_aten_op(call, res.kernels[longest].name, why);
    } else {
      why = detail::has_cost_model(names[x.name]) ? names[x.name] + ": no Input Dims recorded (record_shapes=False?)"
                                                  : "no cost model for " + names[x.name];
    }
    for (auto i : list) {
      auto& r = res.kernels[i];
      r.shapes = shapes;
      if (!cost) {
        r.note = why;
        continue;
      }
      r.cost_model = cost->cost_model;
      if (i != longest) {
        r.note = fmt::format("one of {} kernels of this {}: its {} counts are on the longest kernel (id {})",
                             list.size(), names[x.name], cost->cost_model, res.kernels[longest].id);
        continue;
      }
      if (!cost->precision.empty() && cost->op.flops > 0)
        r.model_flops.push_back({cost->precision, cost->engine, cost->op.flops, count_source::shape_model, cost->cost_model});
      r.bytes.push_back({"dram", cost->op.bytes(), count_source::shape_model, cost->cost_model});
      r.note = cost->note;
      if (list.size() > 1)
        r.note += std::string(r.note.empty() ? "" : "; ") +
                  fmt::format("the op's whole cost, on its longest of {} kernels", list.size());
    }
  }

  for (auto& m : sax.memory_ops) {
    m.start_s = (*m.start_s - origin) * us;
    res.gpu_memory_ops.push_back(std::move(m));
  }

  // ---- span, and what was not read ----
  if (std::isfinite(sax.gpu_min)) res.span_s = (sax.gpu_max - sax.gpu_min) * us;
  else if (std::isfinite(sax.t_min)) res.span_s = (sax.t_max - sax.t_min) * us;
  if (res.kernels.empty())
    res.skipped.push_back("the trace has no CUDA activity (no GPU kernels): profile with ProfilerActivity.CUDA");
  if (!res.gpu_memory_ops.empty())
    res.skipped.push_back(fmt::format("{} GPU memcpy/memset records kept apart (gpu_memory_ops), not as kernels",
                                      res.gpu_memory_ops.size()));
  if (sax.zero_duration)
    res.skipped.push_back(fmt::format("{} GPU records of zero duration not kept", sax.zero_duration));
  for (const auto& [cat, n] : sax.ignored)
    res.skipped.push_back(fmt::format("{} '{}' events not read (not kernels, launches or host intervals)", n, cat));
  {
    std::map<std::string, std::pair<std::int64_t, double>> no_cost;  // reason -> kernels, seconds
    for (const auto& r : res.kernels)
      if (r.cost_model.empty()) {
        auto& e = no_cost[r.note];
        ++e.first, e.second += r.duration_s;
      }
    for (const auto& [why, e] : no_cost)
      res.skipped.push_back(fmt::format("{} kernels ({:.3f} ms) without FLOPs or bytes: {}", e.first, e.second * 1e3, why));
  }
  return res;
}

}  // namespace roofline::ingest
