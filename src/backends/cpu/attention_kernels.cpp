// Attention on the CPU, fp32 (shapes and conventions: op_kernels.hpp). FLOPs per (batch, head):
// 4 · q_len · visible_keys · head_dim (QKᵀ and P·V); bytes: q, k, v, out once each for decode and
// fused; naive adds the scores: S written in full rows (masked entries −inf, as HF eager attention
// with a causal mask), the softmax's 3 reads + 1 write over full rows, and P·V reading the visible
// part of P (the catalogue counts the full rows there: up to ½ × scores fewer bytes under a mask).
// Checked by the op runner against a double-precision reference on sampled rows.
// Float compares may not trap here, so that GCC if-converts fast_expf's clamps and vectorises the
// loops that call it (no effect on results: no code here relies on floating-point exceptions).
#pragma GCC optimize("no-trapping-math")
#include <algorithm>
#include <cmath>
#include <vector>

#include "backends/cpu/cpu_buffers.hpp"
#include "backends/cpu/fast_exp.hpp"
#include "backends/cpu/op_kernels.hpp"
#ifdef ROOFLINE_HAVE_OPENMP
#include <omp.h>
#endif
#ifdef ROOFLINE_HAVE_OPENBLAS
#include <cblas.h>
#endif

// The per-item workers (a query tile, a decode item, a row of P·V) are compiled once per SIMD width
// (ROOFLINE_SIMD_CLONES) and the small helpers are inlined into them: a helper that is itself a
// clone is called through its resolver, and at 16,000 axpy calls per decode item that call cost
// more than the arithmetic.
#define ROOFLINE_TILE_KERNEL ROOFLINE_SIMD_CLONES
#if defined(__GNUC__)
#define ROOFLINE_INLINE inline __attribute__((always_inline))
#else
#define ROOFLINE_INLINE inline
#endif

