#include "backends/cpu/cpu_probes.hpp"

#include <algorithm>
#include <functional>
#include <cmath>
#include <memory>
#include <optional>
#include <fmt/format.h>

#include "backends/cpu/cpu_buffers.hpp"
#include "backends/cpu/cpu_detect.hpp"
#include "backends/cpu/fma_kernels.hpp"
#include "backends/cpu/op_kernels.hpp"
#include "backends/cpu/probe_sizing.hpp"
#include "backends/cpu/rapl.hpp"
#include "backends/cpu/stream_kernels.hpp"
#include "roofline/error.hpp"
#include "roofline/model.hpp"
#ifdef ROOFLINE_HAVE_OPENMP
#include <omp.h>
#endif

#ifdef ROOFLINE_HAVE_OPENBLAS
#include <cblas.h>
#endif

namespace roofline::cpu {

namespace {

volatile float g_one_f = 1.0f, g_step_f = 0x1.0p-23f;
volatile double g_one_d = 1.0, g_step_d = 0x1.0p-52;

constexpr const char* bytes_convention =
    "bytes the kernel reads + writes (read 8 B, write 8 B, copy 16 B, triad 24 B per element, fp64); "
    "write-allocate (read-for-ownership) traffic of plain stores is NOT counted (non-temporal stores have none)";

cache_sizes detected_caches() {
  const auto& d = detect_cpu().desc;
  return {d.l1d_bytes, d.l2_bytes, d.l3_bytes};
}

/// Timing for one point of a sweep: 40% of the minimum time and 25% of the maximum per point, so
/// that the whole sweep fits the budget (docs/methodology-cpu.md).
timing_options sweep_timing(timing_options t) {
  t.min_time_s *= 0.4;
  t.max_time_s *= 0.25;
  return t;
}

/// A sanity flag for a noisy measurement (busy machine, frequency changes).
/// Progress within probe `index` of `count`, on the driver's scale (probes span 5%..60% of a run).
void report(const probe_options& opt, const std::string& what, int index, int count, double within) {
  if (opt.progress) opt.progress(what, 0.05 + 0.55 * (index + within) / count);
}

constexpr int probe_count = 10;

/// How much longer the bandwidth probe's samples are on its second attempt after its repeats
/// disagreed (docs/methodology.md §"Interference"): 4×, so that the start skew of a parallel region
/// and the timer's granularity weigh a quarter as much.
constexpr double longer_samples = 4;

/// `longer`: samples `longer` times as long (bytes per sample and the minimum sample time), for the
/// driver's second attempt when the first one's repeats disagreed.
void bandwidth_probe(stream_pattern p, int index, const probe_options& opt,
                     std::shared_ptr<std::unique_ptr<stream_arrays>> arrays, measured_roofs& out, double longer = 1) {
  const int threads = worker_threads();
  const cache_sizes caches = detected_caches();
  const auto sizes = sweep_sizes(caches, threads, arrays_of(p), opt.quick);
  // One set of arrays for all patterns: each as large as the device-memory point's arrays.
  if (!*arrays) *arrays = std::make_unique<stream_arrays>(sizes.back() / (8 * arrays_of(p)) + 384 * threads, threads);
  stream_arrays& s = **arrays;
  const double traffic_target = (opt.quick ? 32.0 * 1048576 : 128.0 * 1048576) * longer;  // bytes per sample
  const timing_options t = sweep_timing(opt.timing);
  std::vector<bandwidth_result> results;
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    const std::int64_t n = std::min(sizes[i] / (8 * arrays_of(p)), s.max_elements());
    const std::int64_t ws = n * 8 * arrays_of(p);
    int passes = static_cast<int>(std::max(1.0, std::ceil(traffic_target / static_cast<double>(ws))));
    report(opt, fmt::format("bandwidth/{}: working set {:.3g} MiB ({}/{})", to_string(p), ws / 1048576.0, i + 1, sizes.size()),
           index, probe_count, static_cast<double>(i) / sizes.size());
    const level_label level = memory_level(ws, threads, caches);
    // Kernel variants: a brief trial of each allowed one (one warm-up, then the faster of two runs);
    // non-temporal stores only beyond the caches.
    const auto kernels = kernels_for(p, level.level == "dram" || level.level == "llc+dram");
    stream_kernel best = kernels.front();
    double best_t = 0;  // seconds of one sample of `best` in the trial (0: no trial)
    if (kernels.size() > 1) {
      for (const stream_kernel k : kernels) {
        s.run(p, n, passes, k);
        const double tk = std::min(s.run(p, n, passes, k), s.run(p, n, passes, k));
        if (best_t == 0 || tk < best_t) best_t = tk, best = k;
      }
    }
    // Each sample lasts at least min_sample_s: a sample is one parallel region, so the threads' start
    // skew (tens of µs in a VM with many vCPUs) is part of it; at cache sizes the byte target alone
    // gave samples of ~60 µs on 16 threads, whose repeats disagreed by more than 10 % (23 of 52
    // points kept out of the roofs on a 16-vCPU Xeon guest).
    const double once = best_t > 0 ? best_t : s.run(p, n, passes, best);
    // One timed measurement of the point with samples `factor` times as long.
    struct timed { rate_summary r; int passes; energy_mark e0, e1; };
    auto measure = [&](double factor) {
      const double min_sample_s = (opt.quick ? 0.5e-3 : 2e-3) * factor;
      int k = static_cast<int>(std::ceil(passes * factor));
      const double once_k = once * k / passes;
      if (once_k > 0 && once_k < min_sample_s) k = static_cast<int>(std::min<double>(1 << 20, std::ceil(k * min_sample_s / once_k)));
      timed m;
      m.passes = k;
      m.e0 = rapl_meter::system().mark();  // the energy counter around the timed runs
      const auto samples = time_repeated([&] { return s.run(p, n, k, best); }, t);
      m.e1 = rapl_meter::system().mark();
      m.r = rates(static_cast<double>(ws) * k, samples);
      return m;
    };
    timed m = measure(longer);
    std::string remeasured;
    // A point whose repeats disagree is re-measured at once with longer samples (the start skew of a
    // parallel region and the timer's granularity then weigh less), rather than the whole sweep again.
    if (longer == 1 && m.r.spread > noisy_spread) {
      remeasured = fmt::format("re-measured with {:g}× longer samples (first: repeats spread {:.1f} %)", longer_samples,
                               100 * m.r.spread);
      m = measure(longer_samples);
    }
    passes = m.passes;
    const rate_summary& r = m.r;
    const energy_mark &e0 = m.e0, &e1 = m.e1;
    bandwidth_result b;
    b.pattern = to_string(p);
    b.level = level.level;
    b.working_set_bytes = ws;
    b.bytes_per_s = r.best;
    b.median_bytes_per_s = r.median;
    b.spread = r.spread;
    b.repeats = r.repeats;
    b.bytes_convention = bytes_convention;
    b.verified = true;
    b.flags.push_back(level.why);
    b.flags.push_back(fmt::format("kernel: {} (fastest of {} tried), {} threads, {} pass(es) per sample", to_string(best),
                                  kernels.size(), threads, passes));
    if (!remeasured.empty()) b.flags.push_back(remeasured);
    b.energy = rapl_meter::system().between(e0, e1);
    results.push_back(std::move(b));
  }
  out.bandwidth.insert(out.bandwidth.end(), results.begin(), results.end());
}

/// The timed samples of a probe whose verification run was its first warm-up: time_repeated with
/// one warm-up fewer.
std::vector<double> samples_after_verification(const std::function<double()>& once, timing_options timing) {
  timing.warmups = std::max(0, timing.warmups - 1);
  return time_repeated(once, timing);
}

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

compute_result measure_fma_peak(const std::string& precision, const timing_options& timing, bool quick) {
  const bool fp32 = precision == "fp32";
  if (!fp32 && precision != "fp64") throw probe_error("compute: unknown precision " + precision);
  const fma_kernel k = fma_kernel_for(detect_cpu().desc.isa);
  const int threads = worker_threads();
  const std::int64_t iterations = quick ? (1 << 19) : (1 << 22);  // ≤ 2^22 keeps every step exact
  const int lanes = fp32 ? k.lanes_fp32 : k.lanes_fp64;
  const double expect = static_cast<double>(threads) * k.accumulators * lanes * static_cast<double>(iterations);
  std::vector<double> sums(static_cast<std::size_t>(threads) * 8);
  const energy_mark e0 = rapl_meter::system().mark();  // the energy counter around the timed runs
  const auto samples = time_repeated(
      [&] {
        const float of = g_one_f, sf = g_step_f;
        const double od = g_one_d, sd = g_step_d;
        std::fill(sums.begin(), sums.end(), 0.0);
        const double t0 = now_s();
#pragma omp parallel for num_threads(threads) schedule(static, 1)
        for (int t = 0; t < threads; ++t)
          sums[static_cast<std::size_t>(t) * 8] = fp32 ? fma_chain_fp32(k, iterations, of, sf) : fma_chain_fp64(k, iterations, od, sd);
        const double t1 = now_s();
        double total = 0;
        for (int t = 0; t < threads; ++t) total += sums[static_cast<std::size_t>(t) * 8];
        if (total != expect)
          throw probe_error(fmt::format("compute/{}: chain sum {} != closed form {}", precision, total, expect));
        return t1 - t0;
      },
      timing);
  const energy_mark e1 = rapl_meter::system().mark();
  const double flops = static_cast<double>(threads) * static_cast<double>(iterations) * k.accumulators * lanes * 2.0;
  const rate_summary r = rates(flops, samples);
  compute_result c;
  c.precision = precision;
  c.engine = "vector";
  c.energy = rapl_meter::system().between(e0, e1);
  c.flops_per_s = r.best;
  c.median_flops_per_s = r.median;
  c.spread = r.spread;
  c.repeats = r.repeats;
  c.verified = true;
  c.method = fmt::format("{} chains, {} independent {}-lane accumulators per thread, {} threads{}", k.isa,
                         k.accumulators, lanes, threads, k.fused ? "" : " (separate mul + add)");
  return c;
}

/// Checks 16 sampled entries of the row-major C(m×n) = A(m×k)·B(k×n) against a dot product in
/// double, within the bound k·eps·Σ|a||b| (Higham, Accuracy and Stability of Numerical Algorithms,
/// §3.1); throws probe_error "<what>: C[i,j] = got but reference ref" on the first that misses.
/// b_transposed: `b` holds Bᵀ (n×k row-major), as for S = Q·Kᵀ with K stored keys × head_dim.
template <class T>
void check_sampled_entries(const T* a, const T* b, const T* c, std::int64_t m, std::int64_t n, std::int64_t k,
                           const std::string& what, bool b_transposed = false) {
  const double eps = sizeof(T) == 4 ? 0x1.0p-24 : 0x1.0p-53;
  for (int q = 0; q < 16; ++q) {
    const std::int64_t i = (q * 7919) % m, j = (q * 104729 + 3) % n;
    double ref = 0, mag = 0;
    for (std::int64_t l = 0; l < k; ++l) {
      const double x = a[i * k + l], y = b_transposed ? b[j * k + l] : b[l * n + j];
      ref += x * y;
      mag += std::abs(x * y);
    }
    const double got = c[i * n + j];
    if (!(std::abs(got - ref) <= static_cast<double>(k) * eps * mag + 1e-30))
      throw probe_error(fmt::format("{}: C[{},{}] = {} but reference {}", what, i, j, got, ref));
  }
}

compute_result measure_gemm(const std::string& precision, std::int64_t n, const timing_options& timing) {
#ifndef ROOFLINE_HAVE_OPENBLAS
  (void)precision;
  (void)n;
  (void)timing;
  throw probe_error("built without OpenBLAS");
#else
  const bool fp32 = precision == "fp32";
  const int threads = worker_threads();
  openblas_set_num_threads(threads);
  const std::size_t nn = static_cast<std::size_t>(n * n);
  const int N = static_cast<int>(n);
  aligned_buffer<float> af, bf, cf;
  aligned_buffer<double> ad, bd, cd;
  if (fp32) {
    af = aligned_buffer<float>(nn), bf = aligned_buffer<float>(nn), cf = aligned_buffer<float>(nn);
    fill_uniform(af.data(), nn, 11), fill_uniform(bf.data(), nn, 12), fill_uniform(cf.data(), nn, 13);
  } else {
    ad = aligned_buffer<double>(nn), bd = aligned_buffer<double>(nn), cd = aligned_buffer<double>(nn);
    fill_uniform(ad.data(), nn, 11), fill_uniform(bd.data(), nn, 12), fill_uniform(cd.data(), nn, 13);
  }
  auto once = [&] {
    const double t0 = now_s();
    if (fp32)
      cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, N, N, N, 1.0f, af.data(), N, bf.data(), N, 0.0f, cf.data(), N);
    else
      cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, N, N, N, 1.0, ad.data(), N, bd.data(), N, 0.0, cd.data(), N);
    return now_s() - t0;
  };
  // Verification run (also the first warm-up): 16 sampled entries against a dot product in double,
  // within the error bound k·eps·Σ|a||b| (Higham, Accuracy and Stability of Numerical Algorithms, §3.1).
  once();
  const std::string what = fmt::format("gemm/{} n={}", fp32 ? "sgemm" : "dgemm", n);
  if (fp32) check_sampled_entries(af.data(), bf.data(), cf.data(), n, n, n, what);
  else check_sampled_entries(ad.data(), bd.data(), cd.data(), n, n, n, what);
  timing_options t = timing;
  t.warmups = std::max(0, t.warmups - 1);  // the verification run was one
  if (n >= 2048) t.min_repeats = std::min(t.min_repeats, 3);
  const energy_mark e0 = rapl_meter::system().mark();  // the energy counter around the timed runs
  const auto samples = time_repeated(once, t);
  const energy_mark e1 = rapl_meter::system().mark();
  const rate_summary r = rates(2.0 * static_cast<double>(n) * n * n, samples);
  compute_result c;
  c.precision = precision;
  c.engine = "gemm";
  c.size = n;
  c.flops_per_s = r.best;
  c.median_flops_per_s = r.median;
  c.spread = r.spread;
  c.repeats = r.repeats;
  c.verified = true;
  c.energy = rapl_meter::system().between(e0, e1);
  c.method = fmt::format("{} ({}), row-major NN, random inputs in [-1,1), {}, FLOPs = 2n^3",
                         fp32 ? "cblas_sgemm" : "cblas_dgemm", openblas_version(), openblas_threading(threads));
  return c;
