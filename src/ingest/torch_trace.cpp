// PyTorch profiler / Kineto chrome trace (.json or .json.gz) -> kernel_records, streaming.
//
// One streaming pass (ingest/kineto_scan.hpp: the scanner, Kineto's keys, gzip inflated on a second
// thread) keeps only compact tables:
// the GPU kernels, the runtime launches (correlation -> launch), the host intervals (cpu_op,
// user_annotation, python_function) with External id -> interval, and the recorded shapes of the
// ops the cost model knows. Kineto does not order traceEvents, so every link is resolved after the
// pass. Linking rules, the aten -> cost-model table and what stays unattributed: docs/ingest.md,
// "PyTorch profiler traces".
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <cstdlib>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <deque>
#include <map>
#include <memory>
#include <new>
#include <unordered_map>
#include <unordered_set>

#include "ingest/aten_cost.hpp"
#include "ingest/kineto_scan.hpp"
#include "roofline/error.hpp"
#include "roofline/ingest.hpp"
#include "roofline/shared_string.hpp"

namespace roofline::ingest {

namespace {

constexpr double us = 1e-6;  // Kineto ts/dur are microseconds

// ---- the compact tables the pass keeps ----
enum class host_kind : std::uint8_t { cpu_op, user_annotation, python_function };

// A thread's (or named lane's) events: its index among the trace's lanes (tables::lane), 16 bits so
// that an interval is 32 bytes and a launch 24 (held for every event of those kinds until linked).
using lane_id = std::uint16_t;

struct interval {
  double ts = 0, end = 0;  // µs
  std::uint32_t name = 0;
  std::int32_t parent = -1;
  std::int32_t call = -1;  // index into the distinct calls (ops with a cost model only; equal shapes share one)
  lane_id tid = 0;
  host_kind kind = host_kind::cpu_op;
};
static_assert(sizeof(interval) == 32);

struct launch {  // a runtime / driver launch call, or an ac2g flow start
  double ts = 0;
  std::int64_t ext = -1;
  std::uint32_t name = 0;
  lane_id tid = 0;
  bool from_flow = false;
};
static_assert(sizeof(launch) == 24);

// An integer the event did not carry: raw_kernel keeps sentinels, not std::optional (72 bytes a kernel
// instead of 120, held for every kernel until the records are built).
constexpr std::int64_t absent = std::numeric_limits<std::int64_t>::min();
std::int64_t or_absent(const std::optional<std::int64_t>& v) { return v ? *v : absent; }
std::optional<std::int64_t> present(std::int64_t v) { return v == absent ? std::nullopt : std::optional<std::int64_t>(v); }

struct raw_kernel {
  double ts = 0, dur = 0;
  std::int64_t stream = absent, device = absent, corr = absent, ext = absent, grid = absent, block = absent;
  std::uint32_t name = 0;
  std::uint32_t seq = 0;  // its place in the file (in the padding): the sort's tie-break
};
static_assert(sizeof(raw_kernel) == 72);

/// Why a kernel is not costed from its op, when linking says so (the record's note; none: costed, or
/// its op's group says why not).
enum class link_note : std::uint8_t { none, replay, triton, no_op, no_launch, scope };

/// What linking found for one kernel, kept until its record is built (the scan's tables are freed
/// before the records are made: docs/ingest.md, "Read speed"). 24 bytes.
struct kernel_link {
  double launch_ts = std::numeric_limits<double>::quiet_NaN();  // µs; NaN: no launch recorded
  std::int32_t op = -1;     // the host interval that launched it
  std::int32_t group = -1;  // index into the op groups (kernels costed from their op)
  std::uint32_t op_name = 0;
  bool graph_replay = false;
  link_note note = link_note::none;
};

/// One op's kernels and the op's cost, shared out over them when their records are built. Its texts
/// are ids of the read's interned strings (tables::text), its shape an index into a table of the
/// distinct shapes: 80 bytes an op, held for every costed op while the records are made.
struct op_group {
  std::uint32_t longest = 0, last = 0, count = 0;  // kernel indices (< 2^32 kernels: a 10 TB trace)
  std::uint32_t op_name = 0, dims = 0;   // dims: index into the distinct op_dims
  // ids (tables::intern); `note` is why the op was not costed when !costed
  std::uint32_t shapes = 0, note = 0, cost_model = 0, precision = 0, engine = 0, whole_note = 0;
  bool chunks = false, costed = false, has_flops = false;
  double total = 0, flops = 0, bytes = 0;  // total: the kernels' time (µs)
  shared_string counted_note;  // names the longest kernel's id: one string per op call, not interned
};

/// Blocks of 1 MiB from which a deque's nodes are cut, so that a table kept after the scan does not
/// leave one 512-byte node on every page of the heap the scan's other tables shared (such pages stay
/// resident when those tables are freed); a block is freed when its last node is.
class node_pool {
 public:
  static constexpr std::size_t block = std::size_t(1) << 20;
  node_pool() = default;
  node_pool(const node_pool&) = delete;
  node_pool& operator=(const node_pool&) = delete;
  ~node_pool() {
    for (auto& [p, live] : blocks_) std::free(p);
  }
  void* get(std::size_t n) {
    n = (n + 15) & ~std::size_t(15);
    if (!cur_ || used_ + n > block) {
      if (cur_ && blocks_[cur_] == 0) std::free(cur_), blocks_.erase(cur_);
      cur_ = static_cast<char*>(std::malloc(block));
      if (!cur_) throw std::bad_alloc();
      blocks_[cur_] = 0, used_ = 0;
    }
    ++blocks_[cur_];
    return cur_ + std::exchange(used_, used_ + n);
  }
  void put(void* p) {
    auto it = std::prev(blocks_.upper_bound(static_cast<char*>(p)));
    if (--it->second == 0 && it->first != cur_) std::free(it->first), blocks_.erase(it);
  }

