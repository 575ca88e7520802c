// Vector FLOP/s on the CUDA cores: FP64, FP32 and FP16 (half2) FMA chains (fma_kernels.hpp), a full
// grid (SMs × blocks per SM at full occupancy), each launch calibrated to last ~10 ms (quick: ~2 ms).
// FLOPs = threads × chains × iterations × 2 (× 2 lanes for half2); every thread's output is checked
// against the closed form.
#include <fmt/format.h>

#include <cmath>

#include "backends/cuda/fma_kernels.hpp"
#include "backends/cuda/probes.hpp"
#include "roofline/measure.hpp"

namespace roofline::cuda {

namespace {

struct fma_case {
  fma_type type;
  const char* precision;
  int lanes;
};

constexpr fma_case fma_cases[] = {{fma_type::fp64, "fp64", 1}, {fma_type::fp32, "fp32", 1}, {fma_type::fp16x2, "fp16", 2}};

void run_fma(cuda_env& env, const fma_case& c, const probe_options& opt, measured_roofs& out) {
  env.activate();
  const std::string what = std::string("compute/") + c.precision;
  const int bps = fma_blocks_per_sm(c.type);
  if (bps <= 0) throw probe_error(fmt::format("{}: occupancy query failed or gave 0 blocks (code {})", what, -bps));
  const int grid = env.sms * bps;
  const std::size_t threads = static_cast<std::size_t>(grid) * fma_block;
  device_buffer outbuf(threads * fma_output_bytes(c.type));
  auto launch = [&](std::int64_t iters) {
    return time_on_stream(env.stream, [&] { launch_fma(c.type, grid, outbuf.get(), iters, env.stream); });
  };
  // Calibrate: a short launch, then scale the iteration count to the target duration.
  const std::int64_t probe_iters = 64 * 64;
  launch(probe_iters);
  const double t_probe = launch(probe_iters);
  const double target = opt.quick ? 2e-3 : 10e-3;
  std::int64_t iters = static_cast<std::int64_t>(std::ceil(probe_iters * target / std::max(t_probe, 1e-7)));
  iters = std::max<std::int64_t>(fma_iter_multiple, (iters + fma_iter_multiple - 1) / fma_iter_multiple * fma_iter_multiple);
  if (iters % 2) ++iters;  // even count: chains return to their start value (always true for multiples of 64)

  ROOFLINE_CUDA_CALL(cudaMemsetAsync(outbuf.get(), 0xFF, outbuf.bytes(), env.stream));
  const energy_mark e0 = env.mark();  // the energy counter around the timed runs
  const double t0 = now_s();
  const auto samples = time_repeated([&] { return launch(iters); }, opt.timing);
  const double t1 = now_s();
  const energy_mark e1 = env.mark();

  std::vector<unsigned char> host(outbuf.bytes());
  ROOFLINE_CUDA_CALL(cudaMemcpy(host.data(), outbuf.get(), outbuf.bytes(), cudaMemcpyDeviceToHost));
  for (std::size_t i = 0; i < threads; ++i) {
    for (int lane = 0; lane < c.lanes; ++lane) {
      const double v = fma_output_value(c.type, host.data(), i, lane);
      if (v != fma_expected_sum)
        throw probe_error(fmt::format("{}: thread {} lane {} wrote {} (expected {} after {} FMA steps per chain)", what, i,
                                      lane, v, fma_expected_sum, iters));
    }
  }

  const double flops = static_cast<double>(threads) * fma_chains * static_cast<double>(iters) * 2.0 * c.lanes;
  const rate_summary r = rates(flops, samples);
  compute_result res;
  res.precision = c.precision;
  res.engine = "vector";
  res.flops_per_s = r.best;
  res.median_flops_per_s = r.median;
  res.spread = r.spread;
  res.repeats = r.repeats;
  res.verified = true;
  res.method = fmt::format("FMA chains ({}): {} independent chains/thread, {} iterations, grid {} × {} ({} blocks/SM)",
                           c.lanes == 2 ? "half2 HFMA2" : (c.type == fma_type::fp64 ? "DFMA" : "FFMA"), fma_chains,
                           iters, grid, fma_block, bps);
  env.attach(res.telemetry, res.flags, t0, t1);
  res.energy = env.energy(e0, e1);
  out.compute.push_back(std::move(res));
  env.publish(out);
}

}  // namespace

std::vector<probe> compute_probes(cuda_env& env, const probe_options& opt) {
  std::vector<probe> out;
  for (const auto& c : fma_cases)
    out.push_back({std::string("compute/") + c.precision, "compute", [&env, c, opt](measured_roofs& m) { run_fma(env, c, opt, m); }});
  return out;
}

}  // namespace roofline::cuda
