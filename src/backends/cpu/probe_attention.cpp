// Attention tile probe (gemm/attention-tiles): the compute side of fused prefill attention at its tile
// shapes, for head_dim 64 and 128 (quick: 64), 256 query rows against 2048 keys, fp32:
//   qk       S = Q·Kᵀ (256 × 2048, inner d; cblas_sgemm row-major NT), FLOPs 2·256·2048·d per tile
//   softmax  softmax_tile on S (max, exp − max, sum per row), softmax_flops_per_element per score
//   pv       O = P·V (256 × d, inner 2048; cblas_sgemm NN), FLOPs 2·256·2048·d per tile
// issued as attention_fused_kernel issues them (one tile per thread at once with OpenBLAS's OpenMP
// build, else one call at a time on OpenBLAS's threads); rates count all threads. Bytes: not a
// bandwidth probe (K, V shared; Q, S, O per tile, all in cache).
// Check: the first run of each is verified: 16 entries of every tile against a dot product in double
// within k·eps·Σ|a||b| (Higham §3.1); softmax rows lie in [0, 1], their largest entry is exactly 1 and
// sum × inv is 1 within 1e-4. A miss throws probe_error.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "backends/cpu/cpu_buffers.hpp"
#include "backends/cpu/op_kernels.hpp"
#include "backends/cpu/probe_common.hpp"
#include "backends/cpu/probes.hpp"
#include "roofline/error.hpp"
#include "roofline/model.hpp"
#ifdef ROOFLINE_HAVE_OPENMP
#include <omp.h>
#endif

#ifdef ROOFLINE_HAVE_OPENBLAS
#include <cblas.h>
#endif

