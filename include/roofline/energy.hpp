// Energy counters, read around timed windows (docs/formulas-analysis.md §10): the pure arithmetic both
// backends share — a counter's difference across its wrap, and power samples integrated over a window.
// The counters themselves are read by the backends (NVML on a GPU: src/backends/cuda/telemetry_sampler.cpp;
// RAPL on a CPU: src/backends/cpu/rapl.cpp); what the numbers mean is worked out in src/analysis.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "roofline/results.hpp"

namespace roofline {

/// One reading of a device's energy counter: when (now_s()) and the raw count, in the counter's own
/// unit (NVML: mJ; RAPL: µJ, one value per domain summed after the wrap of each is undone).
struct energy_mark {
  double t_s = 0;
  std::vector<std::uint64_t> raw;  ///< one per counter (RAPL domain); empty when the counter is unreadable
};

/// The increase of a counter from `before` to `after` that counts up and wraps to 0 after `range`
/// (the largest value it holds + 1 is not what RAPL reports: Linux's max_energy_range_uj is the
/// largest value, so after a wrap the increase is range − before + after). `range` = 0 means the full
/// 64 bits (NVML's unsigned long long mJ): the increase is (after − before) mod 2^64.
/// Worked: counter_delta(262143328850, 1000, 262143328850) = 1000 (RAPL, one wrap);
/// counter_delta(2^64 − 5, 3, 0) = 8 (64-bit wrap).
std::uint64_t counter_delta(std::uint64_t before, std::uint64_t after, std::uint64_t range);

/// One power reading (W) at host time t_s (now_s()).
struct power_point {
  double t_s = 0;
  double watts = 0;
};

/// ∫ P dt over [t0, t1] (J) by the trapezoid rule through the samples, the power held constant
/// before the first and after the last sample; nullopt when no sample has a power reading or
/// t1 <= t0. Worked: samples (0 s, 100 W), (1 s, 300 W) over [0, 1] → 200 J; over [−1, 2] → 100 + 200 + 300 = 600 J.
std::optional<double> integrate_power(const std::vector<power_point>& samples, double t0, double t1);

/// One update of an energy counter as a poller saw it: the host time (now_s()) it moved, taken midway
/// between the read that first returned the new value and the read before it, and the new raw value.
struct counter_update {
  double t_s = 0;
  std::uint64_t raw = 0;
};

/// Power (W) over a window [t0, t1] from the counter's updates inside it: the increase from the first
/// to the last update ÷ the time between them. A counter that moves every Δ seconds (NVML's energy
/// counter: every 100 ms on an H100, bench/results/h100/2026-12-06-5a46f81-energy-windows) read at a
/// window's two ends is up to Δ·P stale at each, so a window of W seconds carries up to ±Δ/W of error
/// (±9.4 % at 1.06 s: 1.06 s windows of one steady load read 10.2 % apart at their ends, 1.1 % apart
/// between updates); between updates the error is the poller's timing of the two edges only.
struct power_between_updates {
  double watts = 0;
  double span_s = 0;  ///< from the first to the last update inside the window
  int intervals = 0;  ///< updates inside the window − 1
};
/// `unit_j`: joules per raw count (NVML: 1e-3); `range`: as counter_delta. nullopt when fewer than two
/// updates fall inside [t0, t1] or they span less than `min_fraction` of the window (then read the
/// ends). Worked: updates (0.05 s, 1000), (0.15 s, 1040), …, (0.95 s, 1360) every 0.1 s over [0, 1]
/// → (1360 − 1000) mJ ÷ 0.9 s = 0.4 W, span 0.9 s, 9 intervals.
std::optional<power_between_updates> power_from_updates(const std::vector<counter_update>& updates, double t0, double t1,
                                                        double unit_j, std::uint64_t range = 0, double min_fraction = 0.5);

}  // namespace roofline