 private:
  std::map<char*, std::size_t> blocks_;  // block -> live nodes
  char* cur_ = nullptr;
  std::size_t used_ = 0;
};

/// An allocator for std::deque: its nodes (512 bytes) from a node_pool, anything else (the deque's
/// map of node pointers) from the heap.
template <class T>
struct pool_allocator {
  using value_type = T;
  node_pool* pool;
  explicit pool_allocator(node_pool* p) : pool(p) {}
  template <class U>
  pool_allocator(const pool_allocator<U>& o) : pool(o.pool) {}
  T* allocate(std::size_t n) {
    const std::size_t bytes = n * sizeof(T);
    return static_cast<T*>(bytes <= 512 ? pool->get(bytes) : ::operator new(bytes));
  }
  void deallocate(T* p, std::size_t n) {
    if (n * sizeof(T) <= 512) pool->put(p);
    else ::operator delete(p);
  }
  template <class U>
  bool operator==(const pool_allocator<U>& o) const { return pool == o.pool; }
};

template <class V>
void release(V& v) {
  V().swap(v);
}

/// Hands the heap's free pages back to the system (glibc keeps freed small blocks, such as the scan's
/// deque blocks, resident; the records that follow are one new mapping, so without this the resident
/// memory would be the scan's tables plus the records).
void return_free_memory() {
#ifdef __GLIBC__
  malloc_trim(0);
#endif
}

std::vector<std::int64_t> int_list(const detail::json_tree& t) {
  std::vector<std::int64_t> v;
  for (const auto& x : t.items)
    if (x.is_number) {
      std::int64_t i = 0;
      if (std::from_chars(x.leaf.data(), x.leaf.data() + x.leaf.size(), i).ec == std::errc()) v.push_back(i);
      else if (const double d = std::strtod(x.leaf.c_str(), nullptr); std::abs(d) < 9.2e18) v.push_back(static_cast<std::int64_t>(d));
    }
  return v;
}

/// What the scan keeps of the events (kineto_scan.hpp hands them over one at a time).
struct tables {
  std::string file;  // for the errors
  std::vector<std::string> names;
  // deques, not vectors: they grow a block at a time, where a vector doubling holds up to three times
  // its contents while it copies (the scan is the reader's memory peak: docs/ingest.md, "Read speed")
  // the kernels and GPU memory operations are kept after the scan: their nodes from their own blocks
  node_pool kernel_nodes, memory_op_nodes;
  std::deque<raw_kernel, pool_allocator<raw_kernel>> kernels{pool_allocator<raw_kernel>(&kernel_nodes)};
  std::deque<kernel_record, pool_allocator<kernel_record>> memory_ops{pool_allocator<kernel_record>(&memory_op_nodes)};
  // correlation -> launch, ac2g flow id -> launch point, External id -> interval: flat vectors, sorted
  // once after the pass (finish()), looked up by binary search; fewer allocations than hash maps
  std::deque<std::pair<std::int64_t, launch>> launches, flows;
  std::deque<interval> intervals;
  std::deque<std::pair<std::int64_t, std::int32_t>> by_ext;
  // the recorded shapes of the ops with a cost model, as written (parsed only for ops that ran kernels)
  struct raw_call {
    std::uint32_t name = 0, chunk = 0, off = 0;  // arena[chunk], from off
    std::uint32_t len[4] = {0, 0, 0, 0};  // Input Dims, Input type, Input Strides, Concrete Inputs
  };
  std::deque<raw_call> calls;
  static constexpr std::size_t arena_chunk = std::size_t(1) << 20;
  std::vector<std::string> arena;  // chunks of arena_chunk bytes (more for a longer call); a call's text lies in one
  std::map<std::string, std::int64_t> ignored;  // category -> events not read
  double t_min = std::numeric_limits<double>::infinity(), t_max = -t_min;
  double gpu_min = t_min, gpu_max = -t_min;
  std::int64_t zero_duration = 0;

  /// Name `id` as a shared_string: one copy of its characters however many records hold it.
  const shared_string& text(std::uint32_t id) {
    if (texts_.size() <= id) texts_.resize(names.size());
    if (texts_[id].empty()) texts_[id] = names[id];
    return texts_[id];
  }

  /// `s` as a shared_string, one copy for all equal strings of the read (for text that repeats: names,
  /// shapes, the cost model's words).
  shared_string shared(std::string_view s) { return s.empty() ? shared_string() : text(intern(s)); }

