#include "backends/cuda/cuda_env.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <thread>

#include "backends/cuda/cublaslt_check.hpp"
#include "roofline/json.hpp"
#include "roofline/measure.hpp"

namespace roofline::cuda {

void open_cuda_env(cuda_env& env, int index) {
  env.device = index;
  env.activate();
  ROOFLINE_CUDA_CALL(cudaFree(nullptr));
  ROOFLINE_CUDA_CALL(cudaGetDeviceProperties(&env.prop, index));
  env.sms = env.prop.multiProcessorCount;
  env.l2_bytes = env.prop.l2CacheSize;
  ROOFLINE_CUDA_CALL(cudaStreamCreateWithFlags(&env.stream, cudaStreamNonBlocking));
  ROOFLINE_CUBLAS_CALL(cublasLtCreate(&env.lt));
  env.workspace = device_buffer(cublaslt_workspace_bytes);
}

void close_cuda_env(cuda_env& env) noexcept {
  env.sampler.reset();
  env.workspace = device_buffer();
  if (env.lt) cublasLtDestroy(env.lt);
  if (env.stream) cudaStreamDestroy(env.stream);
  env.lt = nullptr;
  env.stream = nullptr;
}

std::size_t cuda_env::free_bytes() const {
  std::size_t free = 0, total = 0;
  ROOFLINE_CUDA_CALL(cudaMemGetInfo(&free, &total));
  return free;
}

void cuda_env::attach(std::optional<telemetry_summary>& dst, std::vector<std::string>& flags, double t0, double t1) const {
  if (!sampler || !sampler->available()) {
    flags.push_back("telemetry unavailable (" + (sampler ? sampler->why() : std::string("no sampler")) + ")");
    return;
  }
  dst = sampler->summary(t0, t1);
  if (!dst) flags.push_back("telemetry unavailable (no NVML sample in the probe's window)");
}

energy_mark cuda_env::mark() const { return sampler ? sampler->mark() : energy_mark{now_s(), {}}; }

energy_window cuda_env::energy(const energy_mark& a, const energy_mark& b) const {
  if (sampler) return sampler->energy_between(a, b);
  energy_window w;
  w.window_s = b.t_s - a.t_s;
  w.note = "not available (no telemetry sampler)";
  return w;
}

void cuda_env::publish(measured_roofs& out) const {
  json j = sampler ? sampler->device_json() : json{{"nvml", "unavailable (no sampler)"}};
  for (auto it = j.begin(); it != j.end(); ++it) out.telemetry[it.key()] = it.value();
  out.telemetry["burst_definition"] =
      "burst: work/s over the first 0.1 s of a continuous run started after an idle pause; sustained: over the "
      "second half of the run";
  out.telemetry["burst"] = burst;
}

std::optional<repeat_clocks> cuda_env::repeat_clock(double work, const std::vector<double>& seconds,
                                                    const std::vector<host_window>& windows) const {
  if (!sampler || !sampler->available() || windows.empty() || windows.size() != seconds.size()) return std::nullopt;
  const double period = sampler->period_s(), first = windows.front().t0_s, last = windows.back().t1_s;
  // the last repeat needs a sample after it: the sampler takes one within a period
  while (sampler->samples(last, last + 1e9).empty() && now_s() < last + 2.5 * period)
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  std::vector<clock_point> pts;
  for (const auto& s : sampler->samples(first - 3 * period, last + 3 * period))
    if (s.sm_clock_mhz) pts.push_back({s.t_s, *s.sm_clock_mhz});
  return pair_repeat_clocks(work, seconds, windows, pts, period);
}

burst_outcome run_burst(cuda_env& env, const std::string& probe, const std::function<void()>& enqueue_once,
                        double work, double est_call_s, double duration_s, double idle_s, double burst_s) {
  if (!(est_call_s > 0)) throw probe_error(probe + ": burst run needs a positive estimate of one call's time");
  const int per_interval = std::max(1, static_cast<int>(std::ceil(1e-3 / est_call_s)));
  const int intervals = std::clamp(static_cast<int>(std::ceil(duration_s / (per_interval * est_call_s))), 4, 8000);
  std::vector<cuda_event> events(intervals + 1);
  ROOFLINE_CUDA_CALL(cudaStreamSynchronize(env.stream));
  std::this_thread::sleep_for(std::chrono::duration<double>(idle_s));
  const energy_mark e0 = env.mark();  // the energy counter around the whole run
  const double t_start = now_s();
  ROOFLINE_CUDA_CALL(cudaEventRecord(events[0].get(), env.stream));
  for (int i = 0; i < intervals; ++i) {
    for (int c = 0; c < per_interval; ++c) enqueue_once();
    ROOFLINE_CUDA_LAUNCH_CHECK();
    ROOFLINE_CUDA_CALL(cudaEventRecord(events[i + 1].get(), env.stream));
  }
  ROOFLINE_CUDA_CALL(cudaEventSynchronize(events[intervals].get()));
  const energy_mark e1 = env.mark();
  std::vector<double> end_s(intervals), dur_s(intervals);
  for (int i = 0; i < intervals; ++i) {
    float ms = 0, ms_end = 0;
    ROOFLINE_CUDA_CALL(cudaEventElapsedTime(&ms, events[i].get(), events[i + 1].get()));
    ROOFLINE_CUDA_CALL(cudaEventElapsedTime(&ms_end, events[0].get(), events[i + 1].get()));
    dur_s[i] = ms * 1e-3;
    end_s[i] = ms_end * 1e-3;
  }
  const double total = end_s.back();
  double bw = 0, bt = 0, sw = 0, st = 0;
  for (int i = 0; i < intervals; ++i) {
    const double start = end_s[i] - dur_s[i];
    if (end_s[i] <= burst_s || i == 0) {
      bw += work * per_interval;
      bt += dur_s[i];
    }
    if (start >= 0.5 * total) {
      sw += work * per_interval;
      st += dur_s[i];
    }
  }
  if (!(bt > 0) || !(st > 0)) throw probe_error(fmt::format("{}: burst run too short to split ({:.3f} s)", probe, total));
  burst_outcome o;
  o.burst_rate = bw / bt;
  o.sustained_rate = sw / st;
  o.duration_s = total;
  o.calls = intervals * per_interval;
  o.energy = env.energy(e0, e1);
  o.mean_rate = work * o.calls / total;
  o.record = {{"probe", probe}, {"burst_rate", o.burst_rate}, {"sustained_rate", o.sustained_rate},
              {"duration_s", total}, {"burst_window_s", burst_s}, {"calls", o.calls}, {"idle_before_s", idle_s}};
  if (env.sampler && env.sampler->available()) {
    const auto b = env.sampler->summary(t_start, t_start + burst_s);
    const auto s = env.sampler->summary(t_start + 0.5 * total, t_start + total);
    o.record["telemetry_burst"] = b ? json(*b) : json(nullptr);
    o.record["telemetry_sustained"] = s ? json(*s) : json(nullptr);
    o.sustained_telemetry = s;
  } else {
    o.record["telemetry"] = "unavailable (" + (env.sampler ? env.sampler->why() : std::string("no sampler")) + ")";
  }
  env.burst.push_back(o.record);
  return o;
}

}  // namespace roofline::cuda
