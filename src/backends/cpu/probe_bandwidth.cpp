// Bandwidth probes (bandwidth/read, bandwidth/write, bandwidth/copy, bandwidth/triad), one working-set
// sweep each on all worker threads: from inside L1 through L2 and the LLC to device memory (sizes:
// probe_sizing.cpp::sweep_sizes; each point labelled with its level by memory_level).
// Bytes = bytes the kernel reads + writes, fp64 elements: read 8 B, write 8 B, copy 16 B, triad 24 B
// per element (STREAM's convention); write-allocate traffic of plain stores is not counted. FLOPs: none
// counted (triad's 2 per element are not a compute roof).
// Each size picks the fastest allowed kernel variant (stream_kernels.cpp; non-temporal stores only
// beyond the caches) after a brief trial and names it in the result's flags; a point whose repeats disagree
// (spread above noisy_spread) is re-measured at once with 4× longer samples, said in its flags. Energy: the
// RAPL counter around each point's timed runs (rapl.cpp). Check: stream_arrays::run checks
// every timed run (the read sum against its closed form; write, copy and triad outputs at sampled
// indices) and throws probe_error on a miss. Methodology: docs/methodology-cpu.md.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <memory>

#include "backends/cpu/cpu_buffers.hpp"
#include "backends/cpu/probe_common.hpp"
#include "backends/cpu/probe_sizing.hpp"
#include "backends/cpu/probes.hpp"
#include "backends/cpu/rapl.hpp"
#include "backends/cpu/stream_kernels.hpp"

namespace roofline::cpu {

using namespace detail;

namespace {

constexpr const char* bytes_convention =
    "bytes the kernel reads + writes (read 8 B, write 8 B, copy 16 B, triad 24 B per element, fp64); "
    "write-allocate (read-for-ownership) traffic of plain stores is NOT counted (non-temporal stores have none)";

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
    report(
        opt,
        fmt::format("bandwidth/{}: working set {:.3g} MiB ({}/{})", to_string(p), ws / 1048576.0, i + 1, sizes.size()),
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
    struct timed {
      rate_summary r;
      int passes;
      energy_mark e0, e1;
    };
    auto measure = [&](double factor) {
      const double min_sample_s = (opt.quick ? 0.5e-3 : 2e-3) * factor;
      int k = static_cast<int>(std::ceil(passes * factor));
      const double once_k = once * k / passes;
      if (once_k > 0 && once_k < min_sample_s)
        k = static_cast<int>(std::min<double>(1 << 20, std::ceil(k * min_sample_s / once_k)));
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
    b.flags.push_back(fmt::format("kernel: {} (fastest of {} tried), {} threads, {} pass(es) per sample",
                                  to_string(best), kernels.size(), threads, passes));
    if (!remeasured.empty()) b.flags.push_back(remeasured);
    b.energy = rapl_meter::system().between(e0, e1);
    results.push_back(std::move(b));
  }
  out.bandwidth.insert(out.bandwidth.end(), results.begin(), results.end());
}

}  // namespace

std::vector<probe> bandwidth_probes(const probe_options& opt, int first_index) {
  std::vector<probe> ps;
  auto arrays = std::make_shared<std::unique_ptr<stream_arrays>>();
  const stream_pattern patterns[] = {stream_pattern::read, stream_pattern::write, stream_pattern::copy,
                                     stream_pattern::triad};
  for (std::size_t i = 0; i < 4; ++i) {
    const stream_pattern p = patterns[i];
    const bool last = i == 3;
    const int index = first_index + static_cast<int>(i);
    auto run = [opt, p, index, arrays, last](double longer) {
      return [opt, p, index, arrays, last, longer](measured_roofs& out) {
        struct release {  // free the sweep's arrays after the last pattern
          std::shared_ptr<std::unique_ptr<stream_arrays>> a;
          bool last;
          ~release() {
            if (last) a->reset();
          }
        } r{arrays, last};
        bandwidth_probe(p, index, opt, arrays, out, longer);
      };
    };
    probe b{"bandwidth/" + to_string(p), "bandwidth", run(1), run(longer_samples),
            fmt::format("{:g}× longer samples", longer_samples)};
    b.remeasures_noisy_rows = true;  // each noisy point was re-measured with longer samples already
    ps.push_back(std::move(b));
  }
  return ps;
}

}  // namespace roofline::cpu