namespace roofline::cpu {

namespace {

constexpr std::int64_t tile_q = 32, tile_k = 64;

ROOFLINE_INLINE void axpy(float* __restrict y, const float* __restrict x, float a, std::int64_t d) {
#pragma omp simd
  for (std::int64_t i = 0; i < d; ++i) y[i] += a * x[i];
}

/// kt[c][jj] = k[(j0 + jj)][c] for jj < nk: a key tile transposed, so that the scores of one query
/// against the tile are a vector loop over keys (no horizontal sums).
ROOFLINE_INLINE void transpose_tile(const float* __restrict k, std::int64_t j0, std::int64_t nk, std::int64_t d,
                                         float* __restrict kt) {
  for (std::int64_t jj = 0; jj < nk; ++jj)
    for (std::int64_t c = 0; c < d; ++c) kt[c * tile_k + jj] = k[(j0 + jj) * d + c];
}

/// out[w] = scale · Σ_c x[c] · m[c·W + w] for w < W: a vector times a d × W row-major matrix, one
/// broadcast of x[c] against a row of W lanes per step (no horizontal sums).
template <std::int64_t W>
ROOFLINE_INLINE void vec_mat(const float* __restrict x, const float* __restrict m, std::int64_t d, float scale,
                             float* __restrict out) {
  float acc[W] = {};
  for (std::int64_t c = 0; c < d; ++c) {
    const float xc = x[c];
#pragma omp simd
    for (std::int64_t w = 0; w < W; ++w) acc[w] += xc * m[c * W + w];
  }
#pragma omp simd
  for (std::int64_t w = 0; w < W; ++w) out[w] = acc[w] * scale;
}

/// out[jj] = scale · q·k_(j0+jj) for jj < tile_k against a transposed key tile (entries past the
/// tile's keys are garbage-free zeros).
ROOFLINE_INLINE void score_row(const float* q, const float* kt, std::int64_t d, float scale, float* out) {
  vec_mat<tile_k>(q, kt, d, scale, out);
}

/// Last key index (exclusive) query i may see.
inline std::int64_t visible(const attention_shape& s, std::int64_t i) {
  return s.causal ? std::min(s.kv_len, s.kv_len - s.q_len + i + 1) : s.kv_len;
}

inline const float* kv_ptr(const float* base, const attention_shape& s, std::int64_t b, std::int64_t h) {
  const std::int64_t group = std::max<std::int64_t>(1, s.heads / std::max<std::int64_t>(1, s.kv_heads));
  return base + ((b * s.kv_heads + h / group) * s.kv_len) * s.head_dim;
}

/// One query tile [i0, i1) of one (batch, head), online softmax over key tiles.
ROOFLINE_TILE_KERNEL void fused_tile(const float* q, const float* k, const float* v, float* out, const attention_shape& s,
                                     std::int64_t i0, std::int64_t i1, float* sc, float* acc, float* mx, float* l,
                                     float* kt) {
  const std::int64_t d = s.head_dim, nq = i1 - i0;
  const float scale = 1.0f / std::sqrt(static_cast<float>(d));
  for (std::int64_t i = 0; i < nq; ++i) {
    mx[i] = -INFINITY;
    l[i] = 0;
    std::fill_n(acc + i * d, d, 0.0f);
  }
  const std::int64_t kend = visible(s, i1 - 1);
  for (std::int64_t j0 = 0; j0 < kend; j0 += tile_k) {
    const std::int64_t j1 = std::min(kend, j0 + tile_k);
    transpose_tile(k, j0, j1 - j0, d, kt);
    for (std::int64_t i = 0; i < nq; ++i) {
      const std::int64_t vis = std::min(j1, visible(s, i0 + i));
      if (vis <= j0) continue;
      const float* qi = q + (i0 + i) * d;
      float* si = sc + i * tile_k;
      score_row(qi, kt, d, scale, si);
      const float m = std::max(mx[i], max_of(si, vis - j0));
      const float corr = fast_expf(mx[i] - m);
      float sum = 0;
      const std::int64_t nj = vis - j0;
#pragma omp simd reduction(+ : sum)
      for (std::int64_t jj = 0; jj < nj; ++jj) {
        si[jj] = fast_expf(si[jj] - m);
        sum += si[jj];
      }
      float* ai = acc + i * d;
      for (std::int64_t c = 0; c < d; ++c) ai[c] *= corr;
      for (std::int64_t jj = 0; jj < nj; ++jj) axpy(ai, v + (j0 + jj) * d, si[jj], d);
      l[i] = l[i] * corr + sum;
      mx[i] = m;
    }
  }
  for (std::int64_t i = 0; i < nq; ++i) {
    const float inv = 1.0f / l[i];
    for (std::int64_t c = 0; c < d; ++c) out[(i0 + i) * d + c] = acc[i * d + c] * inv;
  }
}

constexpr std::int64_t head_block = 8;  // query heads of a GQA group handled as one vector

/// One decode item: (batch, kv head) grp = w / splits, keys [sp·chunk, (sp+1)·chunk) with sp = w % splits,
/// for the g query heads of the group, 8 at a time across the vector lanes: scores S[key][head] =
/// k_key · q_head (queries transposed once, so a key row is read once for all heads: no transpose of
/// K, no horizontal sums), online softmax per head, and P·V with 8 columns × 8 heads of the
/// accumulator held in registers across a key tile. Writes the heads' running max m[g], sum l[g] and
/// P·V acc[g·d] (head-major). Work buffers: qt and acc of d·8 floats, p of 64·8.
ROOFLINE_TILE_KERNEL void decode_item(const float* q, const float* k, const float* v, const attention_shape& s,
                                      std::int64_t w, std::int64_t splits, std::int64_t chunk, std::int64_t g, float scale,
                                      float* m_out, float* l_out, float* acc_out, float* qt, float* p, float* acc) {
  constexpr std::int64_t hb = head_block;
  const std::int64_t d = s.head_dim, kvh = std::max<std::int64_t>(1, s.kv_heads);
  const std::int64_t grp = w / splits, sp = w % splits;
  const std::int64_t b = grp / kvh, h0 = (grp % kvh) * g;  // first query head of the group
  const float* kb = kv_ptr(k, s, b, h0);
  const float* vb = kv_ptr(v, s, b, h0);
  const std::int64_t j_begin = sp * chunk, j_end = std::min(s.kv_len, (sp + 1) * chunk);
  for (std::int64_t i0 = 0; i0 < g; i0 += hb) {
    const std::int64_t nh = std::min(hb, g - i0);
    for (std::int64_t c = 0; c < d; ++c)
      for (std::int64_t i = 0; i < hb; ++i) qt[c * hb + i] = i < nh ? q[(b * s.heads + h0 + i0 + i) * d + c] * scale : 0.0f;
    std::fill_n(acc, d * hb, 0.0f);
    float m[hb], l[hb];
    std::fill_n(m, hb, -INFINITY);
    std::fill_n(l, hb, 0.0f);
    for (std::int64_t j0 = j_begin; j0 < j_end; j0 += tile_k) {
      const std::int64_t nk = std::min(tile_k, j_end - j0);
      for (std::int64_t jj = 0; jj < nk; ++jj)  // S[jj][·] = k_jj · q_· (the scale is in qt)
        vec_mat<hb>(kb + (j0 + jj) * d, qt, d, 1.0f, p + jj * hb);
      float mx[hb], sum[hb] = {}, corr[hb];
      std::copy_n(m, hb, mx);
      for (std::int64_t jj = 0; jj < nk; ++jj)
#pragma omp simd
        for (std::int64_t i = 0; i < hb; ++i) mx[i] = std::max(mx[i], p[jj * hb + i]);
      for (std::int64_t jj = 0; jj < nk; ++jj)
#pragma omp simd
        for (std::int64_t i = 0; i < hb; ++i) {
          p[jj * hb + i] = fast_expf(p[jj * hb + i] - mx[i]);
          sum[i] += p[jj * hb + i];
        }
#pragma omp simd
      for (std::int64_t i = 0; i < hb; ++i) {
        corr[i] = fast_expf(m[i] - mx[i]);
        l[i] = l[i] * corr[i] + sum[i];
        m[i] = mx[i];
      }
      for (std::int64_t c0 = 0; c0 < d; c0 += 8) {  // acc[c][·] = corr·acc[c][·] + Σ_jj v[jj][c] · P[jj][·]
        const std::int64_t cn = std::min<std::int64_t>(8, d - c0);
        float a[8][hb];
        for (std::int64_t cc = 0; cc < 8; ++cc)
#pragma omp simd
          for (std::int64_t i = 0; i < hb; ++i) a[cc][i] = cc < cn ? acc[(c0 + cc) * hb + i] * corr[i] : 0.0f;
        for (std::int64_t jj = 0; jj < nk; ++jj) {
          const float* vr = vb + (j0 + jj) * d + c0;
          for (std::int64_t cc = 0; cc < 8; ++cc) {
            const float vc = cc < cn ? vr[cc] : 0.0f;
#pragma omp simd
            for (std::int64_t i = 0; i < hb; ++i) a[cc][i] += vc * p[jj * hb + i];
          }
        }
        for (std::int64_t cc = 0; cc < cn; ++cc)
#pragma omp simd
          for (std::int64_t i = 0; i < hb; ++i) acc[(c0 + cc) * hb + i] = a[cc][i];
      }
    }
    for (std::int64_t i = 0; i < nh; ++i) {
      m_out[i0 + i] = m[i];
      l_out[i0 + i] = l[i];
      for (std::int64_t c = 0; c < d; ++c) acc_out[(i0 + i) * d + c] = acc[c * hb + i];
    }
  }
}

#ifndef ROOFLINE_HAVE_OPENBLAS
/// The naive kernel's scores for query rows [i0, i0 + tile_q) of (batch·head) bh, full rows written
/// (masked entries −inf) — the build without a BLAS.
ROOFLINE_TILE_KERNEL void naive_scores_tile(const float* q, const float* k, float* scores, const attention_shape& s,
                                            std::int64_t bh, std::int64_t i0, float scale, float* kt, float* row) {
  const std::int64_t d = s.head_dim, i1 = std::min(s.q_len, i0 + tile_q);
  const float* kb = kv_ptr(k, s, bh / s.heads, bh % s.heads);
  const std::int64_t kend = visible(s, i1 - 1);
  for (std::int64_t j0 = 0; j0 < kend; j0 += tile_k) {
    const std::int64_t j1 = std::min(kend, j0 + tile_k);
    transpose_tile(kb, j0, j1 - j0, d, kt);
    for (std::int64_t i = i0; i < i1; ++i) {
      const std::int64_t vis = std::min(j1, visible(s, i));
      if (vis <= j0) continue;
      score_row(q + (bh * s.q_len + i) * d, kt, d, scale, row);
      std::copy_n(row, vis - j0, scores + (bh * s.q_len + i) * s.kv_len + j0);
    }
  }
  for (std::int64_t i = i0; i < i1; ++i) {  // the mask: full rows are written
    float* sr = scores + (bh * s.q_len + i) * s.kv_len;
    std::fill(sr + visible(s, i), sr + s.kv_len, -INFINITY);
  }
}

/// o[0, d) = Σ_{j < vis} p[j] · v[j, 0..d) (one row of the naive kernel's P·V).
ROOFLINE_TILE_KERNEL void pv_row(const float* v, const float* p, float* o, std::int64_t vis, std::int64_t d) {
  std::fill_n(o, d, 0.0f);
  for (std::int64_t j = 0; j < vis; ++j) axpy(o, v + j * d, p[j], d);
}
#endif

}  // namespace

void attention_decode_kernel(const float* q, const float* k, const float* v, float* out, const attention_shape& s,
                             std::int64_t splits) {
  const std::int64_t d = s.head_dim, kvh = std::max<std::int64_t>(1, s.kv_heads);
  const std::int64_t g = std::max<std::int64_t>(1, s.heads / kvh), groups = s.batch * kvh;
  if (splits <= 0) {
    // Enough (group, split) items for two per thread, each split at least one key tile long.
#ifdef ROOFLINE_HAVE_OPENMP
    const std::int64_t threads = omp_get_max_threads();
#else
    const std::int64_t threads = 1;
#endif
    splits = std::clamp<std::int64_t>((2 * threads + groups - 1) / groups, 1, std::max<std::int64_t>(1, s.kv_len / tile_k));
  }
  const std::int64_t chunk = (s.kv_len + splits - 1) / splits;
  splits = (s.kv_len + chunk - 1) / chunk;  // no empty split
  const float scale = 1.0f / std::sqrt(static_cast<float>(d));
  // Partial results per (group, split, query head of the group): running max, sum and P·V.
  std::vector<float> pm(static_cast<std::size_t>(groups * splits * g)), pl(pm.size()), pacc(pm.size() * d);
#pragma omp parallel
  {
    std::vector<float> qt(static_cast<std::size_t>(d * head_block)), pt(static_cast<std::size_t>(tile_k * head_block)),
        acc(qt.size());
#pragma omp for schedule(static)
    for (std::int64_t w = 0; w < groups * splits; ++w)
      decode_item(q, k, v, s, w, splits, chunk, g, scale, pm.data() + w * g, pl.data() + w * g, pacc.data() + w * g * d,
                  qt.data(), pt.data(), acc.data());
    // Combine the splits: o = Σ_s e^(m_s − M) acc_s / Σ_s e^(m_s − M) l_s, M = max_s m_s.
#pragma omp for schedule(static)
    for (std::int64_t x = 0; x < groups * g; ++x) {
      const std::int64_t grp = x / g, i = x % g;
      float mmax = -INFINITY;
      for (std::int64_t sp = 0; sp < splits; ++sp) mmax = std::max(mmax, pm[(grp * splits + sp) * g + i]);
      float* o = out + ((grp / kvh) * s.heads + (grp % kvh) * g + i) * d;
      std::fill_n(o, d, 0.0f);
      float lsum = 0;
      for (std::int64_t sp = 0; sp < splits; ++sp) {
        const std::int64_t w = grp * splits + sp;
        const float f = fast_expf(pm[w * g + i] - mmax);
        lsum += f * pl[w * g + i];
        axpy(o, pacc.data() + (w * g + i) * d, f, d);
      }
      const float inv = 1.0f / lsum;
      for (std::int64_t c = 0; c < d; ++c) o[c] *= inv;
    }
  }
}

#ifdef ROOFLINE_HAVE_OPENBLAS
void attention_naive_kernel(const float* q, const float* k, const float* v, float* scores, float* out,
                            const attention_shape& s) {
  // As eager attention runs it (PyTorch's bmm, masked_fill, softmax, bmm): S = scale · Q·Kᵀ of every
  // (batch, head) by cblas_sgemm, full rows, the mask written as −inf; the softmax in place; O = P·V
  // by cblas_sgemm over full rows (masked entries of P are exactly 0: fast_exp.hpp).
  const std::int64_t d = s.head_dim, rows = s.batch * s.heads * s.q_len, items = s.batch * s.heads;
  const float scale = 1.0f / std::sqrt(static_cast<float>(d));
  const int n_q = static_cast<int>(s.q_len), n_k = static_cast<int>(s.kv_len), n_d = static_cast<int>(d);
  auto scores_of = [&](std::int64_t bh) {
    float* sb = scores + bh * s.q_len * s.kv_len;
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, n_q, n_k, n_d, scale, q + bh * s.q_len * d, n_d,
                kv_ptr(k, s, bh / s.heads, bh % s.heads), n_d, 0.0f, sb, n_k);
    for (std::int64_t i = 0; i < s.q_len; ++i) std::fill(sb + i * s.kv_len + visible(s, i), sb + (i + 1) * s.kv_len, -INFINITY);
  };
  auto pv_of = [&](std::int64_t bh) {
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n_q, n_d, n_k, 1.0f, scores + bh * s.q_len * s.kv_len, n_k,
                kv_ptr(v, s, bh / s.heads, bh % s.heads), n_d, 0.0f, out + bh * s.q_len * d, n_d);
  };
  // OpenBLAS's OpenMP build runs each call single-threaded inside a parallel region: one (batch, head)
  // per thread; another build: one at a time, each call on OpenBLAS's own threads.
  const bool per_thread = openblas_is_openmp_build();
