// GEMM probes: gemm/sgemm and gemm/dgemm, square n×n×n through OpenBLAS (cblas_sgemm / cblas_dgemm,
// row-major NN, n = 256 … 4096; quick: 256, 512; the sweep stops early once the rate has levelled and a call
// is long, probe_sizing.hpp::gemm_sweep_stop, said in the last size's flags; the RAPL counter around each
// size's timed runs), and gemm/sgemm-rows, C(M×2048) = A(M×2048)·W(2048×2048)
// through the op runner's gemm_kernel for M = 1 … 256 (M = 1 is its sgemv path), W rotated over copies
// past 2× the caches so each GEMM reads it from DRAM, as a decode step's linear layers do.
// FLOPs = 2·M·N·K (2n³ square); bytes: not a bandwidth probe (the rows probe's weight is 4·N·K B per GEMM).
// Check: the first run (also the first warm-up) is verified on 16 sampled entries of C against a dot
// product in double within k·eps·Σ|a||b| (Higham, Accuracy and Stability of Numerical Algorithms, §3.1);
// a miss throws probe_error and publishes nothing. Methodology: docs/methodology-cpu.md.
#include <fmt/format.h>

#include <algorithm>

#include "backends/cpu/cpu_buffers.hpp"
#include "backends/cpu/op_kernels.hpp"
#include "backends/cpu/probe_common.hpp"
#include "backends/cpu/probe_sizing.hpp"
#include "backends/cpu/probes.hpp"
#include "backends/cpu/rapl.hpp"
#include "roofline/error.hpp"

#ifdef ROOFLINE_HAVE_OPENBLAS
#include <cblas.h>
#endif

namespace roofline::cpu {

using namespace detail;

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
      cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, N, N, N, 1.0f, af.data(), N, bf.data(), N, 0.0f, cf.data(),
                  N);
    else
      cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, N, N, N, 1.0, ad.data(), N, bd.data(), N, 0.0, cd.data(),
                  N);
    return now_s() - t0;
  };
  // Verification run (also the first warm-up): 16 sampled entries against a dot product in double,
  // within the error bound k·eps·Σ|a||b| (Higham, Accuracy and Stability of Numerical Algorithms, §3.1).
  once();
  const std::string what = fmt::format("gemm/{} n={}", fp32 ? "sgemm" : "dgemm", n);
  if (fp32)
    check_sampled_entries(af.data(), bf.data(), cf.data(), n, n, n, what);
  else
    check_sampled_entries(ad.data(), bd.data(), cd.data(), n, n, n, what);
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
  c.inputs = "uniform [−1, 1)";
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
  const int copies =
      rotation_copies(4.0 * static_cast<double>(w_elems), sizing_cache_bytes(detected_caches(), threads), 64);
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
    g.method = fmt::format(
        "C({}x{}) = A({}x{})·W({}x{}) as the op runner's linear layers run it ({}), W rotated over {} "
        "copies ({:.0f} MiB, >= 2x LLC) so each GEMM reads it cold, {}, FLOPs = 2·M·N·K",
        m, nk, m, nk, nk, nk, m == 1 ? "cblas_sgemv" : "cblas_sgemm, row-major NN", copies,
        4.0 * static_cast<double>(w_elems) * copies / 1048576.0, openblas_threading(threads));
    out.push_back(std::move(g));
  }
  return out;
#endif
}

/// How much longer a square GEMM size whose repeats disagreed is timed on its re-measure.
constexpr double gemm_longer_time = 4;

std::vector<probe> gemm_probes(const probe_options& opt, int first_index) {
  std::vector<probe> ps;
  int index = first_index;
  std::vector<std::int64_t> sizes =
      opt.quick ? std::vector<std::int64_t>{256, 512} : std::vector<std::int64_t>{256, 512, 1024, 2048, 4096};
  for (const char* prec : {"fp32", "fp64"}) {
    const std::string name = std::string("gemm/") + (std::string(prec) == "fp32" ? "sgemm" : "dgemm");
    probe g{name, "gemm", [opt, prec, sizes, name, index = index++](measured_roofs& out) {
                    std::vector<compute_result> rs;
                    std::vector<gemm_size_point> points;
                    for (std::size_t i = 0; i < sizes.size(); ++i) {
                      report(opt, fmt::format("{}: n = {} ({}/{})", name, sizes[i], i + 1, sizes.size()), index,
                             probe_count, static_cast<double>(i) / sizes.size());
                      rs.push_back(measure_gemm(prec, sizes[i], opt.timing));
                      // A size whose repeats disagree is re-measured at once over 4× the minimum time,
                      // rather than the whole sweep again (docs/methodology-cpu.md, GEMM).
                      if (rs.back().spread > noisy_spread) {
                        const double first = rs.back().spread;
                        timing_options t = opt.timing;
                        t.min_time_s *= gemm_longer_time, t.max_time_s *= gemm_longer_time;
                        rs.back() = measure_gemm(prec, sizes[i], t);
                        rs.back().flags.push_back(fmt::format("re-measured over {:g}× the minimum time (first: repeats spread {:.1f} %)",
                                                              gemm_longer_time, 100 * first));
                      }
                      points.push_back({sizes[i], rs.back().median_flops_per_s, rs.back().flops_per_s});
                      if (const std::string stop = gemm_sweep_stop(points); !stop.empty() && i + 1 < sizes.size()) {
                        rs.back().flags.push_back(stop);
                        break;
                      }
                    }
                    out.compute.insert(out.compute.end(), rs.begin(), rs.end());
                  }};
    g.longer_note = fmt::format("{:g}× the minimum time", gemm_longer_time);
    g.remeasures_noisy_rows = true;  // each noisy size was re-measured already
    ps.push_back(std::move(g));
  }
  // GEMM rate against rows at a fixed 2048 x 2048 weight: the compute side of decode-sized linears.
  // M = 1 is the op runner's sgemv path (decode at batch 1), M >= 2 its sgemm path.
  const std::vector<std::int64_t> rows =
      opt.quick ? std::vector<std::int64_t>{1, 8, 32} : std::vector<std::int64_t>{1, 2, 4, 8, 16, 32, 64, 128, 256};
  ps.push_back({"gemm/sgemm-rows", "gemm", [opt, rows, index = index++](measured_roofs& out) {
                  report(opt,
                         fmt::format("gemm/sgemm-rows: M = {} … {} at a 2048 x 2048 weight", rows.front(), rows.back()),
                         index, probe_count, 0);
                  auto g = measure_gemm_rows(rows, 2048, sweep_timing(opt.timing));
                  out.gemm_rows.insert(out.gemm_rows.end(), g.begin(), g.end());
                }});
  return ps;
}

}  // namespace roofline::cpu