  std::uint32_t intern(std::string_view s) {
    auto it = name_ids_.find(s);
    if (it != name_ids_.end()) return it->second;
    names.emplace_back(s);
    const auto id = std::uint32_t(names.size() - 1);
    name_ids_.emplace(names.back(), id);
    return id;
  }

  void add(const detail::kineto_event& ev) {
    const std::string_view ph = ev.ph, cat = ev.cat;
    std::string unescaped;
    std::string_view name = ev.name;
    if (ev.name_escaped) unescaped = detail::json_unescape(ev.name), name = unescaped;
    const lane_id tid = lane(ev.tid_name.empty() ? ev.tid : -1 - std::int64_t(intern(ev.tid_name)));  // a named lane: negative id
    if (ph == "X" && ev.ts) {
      const double ts = *ev.ts, dur = ev.dur.value_or(0);
      t_min = std::min(t_min, ts), t_max = std::max(t_max, ts + dur);
      if (cat == "kernel" || cat == "gpu_memcpy" || cat == "gpu_memset") {
        gpu_min = std::min(gpu_min, ts), gpu_max = std::max(gpu_max, ts + dur);
        if (dur <= 0) {
          ++zero_duration;
          return;
        }
        if (cat == "kernel") {
          raw_kernel k;
          k.name = intern(name);
          k.seq = std::uint32_t(kernels.size());
          k.ts = ts, k.dur = dur;
          k.stream = or_absent(ev.stream), k.device = or_absent(ev.device), k.corr = or_absent(ev.corr);
          k.ext = or_absent(ev.ext), k.grid = or_absent(ev.grid), k.block = or_absent(ev.block);
          kernels.push_back(k);
        } else {
          kernel_record r;
          r.name = text(intern(name));
          if (ev.corr) r.id = std::to_string(*ev.corr);
          r.start_s = ts, r.duration_s = dur * us;  // start made relative at the end
          r.stream = ev.stream, r.device = ev.device;
          if (ev.bytes)
            r.bytes.push_back({text(intern("dram")), *ev.bytes, count_source::counter,
                               text(intern("args.bytes (CUPTI " + std::string(cat) + " record)"))});
          r.note = text(intern(cat));
          memory_ops.push_back(std::move(r));
        }
      } else if (cat == "cuda_runtime" || cat == "cuda_driver") {
        if (ev.corr) launches.emplace_back(*ev.corr, launch{.ts = ts, .ext = ev.ext.value_or(-1), .name = intern(name), .tid = tid});
      } else if (cat == "cpu_op" || cat == "user_annotation" || cat == "python_function") {
        interval iv;
        iv.ts = ts, iv.end = ts + dur, iv.tid = tid, iv.name = intern(name);
        iv.kind = cat == "cpu_op" ? host_kind::cpu_op : cat == "user_annotation" ? host_kind::user_annotation : host_kind::python_function;
        if (ev.ext && iv.kind != host_kind::python_function) {
          by_ext.emplace_back(*ev.ext, std::int32_t(intervals.size()));
        }
        if (iv.kind == host_kind::cpu_op && !ev.dims.empty() && detail::has_cost_model(name)) {
          raw_call c;
          std::size_t len = 0;
          const std::string_view parts[4] = {ev.dims, ev.types, name == "aten::gather" ? ev.strides : std::string_view(), ev.concrete};
          for (const auto& p : parts) len += p.size();
          if (arena.empty() || arena.back().size() + len > arena_chunk) arena.emplace_back().reserve(std::max(arena_chunk, len));
          c.name = iv.name, c.chunk = std::uint32_t(arena.size() - 1), c.off = std::uint32_t(arena.back().size());
          for (int j = 0; j < 4; ++j) c.len[j] = std::uint32_t(parts[j].size()), arena.back().append(parts[j]);
          calls.push_back(c);
          // one entry for each distinct (op, shapes): the steps and layers of a run repeat them
          const auto [it, added] = distinct_calls_.insert(std::uint32_t(calls.size() - 1));
          if (!added) calls.pop_back(), arena.back().resize(c.off);
          iv.call = std::int32_t(*it);
        }
        intervals.push_back(iv);
      } else {
        ++ignored[cat.empty() ? std::string(ph) : std::string(cat)];
      }
    } else if (ph == "s" && cat == "ac2g" && ev.id && ev.ts) {
      flows.emplace_back(*ev.id, launch{.ts = *ev.ts, .tid = tid, .from_flow = true});
    } else if (ph != "f" && ph != "M") {
      ++ignored[cat.empty() ? "ph " + std::string(ph) : std::string(cat)];
    }
  }

