// What `roofline ops` prints, computed once: every op of one model step placed on the roofs (its
// time terms and share of the step), the step's totals, memory per GPU, the tensor-parallel
// all-reduces and the fusion savings; and the decode linear-layer batch sweep (--batch B0:B1).
// Rendered by src/report/ops_view.cpp (ops_step_json, ops_step_text, ops_sweep_json, ops_sweep_text).
// Formulas: docs/formulas-model.md (FLOPs and bytes per op), docs/formulas-analysis.md §7 (the
// predicted time t = max(FLOPs ÷ P(shape), bytes ÷ BW(bytes)) + floor).
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "roofline/command_roofs.hpp"
#include "roofline/latency.hpp"
#include "roofline/model.hpp"

namespace roofline {

/// Latency of the smallest NCCL all-reduce, used when neither --tp-latency nor --tp-fleet gives one:
/// 10 µs (NCCL all-reduce of a few kB between two NVLink-connected H200s takes 9–13 µs, measured
/// with roofline's fleet run; NCCL's own tuning model charges ~10 µs of base latency per ring step).
constexpr double default_allreduce_latency_s = 10e-6;

/// Where the tensor-parallel all-reduce bus bandwidth and latency come from (the --tp-* flags).
struct allreduce_link_request {
  double busbw_gb_per_s = 0;         ///< --tp-busbw (GB/s); 0 = not given
  std::optional<double> latency_us;  ///< --tp-latency (µs)
  std::string fleet_file;            ///< --tp-fleet: a fleet.json with a measured all_reduce roof
  std::string device;                ///< --device: its nominal NVLink/PCIe link (fleet::nominal_link)
};

/// The all-reduce link a step's tensor-parallel all-reduces are predicted on.
struct allreduce_link {
  double busbw_bytes_per_s = 0;  ///< B/s, the nccl-tests bus bandwidth convention (fleet.hpp)
  double latency_s = 0;          ///< s, per all-reduce
  std::string source;            ///< "--tp-busbw 300 GB/s; latency --tp-latency 7 µs", "nominal link: …"
};

/// The link for --tp: busbw from --tp-fleet's measured roof, else --tp-busbw, else the --device's
/// nominal link; latency from --tp-latency, else the fleet file's, else default_allreduce_latency_s.
/// Throws input_error: "--tp-latency" when negative or NaN, "--tp-busbw" when no busbw is known (no
/// flag and no device, or the device's link is unknown), the fleet file's errors (read_allreduce_roof).
allreduce_link resolve_allreduce_link(const allreduce_link_request& q);

/// One op of the step on the roofs.
struct placed_op {
  time_terms terms;  ///< compute_s, memory_s, floor_s, total_s (s, per instance) and the bound
  double share = 0;  ///< terms.total_s × count ÷ the step's predicted time (0 when that is 0)
};

/// One fusion and the predicted time it saves per step (per instance × fusion_saving::count).
struct fusion_time {
  /// The predicted time of the ops it replaces minus the fused op's, each with its floor and
  /// latency (a fused SiLU·mul at decode saves a whole kernel, not just its bytes), s.
  double saved_s = 0;
  double bytes_only_s = 0;  ///< bytes_saved × count ÷ bandwidth, s
};

/// Everything `ops` prints for one step.
struct ops_step {
  model_config cfg;
  catalogue_options opt;     ///< as resolved (phase, batch, seq, context, dtypes, conventions)
  bool fusion = false;       ///< --fusion: `fusions` listed
  std::vector<op_desc> ops;  ///< build_catalogue(cfg, opt): one GPU's share at opt.tp
  std::optional<placement_roofs> roofs;
  std::vector<placed_op> placed;    ///< parallel to ops; empty without roofs
  memory_need need;                 ///< estimate_memory: bytes per GPU
  token_flops model;                ///< model FLOPs per token (the one model `mfu` divides by)
  double flops = 0, bytes = 0;      ///< the step's sum of FLOPs and bytes (per instance × count)
  double total_s = 0;               ///< predicted step time (ops + the all-reduces), s; 0 without roofs
  double kv_per_token = 0;          ///< KV-cache bytes per token (all layers)
  double kv_total = 0;              ///< decode: batch × this GPU's KV cache of `context` tokens (kv_cache_bytes_per_gpu), B
  std::int64_t tokens = 0;          ///< tokens the step processes: batch (decode) or batch × seq
  std::string causal;               ///< the attention FLOPs convention in words
  weight_scheme weights;            ///< the linears' format (step_weights)
  std::optional<std::int64_t> fit;  ///< decode: sequences whose KV cache fits beside the weights
  std::vector<fusion_saving> fusions;
  std::vector<fusion_time> fusion_times;  ///< parallel to fusions; empty without roofs
  std::optional<tp_allreduce_plan> tp;
  std::string tp_source;  ///< where the all-reduce bus bandwidth and latency came from
  std::string kv_dtype() const { return opt.kv_dtype.empty() ? opt.dtype : opt.kv_dtype; }
};

/// The step of `cfg` under `opt`, placed on `roofs` when given; `fusion`: list the fused
/// alternatives; `link`: consulted only when opt.tp > 1 (resolve_allreduce_link).
/// Throws input_error: the catalogue's errors; "--batch" (decode) or "--seq" when the step's memory
/// per GPU exceeds the device's (roofs->memory_bytes); resolve_allreduce_link's errors.
ops_step compute_ops_step(const model_config& cfg, const catalogue_options& opt,
                          const std::optional<placement_roofs>& roofs, bool fusion, const allreduce_link_request& link);

/// One point of the decode batch sweep placed on the roofs: a linear (per instance), or a decode
/// attention op (per layer: p.m = batch, p.k = p.n = 0, `attention` true).
struct ops_sweep_point {
  batch_point p;
  std::optional<double> attainable_flops_per_s;  ///< min(peak, intensity × bandwidth), FLOP/s
  std::string bound;                             ///< "bandwidth" | "compute" ("" without roofs)
  std::optional<double> share;                   ///< its predicted time × count ÷ the whole step's (with roofs)
  std::optional<bool> fits;                      ///< the step at this batch fits the device memory (null: unknown)
  bool attention = false;
};

/// The whole decode step at one batch of the sweep.
struct sweep_batch {
  std::int64_t batch = 1;
  memory_need need;               ///< estimate_memory at this batch and the sweep's context
  std::optional<bool> fits;       ///< need.total() ≤ the roofs' memory_bytes (null without a known memory)
  std::optional<double> step_s;   ///< Σ predicted op time × count (with roofs)
};

/// The knee of one linear: the smallest batch whose intensity reaches the ridge (knee_batch).
struct sweep_knee {
  std::string name;
  std::int64_t k = 0, n = 0;
  std::optional<std::int64_t> batch;  ///< nullopt: never (the B→∞ limit 2kn/(a(k+n)) is below the ridge)
};

/// `ops --batch B0:B1`: every decode linear at every batch in [b0, b1].
struct ops_sweep {
  std::string model, dtype;
  std::int64_t b0 = 1, b1 = 1;
  std::int64_t context = 0;        ///< the decode KV context the attention and the memory are counted at
  std::vector<sweep_batch> batches;  ///< one per batch of the sweep, in order
  weight_scheme weights;
  std::optional<placement_roofs> roofs;
  std::vector<ops_sweep_point> points;
  std::vector<sweep_knee> knees;  ///< one per linear, in first-seen order; empty without roofs
};

/// The sweep of `cfg` (linear_batch_sweep) with co's dtype and weights; knees use the activation
/// bytes of co.dtype and each linear's weight bytes per element. At each batch the whole decode step
/// at co.context (build_catalogue): its memory against the roofs' (a batch that does not fit is marked,
/// never placed as if it ran), its predicted time, each op's share, and the decode attention listed
/// beside the linears (its intensity stays ≈ H/G for a 2-byte cache at every batch). Throws
/// input_error as linear_batch_sweep (b0 < 1, b1 < b0) and build_catalogue.
ops_sweep compute_ops_sweep(const model_config& cfg, const catalogue_options& co, std::int64_t b0, std::int64_t b1,
                            const std::optional<placement_roofs>& roofs);

}  // namespace roofline
