// cuDNN fused SDPA through the graph API, the library loaded at run time; see cudnn_sdpa.hpp.
#include "backends/cuda/cudnn_sdpa.hpp"

#include <dlfcn.h>
#include <fmt/format.h>

#include <array>
#include <limits>
#include <map>
#include <mutex>
#include <stdexcept>
#include <tuple>
#include <vector>

#include "backends/cuda/cuda_check.hpp"
#include "backends/cuda/device_memory.hpp"
#include "backends/cuda/cuda_library.hpp"

#ifdef ROOFLINE_HAVE_CUDNN_HEADER
#include <cudnn_graph.h>
#endif

namespace roofline::cuda {

double select_fastest_plan(cudnn_sdpa& sdpa, const std::function<void()>& verify, const std::function<double()>& time,
                           std::string& tried) {
  double best = std::numeric_limits<double>::infinity();
  int best_i = -1;
  for (int i = 0; i < sdpa.plans(); ++i) {
    sdpa.select(i);
    tried += tried.empty() ? "" : ", ";
    try {
      verify();
      const double t = time();
      tried += fmt::format("{}: {:.1f} us", sdpa.plan_name(i), t * 1e6);
      if (t < best) best = t, best_i = i;
    } catch (const std::exception& e) {
      tried += fmt::format("{}: refused ({})", sdpa.plan_name(i), e.what());
    }
  }
  if (best_i >= 0) sdpa.select(best_i);
  return best;
}

#ifndef ROOFLINE_HAVE_CUDNN_HEADER

std::string cudnn_available(std::string& why) {
  why = "this build had no cudnn_graph.h (cuDNN's header) at configure time";
  return "";
}
struct cudnn_sdpa::impl {};
cudnn_sdpa::cudnn_sdpa(const sdpa_shape&, cudaStream_t, int) {
  throw std::runtime_error("cuDNN SDPA: " + [] { std::string w; cudnn_available(w); return w; }());
}
cudnn_sdpa::~cudnn_sdpa() = default;
int cudnn_sdpa::plans() const { return 0; }
std::string cudnn_sdpa::plan_name(int) const { return ""; }
void cudnn_sdpa::select(int) {}
int cudnn_sdpa::selected() const { return -1; }
void cudnn_sdpa::run(const void*, const void*, const void*, void*, cudaStream_t) {}
std::string cudnn_sdpa::description() const { return ""; }

#else

namespace {

/// The cuDNN entry points roofline uses, bound once.
struct cudnn_api {
  std::string path;
  size_t version = 0;
  size_t (*GetVersion)() = nullptr;
  const char* (*GetErrorString)(cudnnStatus_t) = nullptr;
  void (*GetLastErrorString)(char*, size_t) = nullptr;  // cuDNN ≥ 9.0; optional
  cudnnStatus_t (*Create)(cudnnHandle_t*) = nullptr;
  cudnnStatus_t (*Destroy)(cudnnHandle_t) = nullptr;
  cudnnStatus_t (*SetStream)(cudnnHandle_t, cudaStream_t) = nullptr;
  cudnnStatus_t (*BackendCreateDescriptor)(cudnnBackendDescriptorType_t, cudnnBackendDescriptor_t*) = nullptr;
  cudnnStatus_t (*BackendDestroyDescriptor)(cudnnBackendDescriptor_t) = nullptr;
  cudnnStatus_t (*BackendFinalize)(cudnnBackendDescriptor_t) = nullptr;
  cudnnStatus_t (*BackendSetAttribute)(cudnnBackendDescriptor_t, cudnnBackendAttributeName_t,
                                       cudnnBackendAttributeType_t, int64_t, const void*) = nullptr;
  cudnnStatus_t (*BackendGetAttribute)(cudnnBackendDescriptor_t, cudnnBackendAttributeName_t,
                                       cudnnBackendAttributeType_t, int64_t, int64_t*, void*) = nullptr;
  cudnnStatus_t (*BackendExecute)(cudnnHandle_t, cudnnBackendDescriptor_t, cudnnBackendDescriptor_t) = nullptr;
};

cudnn_api g_api;
std::string g_why;
bool g_ok = false;

template <class F>
bool bind(void* h, const char* name, F& fn, std::string& lacks) {
  fn = reinterpret_cast<F>(dlsym(h, name));
  if (!fn && lacks.empty()) lacks = name;
  return fn != nullptr;
}

bool load(std::string& why) {
  std::string searched;
  void* h = open_cuda_library("libcudnn.so.9",
                              {"nvidia/cudnn/lib/libcudnn.so.9", "nvidia/cu13/lib/libcudnn.so.9", "nvidia/cu12/lib/libcudnn.so.9"},
                              "ROOFLINE_CUDNN", g_api.path, searched);
  if (!h) {
    why = "cuDNN not found; searched: " + searched;
    return false;
  }
  std::string lacks;
  bind(h, "cudnnGetVersion", g_api.GetVersion, lacks);
  bind(h, "cudnnGetErrorString", g_api.GetErrorString, lacks);
  bind(h, "cudnnCreate", g_api.Create, lacks);
  bind(h, "cudnnDestroy", g_api.Destroy, lacks);
  bind(h, "cudnnSetStream", g_api.SetStream, lacks);
  bind(h, "cudnnBackendCreateDescriptor", g_api.BackendCreateDescriptor, lacks);
  bind(h, "cudnnBackendDestroyDescriptor", g_api.BackendDestroyDescriptor, lacks);
  bind(h, "cudnnBackendFinalize", g_api.BackendFinalize, lacks);
  bind(h, "cudnnBackendSetAttribute", g_api.BackendSetAttribute, lacks);
  bind(h, "cudnnBackendGetAttribute", g_api.BackendGetAttribute, lacks);
  bind(h, "cudnnBackendExecute", g_api.BackendExecute, lacks);
  if (!lacks.empty()) {
    why = "cuDNN unusable (" + g_api.path + " lacks " + lacks + ")";
    return false;
  }
  g_api.GetLastErrorString = reinterpret_cast<decltype(g_api.GetLastErrorString)>(dlsym(h, "cudnnGetLastErrorString"));
  g_api.version = g_api.GetVersion();
  if (g_api.version < 8900) {
    why = fmt::format("cuDNN {} at {} predates the fused flash attention graph (8.9)", g_api.version, g_api.path);
    return false;
  }
  return true;
}

const cudnn_api* api(std::string& why) {
  static std::once_flag once;
  std::call_once(once, [] { g_ok = load(g_why); });
  if (!g_ok) why = g_why;
  return g_ok ? &g_api : nullptr;
}

std::string version_text(size_t v) {
  // cuDNN ≥ 9: major·10000 + minor·100 + patch; 8.x: major·1000 + minor·100 + patch
  return v >= 90000 ? fmt::format("{}.{}.{}", v / 10000, (v / 100) % 100, v % 100)
                    : fmt::format("{}.{}.{}", v / 1000, (v / 100) % 10, v % 100);
}

void check(cudnnStatus_t st, const char* what) {
  if (st == CUDNN_STATUS_SUCCESS) return;
  std::string last;
  if (g_api.GetLastErrorString) {
    char buf[1024] = {0};
    g_api.GetLastErrorString(buf, sizeof buf);
    last = buf;
  }
  throw std::runtime_error(fmt::format("cuDNN {}: {}{}{}", what, g_api.GetErrorString(st), last.empty() ? "" : ": ",
                                       last));
}

/// An owned backend descriptor.
struct desc {
  cudnnBackendDescriptor_t d = nullptr;
  desc() = default;
  explicit desc(cudnnBackendDescriptorType_t t) { check(g_api.BackendCreateDescriptor(t, &d), "create descriptor"); }
  desc(desc&& o) noexcept : d(o.d) { o.d = nullptr; }
  desc& operator=(desc&& o) noexcept {
    std::swap(d, o.d);
    return *this;
  }
  desc(const desc&) = delete;
  ~desc() {
    if (d) (void)g_api.BackendDestroyDescriptor(d);
  }
  template <class T>
  desc& set(cudnnBackendAttributeName_t a, cudnnBackendAttributeType_t t, const T& v, const char* what) {
    check(g_api.BackendSetAttribute(d, a, t, 1, &v), what);
    return *this;
  }
  desc& set_n(cudnnBackendAttributeName_t a, cudnnBackendAttributeType_t t, int64_t n, const void* v, const char* what) {
    check(g_api.BackendSetAttribute(d, a, t, n, v), what);
    return *this;
  }
  desc& finalize(const char* what) {
    check(g_api.BackendFinalize(d), what);
    return *this;
  }
};

using dims4 = std::array<int64_t, 4>;

}  // namespace

std::string cudnn_available(std::string& why) {
  const cudnn_api* a = api(why);
  return a ? fmt::format("cuDNN {} ({})", version_text(a->version), a->path) : "";
}

struct cudnn_sdpa::impl {
  sdpa_shape s;
  cudnnHandle_t handle = nullptr;
  std::vector<desc> tensors, ops;  // kept alive for the graph
  desc graph;
  std::vector<desc> plans;
  std::vector<std::string> names;
  std::vector<int64_t> workspace;
  int chosen = 0;
  device_buffer ws;
  float scale = 0, lowest = std::numeric_limits<float>::lowest();
  int32_t row_offset = 0;
  std::map<std::tuple<const void*, const void*, const void*, void*>, desc> packs;
  int64_t next_uid = 100;

