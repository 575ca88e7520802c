// Placing ops and user kernels on the roofline: bound, predicted time, advice.
#include <algorithm>
#include <cmath>
#include <fmt/format.h>

#include <string>
#include <vector>

#include "roofline/analysis.hpp"
#include "roofline/error.hpp"
#include "roofline/latency.hpp"

namespace roofline {

namespace {

/// The roofs predictions use: measured when measured, else nominal (0 when neither is known).
struct used_roofs {
  double peak = 0, bw = 0;
  std::string source;  // "measured" | "nominal" | "measured peak, nominal bandwidth" ...
};

used_roofs pick(const roofline_summary& s) {
  used_roofs u;
  u.peak = s.peak_measured > 0 ? s.peak_measured : s.peak_nominal;
  u.bw = s.bandwidth_measured > 0 ? s.bandwidth_measured : s.bandwidth_nominal.value_or(0);
  return u;
}

double roof_time(double flops, double bytes, const used_roofs& u) {
  double t = 0;
  if (u.peak > 0) t = std::max(t, flops / u.peak);
  if (u.bw > 0) t = std::max(t, bytes / u.bw);
  return t;
}

/// The classical two-roof class (no latency term): "compute" | "bandwidth" | "unknown".
std::string bound_of(double flops, double bytes, const used_roofs& u) {
  if (!(u.peak > 0) || !(u.bw > 0)) return "unknown";
  return flops / u.peak > bytes / u.bw ? "compute" : "bandwidth";
}

bool is_elementwise_or_norm(op_kind k) {
  switch (k) {
    case op_kind::add: case op_kind::mul: case op_kind::silu: case op_kind::silu_mul: case op_kind::gelu:
    case op_kind::rmsnorm: case op_kind::layernorm: case op_kind::softmax: case op_kind::rope:
      return true;
    default:
      return false;
  }
}

}  // namespace

std::string op_advice(const op_desc& op, const std::string& bound, const std::string& device_kind) {
  if (bound == "unknown") return "unknown (no roofs to place it against)";
  if (bound == "latency" && device_kind == "cpu")
    return "latency-bound: the parallel-region floor and memory latency dominate; fuse it with its neighbours "
           "or raise the batch";
  if (bound == "latency")
    return op.kind == op_kind::gemm && op.ph == phase::decode
               ? "latency-bound: too few bytes in flight to cover memory latency; raise the batch, fuse with "
                 "neighbours, or capture the step in a CUDA graph"
               : "latency-bound: the per-kernel floor and memory latency dominate; fuse it with its neighbours "
                 "or capture the step in a CUDA graph";
  if (op.kind == op_kind::gemm && op.ph == phase::decode && bound == "bandwidth")
    return "raise the batch: a decode linear reads all its weights once per step, so its intensity "
           "grows with the batch until it reaches the ridge";
  if (is_elementwise_or_norm(op.kind))
    return "fuse: a memory-bound elementwise/norm op; fusing it with its neighbours removes a round "
           "trip through memory";
  if (op.kind == op_kind::attention_naive)
    return "use fused attention: the naive kernel writes and re-reads the scores";
  if (op.kind == op_kind::attention_decode)
    return "memory-bound on the KV cache: shrink it (GQA, a smaller KV dtype) or batch more queries per read";
  if (bound == "compute" && device_kind == "cpu")
    return "compute-bound: use a vectorised BLAS (all SIMD lanes and FMA pipes busy), block for the caches";
  // A GEMM already runs on the tensor cores: what is left is its shape (a decode GEMM is compute-bound
  // below the ridge only because a small GEMM loses to tile and wave quantization) or its precision.
  if (bound == "compute" && op.kind == op_kind::gemm && device_kind != "cpu")
    return op.ph == phase::decode
               ? "compute-bound at this shape: a small tensor-core GEMM loses to tile and wave quantization; "
                 "raise the batch or use tile-friendly shapes (multiples of 128)"
               : "compute-bound on the tensor cores: tile-friendly shapes (multiples of 128) or a lower precision (fp8)";
  if (bound == "compute")
    return "compute-bound: use the tensor cores, align shapes (multiples of 8/16), pick tile-friendly sizes";
  return "bandwidth-bound: move fewer bytes (fuse, smaller dtypes, reuse through caches)";
}

op_result place_op(const op_desc& op, const roofline_summary& roofs, const latency_model& lat) {
  op_result r;
  r.name = op.name;
  r.phase = to_string(op.ph);
  r.batch = op.batch;
  r.seq = op.seq;
  r.context = op.context;
  r.shape = op.shape;
  r.dtype = op.dtype;
  r.count = op.count;
  r.flops = op.flops;
  r.bytes_read = op.bytes_read;
  r.bytes_written = op.bytes_written;
  r.bytes = op.bytes();
  r.intensity = op.intensity();
  const used_roofs u = pick(roofs);
  const time_terms t = lat.predict(op, u.peak, u.bw);
  r.bound = t.bound;
  r.predicted_s = t.total_s;
  if (t.floor_s > 0) r.launch_floor_s = t.floor_s;  // its own term: a kernel cannot finish before its launch does
  if (t.bound != "unknown") {
    r.memory_s = t.memory_s;
    r.compute_s = t.compute_s;
  }
  r.advice = op_advice(op, r.bound);
  return r;
}

op_result place_op(const op_desc& op, const roofline_summary& roofs, double launch_floor_s) {
  latency_model lat;  // floor only: memory time = bytes ÷ bandwidth
  lat.floor_s = std::max(0.0, launch_floor_s);
  return place_op(op, roofs, lat);
}

std::optional<double> roof_fraction(const op_result& r, const roofline_summary& roofs) {
  if (!r.measured_s || !(*r.measured_s > 0)) return std::nullopt;
  const used_roofs u = pick(roofs);
  const double t = roof_time(r.flops, r.bytes, u);
  if (!(t > 0)) return std::nullopt;
  return t / *r.measured_s;
}

void judge_plausibility(op_result& r, const roofline_summary& roofs, std::optional<double> fastest_level_bytes_per_s) {
  r.plausible = true;
  r.causes.clear();
  if (!r.measured_s || !(*r.measured_s > 0)) return;
  std::vector<std::string> why;
  const double flops_rate = r.flops / *r.measured_s, bytes_rate = r.bytes / *r.measured_s;
  if (roofs.peak_nominal > 0 && flops_rate > (1 + roof_noise) * roofs.peak_nominal)
    why.push_back(fmt::format("{:.0f}% of the nominal {} peak", 100 * flops_rate / roofs.peak_nominal, roofs.precision));
  if (fastest_level_bytes_per_s && *fastest_level_bytes_per_s > 0 && bytes_rate > (1 + roof_noise) * *fastest_level_bytes_per_s)
    why.push_back(fmt::format("{:.0f}% of the fastest memory level measured", 100 * bytes_rate / *fastest_level_bytes_per_s));
  if (why.empty()) return;
  r.plausible = false;
  std::string what;
  for (const auto& w : why) what += (what.empty() ? "" : " and ") + w;
  r.causes.push_back("impossible: " + what);
  for (auto& c : above_roof_causes()) r.causes.push_back(std::move(c));
  r.advice = "none: a physically impossible measurement (" + what + "); find which cause applies first";
}

void refresh_advice(op_result& r, const roofline_summary& roofs, const std::string& device_kind) {
  // A CPU step has no kernels to capture in a graph: its floor is the parallel region's fork and join.
  const bool cpu = device_kind == "cpu";
  auto either = [cpu](const char* last) {
    std::vector<std::string> fixes{"fuse it with its neighbours"};
    if (!cpu) fixes.emplace_back("capture the step in a CUDA graph");
    if (last) fixes.emplace_back(last);
    std::string s;
    for (std::size_t i = 0; i < fixes.size(); ++i)
      s += (i == 0 ? "" : i + 1 == fixes.size() ? (fixes.size() > 2 ? ", or " : " or ") : ", ") + fixes[i];
    return s;
  };
  if (!r.plausible) return;  // judge_plausibility's advice stands
  const auto f = roof_fraction(r, roofs);
  if (!f) return;
  // The advice is the class's remedy, the same words for every op of the class (the report states
  // it once and refers to it); the op's own numbers (measured, predicted, roof time) are its columns.
  if (*f > 1.1) {  // faster than the roof allows: the bytes did not all come from DRAM/HBM
    r.advice = "above the roof: part of the working set was served from cache, so the DRAM roof does not bound this op here";
    return;
  }
  if (*f >= 0.9) {
    r.advice = "stop: at the roof (90% of it or more); only less work or a faster machine helps";
    return;
  }
  const double roof = roof_time(r.flops, r.bytes, pick(roofs));
  if (r.bound == "latency") {
    r.advice = fmt::format("latency-bound: the {} floor and memory latency dominate; {}", cpu ? "parallel-region" : "per-kernel",
                           either("raise the batch"));
    return;
  }
  // Compute-bound below the ridge: the op's shape (a small GEMM's tile and wave quantization) made the
  // compute term the longer one, not a missing engine; results written before op_advice knew this.
  if (r.bound == "compute" && !cpu && roofs.ridge_measured > 0 && r.intensity < roofs.ridge_measured &&
      r.advice.rfind("compute-bound: use the tensor cores", 0) == 0)
    r.advice = "compute-bound at this shape: a small tensor-core GEMM loses to tile and wave quantization; "
               "raise the batch or use tile-friendly shapes (multiples of 128)";
  if (r.launch_floor_s && *r.launch_floor_s > 0 && roof < *r.launch_floor_s && *r.measured_s < 2.0 * *r.launch_floor_s)
    r.advice = fmt::format("launch-bound: the launch floor exceeds the time at the roof; {}", either(nullptr));
}

std::vector<std::string> above_roof_causes() {
  return {"timing without device synchronisation: the timer stopped before the kernel finished "
          "(cudaEventSynchronize / torch.cuda.synchronize before reading the clock)",
          "data resident in cache (L2 / last-level cache): the bytes never came from device memory, so the "
          "DRAM roof does not bound this run; count only DRAM bytes or use a working set larger than the cache",
          "a sparse peak or the wrong precision: a 2:4-sparse figure, or a result at fp8/int8 placed against a "
          "higher-precision roof (check --precision)",
          "FLOPs or bytes over-counted, or the time of a part of the work: check the counts and what the timer covers"};
}

kernel_placement place_kernel(double flops, double bytes, double seconds, const roofline_summary& roofs) {
  if (!std::isfinite(flops) || flops < 0) throw input_error("", "--flops", fmt::format("must be a finite number >= 0 (got {})", flops));
  if (!std::isfinite(bytes) || bytes <= 0) throw input_error("", "--bytes", fmt::format("must be a finite number > 0 (got {})", bytes));
  if (!std::isfinite(seconds) || seconds <= 0) throw input_error("", "--time", fmt::format("must be a finite number of seconds > 0 (got {})", seconds));
  kernel_placement k;
  k.flops = flops;
  k.bytes = bytes;
  k.seconds = seconds;
  k.intensity = flops / bytes;
  k.achieved_flops_per_s = flops / seconds;
  k.achieved_bytes_per_s = bytes / seconds;
  if (roofs.peak_measured > 0 && roofs.bandwidth_measured > 0) {
    k.attainable_measured = attainable_flops(k.intensity, roofs.peak_measured, roofs.bandwidth_measured);
    k.fraction_measured = std::max(flops / roofs.peak_measured, bytes / roofs.bandwidth_measured) / seconds;
  }
  if (roofs.peak_nominal > 0 && roofs.bandwidth_nominal) {
    k.attainable_nominal = attainable_flops(k.intensity, roofs.peak_nominal, *roofs.bandwidth_nominal);
    k.fraction_nominal = std::max(flops / roofs.peak_nominal, bytes / *roofs.bandwidth_nominal) / seconds;
  }
  k.bound = bound_of(flops, bytes, pick(roofs));
  const auto frac = k.fraction_measured ? k.fraction_measured : k.fraction_nominal;
  const bool above_nominal = k.fraction_nominal && *k.fraction_nominal > 1 + roof_noise;
  const bool above_measured = k.fraction_measured && *k.fraction_measured > 1 + roof_noise;
  if (above_nominal || above_measured) {
    k.plausible = false;
    k.causes = above_roof_causes();
    k.advice = fmt::format("none: {:.0f}% of the {} roof is physically impossible; find which cause applies before "
                           "reading anything into this result",
                           100.0 * (above_nominal ? *k.fraction_nominal : *k.fraction_measured),
                           above_nominal ? "nominal" : "measured");
  } else if (k.bound == "unknown")
    k.advice = "unknown: no roofs to place it against (give --device NAME or --results FILE)";
  else if (frac && *frac >= 0.9)
    k.advice = fmt::format("stop: at the roof ({:.0f}% of the {} roof); only less work or a faster machine helps",
                           100.0 * *frac, k.fraction_measured ? "measured" : "nominal");
  else if (k.bound == "bandwidth")
    k.advice = "bandwidth-bound: move fewer bytes (fuse with neighbours, smaller dtypes, reuse data through caches/shared memory)";
  else
    k.advice = "compute-bound: use the tensor cores, align shapes to multiples of 8/16, choose tile-friendly sizes";
  return k;
}

}  // namespace roofline
