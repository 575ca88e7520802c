// GEMM (linear layers): C[m×n] = A[m×k] · Wᵀ with W stored [n×k] (PyTorch's Linear weight layout;
// the catalogue's B[k×n] is Wᵀ), fp16/bf16 in and out, fp32 accumulation, through cuBLASLt:
// its heuristic's top 8 algorithms are each timed cold (CUDA-graph replays over the op's buffer sets)
// and the fastest kept; a choice is kept for the run (op_context::memo) so every caller of the same
// shape — the op table, the gemm/rows probe, the whole step — runs the same kernel.
// FLOPs 2·m·n·k; bytes (m·k + n·k + m·n)·b — each operand once (b = 2).
// Check: an fp32 reference (one warp per output, lanes split k) on up to 64 evenly spaced rows of
// C (all n columns), ‖out − ref‖/‖ref‖ under the dtype's tolerance; C is NaN-poisoned first.
// m ≤ 8 (decode): our GEMV kernel is a second candidate (1, 2 or 4 warps per output column, 16-byte
// loads, the whole row requested before any warp waits: a small matrix-vector product is bound by
// memory latency, so it needs as many bytes in flight as it can — Little's law); both are verified and the
// faster (median of CUDA-graph replays) is the op, the other's time in the note.
// Also lt_matmul, the strided-batched form the naive attention path uses.
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <vector>

#include "backends/cuda/cublaslt_check.hpp"
#include "backends/cuda/cublaslt_names.hpp"
#include "backends/cuda/ops_common.cuh"
#include "backends/cuda/ops_kernels.cuh"

namespace roofline::cuda::detail {

lt_matmul::lt_matmul(const op_context& ctx, dtype_id t, int64_t m, int64_t n, int64_t k, bool b_is_nk, int batch,
                     int64_t stride_a, int64_t stride_b, int64_t stride_c, const void* a, const void* b, void* c,
                     const lt_sets* sets)
    : ctx_(ctx), m_(m), n_(n), k_(k), batch_(std::max(1, batch)) {
  if (!ctx.lt) throw probe_error("lt_matmul: op_context has no cuBLASLt handle");
  const cudaDataType_t dt = t == dtype_id::f16 ? CUDA_R_16F : CUDA_R_16BF;
  // Row-major C = A·op(B) is column-major Cᵀ = op(B)ᵀ·Aᵀ: cuBLAS's "A" is our B, its "B" our A.
  const cublasOperation_t ta = b_is_nk ? CUBLAS_OP_T : CUBLAS_OP_N, tb = CUBLAS_OP_N;
  ROOFLINE_CUBLAS_CALL(cublasLtMatmulDescCreate(&op_, CUBLAS_COMPUTE_32F, CUDA_R_32F));
  ROOFLINE_CUBLAS_CALL(cublasLtMatmulDescSetAttribute(op_, CUBLASLT_MATMUL_DESC_TRANSA, &ta, sizeof ta));
  ROOFLINE_CUBLAS_CALL(cublasLtMatmulDescSetAttribute(op_, CUBLASLT_MATMUL_DESC_TRANSB, &tb, sizeof tb));
  if (b_is_nk)
    ROOFLINE_CUBLAS_CALL(cublasLtMatrixLayoutCreate(&la_, dt, k, n, k));
  else
    ROOFLINE_CUBLAS_CALL(cublasLtMatrixLayoutCreate(&la_, dt, n, k, n));
  ROOFLINE_CUBLAS_CALL(cublasLtMatrixLayoutCreate(&lb_, dt, k, m, k));
  ROOFLINE_CUBLAS_CALL(cublasLtMatrixLayoutCreate(&lc_, dt, n, m, n));
  if (batch > 1) {
    const int32_t bc = batch;
    const int64_t sa = stride_b, sb = stride_a, sc = stride_c;  // cuBLAS A = our B
    ROOFLINE_CUBLAS_CALL(cublasLtMatrixLayoutSetAttribute(la_, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &bc, sizeof bc));
    ROOFLINE_CUBLAS_CALL(cublasLtMatrixLayoutSetAttribute(lb_, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &bc, sizeof bc));
    ROOFLINE_CUBLAS_CALL(cublasLtMatrixLayoutSetAttribute(lc_, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &bc, sizeof bc));
    ROOFLINE_CUBLAS_CALL(cublasLtMatrixLayoutSetAttribute(la_, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, &sa, sizeof sa));
    ROOFLINE_CUBLAS_CALL(cublasLtMatrixLayoutSetAttribute(lb_, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, &sb, sizeof sb));
    ROOFLINE_CUBLAS_CALL(cublasLtMatrixLayoutSetAttribute(lc_, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, &sc, sizeof sc));
  }
  cublasLtMatmulPreference_t pref = nullptr;
  ROOFLINE_CUBLAS_CALL(cublasLtMatmulPreferenceCreate(&pref));
  const uint64_t ws = ctx.workspace ? ctx.workspace_bytes : 0;
  cublasLtMatmulHeuristicResult_t res[8] = {};
  int found = 0;
  const cublasStatus_t hs = [&] {
    const cublasStatus_t s1 =
        cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws, sizeof ws);
    if (s1 != CUBLAS_STATUS_SUCCESS) return s1;
    return cublasLtMatmulAlgoGetHeuristic(ctx.lt, op_, la_, lb_, lc_, lc_, pref, 8, res, &found);
  }();
  (void)cublasLtMatmulPreferenceDestroy(pref);
  ROOFLINE_CUBLAS_CALL(hs);
  if (found == 0)
    throw probe_error(cat("cuBLASLt found no algorithm for m=", m, " n=", n, " k=", k, " batch=", batch));

