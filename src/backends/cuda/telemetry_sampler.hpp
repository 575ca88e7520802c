// A background thread that reads NVML every `period` (default 20 ms = 50 Hz) and keeps every sample
// with its steady-clock timestamp, so each probe can summarise the telemetry over its own window; and a
// second that polls the energy counter back to back (1 ms apart) and keeps the time of each of its
// updates, so that a window's energy is read between updates, not at ends up to one update stale.
#pragma once
#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "backends/cuda/nvml_library.hpp"
#include "backends/cuda/telemetry_summary.hpp"
#include "roofline/energy.hpp"
#include "roofline/json.hpp"

namespace roofline::cuda {

class telemetry_sampler {
 public:
  /// Opens NVML for the CUDA device with PCI bus id `pci_bus_id` and starts sampling. Never throws:
  /// without NVML (or without a handle for the device) available() is false and why() says why.
  explicit telemetry_sampler(const std::string& pci_bus_id, int cuda_index = 0, double period_s = 0.020);
  ~telemetry_sampler();
  telemetry_sampler(const telemetry_sampler&) = delete;
  telemetry_sampler& operator=(const telemetry_sampler&) = delete;

  bool available() const { return lib_ != nullptr && device_.has_value(); }
  const std::string& why() const { return why_; }  ///< why unavailable ("" when available)
  double period_s() const { return period_s_; }

  /// Summary over [t0, t1] (now_s() clock); nullopt when unavailable or nothing was sampled yet.
  std::optional<telemetry_summary> summary(double t0, double t1) const;
  /// Copies of the samples in [t0, t1].
  std::vector<telemetry_sample> samples(double t0, double t1) const;
  /// Reads one sample now (also used by the thread). Missing quantities stay nullopt.
  telemetry_sample read_now() const;
  /// The device's total-energy counter now (mJ since the driver was loaded); nullopt with `why` set
  /// when NVML, the entry point (older drivers, pre-Volta GPUs) or the query is unavailable.
  std::optional<std::uint64_t> energy_mj(std::string& why) const;
  /// energy_mj now, with its now_s() time (raw empty when unreadable).
  energy_mark mark() const;
  /// The energy between two marks: the counter's power between its first and last update inside the
  /// window × the window (power_from_updates; the increase read at the marks beside it as ends_j), or,
  /// with fewer than two updates spanning half the window, the increase at the marks (mJ → J, 64-bit
  /// wrap undone); and the
  /// 50 Hz power samples integrated over the same window (integrate_power): the instantaneous power
  /// (NVML_FI_DEV_POWER_INSTANT) where the driver has it, else nvmlDeviceGetPowerUsage, a 1 s average
  /// on Ampere (except GA100) and newer, which lags short windows.
  energy_window energy_between(const energy_mark& a, const energy_mark& b) const;
  /// Errors of individual NVML queries seen so far (first of each kind), e.g. power not supported.
  std::vector<std::string> query_errors() const;
  /// Device-wide facts for results.measured.telemetry: nvml status, sampler rate, ECC, power limit.
  json device_json() const;

  std::shared_ptr<nvml_library> library() const { return lib_; }
  std::optional<nvml_device> device() const { return device_; }

 private:
  void loop();
  void watch_counter();  ///< the counter's updates into updates_ until stop_
  void note_error(const std::string& e) const;

  std::shared_ptr<nvml_library> lib_;
  std::optional<nvml_device> device_;
  std::string why_;
  std::string device_note_;  ///< how the NVML device was found, when not by PCI bus id
  double period_s_;
  mutable std::mutex mu_;
  std::vector<telemetry_sample> samples_;
  std::vector<counter_update> updates_;  ///< the energy counter's updates (NVML mJ)
  mutable std::vector<std::string> errors_;
  std::atomic<bool> stop_{false};
  std::thread thread_;
  std::thread counter_thread_;
};

}  // namespace roofline::cuda
