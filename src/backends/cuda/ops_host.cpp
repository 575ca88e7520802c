// Host side of the op runner's shared machinery: labels, rotation plans, the check verdict, event
// timing through time_repeated(). Compiled by the host compiler (fmt).
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "backends/cuda/device_memory.hpp"
#include "backends/cuda/ops_host.hpp"
#include "roofline/measure.hpp"

namespace roofline::cuda::detail {

std::string sci(double x, int digits) { return fmt::format("{:.{}e}", x, digits); }

dtype_id parse_dtype(const op_desc& op) {
  if (op.dtype == "fp16" || (op.dtype.empty() && op.dtype_bytes == 2)) return dtype_id::f16;
  if (op.dtype == "bf16") return dtype_id::bf16;
  throw probe_error(fmt::format("{}: the CUDA op runner supports dtype fp16 and bf16, not '{}'",
                                op_label(op), op.dtype));
}

std::string op_label(const op_desc& op) {
  return fmt::format("{} ({} {}, {})", op.name, to_string(op.kind), op.shape, op.dtype);
}

device_buffer::device_buffer(size_t bytes) : n_(bytes) {
  if (bytes) ROOFLINE_CUDA_CALL(cudaMalloc(&p_, bytes));
}
device_buffer::~device_buffer() {
  if (p_) (void)cudaFree(p_);
}
device_buffer& device_buffer::operator=(device_buffer&& o) noexcept {
  if (this != &o) {
    if (p_) (void)cudaFree(p_);
    p_ = o.p_;
    n_ = o.n_;
    o.p_ = nullptr;
    o.n_ = 0;
  }
  return *this;
}

std::string fmt_bytes(double b) {
  if (b >= 1e9) return fmt::format("{:.2f} GB", b / 1e9);
  if (b >= 1e6) return fmt::format("{:.2f} MB", b / 1e6);
  if (b >= 1e3) return fmt::format("{:.1f} kB", b / 1e3);
  return fmt::format("{:.0f} B", b);
}

rotation plan_rotation(size_t set_bytes, size_t l2_bytes) {
  rotation r;
  r.set_bytes = align256(set_bytes);
  const size_t want = 3 * l2_bytes, cap = size_t(4) << 30;
  if (r.set_bytes > 0 && r.set_bytes < want) {
    size_t n = (want + r.set_bytes - 1) / r.set_bytes;
    n = std::min(n, std::max<size_t>(1, cap / r.set_bytes));
    r.n_sets = static_cast<int>(std::min<size_t>(n, 1 << 20));
  }
  return r;
}

std::string rotation::note() const {
  if (n_sets <= 1) return fmt::format("one buffer set of {} (no rotation needed)", fmt_bytes(double(set_bytes)));
  return fmt::format("rotating {} buffer sets of {} ({} in all, > L2) so the timing is of HBM", n_sets,
                     fmt_bytes(double(set_bytes)), fmt_bytes(double(set_bytes) * n_sets));
}

std::string require_close(const check_result& c, double tol, const op_desc& op, const std::string& what) {
  if (c.nonfinite > 0)
    throw probe_error(fmt::format(
        "{}: verification failed: {} of {} checked outputs of {} are not finite (first at checked row {}, column {}; "
        "outputs are NaN-poisoned before the checked run, so these were never written or overflowed)",
        op_label(op), c.nonfinite, c.n, what, c.first_nonfinite / c.cols, c.first_nonfinite % c.cols));
  if (!(c.ref_norm > 0))
    throw probe_error(fmt::format("{}: verification impossible: the fp32 reference of {} is all zeros", op_label(op),
                                  what));
  if (!(c.rel_err <= tol))
    throw probe_error(fmt::format(
        "{}: verification failed: ||out - ref|| / ||ref|| = {:.3e} > tolerance {:.1e} over {} outputs of {}; "
        "largest |out - ref| = {:.4g} at checked row {}, column {}",
        op_label(op), c.rel_err, tol, c.n, what, c.max_abs, c.worst_index / c.cols, c.worst_index % c.cols));
  return fmt::format("{} rel err {:.2e} (tol {:.0e}) over {} outputs", what, c.rel_err, tol, c.n);
}

double default_tol(dtype_id t) { return t == dtype_id::f16 ? 5e-3 : 1.5e-2; }

namespace {
struct event_pair {
  cudaEvent_t a = nullptr, b = nullptr;
  event_pair() {
    ROOFLINE_CUDA_CALL(cudaEventCreate(&a));
    ROOFLINE_CUDA_CALL(cudaEventCreate(&b));
  }
  ~event_pair() {
    if (a) (void)cudaEventDestroy(a);
    if (b) (void)cudaEventDestroy(b);
  }
  event_pair(const event_pair&) = delete;
  event_pair& operator=(const event_pair&) = delete;
};
}  // namespace

/// Captures `count` launches (cycling over the buffer sets) into a CUDA graph; nullptr (and the
/// reason in `why`) when the op cannot be captured, e.g. a library call that synchronises.
cudaGraphExec_t capture_launches(const op_context& ctx, int n_sets, int count,
                                 const std::function<void(int)>& launch, std::string& why) {
  cudaGraph_t graph = nullptr;
  cudaError_t e = cudaStreamBeginCapture(ctx.stream, cudaStreamCaptureModeThreadLocal);
  if (e != cudaSuccess) {
    why = cudaGetErrorString(e);
    (void)cudaGetLastError();
    return nullptr;
  }
  try {
    for (int k = 0; k < count; ++k) launch(k % std::max(1, n_sets));
  } catch (const std::exception& ex) {
    why = ex.what();
  }
  e = cudaStreamEndCapture(ctx.stream, &graph);
  if (why.empty() && e != cudaSuccess) why = cudaGetErrorString(e);
  cudaGraphExec_t exec = nullptr;
  if (why.empty() && graph) {
    e = cudaGraphInstantiate(&exec, graph, 0);
    if (e != cudaSuccess) {
      why = cudaGetErrorString(e);
      exec = nullptr;
    }
  }
  if (graph) (void)cudaGraphDestroy(graph);
  (void)cudaGetLastError();  // a failed capture leaves a non-sticky error behind
  return exec;
}

op_timing time_launches(const op_context& ctx, const timing_options& timing, int n_sets,
                        const std::function<void(int)>& launch, step_kernel kernel, std::string note) {
  if (ctx.step) return (*ctx.step)(n_sets, launch, kernel);  // part of a whole step: timed there, as one graph
  event_pair ev;
  // Timed as replays of a CUDA graph of `per_graph` back-to-back launches (how production decode
  // runs its kernels), so the host's launch overhead — the eager launch floor, reported apart by
  // the launch probe — stays out of the kernel's time. Falls back to one eager launch per sample.
  const int per_graph = std::max(20, n_sets);
  std::string why;
  cudaGraphExec_t exec = capture_launches(ctx, n_sets, per_graph, launch, why);
  long long i = 0;
  auto once = [&]() -> double {
    ROOFLINE_CUDA_CALL(cudaEventRecord(ev.a, ctx.stream));
    if (exec) {
      ROOFLINE_CUDA_CALL(cudaGraphLaunch(exec, ctx.stream));
    } else {
      launch(static_cast<int>(i++ % std::max(1, n_sets)));
    }
    ROOFLINE_CUDA_CALL(cudaEventRecord(ev.b, ctx.stream));
    ROOFLINE_CUDA_CALL(cudaEventSynchronize(ev.b));
    float ms = 0;
    ROOFLINE_CUDA_CALL(cudaEventElapsedTime(&ms, ev.a, ev.b));
    return ms * 1e-3 / (exec ? per_graph : 1);
  };
  std::vector<double> samples;
  try {
    samples = time_repeated(once, timing);
  } catch (...) {
    if (exec) (void)cudaGraphExecDestroy(exec);
    throw;
  }
  if (exec) (void)cudaGraphExecDestroy(exec);
  const stats_summary s = summarize(samples);
  op_timing t;
  t.seconds = s.median;
  t.best_seconds = s.min;
  t.repeats = s.n;
  t.implementation = std::move(kernel.implementation);
  t.executed = kernel.executed;
  t.note = std::move(note) + (exec ? cat("; timed as CUDA-graph replays of ", per_graph, " launches (per launch)")
                                   : "; timed eagerly, one launch per sample (graph capture failed: " + why + ")");
  return t;
}

double quick_time(const op_context& ctx, int n_sets, const std::function<void(int)>& launch) {
  const int per_graph = std::max(20, n_sets);
  std::string why;
  cudaGraphExec_t exec = capture_launches(ctx, n_sets, per_graph, launch, why);
  std::vector<double> t;
  try {
    for (int r = 0; r < 5; ++r) {
      if (exec) {
        t.push_back(time_on_stream(ctx.stream, [&] { ROOFLINE_CUDA_CALL(cudaGraphLaunch(exec, ctx.stream)); }) /
                    per_graph);
      } else {
        t.push_back(time_on_stream(ctx.stream, [&] { for (int i = 0; i < 10; ++i) launch(i % std::max(1, n_sets)); }) /
                    10);
      }
    }
  } catch (...) {
    if (exec) (void)cudaGraphExecDestroy(exec);
    throw;
  }
  if (exec) (void)cudaGraphExecDestroy(exec);
  std::sort(t.begin(), t.end());
  return t[2];
}

std::string cuda_runtime_version() {
  int v = 0;
  if (cudaRuntimeGetVersion(&v) != cudaSuccess) return "CUDA (version unknown)";
  return cat("CUDA ", v / 1000, ".", (v % 1000) / 10);
}

std::string cublaslt_version() {
  const size_t v = cublasLtGetVersion();  // major·10000 + minor·100 + patch
  return cat("cuBLASLt ", v / 10000, ".", (v / 100) % 100, ".", v % 100);
}

int sm_count(const op_context& ctx) {
  int n = 0;
  ROOFLINE_CUDA_CALL(cudaDeviceGetAttribute(&n, cudaDevAttrMultiProcessorCount, ctx.device));
  return n;
}

unsigned grid_for(size_t n, int threads, const op_context& ctx) {
  const size_t need = (n + threads - 1) / threads;
  const size_t cap = static_cast<size_t>(sm_count(ctx)) * (2048 / threads) * 4;
  return static_cast<unsigned>(std::max<size_t>(1, std::min(need, cap)));
}

}  // namespace roofline::cuda::detail