  const std::string key = cat("lt ", int(t), " ", m, "x", n, "x", k, b_is_nk ? " nk" : " kn", " batch ", batch, " strides ",
                              stride_a, ",", stride_b, ",", stride_c, " ws ", ws);
  const std::string tail = cat(", workspace ", fmt_bytes(double(ws)), batch > 1 ? cat(", batch ", batch) : std::string());
  const float alpha = 1.f, beta = 0.f;
  // the run's earlier choice for this shape, when it still launches here (a trial on the caller's
  // buffers); otherwise the choice is made afresh below
  if (const int* r = ctx.memo ? ctx.memo->find(key) : nullptr;
      r && *r < found && res[*r].state == CUBLAS_STATUS_SUCCESS &&
      cublasLtMatmul(ctx.lt, op_, &alpha, b, la_, a, lb_, &beta, c, lc_, c, lc_, &res[*r].algo, ctx.workspace, ws,
                     ctx.stream) == CUBLAS_STATUS_SUCCESS) {
    algo_ = res[*r].algo;
    desc_ = cat(cublaslt_version(), " matmul ", b_is_nk ? "TN" : "NN", " (fp32 accumulate), ", describe_algo(algo_),
                "; heuristic rank ", *r + 1, " of ", found, ", chosen when this shape first ran in this run", tail);
    return;
  }