 private:
  struct sv_hash {
    using is_transparent = void;
    std::size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };
  std::unordered_map<std::string, std::uint32_t, sv_hash, std::equal_to<>> name_ids_;
  std::vector<shared_string> texts_;
  std::unordered_map<std::int64_t, lane_id> lanes_;  // thread id (named lanes: negative) -> lane
  lane_id lane(std::int64_t tid) {
    const auto [it, added] = lanes_.emplace(tid, lane_id(lanes_.size()));
    if (added && lanes_.size() - 1 > std::numeric_limits<lane_id>::max())
      throw input_error(file, "tid", fmt::format("more than {} threads and lanes in one trace", std::numeric_limits<lane_id>::max()));
    return it->second;
  }
  // the distinct calls, by their name and text (the four parts' lengths included)
  std::string_view call_text(std::uint32_t i) const {
    const raw_call& r = calls[i];
    return std::string_view(arena[r.chunk]).substr(r.off, std::size_t(r.len[0]) + r.len[1] + r.len[2] + r.len[3]);
  }
  struct call_hash {
    const tables* t;
    std::size_t operator()(std::uint32_t i) const {
      const raw_call& r = t->calls[i];
      return std::hash<std::string_view>{}(t->call_text(i)) ^ (std::size_t(r.name) * 0x9E3779B97F4A7C15ull) ^
             (std::size_t(r.len[0]) << 1) ^ (std::size_t(r.len[1]) << 21) ^ (std::size_t(r.len[2]) << 41);
    }
  };
  struct call_eq {
    const tables* t;
    bool operator()(std::uint32_t a, std::uint32_t b) const {
      const raw_call &x = t->calls[a], &y = t->calls[b];
      return x.name == y.name && std::equal(std::begin(x.len), std::end(x.len), std::begin(y.len)) &&
             t->call_text(a) == t->call_text(b);
    }
  };
  std::unordered_set<std::uint32_t, call_hash, call_eq> distinct_calls_{16, call_hash{this}, call_eq{this}};

 public:
  /// After the pass: the lookup vectors sorted (a later launch of one correlation wins, as a map's
  /// assignment would; a cpu_op wins a shared External id, else the first interval with it).
  void finish() {
    auto by_key = [](const auto& a, const auto& b) { return a.first < b.first; };
    std::stable_sort(launches.begin(), launches.end(), by_key);
    std::stable_sort(flows.begin(), flows.end(), by_key);
    std::stable_sort(by_ext.begin(), by_ext.end(), by_key);
    // compacted in place (no second copy of a table): the kept entries moved to the front, the rest cut
    auto keep_last = [](auto& v) {
      std::size_t w = 0;
      for (std::size_t i = 0; i < v.size(); ++i)
        if (i + 1 == v.size() || v[i + 1].first != v[i].first) v[w++] = v[i];
      v.resize(w);
    };
    keep_last(launches), keep_last(flows);
    std::size_t w = 0;
    for (std::size_t i = 0; i < by_ext.size();) {
      std::size_t j = i;
      std::int32_t pick = by_ext[i].second;
      for (; j < by_ext.size() && by_ext[j].first == by_ext[i].first; ++j)
        if (intervals[std::size_t(by_ext[j].second)].kind == host_kind::cpu_op &&
            intervals[std::size_t(pick)].kind != host_kind::cpu_op)
          pick = by_ext[j].second;
      by_ext[w++] = {by_ext[i].first, pick};
      i = j;
    }
    by_ext.resize(w);
  }
  template <class V>
  static auto find(const V& v, std::int64_t key) -> decltype(&v.front().second) {
    auto it = std::lower_bound(v.begin(), v.end(), key, [](const auto& e, std::int64_t k) { return e.first < k; });
    return it != v.end() && it->first == key ? &it->second : nullptr;
  }
  /// After the costs: the distinct-call index freed with the calls.
  void forget_calls() { std::unordered_set<std::uint32_t, call_hash, call_eq>{0, call_hash{this}, call_eq{this}}.swap(distinct_calls_); }
  /// The recorded shapes of call i as the cost model reads them.
  detail::aten_call call(std::size_t i) const {
    const raw_call& r = calls[i];
    std::string_view parts[4];
    std::size_t off = r.off;
    for (int j = 0; j < 4; ++j) parts[j] = std::string_view(arena[r.chunk]).substr(off, r.len[j]), off += r.len[j];
    return make_call(names[r.name], parts[0], parts[1], parts[2], parts[3]);
  }