#pragma omp parallel for schedule(dynamic, 1) if (per_thread)
  for (std::int64_t bh = 0; bh < items; ++bh) scores_of(bh);
  softmax_kernel(scores, scores, rows, s.kv_len);
#pragma omp parallel for schedule(dynamic, 1) if (per_thread)
  for (std::int64_t bh = 0; bh < items; ++bh) pv_of(bh);
}
#else
void attention_naive_kernel(const float* q, const float* k, const float* v, float* scores, float* out,
                            const attention_shape& s) {
  const std::int64_t d = s.head_dim, rows = s.batch * s.heads * s.q_len;
  const float scale = 1.0f / std::sqrt(static_cast<float>(d));
  // 1. S = q kᵀ · scale, written to memory in full rows (same tiled dot products as the fused kernel)
  const std::int64_t qtiles = (s.q_len + tile_q - 1) / tile_q;
#pragma omp parallel
  {
    std::vector<float> kt(static_cast<std::size_t>(tile_k * d)), row(tile_k);
#pragma omp for schedule(dynamic, 1)
    for (std::int64_t w = 0; w < s.batch * s.heads * qtiles; ++w)
      naive_scores_tile(q, k, scores, s, w / qtiles, (w % qtiles) * tile_q, scale, kt.data(), row.data());
  }
  // 2. softmax in place over full rows (masked entries become 0): 3 reads + 1 write per score
  softmax_kernel(scores, scores, rows, s.kv_len);
  // 3. out = P v
#pragma omp parallel for schedule(dynamic, 16)
  for (std::int64_t r = 0; r < rows; ++r) {
    const std::int64_t bh = r / s.q_len;
    const float* vb = kv_ptr(v, s, bh / s.heads, bh % s.heads);
    pv_row(vb, scores + r * s.kv_len, out + r * d, visible(s, r % s.q_len), d);
  }
}
#endif