  // time each candidate, keep the fastest: over the buffer sets as CUDA-graph replays (median of 5)
  // when the caller rotates sets (the op is timed cold, so its algorithm is chosen cold: an algorithm
  // fastest on an L2-warm weight need not be fastest on a cold one), else 1 warm-up + 3 runs (min)
  cudaEvent_t e0, e1;
  ROOFLINE_CUDA_CALL(cudaEventCreate(&e0));
  ROOFLINE_CUDA_CALL(cudaEventCreate(&e1));
  double best = 1e30;
  int best_i = -1, ok = 0;
  const bool cold = sets && sets->n > 1 && sets->of;
  for (int i = 0; i < found; ++i) {
    if (res[i].state != CUBLAS_STATUS_SUCCESS) continue;
    auto launch_on = [&](const void* aa, const void* bb, void* cc) {
      return cublasLtMatmul(ctx.lt, op_, &alpha, bb, la_, aa, lb_, &beta, cc, lc_, cc, lc_, &res[i].algo, ctx.workspace,
                            ws, ctx.stream);
    };
    if (launch_on(a, b, c) != CUBLAS_STATUS_SUCCESS) continue;  // this candidate cannot run: try the next
    double t_i = 1e30;
    if (cold) {
      t_i = quick_time(ctx, sets->n, [&](int s) {
        const void *aa = nullptr, *bb = nullptr;
        void* cc = nullptr;
        sets->of(s, aa, bb, cc);
        ROOFLINE_CUBLAS_CALL(launch_on(aa, bb, cc));
      });
    } else {
      for (int r = 0; r < 3; ++r) {
        ROOFLINE_CUDA_CALL(cudaEventRecord(e0, ctx.stream));
        ROOFLINE_CUBLAS_CALL(launch_on(a, b, c));
        ROOFLINE_CUDA_CALL(cudaEventRecord(e1, ctx.stream));
        ROOFLINE_CUDA_CALL(cudaEventSynchronize(e1));
        float ms = 0;
        ROOFLINE_CUDA_CALL(cudaEventElapsedTime(&ms, e0, e1));
        t_i = std::min(t_i, ms * 1e-3);
      }
    }
    ++ok;
    if (t_i < best) {
      best = t_i;
      best_i = i;
    }
  }
  (void)cudaEventDestroy(e0);
  (void)cudaEventDestroy(e1);
  ROOFLINE_CUDA_CALL(cudaGetLastError());
  if (best_i < 0)
    throw probe_error(cat("cuBLASLt: none of ", found, " heuristic algorithms ran for m=", m, " n=", n, " k=", k));
  algo_ = res[best_i].algo;
  if (ctx.memo) ctx.memo->chosen[key] = best_i;
  desc_ = cat(cublaslt_version(), " matmul ", b_is_nk ? "TN" : "NN", " (fp32 accumulate), ", describe_algo(algo_),
              "; fastest of ", ok, " heuristic candidates (rank ", best_i + 1, ", timed ",
              cold ? cat("cold over ", sets->n, " buffer sets") : std::string("on one warm buffer set"), ")", tail);
}

lt_matmul::~lt_matmul() {
  if (lc_) (void)cublasLtMatrixLayoutDestroy(lc_);
  if (lb_) (void)cublasLtMatrixLayoutDestroy(lb_);
  if (la_) (void)cublasLtMatrixLayoutDestroy(la_);
  if (op_) (void)cublasLtMatmulDescDestroy(op_);
}

executed_flops lt_matmul::executed() const {
  const auto tile = algo_tile(algo_);
  const auto padded = [](int64_t x, int t) { return t > 0 ? double((x + t - 1) / t) * t : double(x); };
  return {2.0 * double(k_) * padded(n_, tile[0]) * padded(m_, tile[1]) * batch_, 0.0};
}

void lt_matmul::run(const void* a, const void* b, void* c, float alpha) const {
  const float beta = 0.f;
  const uint64_t ws = ctx_.workspace ? ctx_.workspace_bytes : 0;
  ROOFLINE_CUBLAS_CALL(cublasLtMatmul(ctx_.lt, op_, &alpha, b, la_, a, lb_, &beta, c, lc_, c, lc_, &algo_, ctx_.workspace,
                                  ws, ctx_.stream));
}