 private:
  static detail::aten_call make_call(std::string_view name, std::string_view dims_text, std::string_view types_text,
                                     std::string_view strides_text, std::string_view concrete_text) {
    detail::aten_call c;
    c.name = std::string(name);
    const auto dims = detail::parse_json_tree(dims_text);
    const auto types = detail::parse_json_tree(types_text);
    const auto concrete = detail::parse_json_tree(concrete_text);
    const auto strides = strides_text.empty() ? detail::json_tree{} : detail::parse_json_tree(strides_text);
    c.inputs.resize(dims.items.size());
    for (std::size_t i = 0; i < dims.items.size(); ++i) {
      auto& in = c.inputs[i];
      const auto& d = dims.items[i];
      if (i < types.items.size() && types.items[i].is_string) in.type = types.items[i].leaf;
      if (i < concrete.items.size() && concrete.items[i].is_string) in.concrete = concrete.items[i].leaf;
      if (i < strides.items.size()) in.strides = int_list(strides.items[i]);
      if (in.type == "TensorList" || (!d.items.empty() && d.items[0].is_array)) {
        in.is_list = true;
        for (const auto& x : d.items) in.list.push_back(int_list(x));
      } else {
        in.dims = int_list(d);
      }
    }
    return c;
  }
};

std::string version_string(std::int64_t v) {  // 13000 -> "13.0" (CUDA's major·1000 + minor·10)
  return fmt::format("{}.{}", v / 1000, (v % 1000) / 10);
}

bool starts_with(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }

bool is_triton(std::string_view name) { return starts_with(name, "triton_"); }

op_dims dims_of(const detail::aten_cost& c) {
  op_dims d;
  const auto& o = c.op;
  if (o.kind == op_kind::gemm) d.m = o.m, d.n = o.n, d.k = o.k;
  if (o.kind == op_kind::attention_fused || o.kind == op_kind::attention_naive || o.kind == op_kind::attention_decode)
    d.batch = o.batch, d.heads = o.heads, d.q_len = o.q_len, d.kv_len = o.kv_len;
  d.last = c.last_dim;
  d.backward = o.backward;
  return d;
}

/// One read_torch_trace: the scan's tables and the result, built in phases (read_torch_trace calls
/// them in order). Each phase frees what no later phase reads: memory, docs/ingest.md "Read speed".
/// Built in place (its deques allocate from its own node pools).
struct trace_build {
  tables sax;
  detail::kineto_meta meta;
  ingest_result res;
  double origin = 0;                   ///< the trace's first timestamp (µs): times are from it
  std::vector<std::int32_t> order;     ///< host intervals by (thread, start, longer first)
  std::vector<std::int64_t> launched;  ///< correlation ids that ran a kernel (sorted)
  // what each kernel's record needs, gathered first into compact tables (freed from the front as the
  // records are made): its link, and the cost of its op's group
  node_pool link_nodes, group_nodes;
  std::deque<kernel_link, pool_allocator<kernel_link>> links{pool_allocator<kernel_link>(&link_nodes)};
  std::vector<std::pair<std::int32_t, std::size_t>> op_kernel;  ///< (cpu_op, kernel), grouped by op
  std::deque<op_group, pool_allocator<op_group>> groups{pool_allocator<op_group>(&group_nodes)};
  std::vector<shared_value<op_dims>> all_dims = std::vector<shared_value<op_dims>>(1);  ///< the distinct op shapes
  const shared_string dram = "dram";

  /// The scan (kineto_scan.hpp) into the tables; the tools the trace names (tool_version).
  void scan(const std::string& path) {
    sax.file = path;
    std::string cut;
    meta = detail::scan_kineto(path, [&](const detail::kineto_event& ev) { sax.add(ev); }, cut);
    sax.finish();
    if (!meta.saw_events)
      throw input_error(path, "traceEvents",
                        meta.top_object ? "not a Chrome/Kineto trace: no traceEvents array"
                                        : "not a Chrome/Kineto trace: the JSON is not an object");
    res.format = "torch-trace";
    res.file = path;
    res.incomplete = cut;
    origin = std::isfinite(sax.t_min) ? sax.t_min : 0;
    // tool_version: what the trace records of its tools (Kineto writes no PyTorch version).
    {
      std::string v = "PyTorch profiler (Kineto chrome trace";
      if (meta.schema) v += fmt::format(", schema {}", *meta.schema);
      if (meta.cuda_runtime) v += ", CUDA runtime " + version_string(*meta.cuda_runtime);
      if (meta.cupti) v += fmt::format(", CUPTI {}", *meta.cupti);
      v += ")";
      if (!meta.devices.empty()) v += " on " + meta.devices.front();
      res.tool_version = v;
    }
  }

  /// Host intervals nested per thread (sorted by start, longer first), parents by a stack.
  void nest_hosts() {
    auto& iv = sax.intervals;
    order.resize(iv.size());
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
  }

  /// The innermost interval on `tid` enclosing time t (of kind cpu_op / user_annotation unless
  /// python allowed); -1 when none.
  std::int32_t enclosing(std::int64_t tid, double t, bool python) const {
    const auto& iv = sax.intervals;
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
  }