namespace roofline::cuda {

double kernel_bytes(const op_desc& op) {
  const double b = op.dtype_bytes > 0 ? op.dtype_bytes : 2;
  const double n = double(op.rows) * double(op.cols);
  const double kv_heads = op.kv_heads > 0 ? op.kv_heads : op.heads;
  switch (op.kind) {
    case op_kind::add:
    case op_kind::mul:
    case op_kind::silu_mul: return 3 * n * b;
    case op_kind::silu:
    case op_kind::gelu:
    case op_kind::softmax: return 2 * n * b;
    case op_kind::rmsnorm:
      if (op.name.find("two_pass") != std::string::npos) return 3 * n * b + op.cols * b + 2 * 4.0 * op.rows;
      return 2 * n * b + op.cols * b;
    case op_kind::layernorm: return 2 * n * b + 2 * op.cols * b;
    case op_kind::rope: {
      const double tokens = op.rows > 0 ? op.rows : double(op.batch) * op.seq;
      const double width = op.heads > 0 && op.head_dim > 0 ? (op.heads + kv_heads) * op.head_dim : op.cols;
      return 2 * tokens * width * b;
    }
    case op_kind::embedding: return 2 * n * b + 4.0 * op.rows;
    case op_kind::gemm: return (double(op.m) * op.k + double(op.n) * op.k + double(op.m) * op.n) * b;
    case op_kind::attention_decode: {
      const double kv_len = op.kv_len > 0 ? op.kv_len : op.context;
      return 2 * op.batch * kv_heads * kv_len * op.head_dim * b + 2.0 * op.batch * op.heads * op.head_dim * b;
    }
    case op_kind::attention_naive:
    case op_kind::attention_fused: {
      const double q_len = op.q_len > 0 ? op.q_len : op.seq, kv_len = op.kv_len > 0 ? op.kv_len : q_len;
      const double io = (2 * op.batch * op.heads * q_len * op.head_dim + 2 * op.batch * kv_heads * kv_len * op.head_dim) * b;
      return op.kind == op_kind::attention_naive ? io + 4 * op.batch * op.heads * q_len * kv_len * b : io;
    }
  }
  return 0;
}

}  // namespace roofline::cuda