ROOFLINE_TILE_KERNEL void softmax_tile(float* scores, std::int64_t rows, std::int64_t cols, std::int64_t first_visible,
                                       float* inv) {
  for (std::int64_t i = 0; i < rows; ++i) {
    float* row = scores + i * cols;
    const std::int64_t vis = std::min(cols, first_visible + i);
    const float m = max_of(row, vis);
    float sum = 0;
#pragma omp simd reduction(+ : sum)
    for (std::int64_t j = 0; j < vis; ++j) {
      row[j] = fast_expf(row[j] - m);
      sum += row[j];
    }
    std::fill(row + vis, row + cols, 0.0f);  // the causal mask
    inv[i] = 1.0f / sum;
  }
}

#ifdef ROOFLINE_HAVE_OPENBLAS
namespace {

/// Query rows per BLAS tile: the tile's scores (rows × kv_len floats) stay within 8 MiB.
std::int64_t blas_tile_rows(std::int64_t kv_len) {
  return std::clamp<std::int64_t>((std::int64_t{1} << 21) / std::max<std::int64_t>(1, kv_len) / 16 * 16, 16, 256);
}

/// Query rows [i0, i1) of (batch, head) bh: S = scale · Q·Kᵀ over the keys the last row may see
/// (cblas_sgemm), the causal mask and the softmax per row in the tile buffer, O = P·V (cblas_sgemm).
void fused_blas_tile(const float* q, const float* k, const float* v, float* out, const attention_shape& s,
                     std::int64_t bh, std::int64_t i0, std::int64_t i1, float scale, float* sc) {
  const std::int64_t d = s.head_dim, nq = i1 - i0, kend = visible(s, i1 - 1);
  const float* kb = kv_ptr(k, s, bh / s.heads, bh % s.heads);
  const float* vb = kv_ptr(v, s, bh / s.heads, bh % s.heads);
  const float* qb = q + (bh * s.q_len + i0) * d;
  float* ob = out + (bh * s.q_len + i0) * d;
  const int n_q = static_cast<int>(nq), n_k = static_cast<int>(kend), n_d = static_cast<int>(d);
  cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, n_q, n_k, n_d, scale, qb, n_d, kb, n_d, 0.0f, sc, n_k);
  std::vector<float> inv(static_cast<std::size_t>(nq));
  softmax_tile(sc, nq, kend, visible(s, i0), inv.data());
  cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n_q, n_d, n_k, 1.0f, sc, n_k, vb, n_d, 0.0f, ob, n_d);
  for (std::int64_t i = 0; i < nq; ++i)
    for (std::int64_t c = 0; c < d; ++c) ob[i * d + c] *= inv[static_cast<std::size_t>(i)];
}

}  // namespace

