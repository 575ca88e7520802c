// Compute probes (compute/fp32, compute/fp64): the vector FMA peak on all worker threads. Each thread
// runs `accumulators` independent chains of `lanes`-wide FMAs (fma_kernels.cpp, the widest ISA this
// CPU has: AVX-512, AVX2+FMA, NEON, else separate mul + add) for 2^22 iterations (quick: 2^19).
// FLOPs = threads × iterations × accumulators × lanes × 2 (an FMA counts 2); bytes: none (registers).
// Check: every chain adds an exactly representable step (2^-23 in fp32, 2^-52 in fp64) to 1, so the
// sum over all threads equals its closed form exactly (≤ 2^22 steps keep every step exact); a
// mismatch throws probe_error. The inputs are volatile so the compiler cannot fold the chains.
// Energy: the RAPL counter around the timed runs (rapl.cpp).
#include <fmt/format.h>

#include <algorithm>

#include "backends/cpu/cpu_buffers.hpp"
#include "backends/cpu/cpu_detect.hpp"
#include "backends/cpu/fma_kernels.hpp"
#include "backends/cpu/probe_common.hpp"
#include "backends/cpu/probes.hpp"
#include "backends/cpu/rapl.hpp"
#include "roofline/error.hpp"

namespace roofline::cpu {

using namespace detail;

namespace {

volatile float g_one_f = 1.0f, g_step_f = 0x1.0p-23f;
volatile double g_one_d = 1.0, g_step_d = 0x1.0p-52;

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
          sums[static_cast<std::size_t>(t) * 8] =
              fp32 ? fma_chain_fp32(k, iterations, of, sf) : fma_chain_fp64(k, iterations, od, sd);
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

std::vector<probe> compute_probes(const probe_options& opt, int first_index) {
  std::vector<probe> ps;
  int index = first_index;
  for (const char* prec : {"fp32", "fp64"})
    ps.push_back({std::string("compute/") + prec, "compute", [opt, prec, index = index++](measured_roofs& out) {
                    report(opt, std::string("compute/") + prec + ": FMA chains on all cores", index, probe_count, 0);
                    out.compute.push_back(measure_fma_peak(prec, opt.timing, opt.quick));
                  }});
  return ps;
}

}  // namespace roofline::cpu