#endif
}

std::vector<gemm_rows_result> measure_gemm_rows(const std::vector<std::int64_t>& rows, std::int64_t nk,
                                                const timing_options& timing) {
#ifndef ROOFLINE_HAVE_OPENBLAS
  (void)rows;
  (void)nk;
  (void)timing;
  throw probe_error("built without OpenBLAS");
#else
  const int threads = worker_threads();
  openblas_set_num_threads(threads);
  const std::int64_t max_m = *std::max_element(rows.begin(), rows.end());
  const std::size_t w_elems = static_cast<std::size_t>(nk * nk);
  // The weight is rotated over copies totalling >= 2x the last-level cache (as the op runner
  // rotates its inputs), so each GEMM reads its weight from DRAM, as a decode step does.
  const int copies = rotation_copies(4.0 * static_cast<double>(w_elems), sizing_cache_bytes(detected_caches(), threads), 64);
  aligned_buffer<float> w(w_elems * static_cast<std::size_t>(copies)), a(static_cast<std::size_t>(max_m * nk)),
      c(static_cast<std::size_t>(max_m * nk));
  advise_huge_pages(w.data(), w.size() * sizeof(float));
  fill_uniform(w.data(), w_elems, 21);
  for (int q = 1; q < copies; ++q) std::copy_n(w.data(), w_elems, w.data() + q * w_elems);
  fill_uniform(a.data(), a.size(), 22);
  std::vector<gemm_rows_result> out;
  for (const std::int64_t m : rows) {
    int next = 0;
    auto once = [&] {
      const float* wq = w.data() + static_cast<std::size_t>(next++ % copies) * w_elems;
      const double t0 = now_s();
      gemm_kernel(a.data(), wq, c.data(), m, nk, nk);
      return now_s() - t0;
    };
    once();  // verification run, also the first warm-up: C = A·W on sampled entries, as measure_gemm checks
    const float* w0 = w.data() + static_cast<std::size_t>((next - 1) % copies) * w_elems;
    check_sampled_entries(a.data(), w0, c.data(), m, nk, nk, fmt::format("gemm/sgemm-rows m={}", m));
    const auto samples = samples_after_verification(once, timing);
    const double flops = 2.0 * static_cast<double>(m) * static_cast<double>(nk) * static_cast<double>(nk);
    const rate_summary r = rates(flops, samples);
    gemm_rows_result g;
    g.precision = "fp32";
    g.m = m, g.n = nk, g.k = nk;
    g.flops_per_s = r.best;
    g.median_flops_per_s = r.median;
    g.spread = r.spread;
    g.repeats = r.repeats;
    g.verified = true;
    g.method = fmt::format("C({}x{}) = A({}x{})·W({}x{}) as the op runner's linear layers run it ({}), W rotated over {} "
                           "copies ({:.0f} MiB, >= 2x LLC) so each GEMM reads it cold, {}, FLOPs = 2·M·N·K",
                           m, nk, m, nk, nk, nk, m == 1 ? "cblas_sgemv" : "cblas_sgemm, row-major NN", copies,
                           4.0 * static_cast<double>(w_elems) * copies / 1048576.0, openblas_threading(threads));
    out.push_back(std::move(g));
  }
  return out;
#endif
}

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
static gemm_attention_result measure_tile_softmax(float* sc, int teams, std::int64_t tile_rows, std::int64_t keys, std::int64_t d,
                                           int tiles_per_sample, bool per_thread, const timing_options& timing) {
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
        throw probe_error(fmt::format("gemm/attention-tiles softmax: team {} row {}: max {} and sum × inv {}", t, i, mx, one));
    }
  const double scores = static_cast<double>(tile_rows) * static_cast<double>(keys) * tiles_per_sample * teams;
  return attention_tile_result(
      "softmax", d, tile_rows, keys, rates(softmax_flops_per_element * scores, samples_after_verification(once, timing)),
      fmt::format("softmax_tile (max, exp − max, sum per row; the fused kernel's step between its GEMMs) on {} tiles "
                  "of {} × {} scores per sample, {}; {} FLOPs per score (the catalogue's count)",
                  tiles_per_sample * teams, tile_rows, keys,
                  per_thread ? fmt::format("one tile per thread at once on {} threads", teams) : "one tile at a time",
                  softmax_flops_per_element));
}

