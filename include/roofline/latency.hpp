// The small-work regime: a per-kernel floor and a latency-limited memory ramp, added to the roofline
// so that an op moving a few KiB is predicted at what the machine really takes, not at bytes ÷ peak
// bandwidth. Formulas and sources: docs/formulas-analysis.md §7 (Williams et al. 2009 for the roofs;
// Little 1961 and Hockney 1994 for the latency term).
// The model's types (latency_model, time_terms, ramp_point): roofline/schema/latency.hpp.
#pragma once
#include <string>

#include "roofline/model.hpp"
#include "roofline/schema/latency.hpp"

namespace roofline {

struct measured_roofs;

/// The terms and class of an op of `flops` and `bytes` against peak `peak` (FLOP/s, 0 = unknown) and
/// bandwidth `bw` (B/s, 0 = unknown): total = max(compute, memory) + floor. The class is "latency"
/// when more than half the predicted time is the floor and the latency excess (memory − bandwidth),
/// i.e. max(compute, bandwidth) < total / 2; otherwise "compute" when compute ≥ memory, else
/// "bandwidth". "unknown" when peak or bw is 0. `class_bw` (B/s, 0 = bw): the streaming rate the
/// class compares against (latency_model::class_bandwidth); the times use `bw` whatever it is.
time_terms predict_time(double flops, double bytes, double peak, double bw, double floor_s, double memory_s,
                        double class_bw = 0);

/// The model from a measurement: floor and ramp from measured.small_work, else the graph launch
/// floor of measured.launch with the default latency of the device kind; GEMM rates by size of
/// `precision` from measured.compute.
latency_model latency_model_from(const measured_roofs& m, const std::string& device_kind,
                                 const std::string& precision);

/// Documented default floors (docs/formulas-analysis.md §7.3) for a device class without a
/// measurement: "gpu" (a CUDA GPU: 0.6 µs per kernel in a graph, 0.8 µs DRAM latency) or "cpu"
/// (2 µs per OpenMP parallel region, 0.1 µs DRAM latency). Throws input_error for another class.
latency_model default_latency_model(const std::string& device_class);

}  // namespace roofline