  ~impl() {
    packs.clear();
    plans.clear();
    graph = desc();
    ops.clear();
    tensors.clear();
    if (handle) (void)g_api.Destroy(handle);
  }

  cudnnBackendDescriptor_t tensor(int64_t uid, cudnnDataType_t dt, dims4 dim, dims4 stride, bool is_virtual,
                                  bool by_value = false) {
    desc t(CUDNN_BACKEND_TENSOR_DESCRIPTOR);
    const int64_t align = 16;
    t.set(CUDNN_ATTR_TENSOR_UNIQUE_ID, CUDNN_TYPE_INT64, uid, "tensor uid")
        .set(CUDNN_ATTR_TENSOR_DATA_TYPE, CUDNN_TYPE_DATA_TYPE, dt, "tensor data type")
        .set(CUDNN_ATTR_TENSOR_BYTE_ALIGNMENT, CUDNN_TYPE_INT64, align, "tensor alignment")
        .set_n(CUDNN_ATTR_TENSOR_DIMENSIONS, CUDNN_TYPE_INT64, 4, dim.data(), "tensor dimensions")
        .set_n(CUDNN_ATTR_TENSOR_STRIDES, CUDNN_TYPE_INT64, 4, stride.data(), "tensor strides")
        .set(CUDNN_ATTR_TENSOR_IS_VIRTUAL, CUDNN_TYPE_BOOLEAN, is_virtual, "tensor virtual flag");
    if (by_value) t.set(CUDNN_ATTR_TENSOR_IS_BY_VALUE, CUDNN_TYPE_BOOLEAN, true, "tensor by-value flag");
    t.finalize("tensor finalize");
    tensors.push_back(std::move(t));
    return tensors.back().d;
  }
  cudnnBackendDescriptor_t scalar(int64_t uid, cudnnDataType_t dt) {
    return tensor(uid, dt, {1, 1, 1, 1}, {1, 1, 1, 1}, false, true);
  }
  cudnnBackendDescriptor_t virt(cudnnDataType_t dt, dims4 dim, dims4 stride) {
    return tensor(next_uid++, dt, dim, stride, true);
  }