void attention_fused_kernel(const float* q, const float* k, const float* v, float* out, const attention_shape& s) {
  const std::int64_t tq = blas_tile_rows(s.kv_len);
  const std::int64_t tiles = (s.q_len + tq - 1) / tq, work = s.batch * s.heads * tiles;
  const float scale = 1.0f / std::sqrt(static_cast<float>(s.head_dim));
  auto item = [&](std::int64_t w, float* sc) {
    const std::int64_t x = work - 1 - w;  // heaviest (last, causal) tiles first for balance
    const std::int64_t bh = x / tiles, t = x % tiles;
    fused_blas_tile(q, k, v, out, s, bh, t * tq, std::min(s.q_len, (t + 1) * tq), scale, sc);
  };
  const std::size_t sc_floats = static_cast<std::size_t>(tq * s.kv_len);
  if (openblas_is_openmp_build()) {
    // OpenBLAS's OpenMP build runs each call single-threaded inside a parallel region: one tile per thread.
#pragma omp parallel
    {
      std::vector<float> sc(sc_floats);
#pragma omp for schedule(dynamic, 1)
      for (std::int64_t w = 0; w < work; ++w) item(w, sc.data());
    }
  } else {
    // A sequential or pthreads OpenBLAS: tiles in turn, each GEMM on OpenBLAS's own threads.
    std::vector<float> sc(sc_floats);
    for (std::int64_t w = 0; w < work; ++w) item(w, sc.data());
  }
}