namespace {

/// ref[i][j] = Σ_k A[rows[i]][k] · W[j][k], one warp per output.
template <typename T>
__global__ void gemm_reference(const T* a, const T* w, const int32_t* rows, float* ref, int n_rows, int64_t n,
                               int64_t k) {
  const size_t warp = (blockIdx.x * size_t(blockDim.x) + threadIdx.x) / 32;
  const int lane = threadIdx.x & 31;
  if (warp >= size_t(n_rows) * n) return;
  const size_t i = warp / n, j = warp % n;
  const T* ar = a + size_t(rows[i]) * k;
  const T* wr = w + j * k;
  float s = 0.f;
  for (int64_t c = lane; c < k; c += 32) s += elem<T>::to_f(ar[c]) * elem<T>::to_f(wr[c]);
  s = warp_sum(s);
  if (lane == 0) ref[i * n + j] = s;
}

constexpr int gemv_threads = 128, gemv_unroll = 8;

/// C[r][j] = Σ_k A[r][k]·W[j][k] for r < M ≤ 8. WPC warps share column j (row j of W), each reading
/// its contiguous part in 16-byte pieces, gemv_unroll per lane in flight; A's rows through the
/// read-only cache, requested together with W's pieces for M ≤ 4 (registers allow it there: 8·(M+1) 16-byte
/// pieces per lane, 160 registers at M = 4); fp32 sums reduced across the warp, then across the WPC warps in
/// shared memory. Requesting A after W costs a memory round trip per unrolled piece, hidden when the kernel runs
/// alone but not inside a whole decode step: with A after W for M = 4, TinyLlama's batch-4 step ran 15 % over the
/// sum of its ops timed alone; requested together, 2.1 % (H200; bench/results/h200).
/// WPC is chosen so that one warp's part is at most one unrolled round (32·gemv_unroll pieces):
/// then every byte of W is requested before any warp waits. k % 8 == 0, 16-byte aligned rows.
template <typename T, int M, int WPC>
__global__ void __launch_bounds__(gemv_threads) gemv_kernel(const T* __restrict__ a, const T* __restrict__ w,
                                                            T* __restrict__ c, int n, int k) {
  constexpr int warps = gemv_threads / 32, cols = warps / WPC;
  constexpr bool pre = M <= 4;  // A's pieces requested with W's (else after: a second memory round trip)
  __shared__ float red[warps][M];
  const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
  const int j = blockIdx.x * cols + warp / WPC, part = warp % WPC;
  const int pieces = k / 8, per = (pieces + WPC - 1) / WPC;
  const int p0 = part * per, p1 = min(pieces, p0 + per);
  float acc[M];
#pragma unroll
  for (int r = 0; r < M; ++r) acc[r] = 0.f;
  if (j < n) {
    const uint4* wr = reinterpret_cast<const uint4*>(w + size_t(j) * k);
    for (int base = p0; base < p1; base += 32 * gemv_unroll) {
      uint4 wv[gemv_unroll];
      uint4 av[pre ? M : 1][gemv_unroll];
#pragma unroll
      for (int u = 0; u < gemv_unroll; ++u) {
        const int p = base + u * 32 + lane;
        wv[u] = p < p1 ? __ldcs(wr + p) : make_uint4(0, 0, 0, 0);  // W is read once: evict first
        if constexpr (pre) {
#pragma unroll
          for (int r = 0; r < M; ++r)
            av[r][u] = p < p1 ? __ldg(reinterpret_cast<const uint4*>(a + size_t(r) * k) + p) : make_uint4(0, 0, 0, 0);
        }
      }
#pragma unroll
      for (int u = 0; u < gemv_unroll; ++u) {
        const int p = base + u * 32 + lane;
        if (p >= p1) break;
        float wf[8];
        unpack8<T>(wv[u], wf);
#pragma unroll
        for (int r = 0; r < M; ++r) {
          float af[8];
          if constexpr (pre)
            unpack8<T>(av[r][u], af);
          else
            unpack8<T>(__ldg(reinterpret_cast<const uint4*>(a + size_t(r) * k) + p), af);
#pragma unroll
          for (int e = 0; e < 8; ++e) acc[r] = fmaf(wf[e], af[e], acc[r]);
        }
      }
    }
  }
#pragma unroll
  for (int r = 0; r < M; ++r) {
    const float v = warp_sum(acc[r]);
    if (lane == 0) red[warp][r] = v;
  }
  if constexpr (WPC > 1) __syncthreads(); else __syncwarp();
  if (part == 0 && lane < M && j < n) {
    float v = 0.f;
#pragma unroll
    for (int q = 0; q < WPC; ++q) v += red[warp + q][lane];
    c[size_t(lane) * n + j] = elem<T>::from_f(v);
  }
}

/// Warps per output column: enough that one warp's part of a row fits one unrolled round.
inline int gemv_warps_per_column(int k) {
  const int rounds = (k / 8 + 32 * gemv_unroll - 1) / (32 * gemv_unroll);
  return rounds <= 1 ? 1 : rounds <= 2 ? 2 : 4;
}

template <typename T, int WPC>
void launch_gemv_w(int m, const T* a, const T* w, T* c, int n, int k, cudaStream_t s) {
  constexpr int cols = gemv_threads / 32 / WPC;
  const unsigned grid = static_cast<unsigned>((n + cols - 1) / cols);
  switch (m) {
    case 1: gemv_kernel<T, 1, WPC><<<grid, gemv_threads, 0, s>>>(a, w, c, n, k); break;
    case 2: gemv_kernel<T, 2, WPC><<<grid, gemv_threads, 0, s>>>(a, w, c, n, k); break;
    case 3: gemv_kernel<T, 3, WPC><<<grid, gemv_threads, 0, s>>>(a, w, c, n, k); break;
    case 4: gemv_kernel<T, 4, WPC><<<grid, gemv_threads, 0, s>>>(a, w, c, n, k); break;
    case 5: gemv_kernel<T, 5, WPC><<<grid, gemv_threads, 0, s>>>(a, w, c, n, k); break;
    case 6: gemv_kernel<T, 6, WPC><<<grid, gemv_threads, 0, s>>>(a, w, c, n, k); break;
    case 7: gemv_kernel<T, 7, WPC><<<grid, gemv_threads, 0, s>>>(a, w, c, n, k); break;
    default: gemv_kernel<T, 8, WPC><<<grid, gemv_threads, 0, s>>>(a, w, c, n, k); break;
  }
  ROOFLINE_CUDA_LAUNCH_CHECK();
}

template <typename T>
void launch_gemv(int m, const T* a, const T* w, T* c, int n, int k, cudaStream_t s) {
  switch (gemv_warps_per_column(k)) {
    case 1: launch_gemv_w<T, 1>(m, a, w, c, n, k, s); break;
    case 2: launch_gemv_w<T, 2>(m, a, w, c, n, k, s); break;
    default: launch_gemv_w<T, 4>(m, a, w, c, n, k, s); break;
  }
}

template <typename T>
op_timing run_gemm_typed(const op_desc& op, const timing_options& timing, const op_context& ctx, dtype_id dt) {
  const int64_t m = op.m, n = op.n, k = op.k;
  if (m <= 0 || n <= 0 || k <= 0)
    throw probe_error(cat(op_label(op), ": gemm needs positive m, n, k (got ", m, ", ", n, ", ", k, ")"));
  const size_t ab = align256(size_t(m) * k * sizeof(T)), wb = align256(size_t(n) * k * sizeof(T)),
               cb = align256(size_t(m) * n * sizeof(T));
  const rotation rot = plan_rotation(ab + wb + cb, ctx.l2_bytes);
  device_buffer pool(rot.set_bytes * rot.n_sets);
  fill_random(pool.get(), dt, pool.bytes() / sizeof(T), 0x6e33ull, 1.0f, ctx.stream);
  auto a_of = [&](int s) { return pool.as<T>(size_t(s) * rot.set_bytes); };
  auto w_of = [&](int s) { return pool.as<T>(size_t(s) * rot.set_bytes + ab); };
  auto c_of = [&](int s) { return pool.as<T>(size_t(s) * rot.set_bytes + ab + wb); };
  const int cs = rot.n_sets - 1;
  lt_sets sets;
  sets.n = rot.n_sets;
  sets.of = [&](int s, const void*& a, const void*& w, void*& c) { a = a_of(s), w = w_of(s), c = c_of(s); };
  const lt_matmul mm(ctx, dt, m, n, k, true, 1, 0, 0, 0, a_of(cs), w_of(cs), c_of(cs), &sets);

  const int ns = static_cast<int>(std::min<int64_t>(m, 64));
  std::vector<int32_t> rows(ns);
  for (int i = 0; i < ns; ++i) rows[i] = ns == 1 ? 0 : static_cast<int32_t>(int64_t(i) * (m - 1) / (ns - 1));
  device_buffer rows_d(ns * sizeof(int32_t)), ref(size_t(ns) * n * sizeof(float));
  ROOFLINE_CUDA_CALL(cudaMemcpyAsync(rows_d.get(), rows.data(), ns * sizeof(int32_t), cudaMemcpyHostToDevice, ctx.stream));
  const size_t warps = size_t(ns) * n;
  gemm_reference<T><<<static_cast<unsigned>((warps * 32 + 255) / 256), 256, 0, ctx.stream>>>(
      a_of(cs), w_of(cs), rows_d.as<int32_t>(), ref.as<float>(), ns, n, k);
  ROOFLINE_CUDA_LAUNCH_CHECK();
  poison(c_of(cs), size_t(m) * n * sizeof(T), ctx.stream);
  mm.run(a_of(cs), w_of(cs), c_of(cs));
  const std::string checked = require_close(
      compare(c_of(cs), dt, ref.as<float>(), ns, n, n, rows_d.as<int32_t>(), ctx.stream), default_tol(dt), op,
      cat(ns, " sampled rows"));
  const std::string what = cat("C = A·Wᵀ, W [n×k]; ", checked, "; ", rot.note());
  auto run_lt = [&](int s) { mm.run(a_of(s), w_of(s), c_of(s)); };
  if (m <= 8 && k % 8 == 0 && n <= (int64_t(1) << 30) / 32) {
    auto run_gv = [&](int s) { launch_gemv<T>(static_cast<int>(m), a_of(s), w_of(s), c_of(s), int(n), int(k), ctx.stream); };
    poison(c_of(cs), size_t(m) * n * sizeof(T), ctx.stream);
    run_gv(cs);
    const std::string checked_gv = require_close(
        compare(c_of(cs), dt, ref.as<float>(), ns, n, n, rows_d.as<int32_t>(), ctx.stream), default_tol(dt), op,
        cat(ns, " sampled rows"));
    // GEMV (1) or cuBLASLt (0): the run's earlier choice for this shape, else the faster now
    const std::string key = cat("gemm ", int(dt), " ", m, "x", n, "x", k);
    const int* kept = ctx.memo ? ctx.memo->find(key) : nullptr;
    const double t_lt = kept ? 0 : quick_time(ctx, rot.n_sets, run_lt), t_gv = kept ? 0 : quick_time(ctx, rot.n_sets, run_gv);
    // ROOFLINE_DECODE_GEMM=gemv|cublaslt: a diagnostic that forces one candidate (bench/step-energy.sh
    // compares a whole step's energy with each); unset, the faster runs
    const char* forced = std::getenv("ROOFLINE_DECODE_GEMM");
    const bool use_gv = forced && *forced ? std::string(forced) == "gemv" : kept ? *kept == 1 : t_gv < t_lt;
    if (ctx.memo && !kept) ctx.memo->chosen[key] = use_gv ? 1 : 0;
    const int wpc = gemv_warps_per_column(int(k));
    const std::string gv_desc = cat("roofline cuda GEMV (m=", m, " <= 8): ", wpc, " warp", wpc > 1 ? "s" : "",
                                    " per output column, 16-byte loads, up to ", gemv_unroll,
                                    " per lane in flight (the whole row requested at once), fp32 accumulate; grid ",
                                    (n + gemv_threads / 32 / wpc - 1) / (gemv_threads / 32 / wpc), " x ", gemv_threads,
                                    " threads");
    // the other candidate, in numbers (report::choice_text words it)
    if (ctx.memo && !kept) ctx.memo->times[key] = use_gv ? std::pair(t_gv, t_lt) : std::pair(t_lt, t_gv);
    auto versus = [&](const char* other, double t_this, double t_other, std::string detail) {
      kernel_choice c{other, std::move(detail), std::nullopt, std::nullopt, kept != nullptr};
      if (!kept) c.chosen_s = t_this, c.over_s = t_other;
      else if (const auto it = ctx.memo->times.find(key); it != ctx.memo->times.end())  // as first chosen
        c.chosen_s = it->second.first, c.over_s = it->second.second;
      return c;
    };
    // the GEMV's FLOPs run on the CUDA cores, exactly the model's (no tile to pad)
    const step_kernel gv_kernel{gv_desc, executed_flops{0.0, 2.0 * double(m) * double(n) * double(k)}};
    op_timing t = use_gv ? time_launches(ctx, timing, rot.n_sets, run_gv, gv_kernel,
                                         cat("C = A·Wᵀ, W [n×k]; ", checked_gv, "; ", rot.note()))
                         : time_launches(ctx, timing, rot.n_sets, run_lt, {mm.description(), mm.executed()}, what);
    t.choice = use_gv ? versus("cuBLASLt", t_gv, t_lt, cat(mm.description(), "; verified: ", checked))
                      : versus("our GEMV", t_lt, t_gv, cat(gv_desc, "; verified: ", checked_gv));
    return t;
  }
  return time_launches(ctx, timing, rot.n_sets, run_lt, {mm.description(), mm.executed()}, what);
}

}  // namespace

op_timing run_gemm(const op_desc& op, const timing_options& timing, const op_context& ctx) {
  const dtype_id dt = parse_dtype(op);
  return dt == dtype_id::f16 ? run_gemm_typed<__half>(op, timing, ctx, dt)
                             : run_gemm_typed<__nv_bfloat16>(op, timing, ctx, dt);
}

}  // namespace roofline::cuda::detail