  void pointwise(cudnnPointwiseMode_t mode, cudnnDataType_t prec, cudnnBackendDescriptor_t x,
                 cudnnBackendDescriptor_t b, cudnnBackendDescriptor_t t, cudnnBackendDescriptor_t y, int64_t axis = -1) {
    desc pw(CUDNN_BACKEND_POINTWISE_DESCRIPTOR);
    pw.set(CUDNN_ATTR_POINTWISE_MODE, CUDNN_TYPE_POINTWISE_MODE, mode, "pointwise mode")
        .set(CUDNN_ATTR_POINTWISE_MATH_PREC, CUDNN_TYPE_DATA_TYPE, prec, "pointwise precision");
    if (axis >= 0) pw.set(CUDNN_ATTR_POINTWISE_AXIS, CUDNN_TYPE_INT64, axis, "pointwise axis");
    pw.finalize("pointwise finalize");
    desc op(CUDNN_BACKEND_OPERATION_POINTWISE_DESCRIPTOR);
    op.set(CUDNN_ATTR_OPERATION_POINTWISE_PW_DESCRIPTOR, CUDNN_TYPE_BACKEND_DESCRIPTOR, pw.d, "pointwise op")
        .set(CUDNN_ATTR_OPERATION_POINTWISE_XDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, x, "pointwise x");
    if (b) op.set(CUDNN_ATTR_OPERATION_POINTWISE_BDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, b, "pointwise b");
    if (t) op.set(CUDNN_ATTR_OPERATION_POINTWISE_TDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, t, "pointwise t");
    op.set(CUDNN_ATTR_OPERATION_POINTWISE_YDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, y, "pointwise y")
        .finalize("pointwise op finalize");
    ops.push_back(std::move(pw));
    ops.push_back(std::move(op));
  }
  void reduction(cudnnReduceTensorOp_t mode, cudnnBackendDescriptor_t x, cudnnBackendDescriptor_t y) {
    desc r(CUDNN_BACKEND_REDUCTION_DESCRIPTOR);
    const cudnnDataType_t f = CUDNN_DATA_FLOAT;
    r.set(CUDNN_ATTR_REDUCTION_OPERATOR, CUDNN_TYPE_REDUCTION_OPERATOR_TYPE, mode, "reduction mode")
        .set(CUDNN_ATTR_REDUCTION_COMP_TYPE, CUDNN_TYPE_DATA_TYPE, f, "reduction precision")
        .finalize("reduction finalize");
    desc op(CUDNN_BACKEND_OPERATION_REDUCTION_DESCRIPTOR);
    op.set(CUDNN_ATTR_OPERATION_REDUCTION_XDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, x, "reduction x")
        .set(CUDNN_ATTR_OPERATION_REDUCTION_YDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, y, "reduction y")
        .set(CUDNN_ATTR_OPERATION_REDUCTION_DESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, r.d, "reduction op")
        .finalize("reduction op finalize");
    ops.push_back(std::move(r));
    ops.push_back(std::move(op));
  }
  void matmul(cudnnBackendDescriptor_t a, cudnnBackendDescriptor_t b, cudnnBackendDescriptor_t c) {
    desc m(CUDNN_BACKEND_MATMUL_DESCRIPTOR);
    const cudnnDataType_t f = CUDNN_DATA_FLOAT;
    m.set(CUDNN_ATTR_MATMUL_COMP_TYPE, CUDNN_TYPE_DATA_TYPE, f, "matmul precision").finalize("matmul finalize");
    desc op(CUDNN_BACKEND_OPERATION_MATMUL_DESCRIPTOR);
    op.set(CUDNN_ATTR_OPERATION_MATMUL_ADESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, a, "matmul a")
        .set(CUDNN_ATTR_OPERATION_MATMUL_BDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, b, "matmul b")
        .set(CUDNN_ATTR_OPERATION_MATMUL_CDESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, c, "matmul c")
        .set(CUDNN_ATTR_OPERATION_MATMUL_DESC, CUDNN_TYPE_BACKEND_DESCRIPTOR, m.d, "matmul op")
        .finalize("matmul op finalize");
    ops.push_back(std::move(m));
    ops.push_back(std::move(op));
  }
};

namespace {
constexpr int64_t uid_q = 1, uid_k = 2, uid_v = 3, uid_o = 4, uid_scale = 5, uid_lowest = 6, uid_offset = 7;
}

cudnn_sdpa::cudnn_sdpa(const sdpa_shape& sh, cudaStream_t stream, int max_plans) : p_(std::make_unique<impl>()) {
  std::string why;
  if (!api(why)) throw std::runtime_error(why);
  impl& m = *p_;
  m.s = sh;
  const int64_t b = sh.batch, h = sh.heads, hk = sh.kv_heads, sq = sh.q_len, skv = sh.kv_len, d = sh.head_dim;
  if (b <= 0 || h <= 0 || hk <= 0 || h % hk || sq <= 0 || skv < sq || d <= 0 || d % 8)
    throw std::runtime_error(fmt::format("cuDNN SDPA: unsupported shape batch {}, heads {}/{}, q_len {}, kv_len {}, "
                                         "head_dim {}",
                                         b, h, hk, sq, skv, d));
  check(g_api.Create(&m.handle), "create handle");
  check(g_api.SetStream(m.handle, stream), "set stream");
  const cudnnDataType_t io = sh.bf16 ? CUDNN_DATA_BFLOAT16 : CUDNN_DATA_HALF;
  const cudnnDataType_t f32 = CUDNN_DATA_FLOAT, i32 = CUDNN_DATA_INT32, boolean = CUDNN_DATA_BOOLEAN;
  m.scale = sh.scale;
  m.row_offset = static_cast<int32_t>(skv - sq);

  const dims4 s_dim{b, h, sq, skv}, s_str{h * sq * skv, sq * skv, skv, 1};
  const dims4 r_dim{b, h, sq, 1}, r_str{h * sq, sq, 1, 1};
  auto q = m.tensor(uid_q, io, {b, h, sq, d}, {h * sq * d, sq * d, d, 1}, false);
  // Kᵀ: K [b, hk, skv, d] read as [b, hk, d, skv]
  auto kt = m.tensor(uid_k, io, {b, hk, d, skv}, {hk * skv * d, skv * d, 1, d}, false);
  auto v = m.tensor(uid_v, io, {b, hk, skv, d}, {hk * skv * d, skv * d, d, 1}, false);
  auto o = m.tensor(uid_o, io, {b, h, sq, d}, {h * sq * d, sq * d, d, 1}, false);

  auto s0 = m.virt(f32, s_dim, s_str);
  m.matmul(q, kt, s0);
  auto s1 = m.virt(f32, s_dim, s_str);
  m.pointwise(CUDNN_POINTWISE_MUL, f32, s0, m.scalar(uid_scale, f32), nullptr, s1);
  auto last = s1;
  if (sh.causal) {
    auto row = m.virt(i32, s_dim, s_str), col = m.virt(i32, s_dim, s_str);
    m.pointwise(CUDNN_POINTWISE_GEN_INDEX, i32, last, nullptr, nullptr, row, 2);
    m.pointwise(CUDNN_POINTWISE_GEN_INDEX, i32, last, nullptr, nullptr, col, 3);
    if (m.row_offset != 0) {  // query i sits at position i + kv_len − q_len
      auto shifted = m.virt(i32, s_dim, s_str);
      m.pointwise(CUDNN_POINTWISE_ADD, i32, row, m.scalar(uid_offset, i32), nullptr, shifted);
      row = shifted;
    }
    auto keep = m.virt(boolean, s_dim, s_str);
    m.pointwise(CUDNN_POINTWISE_CMP_GE, boolean, row, col, nullptr, keep);
    auto masked = m.virt(f32, s_dim, s_str);
    m.pointwise(CUDNN_POINTWISE_BINARY_SELECT, f32, last, m.scalar(uid_lowest, f32), keep, masked);
    last = masked;
  }
  auto mx = m.virt(f32, r_dim, r_str);
  m.reduction(CUDNN_REDUCE_TENSOR_MAX, last, mx);
  auto sub = m.virt(f32, s_dim, s_str);
  m.pointwise(CUDNN_POINTWISE_SUB, f32, last, mx, nullptr, sub);
  auto ex = m.virt(f32, s_dim, s_str);
  m.pointwise(CUDNN_POINTWISE_EXP, f32, sub, nullptr, nullptr, ex);
  auto sum = m.virt(f32, r_dim, r_str);
  m.reduction(CUDNN_REDUCE_TENSOR_ADD, ex, sum);
  // the softmax statistics log(Σ exp) + max (virtual: inference): the flash pattern carries them
  auto lg = m.virt(f32, r_dim, r_str), stats = m.virt(f32, r_dim, r_str);
  m.pointwise(CUDNN_POINTWISE_LOG, f32, sum, nullptr, nullptr, lg);
  m.pointwise(CUDNN_POINTWISE_ADD, f32, mx, lg, nullptr, stats);
  auto pr = m.virt(io, s_dim, s_str);  // P in the input type: the second matmul's A operand
  m.pointwise(CUDNN_POINTWISE_DIV, f32, ex, sum, nullptr, pr);
  m.matmul(pr, v, o);

  std::vector<cudnnBackendDescriptor_t> op_list;
  // the operation descriptors only: every op follows its attribute descriptor in m.ops
  for (size_t i = 1; i < m.ops.size(); i += 2) op_list.push_back(m.ops[i].d);
  m.graph = desc(CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR);
  m.graph.set_n(CUDNN_ATTR_OPERATIONGRAPH_OPS, CUDNN_TYPE_BACKEND_DESCRIPTOR, static_cast<int64_t>(op_list.size()),
                op_list.data(), "graph ops")
      .set(CUDNN_ATTR_OPERATIONGRAPH_HANDLE, CUDNN_TYPE_HANDLE, m.handle, "graph handle")
      .finalize("operation graph (not a supported attention pattern on this GPU)");

  // engine configurations: heuristics mode A, then the fallback list (as cuDNN's frontend does)
  std::vector<desc> cfgs;
  std::vector<cudnnBackendDescriptor_t> raw;
  std::vector<desc> heurs;
  for (const cudnnBackendHeurMode_t mode : {CUDNN_HEUR_MODE_A, CUDNN_HEUR_MODE_FALLBACK}) {
    desc heur(CUDNN_BACKEND_ENGINEHEUR_DESCRIPTOR);
    try {
      heur.set(CUDNN_ATTR_ENGINEHEUR_OPERATION_GRAPH, CUDNN_TYPE_BACKEND_DESCRIPTOR, m.graph.d, "heuristics graph")
          .set(CUDNN_ATTR_ENGINEHEUR_MODE, CUDNN_TYPE_HEUR_MODE, mode, "heuristics mode")
          .finalize("heuristics");
      int64_t count = 0;
      check(g_api.BackendGetAttribute(heur.d, CUDNN_ATTR_ENGINEHEUR_RESULTS, CUDNN_TYPE_BACKEND_DESCRIPTOR, 0, &count,
                                      nullptr),
            "heuristics count");
      std::vector<cudnnBackendDescriptor_t> mine;
      for (int64_t i = 0; i < count; ++i) {
        cfgs.emplace_back(CUDNN_BACKEND_ENGINECFG_DESCRIPTOR);
        mine.push_back(cfgs.back().d);
      }
      int64_t got = 0;
      if (count > 0)
        check(g_api.BackendGetAttribute(heur.d, CUDNN_ATTR_ENGINEHEUR_RESULTS, CUDNN_TYPE_BACKEND_DESCRIPTOR, count,
                                        &got, mine.data()),
              "heuristics results");
      for (int64_t i = 0; i < got; ++i) raw.push_back(mine[static_cast<size_t>(i)]);
    } catch (const std::exception&) {
      // a mode that refuses this graph adds nothing; the other may still answer
    }
    heurs.push_back(std::move(heur));
  }
  const int64_t got = static_cast<int64_t>(raw.size());
  std::string refused;
  for (int64_t i = 0; i < got && static_cast<int>(m.plans.size()) < max_plans; ++i) {
    try {
      desc plan(CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR);
      plan.set(CUDNN_ATTR_EXECUTION_PLAN_HANDLE, CUDNN_TYPE_HANDLE, m.handle, "plan handle")
          .set(CUDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG, CUDNN_TYPE_BACKEND_DESCRIPTOR, raw[i], "plan config")
          .finalize("execution plan");
      int64_t ws = 0, n = 0;
      check(g_api.BackendGetAttribute(plan.d, CUDNN_ATTR_EXECUTION_PLAN_WORKSPACE_SIZE, CUDNN_TYPE_INT64, 1, &n, &ws),
            "workspace size");
      int64_t engine_index = -1;
      try {
        desc eng(CUDNN_BACKEND_ENGINE_DESCRIPTOR);
        cudnnBackendDescriptor_t e = eng.d;
        check(g_api.BackendGetAttribute(raw[i], CUDNN_ATTR_ENGINECFG_ENGINE, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &n, &e),
              "config engine");
        check(g_api.BackendGetAttribute(eng.d, CUDNN_ATTR_ENGINE_GLOBAL_INDEX, CUDNN_TYPE_INT64, 1, &n, &engine_index),
              "engine index");
      } catch (const std::exception&) {
        engine_index = -1;
      }
      m.names.push_back(engine_index >= 0 ? fmt::format("engine {} (heuristic rank {}), workspace {} B", engine_index, i, ws)
                                          : fmt::format("heuristic rank {}, workspace {} B", i, ws));
      m.workspace.push_back(ws);
      m.plans.push_back(std::move(plan));
    } catch (const std::exception& e) {
      if (refused.empty()) refused = e.what();
    }
  }
  if (m.plans.empty())
    throw std::runtime_error(fmt::format("cuDNN SDPA: none of {} heuristic configurations built a plan{}{}", got,
                                         refused.empty() ? "" : "; first refusal: ", refused));
  int64_t max_ws = 0;
  for (int64_t w : m.workspace) max_ws = std::max(max_ws, w);
  if (max_ws > 0) m.ws = device_buffer(static_cast<size_t>(max_ws));
}

cudnn_sdpa::~cudnn_sdpa() = default;

int cudnn_sdpa::plans() const { return static_cast<int>(p_->plans.size()); }
std::string cudnn_sdpa::plan_name(int i) const { return p_->names.at(static_cast<size_t>(i)); }
void cudnn_sdpa::select(int i) {
  if (i < 0 || i >= plans()) throw std::out_of_range("cudnn_sdpa::select: no such plan");
  if (i != p_->chosen) p_->packs.clear();
  p_->chosen = i;
}
int cudnn_sdpa::selected() const { return p_->chosen; }

void cudnn_sdpa::run(const void* q, const void* k, const void* v, void* o, cudaStream_t stream) {
  impl& m = *p_;
  check(g_api.SetStream(m.handle, stream), "set stream");
  const auto key = std::make_tuple(q, k, v, o);
  auto it = m.packs.find(key);
  if (it == m.packs.end()) {
    std::vector<void*> ptrs = {const_cast<void*>(q), const_cast<void*>(k), const_cast<void*>(v), o, &m.scale};
    std::vector<int64_t> uids = {uid_q, uid_k, uid_v, uid_o, uid_scale};
    if (m.s.causal) {
      ptrs.push_back(&m.lowest);
      uids.push_back(uid_lowest);
      if (m.row_offset != 0) {
        ptrs.push_back(&m.row_offset);
        uids.push_back(uid_offset);
      }
    }
    desc pack(CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR);
    void* ws = m.ws.get();
    pack.set_n(CUDNN_ATTR_VARIANT_PACK_DATA_POINTERS, CUDNN_TYPE_VOID_PTR, static_cast<int64_t>(ptrs.size()), ptrs.data(),
               "variant pack pointers")
        .set_n(CUDNN_ATTR_VARIANT_PACK_UNIQUE_IDS, CUDNN_TYPE_INT64, static_cast<int64_t>(uids.size()), uids.data(),
               "variant pack ids")
        .set(CUDNN_ATTR_VARIANT_PACK_WORKSPACE, CUDNN_TYPE_VOID_PTR, ws, "variant pack workspace")
        .finalize("variant pack");
    it = m.packs.emplace(key, std::move(pack)).first;
  }
  check(g_api.BackendExecute(m.handle, m.plans[static_cast<size_t>(m.chosen)].d, it->second.d), "execute");
}

std::string cudnn_sdpa::description() const {
  return fmt::format("cuDNN {} fused SDPA (graph API flash attention fprop: QK^T, scale, {}softmax, PV), {}",
                     version_text(g_api.version), p_->s.causal ? "causal mask, " : "", plan_name(p_->chosen));
}

#endif

}  // namespace roofline::cuda