#else
void attention_fused_kernel(const float* q, const float* k, const float* v, float* out, const attention_shape& s) {
  attention_fused_tiles_kernel(q, k, v, out, s);
}
#endif

void attention_fused_tiles_kernel(const float* q, const float* k, const float* v, float* out, const attention_shape& s) {
  const std::int64_t d = s.head_dim;
  const std::int64_t tiles = (s.q_len + tile_q - 1) / tile_q;
  const std::int64_t work = s.batch * s.heads * tiles;
#pragma omp parallel
  {
    std::vector<float> sc(tile_q * tile_k), acc(static_cast<std::size_t>(tile_q * d)), mx(tile_q), l(tile_q),
        kt(static_cast<std::size_t>(tile_k * d));
#pragma omp for schedule(dynamic, 1)
    for (std::int64_t w = 0; w < work; ++w) {
      // heaviest (last, causal) tiles first for balance
      const std::int64_t x = work - 1 - w;
      const std::int64_t bh = x / tiles, t = x % tiles;
      const std::int64_t b = bh / s.heads, h = bh % s.heads;
      const std::int64_t i0 = t * tile_q, i1 = std::min(s.q_len, i0 + tile_q);
      const float* qb = q + bh * s.q_len * d;
      float* ob = out + bh * s.q_len * d;
      fused_tile(qb, kv_ptr(k, s, b, h), kv_ptr(v, s, b, h), ob, s, i0, i1, sc.data(), acc.data(), mx.data(), l.data(), kt.data());
    }
  }
}

}  // namespace roofline::cpu
