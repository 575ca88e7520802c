#include "backends/cpu/op_runner.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <functional>
#include <fmt/format.h>

#include "backends/cpu/cpu_buffers.hpp"
#include "backends/cpu/cpu_detect.hpp"
#include "backends/cpu/op_kernels.hpp"
#include "backends/cpu/probe_sizing.hpp"
#include "backends/cpu/rapl.hpp"
#include "roofline/error.hpp"

#ifdef ROOFLINE_HAVE_OPENBLAS
#include <cblas.h>
#endif

namespace roofline::cpu {

namespace {

std::int64_t need(std::int64_t v, const op_desc& op, const char* field) {
  if (v <= 0) throw probe_error(fmt::format("op {} ({}): shape field '{}' is missing", op.name, to_string(op.kind), field));
  return v;
}

/// Per-copy float layout: named segments; the runner rotates over `copies` copies.
struct arena {
  std::vector<std::int64_t> sizes;
  std::int64_t per_copy = 0;
  int copies = 1;
  int max_copies = 4096;  ///< rotation_copies' cap (a whole step: the op's count, see run_cpu_op)
  aligned_buffer<float> data;
  std::int64_t add(std::int64_t n) {
    const std::int64_t off = per_copy;
    sizes.push_back(n);
    per_copy += (n + 15) / 16 * 16;  // 64-byte aligned segments
    return off;
  }
  void allocate(std::int64_t llc_bytes, bool rotate, std::uint64_t seed) {
    const double bytes = 4.0 * static_cast<double>(per_copy);
    copies = rotate ? rotation_copies(bytes, llc_bytes, max_copies) : 1;
    data = aligned_buffer<float>(static_cast<std::size_t>(per_copy * copies));
    advise_huge_pages(data.data(), data.size() * sizeof(float));
    // Copy 0 gets the random values; the others are byte copies of it. The copies exist only so
    // that each timed run starts with its inputs out of cache (distinct addresses), which identical
    // contents satisfy; generating 2x LLC of random numbers per op instead (a VM may report a
    // whole socket's L3, 508 MiB on a 2-vCPU Zen 5 guest) took ~2 s per op.
    fill_uniform(data.data(), static_cast<std::size_t>(per_copy), seed);
    const std::int64_t n = per_copy;
    float* base = data.data();
#pragma omp parallel for schedule(static) if (copies > 2)
    for (int c = 1; c < copies; ++c) std::copy(base, base + n, base + c * n);
  }
  float* at(int copy, std::int64_t off) { return data.data() + copy * per_copy + off; }
};

void check(bool ok, const op_desc& op, const std::string& what) {
  if (!ok) throw probe_error(fmt::format("op {} ({}) failed verification: {}", op.name, to_string(op.kind), what));
}

/// |got − ref| ≤ tol · max(1, |ref|)
bool close(double got, double ref, double tol) { return std::abs(got - ref) <= tol * std::max(1.0, std::abs(ref)); }

double silu_ref(double x) { return x / (1.0 + std::exp(-x)); }

}  // namespace

std::string cpu_implementation(const op_desc& op, int threads) {
  const std::string omp = fmt::format("OpenMP, {} threads", threads);
  switch (op.kind) {
    case op_kind::gemm:
      return op.m == 1 ? fmt::format("{} cblas_sgemv, row-major B transposed (c = Bᵀ·a), {}", openblas_version(), openblas_threading(threads))
                       : fmt::format("{} cblas_sgemm, row-major NN, {}", openblas_version(), openblas_threading(threads));
    case op_kind::add: return fmt::format("roofline cpu add (omp simd, one pass; {})", omp);
    case op_kind::mul: return fmt::format("roofline cpu mul (omp simd, one pass; {})", omp);
    case op_kind::silu_mul: return fmt::format("roofline cpu silu_mul (fused SwiGLU, fast exp, one pass; {})", omp);
    case op_kind::silu: return fmt::format("roofline cpu silu (fast exp, one pass; {})", omp);
    case op_kind::gelu: return fmt::format("roofline cpu gelu (tanh form, one pass; {})", omp);
    case op_kind::rmsnorm:
      return op.name.find("two_pass") != std::string::npos
                 ? fmt::format("roofline cpu rmsnorm (two passes: sum of squares, then scale; {}, rows split)", omp)
                 : fmt::format("roofline cpu rmsnorm (one pass per row; {}, rows split)", omp);
    case op_kind::layernorm: return fmt::format("roofline cpu layernorm (per row; {}, rows split)", omp);
    case op_kind::softmax: return fmt::format("roofline cpu softmax (max, exp-sum, scale per row; {}, rows split)", omp);
    case op_kind::rope: return fmt::format("roofline cpu rope (cos/sin tables as inputs, in place; {})", omp);
    case op_kind::embedding: return fmt::format("roofline cpu embedding gather (row memcpy; {})", omp);
    case op_kind::attention_decode:
      return fmt::format("roofline cpu decode attention (split-KV, the query heads of a KV head together, online softmax, fp32; {})", omp);
    case op_kind::attention_naive:
#ifdef ROOFLINE_HAVE_OPENBLAS
      return fmt::format("roofline cpu naive attention (as eager attention: S = Q·Kᵀ by {} cblas_sgemm per head, full rows "
                         "materialised and masked, softmax in place, O = P·V by cblas_sgemm; {})", openblas_version(), omp);
#else
      return fmt::format("roofline cpu naive attention (scores materialised, then softmax, then P·V; {})", omp);
#endif
    case op_kind::attention_fused:
#ifdef ROOFLINE_HAVE_OPENBLAS
      return fmt::format("roofline cpu fused attention (query tiles of up to 256 rows: S = Q·Kᵀ and O = P·V by {} cblas_sgemm, "
                         "causal mask and softmax per row in a per-thread tile, fp32; {})", openblas_version(), omp);
#else
      return fmt::format("roofline cpu fused attention (online softmax over key blocks, fp32; {})", omp);
#endif
  }
  return "roofline cpu (unknown op kind)";
}

op_timing run_cpu_op(const op_desc& op, const timing_options& timing) { return run_cpu_op(op, timing, nullptr); }

op_timing run_cpu_op(const op_desc& op, const timing_options& timing, const step_hook* hook) {
  const auto& d = detect_cpu().desc;
  std::int64_t llc = sizing_cache_bytes({d.l1d_bytes, d.l2_bytes, d.l3_bytes}, worker_threads());
  // Test hook: the cache size inputs are rotated past (bytes; 0 = no rotation), so a whole step of a
  // tiny model stays far below the 2 × LLC per op the rotation otherwise keeps (tests only).
  if (const char* cap = std::getenv("ROOFLINE_CPU_ROTATION_BYTES")) llc = std::max<std::int64_t>(0, std::atoll(cap));
  arena ar;
  // In a whole step, instance i of an op (layer i) runs on copy i mod copies, so copies beyond the
  // op's count are never read: the step's own pass over every layer's buffers is what leaves each
  // op's inputs out of cache, as the model's layers do. Capping them saves allocating and copying
  // 2 × LLC per op (on a VM reporting a 260 MiB L3, ~9 GB for TinyLlama's decode step).
  if (hook) ar.max_copies = static_cast<int>(std::clamp<std::int64_t>(op.count, 1, 4096));
  std::function<void(int)> kernel;   // runs the op on copy c
  std::function<void()> verify;      // checks copy 0 after one run
  std::function<void()> before;      // prepares copy 0 before the verification run (in-place ops)
  std::string note = "fp32 on the CPU";
  if (op.dtype_bytes != 4) note += fmt::format(" (catalogue dtype {} with {} B elements; run in fp32, bytes not rescaled)", op.dtype, op.dtype_bytes);
  std::vector<std::int32_t> ids;
  aligned_buffer<float> scores;
  std::vector<float> saved;
  bool rotate = true;

  switch (op.kind) {
    case op_kind::add:
    case op_kind::mul:
    case op_kind::silu_mul: {
      const std::int64_t n = need(op.rows, op, "rows") * need(op.cols, op, "cols");
      const auto x = ar.add(n), y = ar.add(n), z = ar.add(n);
      const op_kind k = op.kind;
      kernel = [&ar, x, y, z, n, k](int c) {
        if (k == op_kind::add) add_kernel(ar.at(c, x), ar.at(c, y), ar.at(c, z), n);
        else if (k == op_kind::mul) mul_kernel(ar.at(c, x), ar.at(c, y), ar.at(c, z), n);
        else silu_mul_kernel(ar.at(c, x), ar.at(c, y), ar.at(c, z), n);
      };
      verify = [&ar, &op, x, y, z, n, k] {
        for (std::int64_t q = 0; q < 257; ++q) {
          const std::int64_t i = (n - 1) * q / 256;
          const double a = *ar.at(0, x + i), b = *ar.at(0, y + i);
          const double ref = k == op_kind::add ? a + b : k == op_kind::mul ? a * b : silu_ref(a) * b;
          check(close(*ar.at(0, z + i), ref, 1e-5), op, fmt::format("element {}", i));
        }
      };
      break;
    }
    case op_kind::silu:
    case op_kind::gelu: {
      const std::int64_t n = need(op.rows, op, "rows") * need(op.cols, op, "cols");
      const auto x = ar.add(n), y = ar.add(n);
      const bool is_silu = op.kind == op_kind::silu;
      kernel = [&ar, x, y, n, is_silu](int c) {
        if (is_silu) silu_kernel(ar.at(c, x), ar.at(c, y), n);
        else gelu_kernel(ar.at(c, x), ar.at(c, y), n);
      };
      verify = [&ar, &op, x, y, n, is_silu] {
        for (std::int64_t q = 0; q < 257; ++q) {
          const std::int64_t i = (n - 1) * q / 256;
          const double a = *ar.at(0, x + i);
          const double ref = is_silu ? silu_ref(a)
                                     : 0.5 * a * (1 + std::tanh(std::sqrt(2.0 / M_PI) * (a + 0.044715 * a * a * a)));
          check(close(*ar.at(0, y + i), ref, 1e-5), op, fmt::format("element {}", i));
        }
      };
      break;
    }
    case op_kind::rmsnorm:
    case op_kind::layernorm:
    case op_kind::softmax: {
      const std::int64_t rows = need(op.rows, op, "rows"), cols = need(op.cols, op, "cols");
      const auto x = ar.add(rows * cols), y = ar.add(rows * cols), w = ar.add(cols), b = ar.add(cols);
      const op_kind k = op.kind;
      const bool two_pass = k == op_kind::rmsnorm && op.name.find("two_pass") != std::string::npos;
      kernel = [&ar, x, y, w, b, rows, cols, k, two_pass](int c) {
        if (two_pass) rmsnorm_two_pass_kernel(ar.at(c, x), ar.at(c, w), ar.at(c, y), rows, cols, 1e-5f);
        else if (k == op_kind::rmsnorm) rmsnorm_kernel(ar.at(c, x), ar.at(c, w), ar.at(c, y), rows, cols, 1e-5f);
        else if (k == op_kind::layernorm) layernorm_kernel(ar.at(c, x), ar.at(c, w), ar.at(c, b), ar.at(c, y), rows, cols, 1e-5f);
        else softmax_kernel(ar.at(c, x), ar.at(c, y), rows, cols);
      };
      verify = [&ar, &op, x, y, w, b, rows, cols, k] {
        for (std::int64_t q = 0; q < 4; ++q) {
          const std::int64_t r = (rows - 1) * q / 3;
          const float* xr = ar.at(0, x + r * cols);
          const float* yr = ar.at(0, y + r * cols);
          const float* wr = ar.at(0, w);
          const float* br = ar.at(0, b);
          double s = 0, ss = 0, m = -INFINITY;
          for (std::int64_t c = 0; c < cols; ++c) s += xr[c], ss += double(xr[c]) * xr[c], m = std::max<double>(m, xr[c]);
          const double mean = s / cols;
          double var = 0, se = 0;
          for (std::int64_t c = 0; c < cols; ++c) var += (xr[c] - mean) * (xr[c] - mean), se += std::exp(xr[c] - m);
          var /= cols;
          for (std::int64_t c = 0; c < cols; ++c) {
            double ref = 0;
            if (k == op_kind::rmsnorm) ref = xr[c] / std::sqrt(ss / cols + 1e-5) * wr[c];
            else if (k == op_kind::layernorm) ref = (xr[c] - mean) / std::sqrt(var + 1e-5) * wr[c] + br[c];
            else ref = std::exp(xr[c] - m) / se;
            check(close(yr[c], ref, 1e-4), op, fmt::format("row {} col {}: {} vs {}", r, c, yr[c], ref));
          }
        }
      };
      break;
    }
    case op_kind::rope: {
      const std::int64_t tokens = op.rows > 0 ? op.rows : need(op.batch * op.seq, op, "rows");
      const std::int64_t heads = need(op.heads, op, "heads");
      const std::int64_t kvh = op.kv_heads > 0 ? op.kv_heads : heads;
      const std::int64_t d = op.head_dim > 0 ? op.head_dim : need(op.cols, op, "head_dim") / heads;
      const auto q = ar.add(tokens * heads * d), k = ar.add(tokens * kvh * d), cs = ar.add(tokens * d / 2), sn = ar.add(tokens * d / 2);
      const std::int64_t pos0 = op.ph == phase::decode ? op.context : 0;
      const std::int64_t half = d / 2;
      // The cos/sin tables are inputs (HF computes them once per forward); fill every copy.
      auto tables = [&ar, cs, sn, tokens, d, pos0] {
        for (int c = 0; c < ar.copies; ++c) rope_tables(ar.at(c, cs), ar.at(c, sn), tokens, d, pos0);
      };
      before = [&ar, &saved, q, tokens, heads, d] { saved.assign(ar.at(0, q), ar.at(0, q) + tokens * heads * d); };
      kernel = [&ar, q, k, cs, sn, tokens, heads, kvh, d](int c) {
        rope_kernel(ar.at(c, q), ar.at(c, k), ar.at(c, cs), ar.at(c, sn), tokens, heads, kvh, d);
      };
      verify = [&ar, &op, &saved, q, tokens, heads, d, half, pos0] {
        for (std::int64_t s = 0; s < 8; ++s) {
          const std::int64_t t = (tokens - 1) * s / 7, h = (heads - 1) * s / 7;
          const float* x0 = saved.data() + (t * heads + h) * d;
          const float* y = ar.at(0, q + (t * heads + h) * d);
          for (std::int64_t i = 0; i < half; ++i) {
            const double a = static_cast<double>(pos0 + t) * std::pow(10000.0, -2.0 * i / d);
            check(close(y[i], x0[i] * std::cos(a) - x0[i + half] * std::sin(a), 1e-4), op, fmt::format("token {} head {} dim {}", t, h, i));
            check(close(y[i + half], x0[i + half] * std::cos(a) + x0[i] * std::sin(a), 1e-4), op, fmt::format("token {} head {} dim {}", t, h, i + half));
          }
        }
      };
      ar.allocate(llc, true, 7);
      tables();
      rotate = false;  // already allocated
      note += "; cos/sin tables read as inputs";
      break;
    }
    case op_kind::embedding: {
      const std::int64_t rows = need(op.rows, op, "rows"), cols = need(op.cols, op, "cols");
      std::int64_t vocab = op.k;
      if (vocab <= 0) {
        vocab = rows;
        note += "; vocabulary size not given (op.k): table of `rows` rows";
      }
      const auto table = ar.add(vocab * cols), out = ar.add(rows * cols);
      // Disjoint id sets, one per run in turn: a decode step gathers rows it has not just read, so
      // each timed gather must start cold too. The table is too large to rotate (≥ 2 × LLC for a
      // real vocabulary), and one fixed set of ids would be served from cache after the first run
      // (TinyLlama at batch 32 on a 2-vCPU Zen 4 guest: 3.0 µs for 256 KiB, 85 GB/s, above its DRAM
      // roof). Set s holds ids ((s·rows + r)·P + 12345) mod vocab, P = 2654435761 (a prime above any
      // vocabulary, so the map is a bijection mod vocab and the sets do not overlap).
      const std::int64_t sets = std::clamp<std::int64_t>(vocab / rows, 1, 64);
      ids.resize(static_cast<std::size_t>(rows * sets));
      for (std::int64_t i = 0; i < rows * sets; ++i)
        ids[static_cast<std::size_t>(i)] = static_cast<std::int32_t>((static_cast<std::uint64_t>(i) * 2654435761ull + 12345) % static_cast<std::uint64_t>(vocab));
      note += fmt::format("; ids rotated over {} disjoint sets so each gather reads rows not just read", sets);
      kernel = [&ar, &ids, table, out, rows, cols, sets, run = std::int64_t{0}](int c) mutable {
        embedding_kernel(ar.at(c, table), ids.data() + (run++ % sets) * rows, ar.at(c, out), rows, cols);
      };
      verify = [&ar, &op, &ids, table, out, rows, cols] {
        for (std::int64_t q = 0; q < 8; ++q) {
          const std::int64_t r = (rows - 1) * q / 7;
          for (std::int64_t c = 0; c < cols; ++c)
            check(*ar.at(0, out + r * cols + c) == *ar.at(0, table + ids[r] * cols + c), op, fmt::format("row {}", r));
        }
      };
      break;
    }
    case op_kind::gemm: {
#ifndef ROOFLINE_HAVE_OPENBLAS
      throw probe_error("built without OpenBLAS");
#else
      const std::int64_t m = need(op.m, op, "m"), n = need(op.n, op, "n"), k = need(op.k, op, "k");
      const auto a = ar.add(m * k), b = ar.add(k * n), c = ar.add(m * n);
      openblas_set_num_threads(worker_threads());
      kernel = [&ar, a, b, c, m, n, k](int cp) { gemm_kernel(ar.at(cp, a), ar.at(cp, b), ar.at(cp, c), m, n, k); };
      verify = [&ar, &op, a, b, c, m, n, k] {
        for (std::int64_t q = 0; q < 16; ++q) {
          const std::int64_t i = (q * 7919) % m, j = (q * 104729 + 5) % n;
          double ref = 0, mag = 0;
          for (std::int64_t l = 0; l < k; ++l) {
            const double x = *ar.at(0, a + i * k + l), y = *ar.at(0, b + l * n + j);
            ref += x * y, mag += std::abs(x * y);
          }
          check(std::abs(*ar.at(0, c + i * n + j) - ref) <= k * 0x1.0p-24 * mag + 1e-30, op, fmt::format("C[{},{}]", i, j));
        }
      };
      note += m == 1 ? "; OpenBLAS cblas_sgemv" : "; OpenBLAS cblas_sgemm";
      break;
#endif
    }
    case op_kind::attention_decode:
    case op_kind::attention_naive:
    case op_kind::attention_fused: {
      attention_shape s;
      s.batch = need(op.batch, op, "batch");
      s.heads = need(op.heads, op, "heads");
      s.kv_heads = op.kv_heads > 0 ? op.kv_heads : s.heads;
      s.head_dim = need(op.head_dim, op, "head_dim");
      const bool decode = op.kind == op_kind::attention_decode;
      s.q_len = decode ? 1 : (op.q_len > 0 ? op.q_len : need(op.seq, op, "q_len"));
      s.kv_len = op.kv_len > 0 ? op.kv_len : op.context > 0 ? op.context : s.q_len;
      s.causal = decode ? false : op.causal;
      if (s.heads % s.kv_heads != 0) throw probe_error(fmt::format("op {}: heads {} not a multiple of kv_heads {}", op.name, s.heads, s.kv_heads));
      const auto q = ar.add(s.batch * s.heads * s.q_len * s.head_dim);
      const auto k = ar.add(s.batch * s.kv_heads * s.kv_len * s.head_dim);
      const auto v = ar.add(s.batch * s.kv_heads * s.kv_len * s.head_dim);
      const auto o = ar.add(s.batch * s.heads * s.q_len * s.head_dim);
      const op_kind kind = op.kind;
      if (kind == op_kind::attention_naive) {
        scores = aligned_buffer<float>(static_cast<std::size_t>(s.batch * s.heads * s.q_len * s.kv_len));
        note += fmt::format("; scores materialised ({:.0f} MiB)", 4.0 * scores.size() / 1048576);
      }
      kernel = [&ar, &scores, q, k, v, o, s, kind](int c) {
        if (kind == op_kind::attention_decode) attention_decode_kernel(ar.at(c, q), ar.at(c, k), ar.at(c, v), ar.at(c, o), s);
        else if (kind == op_kind::attention_naive) attention_naive_kernel(ar.at(c, q), ar.at(c, k), ar.at(c, v), scores.data(), ar.at(c, o), s);
        else attention_fused_kernel(ar.at(c, q), ar.at(c, k), ar.at(c, v), ar.at(c, o), s);
      };
      verify = [&ar, &op, q, k, v, o, s] {
        const std::int64_t d = s.head_dim, group = s.heads / s.kv_heads;
        for (std::int64_t t = 0; t < 6; ++t) {
          const std::int64_t b = (s.batch - 1) * t / 5, h = (s.heads - 1) * t / 5, i = (s.q_len - 1) * t / 5;
          const float* qi = ar.at(0, q + ((b * s.heads + h) * s.q_len + i) * d);
          const float* kb = ar.at(0, k + (b * s.kv_heads + h / group) * s.kv_len * d);
          const float* vb = ar.at(0, v + (b * s.kv_heads + h / group) * s.kv_len * d);
          const std::int64_t vis = s.causal ? std::min(s.kv_len, s.kv_len - s.q_len + i + 1) : s.kv_len;
          std::vector<double> p(static_cast<std::size_t>(vis));
          double m = -INFINITY, sum = 0;
          for (std::int64_t j = 0; j < vis; ++j) {
            double dd = 0;
            for (std::int64_t c = 0; c < d; ++c) dd += double(qi[c]) * kb[j * d + c];
            p[j] = dd / std::sqrt(double(d));
            m = std::max(m, p[j]);
          }
          for (auto& x : p) x = std::exp(x - m), sum += x;
          const float* oi = ar.at(0, o + ((b * s.heads + h) * s.q_len + i) * d);
          for (std::int64_t c = 0; c < d; ++c) {
            double ref = 0;
            for (std::int64_t j = 0; j < vis; ++j) ref += p[j] * vb[j * d + c];
            ref /= sum;
            check(std::abs(oi[c] - ref) <= 1e-4, op, fmt::format("batch {} head {} query {} dim {}: {} vs {}", b, h, i, c, oi[c], ref));
          }
        }
      };
      break;
    }
  }
  if (rotate) ar.allocate(llc, true, 7);
  if (ar.copies > 1)
    note += hook ? fmt::format("; inputs on {} copies, one per layer up to 2x LLC", ar.copies)
                 : fmt::format("; inputs rotated over {} copies (>= 2x LLC) so each run starts cold", ar.copies);

  if (before) before();
  const double v0 = now_s();
  kernel(0);  // verification run (also a warm-up)
  const double verification_s = now_s() - v0;
  verify();
  if (hook) return (*hook)(ar.copies, kernel);
  // An op whose one run takes a quarter of the timing budget or more (prefill's GEMMs and attention
  // on a 2-core CPU: 0.3–7 s) is timed by its verification run alone: time_repeated would stop after
  // one to four more runs, multiplying the cost for samples whose spread at that length is small.
  if (verification_s >= 0.25 * timing.max_time_s) {
    op_timing r;
    r.seconds = r.best_seconds = verification_s;
    r.repeats = 1;
    r.note = note + fmt::format("; verified; {} threads; timed once: the verification run itself ({:.2f} s, at least a quarter of "
                                "the {:.2g} s budget of an op's timed runs)",
                                worker_threads(), verification_s, timing.max_time_s);
    r.implementation = cpu_implementation(op, worker_threads());
    return r;
  }
  timing_options t = timing;
  t.warmups = std::max(0, t.warmups - 1);
  int next = 1 % ar.copies;
  const auto samples = time_repeated(
      [&] {
        const int c = next;
        next = (next + 1) % ar.copies;
        const double t0 = now_s();
        kernel(c);
        return now_s() - t0;
      },
      t);
  const stats_summary st = summarize(samples);
  op_timing r;
  r.seconds = st.median;
  r.best_seconds = st.min;
  r.repeats = st.n;
  r.note = note + fmt::format("; verified; {} threads", worker_threads());
  r.implementation = cpu_implementation(op, worker_threads());
  return r;
}

op_timing run_cpu_step(const std::vector<op_desc>& step, const timing_options& timing) {
  const auto order = step_order(step);
  const run_with_hook run = [&](const op_desc& op, const step_hook& hook) { return run_cpu_op(op, timing, &hook); };
  const time_step_fn time_step = [&](const std::vector<captured_op>& ops) {
    const rapl_meter& rapl = rapl_meter::system();
    const energy_mark e0 = rapl.mark();  // the energy counter around the timed passes
    const auto samples = time_repeated(
        [&] {
          const double t0 = now_s();
          for (const auto& l : order) {
            const captured_op& c = ops[l.op];
            (*c.launch)(static_cast<int>(l.instance % c.n_sets));
          }
          return now_s() - t0;
        },
        timing);
    const energy_mark e1 = rapl.mark();
    const stats_summary st = summarize(samples);
    op_timing r;
    r.seconds = st.median;
    r.best_seconds = st.min;
    r.repeats = st.n;
    r.energy = rapl.between(e0, e1);
#ifdef ROOFLINE_HAVE_OPENBLAS
    const std::string pool = openblas_pool_note(openblas_get_parallel());
#else
    const std::string pool;
#endif
    r.note = fmt::format("one pass over {} launches of {} distinct ops on {} threads, fp32, each op verified first; "
                         "per-layer ops read input copy (layer mod copies); host clock, median of {}{}",
                         order.size(), step.size(), worker_threads(), st.n, pool);
    return r;
  };
  return chain_step(step, run, time_step);
}

}  // namespace roofline::cpu