std::vector<gemm_attention_result> measure_gemm_attention(const std::vector<std::int64_t>& head_dims, std::int64_t tile_rows,
                                                          std::int64_t keys, const timing_options& timing) {
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
        if (qk) cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, n_q, n_k, n_d, 1.0f, qt, n_d, k.data(), n_d, 0.0f, st, n_k);
        else cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n_q, n_d, n_k, 1.0f, st, n_k, v.data(), n_d, 0.0f, o.data() + q_el * t, n_d);
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
          "{} by {} cblas_sgemm (row-major {}), {} tiles of {} query rows against {} keys at head_dim {} per sample, {}; "
          "K and V shared, Q, S and O per tile; FLOPs = 2·{}·{}·{} per tile",
          qk ? "S = Q·Kᵀ" : "O = P·V", openblas_version(), qk ? "NT" : "NN", tiles_per_sample * teams, tile_rows, keys, d,
          per_thread ? fmt::format("one tile per thread at once on {} threads, each call single-threaded (OpenMP build)", teams)
                     : fmt::format("one tile at a time, {}", openblas_threading(threads)),
          tile_rows, keys, d);
      out.push_back(attention_tile_result(gemm, d, tile_rows, keys, r, std::move(method)));
    }
  }
  return out;
#endif
}

std::vector<probe> cpu_probes(const probe_options& opt) {
  std::vector<probe> ps;
  auto arrays = std::make_shared<std::unique_ptr<stream_arrays>>();
  const stream_pattern patterns[] = {stream_pattern::read, stream_pattern::write, stream_pattern::copy, stream_pattern::triad};
  for (std::size_t i = 0; i < 4; ++i) {
    const stream_pattern p = patterns[i];
    const bool last = i == 3;
    const int index = static_cast<int>(i);
    auto run = [opt, p, index, arrays, last](double longer) {
      return [opt, p, index, arrays, last, longer](measured_roofs& out) {
        struct release {  // free the sweep's arrays after the last pattern
          std::shared_ptr<std::unique_ptr<stream_arrays>> a;
          bool last;
          ~release() { if (last) a->reset(); }
        } r{arrays, last};
        bandwidth_probe(p, index, opt, arrays, out, longer);
      };
    };
    probe b{"bandwidth/" + to_string(p), "bandwidth", run(1), run(longer_samples),
            fmt::format("{:g}× longer samples", longer_samples)};
    b.remeasures_noisy_rows = true;  // each noisy point was re-measured with longer samples already
    ps.push_back(std::move(b));
  }
  int index = 4;
  for (const char* prec : {"fp32", "fp64"})
    ps.push_back({std::string("compute/") + prec, "compute", [opt, prec, index = index++](measured_roofs& out) {
                    report(opt, std::string("compute/") + prec + ": FMA chains on all cores", index, probe_count, 0);
                    out.compute.push_back(measure_fma_peak(prec, opt.timing, opt.quick));
                  }});
  std::vector<std::int64_t> sizes = opt.quick ? std::vector<std::int64_t>{256, 512}
                                              : std::vector<std::int64_t>{256, 512, 1024, 2048, 4096};
  for (const char* prec : {"fp32", "fp64"}) {
    const std::string name = std::string("gemm/") + (std::string(prec) == "fp32" ? "sgemm" : "dgemm");
    ps.push_back({name, "gemm",
                  [opt, prec, sizes, name, index = index++](measured_roofs& out) {
                    std::vector<compute_result> rs;
                    std::vector<gemm_size_point> points;
                    for (std::size_t i = 0; i < sizes.size(); ++i) {
                      report(opt, fmt::format("{}: n = {} ({}/{})", name, sizes[i], i + 1, sizes.size()), index, probe_count,
                             static_cast<double>(i) / sizes.size());
                      rs.push_back(measure_gemm(prec, sizes[i], opt.timing));
                      points.push_back({sizes[i], rs.back().median_flops_per_s});
                      if (const std::string stop = gemm_sweep_stop(points); !stop.empty() && i + 1 < sizes.size()) {
                        rs.back().flags.push_back(stop);
                        break;
                      }
                    }
                    out.compute.insert(out.compute.end(), rs.begin(), rs.end());
                  }});
  }
  // GEMM rate against rows at a fixed 2048 x 2048 weight: the compute side of decode-sized linears.
  // M = 1 is the op runner's sgemv path (decode at batch 1), M >= 2 its sgemm path.
  const std::vector<std::int64_t> rows = opt.quick ? std::vector<std::int64_t>{1, 8, 32}
                                                   : std::vector<std::int64_t>{1, 2, 4, 8, 16, 32, 64, 128, 256};
  ps.push_back({"gemm/sgemm-rows", "gemm", [opt, rows, index = index++](measured_roofs& out) {
                  report(opt, fmt::format("gemm/sgemm-rows: M = {} … {} at a 2048 x 2048 weight", rows.front(), rows.back()),
                         index, probe_count, 0);
                  auto g = measure_gemm_rows(rows, 2048, sweep_timing(opt.timing));
                  out.gemm_rows.insert(out.gemm_rows.end(), g.begin(), g.end());
                }});
  // Attention's tile GEMMs (256 query rows against 2048 keys) at the common head dims: the compute
  // side of fused prefill attention, whose K = 64 and N = 64 GEMMs run well below the square rate.
  const std::vector<std::int64_t> dims = opt.quick ? std::vector<std::int64_t>{64} : std::vector<std::int64_t>{64, 128};
  ps.push_back({"gemm/attention-tiles", "gemm", [opt, dims, index = index++](measured_roofs& out) {
                  report(opt, "gemm/attention-tiles: S = Q·Kᵀ and O = P·V of 256-row query tiles, 2048 keys", index,
                         probe_count, 0);
                  auto g = measure_gemm_attention(dims, 256, 2048, sweep_timing(opt.timing));
                  out.gemm_attention.insert(out.gemm_attention.end(), g.begin(), g.end());
                }});
  return ps;
}

}  // namespace roofline::cpu
