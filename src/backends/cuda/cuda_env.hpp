// What every CUDA probe shares: the device, its stream, the cuBLASLt handle and workspace, the
// telemetry sampler and the device's facts; plus the helpers that attach telemetry to a result and
// run the burst-versus-sustained measurement.
#pragma once
#include <cublasLt.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "backends/cuda/device_memory.hpp"
#include "backends/cuda/telemetry_sampler.hpp"
#include "roofline/backend.hpp"
#include "roofline/json.hpp"
#include "roofline/repeat_clock.hpp"

namespace roofline::cuda {

struct cuda_env {
  int device = 0;
  cudaDeviceProp prop{};
  std::int64_t l2_bytes = 0;
  int sms = 0;
  cudaStream_t stream = nullptr;
  cublasLtHandle_t lt = nullptr;
  device_buffer workspace;
  std::unique_ptr<telemetry_sampler> sampler;
  json burst = json::array();  ///< burst-versus-sustained records, copied into measured.telemetry["burst"]

  /// cudaSetDevice(device) — every probe starts with it (the CLI may call from any thread).
  void activate() const { ROOFLINE_CUDA_CALL(cudaSetDevice(device)); }
  /// Free device memory now (bytes).
  std::size_t free_bytes() const;
  /// Telemetry over [t0, t1] into `dst`, or a flag "telemetry unavailable (why)".
  void attach(std::optional<telemetry_summary>& dst, std::vector<std::string>& flags, double t0, double t1) const;
  /// The energy counter now (sampler->mark(); raw empty without a sampler).
  energy_mark mark() const;
  /// The energy between two marks (sampler->energy_between), or a window saying why there is none.
  energy_window energy(const energy_mark& a, const energy_mark& b) const;
  /// Writes the device-wide telemetry facts and the burst records into out.telemetry.
  void publish(measured_roofs& out) const;
  /// Each timed repeat paired with the SM clock of its own window (pair_repeat_clocks,
  /// roofline/repeat_clock.hpp): `seconds` and `windows` as time_repeated's samples and their host
  /// windows, `work` per second of `seconds`. Waits up to 2.5 sampling periods for a sample after the
  /// last window. nullopt without telemetry or windows.
  std::optional<repeat_clocks> repeat_clock(double work, const std::vector<double>& seconds,
                                            const std::vector<host_window>& windows) const;
};

/// The cuBLASLt workspace every GEMM gets (32 MiB is NVIDIA's recommendation for Hopper, cuBLAS
/// documentation, "cublasSetWorkspace"; 64 MiB leaves room for split-K on larger tiles).
inline constexpr std::size_t cublaslt_workspace_bytes = std::size_t{64} << 20;

/// Fills `env` for GPU `index`: device, context (created now, not inside a timed region),
/// properties, SMs, L2 size, a non-blocking stream, a cuBLASLt handle and its workspace. The
/// telemetry sampler is left to the caller. Throws cuda_error / probe_error from the CUDA calls.
void open_cuda_env(cuda_env& env, int index);
/// Releases what open_cuda_env created (the sampler first); safe on a half-opened env.
void close_cuda_env(cuda_env& env) noexcept;

/// Rates of a continuous run: the first `burst_s` seconds against the last half of the run.
struct burst_outcome {
  double burst_rate = 0;      ///< work/s over the intervals ending within the first burst_s
  double sustained_rate = 0;  ///< work/s over the intervals starting after half of the run
  double duration_s = 0;
  int calls = 0;
  json record;                ///< {probe, burst_rate, sustained_rate, duration_s, telemetry_burst, telemetry_sustained}
  energy_window energy;       ///< the energy counter over the whole run (idle pause excluded)
  double mean_rate = 0;       ///< work/s over the whole run (calls × work ÷ GPU time)
  std::optional<telemetry_summary> sustained_telemetry;  ///< over the second half (record's telemetry_sustained)
};

/// After `idle_s` of idleness (so the power controller starts from rest), enqueues `enqueue_once`
/// back to back for about `duration_s` (calls grouped so each timed interval lasts >= 1 ms, events
/// between groups), then splits the GPU timeline into the burst and the sustained part. `est_call_s`
/// is the expected time of one call, `work` its work (bytes or FLOP). Throws probe_error on CUDA errors.
burst_outcome run_burst(cuda_env& env, const std::string& probe, const std::function<void()>& enqueue_once,
                        double work, double est_call_s, double duration_s, double idle_s,
                        double burst_s = burst_window_s);

}  // namespace roofline::cuda