namespace roofline::cpu {

using namespace detail;

namespace {

/// One measured.gemm_attention point (CPU, fp32, verified) from its samples' rates.
gemm_attention_result attention_tile_result(const std::string& gemm, std::int64_t d, std::int64_t tile_rows,
                                            std::int64_t keys, const rate_summary& r, std::string method) {
  gemm_attention_result g;
  g.precision = "fp32";
  g.gemm = gemm;
  g.head_dim = d, g.tile_rows = tile_rows, g.keys = keys;
  g.flops_per_s = r.best;
  g.median_flops_per_s = r.median;
  g.spread = r.spread;
  g.repeats = r.repeats;
  g.verified = true;
  g.method = std::move(method);
  return g;
}

}  // namespace

/// Seconds of one sample of attention tiles, issued as the fused kernel issues them: `per_sample`
/// calls of tile(t) on each of `teams` threads at once (per_thread: OpenBLAS's OpenMP build, each
/// call single-threaded inside the region), else `per_sample` calls of tile(0) in turn.
template <class F>
double tiles_sample(const F& tile, int teams, int per_sample, bool per_thread) {
  const double t0 = now_s();
  if (per_thread) {
#pragma omp parallel num_threads(teams)
    {
#ifdef ROOFLINE_HAVE_OPENMP
      const int t = omp_get_thread_num();
#else
      const int t = 0;
#endif
      for (int r = 0; r < per_sample; ++r) tile(t);
    }
  } else {
    for (int r = 0; r < per_sample; ++r) tile(0);
  }
  return now_s() - t0;
}

/// The softmax between the fused kernel's GEMMs (softmax_tile) on each team's tile of scores
/// [tile_rows × keys] (the S the QKᵀ probe just wrote), no mask: rows × keys scores per tile,
/// rate in FLOP/s at softmax_flops_per_element per score (the catalogue's count). Each row's
/// largest entry becomes exactly 1, the rest lie in [0, 1], and its sum × inv is 1: checked on every
/// team's tile after the first run.
static gemm_attention_result measure_tile_softmax(float* sc, int teams, std::int64_t tile_rows, std::int64_t keys,
                                                  std::int64_t d, int tiles_per_sample, bool per_thread,
                                                  const timing_options& timing) {
  const std::size_t s_el = static_cast<std::size_t>(tile_rows * keys);
  std::vector<float> inv(static_cast<std::size_t>(tile_rows) * teams);
  auto tile = [&](int t) { softmax_tile(sc + s_el * t, tile_rows, keys, keys, inv.data() + tile_rows * t); };
  auto once = [&] { return tiles_sample(tile, teams, tiles_per_sample, per_thread); };
  once();
  for (int t = 0; t < teams; ++t)
    for (std::int64_t i = 0; i < tile_rows; i += std::max<std::int64_t>(1, tile_rows / 8)) {
      const float* row = sc + s_el * t + i * keys;
      double sum = 0;
      float mx = 0;
      for (std::int64_t j = 0; j < keys; ++j) {
        if (!(row[j] >= 0.0f && row[j] <= 1.0f))
          throw probe_error(fmt::format("gemm/attention-tiles softmax: team {} row {} key {} is {}", t, i, j, row[j]));
        sum += row[j], mx = std::max(mx, row[j]);
      }
      const double one = sum * inv[static_cast<std::size_t>(tile_rows * t + i)];
      if (mx != 1.0f || std::abs(one - 1.0) > 1e-4)
        throw probe_error(
            fmt::format("gemm/attention-tiles softmax: team {} row {}: max {} and sum × inv {}", t, i, mx, one));
    }
  const double scores = static_cast<double>(tile_rows) * static_cast<double>(keys) * tiles_per_sample * teams;
  return attention_tile_result(
      "softmax", d, tile_rows, keys,
      rates(softmax_flops_per_element * scores, samples_after_verification(once, timing)),
      fmt::format("softmax_tile (max, exp − max, sum per row; the fused kernel's step between its GEMMs) on {} tiles "
                  "of {} × {} scores per sample, {}; {} FLOPs per score (the catalogue's count)",
                  tiles_per_sample * teams, tile_rows, keys,
                  per_thread ? fmt::format("one tile per thread at once on {} threads", teams) : "one tile at a time",
                  softmax_flops_per_element));
}

std::vector<gemm_attention_result> measure_gemm_attention(const std::vector<std::int64_t>& head_dims,
                                                          std::int64_t tile_rows, std::int64_t keys,
                                                          const timing_options& timing) {
#ifndef ROOFLINE_HAVE_OPENBLAS
  (void)head_dims, (void)tile_rows, (void)keys, (void)timing;
  throw probe_error("built without OpenBLAS");
#else
  const int threads = worker_threads();
  openblas_set_num_threads(threads);
  // The fused kernel's two ways of issuing its tiles (attention_kernels.cpp): with OpenBLAS's
  // OpenMP build, one tile per thread at once, each call single-threaded inside the region; with
  // another build, one tile at a time, each call on OpenBLAS's own threads.
  const bool per_thread = openblas_is_openmp_build();
  const int teams = per_thread ? threads : 1;
  constexpr int tiles_per_sample = 4;  // per team, so that a sample is not one region's fork and join
  std::vector<gemm_attention_result> out;
  for (const std::int64_t d : head_dims) {
    const std::size_t kv = static_cast<std::size_t>(keys * d), q_el = static_cast<std::size_t>(tile_rows * d),
                      s_el = static_cast<std::size_t>(tile_rows * keys);
    aligned_buffer<float> k(kv), v(kv), q(q_el * teams), sc(s_el * teams), o(q_el * teams);
    fill_uniform(k.data(), kv, 31);
    fill_uniform(v.data(), kv, 32);
    fill_uniform(q.data(), q.size(), 33);
    fill_uniform(sc.data(), sc.size(), 34);  // P for the P·V probe: any values in [-1, 1)
    const int n_q = static_cast<int>(tile_rows), n_k = static_cast<int>(keys), n_d = static_cast<int>(d);
    for (const std::string gemm : {"qk", "softmax", "pv"}) {
      if (gemm == "softmax") {
        out.push_back(measure_tile_softmax(sc.data(), teams, tile_rows, keys, d, tiles_per_sample, per_thread, timing));
        continue;
      }
      const bool qk = gemm == "qk";
      auto tile = [&](int t) {
        const float* qt = q.data() + q_el * t;
        float* st = sc.data() + s_el * t;
        if (qk)
          cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, n_q, n_k, n_d, 1.0f, qt, n_d, k.data(), n_d, 0.0f, st,
                      n_k);
        else
          cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n_q, n_d, n_k, 1.0f, st, n_k, v.data(), n_d, 0.0f,
                      o.data() + q_el * t, n_d);
      };
      auto once = [&] { return tiles_sample(tile, teams, tiles_per_sample, per_thread); };
      once();  // verification run, also the first warm-up
      for (int t = 0; t < teams; ++t) {
        const std::string what = fmt::format("gemm/attention-tiles {} head_dim={} team {}", gemm, d, t);
        if (qk) {
          check_sampled_entries(q.data() + q_el * t, k.data(), sc.data() + s_el * t, tile_rows, keys, d, what, true);
        } else {
          check_sampled_entries(sc.data() + s_el * t, v.data(), o.data() + q_el * t, tile_rows, d, keys, what);
        }
      }
      const double flops = 2.0 * static_cast<double>(tile_rows) * static_cast<double>(keys) * static_cast<double>(d) *
                           tiles_per_sample * teams;
      const rate_summary r = rates(flops, samples_after_verification(once, timing));
      std::string method = fmt::format(
          "{} by {} cblas_sgemm (row-major {}), {} tiles of {} query rows against {} keys at head_dim {} per sample, "
          "{}; "
          "K and V shared, Q, S and O per tile; FLOPs = 2·{}·{}·{} per tile",
          qk ? "S = Q·Kᵀ" : "O = P·V", openblas_version(), qk ? "NT" : "NN", tiles_per_sample * teams, tile_rows, keys,
          d,
          per_thread ? fmt::format(
                           "one tile per thread at once on {} threads, each call single-threaded (OpenMP build)", teams)
                     : fmt::format("one tile at a time, {}", openblas_threading(threads)),
          tile_rows, keys, d);
      out.push_back(attention_tile_result(gemm, d, tile_rows, keys, r, std::move(method)));
    }
  }
  return out;
#endif
}

std::vector<probe> attention_probes(const probe_options& opt, int first_index) {
  // Attention's tile GEMMs (256 query rows against 2048 keys) at the common head dims: the compute
  // side of fused prefill attention, whose K = 64 and N = 64 GEMMs run well below the square rate.
  const std::vector<std::int64_t> dims = opt.quick ? std::vector<std::int64_t>{64} : std::vector<std::int64_t>{64, 128};
  std::vector<probe> ps;
  ps.push_back({"gemm/attention-tiles", "gemm", [opt, dims, index = first_index](measured_roofs& out) {
                  report(opt, "gemm/attention-tiles: S = Q·Kᵀ and O = P·V of 256-row query tiles, 2048 keys", index,
                         probe_count, 0);
                  auto g = measure_gemm_attention(dims, 256, 2048, sweep_timing(opt.timing));
                  out.gemm_attention.insert(out.gemm_attention.end(), g.begin(), g.end());
                }});
  return ps;
}

}  // namespace roofline::cpu