  /// The outermost host intervals (res.host); a ProfilerStep#N annotation (a step mark, kept in
  /// step_marks) is not what the host did: its children stand in its place.
  void outermost_hosts() {
    auto& iv = sax.intervals;
    const auto& names = sax.names;
    {
      // the outermost intervals; a ProfilerStep#N annotation (a step mark, kept in step_marks) is not
      // what the host did: its children stand in its place
      auto is_mark = [&](std::int32_t i) {
        return i >= 0 && iv[std::size_t(i)].kind == host_kind::user_annotation && starts_with(names[iv[std::size_t(i)].name], "ProfilerStep#");
      };
      std::vector<std::int32_t> top;
      for (std::size_t i = 0; i < iv.size(); ++i)
        if (!is_mark(std::int32_t(i)) && (iv[i].parent < 0 || is_mark(iv[i].parent))) top.push_back(std::int32_t(i));
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
  }

  /// Kernels in launch order (correlation ids grow with launches), each linked to its launch and op.
  void link_kernels() {
    // Memory (docs/ingest.md, "Read speed"): what each kernel's record needs is first gathered into
    // compact tables (kernel_link, op_group); the scan's tables are freed as soon as nothing reads them,
    // and the records are made last. Text shared by many records (kernel names, ops, notes, shapes) is
    // held once (shared_string).
    auto& ks = sax.kernels;
    auto& iv = sax.intervals;
    const auto& names = sax.names;
    // in place when every kernel has a correlation id: (correlation, start, place in the file) orders
    // them as the stable sort does, without its buffer of half the kernels
    if (std::all_of(ks.begin(), ks.end(), [](const raw_kernel& k) { return k.corr != absent; }))
      std::sort(ks.begin(), ks.end(), [](const raw_kernel& a, const raw_kernel& b) {
        if (a.corr != b.corr) return a.corr < b.corr;
        if (a.ts != b.ts) return a.ts < b.ts;
        return a.seq < b.seq;
      });
    else
      std::stable_sort(ks.begin(), ks.end(), [](const raw_kernel& a, const raw_kernel& b) {
        if (a.corr != absent && b.corr != absent && a.corr != b.corr) return a.corr < b.corr;
        return a.ts < b.ts;
      });
    // a deque: freed from the front as the records are made
    links.assign(ks.size(), kernel_link{});
    launched.reserve(ks.size());
    for (std::size_t i = 0; i < ks.size(); ++i) {
      const auto& k = ks[i];
      auto& lk = links[i];
      const launch* l = nullptr;
      if (k.corr != absent) {
        if (const launch* x = tables::find(sax.launches, k.corr)) l = x;
        else if (const launch* f = tables::find(sax.flows, k.corr)) l = f;
        launched.push_back(k.corr);
      }
      lk.graph_replay = l && !l->from_flow && names[l->name].find("GraphLaunch") != std::string::npos;
      if (l) lk.launch_ts = l->ts;
      std::int32_t op = -1;
      const std::int64_t ext = k.ext != absent ? k.ext : l ? l->ext : -1;
      if (!lk.graph_replay && ext >= 0)
        if (const auto* x = tables::find(sax.by_ext, ext)) op = *x;
      if (op < 0 && l) op = enclosing(l->tid, l->ts, false);
      if (op < 0 && l) op = enclosing(l->tid, l->ts, true);
      if (op >= 0) lk.op = op, lk.op_name = iv[std::size_t(op)].name;
      if (lk.graph_replay) lk.note = link_note::replay;
      else if (is_triton(names[k.name])) lk.note = link_note::triton;
      else if (op < 0) lk.note = l ? link_note::no_op : link_note::no_launch;
      else if (iv[std::size_t(op)].kind != host_kind::cpu_op) lk.note = link_note::scope;
      else op_kernel.emplace_back(op, i);
    }
    std::sort(launched.begin(), launched.end());
  }

  /// Launches that ran no kernel: captured into a CUDA graph (capture records the launch, runs
  /// nothing); each costed from its op like a kernel, for the replays (count_source::capture).
  void cost_captured() {
    auto& iv = sax.intervals;
    const auto& names = sax.names;
    {
      std::vector<std::pair<std::int64_t, const launch*>> idle;
      for (const auto& [corr, l] : sax.launches) {
        const std::string& api = names[l.name];
        if (std::binary_search(launched.begin(), launched.end(), corr) || api.find("Launch") == std::string::npos ||
            api.find("GraphLaunch") != std::string::npos)
          continue;
        idle.emplace_back(corr, &l);
      }
      std::sort(idle.begin(), idle.end());
      const shared_string no_op = "captured launch: no op encloses it",
                          scope = "captured launch under a scope, not an aten op: no shapes";
      std::unordered_map<std::int32_t, std::vector<std::size_t>> cap_by_op;
      for (const auto& [corr, l] : idle) {
        kernel_record r;
        r.id = std::to_string(corr);
        r.start_s = r.launch_s = (l->ts - origin) * us;
        std::int32_t op = -1;
        if (l->ext >= 0)
          if (const auto* x = tables::find(sax.by_ext, l->ext)) op = *x;
        if (op < 0) op = enclosing(l->tid, l->ts, false);
        if (op >= 0) r.framework_op = sax.text(iv[std::size_t(op)].name), r.op_call = op;
        if (op >= 0 && iv[std::size_t(op)].kind == host_kind::cpu_op) cap_by_op[op].push_back(res.captured.size());
        else r.note = op < 0 ? no_op : scope;
        res.captured.push_back(std::move(r));
      }
      // Each launch carries its op's whole cost and the op's call (op_call): a replay shares it out
      // over the kernels of one call as for eager kernels (analysis/kernel_costs.cpp).
      for (auto& [op, list] : cap_by_op) {
        const auto& x = iv[std::size_t(op)];
        std::string why;
        std::optional<detail::aten_cost> cost;
        shared_string shapes;
        if (x.call >= 0) {
          const auto call = sax.call(std::size_t(x.call));
          shapes = detail::format_shapes(call);
          cost = detail::cost_aten_op(call, "", why);
        } else {
          why = "no cost model for " + names[x.name];
        }
        const shared_string note = cost ? cost->note : why, model = cost ? cost->cost_model : "";
        const shared_string precision = cost ? cost->precision : "", engine = cost ? cost->engine : "";
        for (auto j : list) {
          auto& r = res.captured[j];
          r.op_call = op;
          r.shapes = shapes;
          r.note = note;
          if (!cost) continue;
          r.cost_model = model;
          r.dims = dims_of(*cost);
          if (!precision.empty() && cost->op.flops > 0)
            r.model_flops.push_back({precision, engine, cost->op.flops, count_source::shape_model, model});
          r.bytes.push_back({dram, cost->op.bytes(), count_source::shape_model, model});
        }
      }
    }
    // what the links and the captured launches needed, no longer read
    release(sax.launches), release(sax.flows), release(sax.by_ext), release(launched), release(order);
  }

  /// Step marks: torch.profiler's ProfilerStep#N annotations (user_annotation).
  void mark_steps() {
    const auto& iv = sax.intervals;
    const auto& names = sax.names;
    for (const auto& x : iv)
      if (x.kind == host_kind::user_annotation && starts_with(names[x.name], "ProfilerStep#"))
        res.step_marks.push_back({names[x.name], (x.ts - origin) * us, (x.end - x.ts) * us});
    std::sort(res.step_marks.begin(), res.step_marks.end(), [](const host_interval& a, const host_interval& b) { return a.start_s < b.start_s; });
  }

  /// Costs: one op's FLOPs and bytes are counted once, per group of its kernels.
  void cost_groups() {
    auto& iv = sax.intervals;
    const auto& names = sax.names;
    auto& ks = sax.kernels;
    // Kernels of different names (a GEMM + split-K reduce, cuDNN attention + its reduction): all on the
    // longest. One kernel launched several times over chunks of the work (multi_tensor_apply over a
    // TensorList, a fused optimizer): split over the launches in proportion to their time, so that each
    // launch is judged at the op's own rate.
    std::stable_sort(op_kernel.begin(), op_kernel.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    // The groups in the order of their first kernel, so that the records, made in kernel order, free
    // each group from the front of its deque once its last kernel's record is made.
    std::vector<std::pair<std::size_t, std::size_t>> firsts;  // (first kernel, its op's start in op_kernel)
    for (std::size_t g = 0; g < op_kernel.size(); ++g)
      if (g == 0 || op_kernel[g].first != op_kernel[g - 1].first) firsts.emplace_back(op_kernel[g].second, g);
    std::sort(firsts.begin(), firsts.end());
    // the distinct op shapes (a training step repeats its layers' shapes): groups hold an index
    std::map<std::array<std::int64_t, 9>, std::uint32_t> dims_ids{{{}, 0}};
    auto dims_id = [&](const op_dims& d) {
      const std::array<std::int64_t, 9> key{d.m, d.n, d.k, d.batch, d.heads, d.q_len, d.kv_len, d.last, d.backward};
      auto [it, added] = dims_ids.emplace(key, std::uint32_t(all_dims.size()));
      if (added) all_dims.push_back(d);
      return it->second;
    };
    const std::uint32_t no_text = sax.intern("");
    std::vector<std::size_t> list;
    for (const auto& [first, start] : firsts) {
      const std::int32_t op = op_kernel[start].first;
      list.clear();
      for (std::size_t g = start; g < op_kernel.size() && op_kernel[g].first == op; ++g) list.push_back(op_kernel[g].second);
      const auto& x = iv[std::size_t(op)];
      op_group& grp = groups.emplace_back();
      grp.op_name = x.name;
      grp.shapes = no_text;
      grp.count = std::uint32_t(list.size());
      grp.last = std::uint32_t(*std::max_element(list.begin(), list.end()));
      grp.longest = std::uint32_t(*std::max_element(list.begin(), list.end(), [&](std::size_t a, std::size_t b) { return ks[a].dur < ks[b].dur; }));
      grp.chunks = list.size() > 1 && std::all_of(list.begin(), list.end(), [&](std::size_t i) { return ks[i].name == ks[grp.longest].name; });
      for (auto i : list) grp.total += ks[i].dur, links[i].group = std::int32_t(groups.size() - 1);
      std::string why;
      std::optional<detail::aten_cost> cost;
      if (x.call >= 0) {
        const auto call = sax.call(std::size_t(x.call));
        grp.shapes = sax.intern(detail::format_shapes(call));
        cost = detail::cost_aten_op(call, names[ks[grp.longest].name], why);
      } else {
        why = detail::has_cost_model(names[x.name]) ? names[x.name] + ": no Input Dims recorded (record_shapes=False?)"
                                                    : "no cost model for " + names[x.name];
      }
      if (!cost) {
        grp.note = sax.intern(why);
        continue;
      }
      grp.costed = true;
      grp.cost_model = sax.intern(cost->cost_model);
      grp.dims = dims_id(dims_of(*cost));
      grp.has_flops = !cost->precision.empty() && cost->op.flops > 0;
      grp.precision = sax.intern(cost->precision), grp.engine = sax.intern(cost->engine);
      grp.flops = cost->op.flops, grp.bytes = cost->op.bytes();
      grp.note = sax.intern(cost->note);
      const std::int64_t longest_corr = ks[grp.longest].corr;
      if (list.size() > 1 && !grp.chunks)  // names the longest kernel's id: one string per op call
        grp.counted_note = fmt::format("one of {} kernels of this {}: its {} counts are on the longest kernel (id {})", list.size(),
                                       names[x.name], cost->cost_model, longest_corr != absent ? std::to_string(longest_corr) : "");
      if (grp.chunks)  // one text for every launch: its share is its bytes ÷ the op's (`place` shows both)
        grp.whole_note = sax.intern(cost->note + (cost->note.empty() ? "" : "; ") +
                                    fmt::format("one of {} launches of this {}: the op's cost shared over them by their time",
                                                list.size(), names[x.name]));
      else if (list.size() > 1)
        grp.whole_note = sax.intern(cost->note + (cost->note.empty() ? "" : "; ") +
                                    fmt::format("the op's whole cost, on its longest of {} kernels", list.size()));
    }
    // the host intervals and the recorded shapes, no longer read
    release(op_kernel), release(firsts), release(sax.intervals), release(sax.calls), release(sax.arena), sax.forget_calls();
    return_free_memory();
  }

  /// The records: each kernel's raw entry and link are freed (from the front of their deques) as its
  /// record is made, and each op group after its last kernel's: the records grow while those shrink.
  void make_records() {
    auto& ks = sax.kernels;
    const shared_string link_notes[] = {"",
                                        "CUDA-graph replay: kernels not linked to ops",
                                        "Triton kernel: no shapes in the trace",
                                        "not linked: no op encloses its launch",
                                        "not linked: no launch with its correlation id",
                                        "launched under a scope, not an aten op: no shapes"};
    const shared_string dram = "dram";
    res.kernels.reserve(ks.size());
    const std::size_t n_kernels = ks.size();
    std::size_t groups_done = 0;  // popped from the front of groups
    auto next = [&](std::size_t i) {  // kernel i's record is made
      ks.pop_front(), links.pop_front();
      for (; !groups.empty() && groups.front().last <= i; ++groups_done) groups.pop_front();
    };
    for (std::size_t i = 0; i < n_kernels; next(i), ++i) {
      const auto& k = ks.front();
      const auto& lk = links.front();
      auto& r = res.kernels.emplace_back();
      r.name = sax.text(k.name);
      if (k.corr != absent) r.id = std::to_string(k.corr);
      r.start_s = (k.ts - origin) * us;
      r.duration_s = k.dur * us;
      r.stream = present(k.stream), r.device = present(k.device);
      r.grid_blocks = present(k.grid), r.block_threads = present(k.block);
      r.graph_replay = lk.graph_replay;
      if (!std::isnan(lk.launch_ts)) r.launch_s = (lk.launch_ts - origin) * us;
      if (r.graph_replay && k.corr != absent) r.replay = k.corr;
      if (lk.op >= 0) r.framework_op = sax.text(lk.op_name), r.op_call = lk.op;
      r.note = link_notes[std::size_t(lk.note)];
      if (lk.group < 0) continue;
      const op_group& g = groups[std::size_t(lk.group) - groups_done];
      r.shapes = sax.text(g.shapes);
      if (!g.costed) {
        r.note = sax.text(g.note);
        continue;
      }
      const shared_string model = sax.text(g.cost_model);
      r.cost_model = model;
      r.dims = all_dims[g.dims];
      if (!g.chunks && i != g.longest) {
        r.note = g.counted_note;
        r.counted_with = g.longest;
        continue;
      }
      const double share = g.chunks && g.total > 0 ? k.dur / g.total : 1.0;
      if (g.has_flops)
        r.model_flops.push_back({sax.text(g.precision), sax.text(g.engine), g.flops * share, count_source::shape_model, model});
      r.bytes.push_back({dram, g.bytes * share, count_source::shape_model, model});
      r.note = sax.text(g.count > 1 ? g.whole_note : g.note);
    }
    ks.shrink_to_fit(), links.shrink_to_fit(), groups.shrink_to_fit();
    if (!meta.devices.empty()) res.gpu = meta.devices.front();

    res.gpu_memory_ops.reserve(sax.memory_ops.size());  // exactly: a doubling vector would hold up to three times them
    for (auto& m : sax.memory_ops) {
      m.start_s = (*m.start_s - origin) * us;
      res.gpu_memory_ops.push_back(std::move(m));
    }
  }

  /// The span, and what was not read.
  void summarise() {
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
  }
};

}  // namespace

ingest_result read_torch_trace(const std::string& path) {
  trace_build b;
  b.scan(path);
  b.nest_hosts();
  b.outermost_hosts();
  b.link_kernels();
  b.cost_captured();
  b.mark_steps();
  b.cost_groups();
  b.make_records();
  b.summarise();
  return std::move(b.res);
}

}  // namespace roofline::ingest
