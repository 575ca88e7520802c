// Decode utilization: a measured time per output token (TPOT) against the catalogue's decode step.
// Decode is bandwidth-bound, so its honest measure is MBU, model bandwidth utilization: the bytes
// the step must move (build_catalogue's ops, Σ bytes × count: the weights once, the KV cache each
// layer reads, the activations) ÷ TPOT ÷ peak bandwidth (Databricks, "LLM Inference Performance
// Engineering: Best Practices", 2023: MBU = achieved memory bandwidth ÷ peak memory bandwidth, with
// achieved = (model bytes + KV cache bytes) ÷ TPOT), printed beside MFU and beside the attainable
// TPOT: the same step summed op by op at the roofs, as `roofline ops` predicts it.
// Formulas: docs/formulas-analysis.md §4.5.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "roofline/latency.hpp"
#include "roofline/model.hpp"

namespace roofline {

/// What one decode step costs, from the one op catalogue.
struct decode_step_cost {
  std::int64_t batch = 1, context = 0;
  double flops = 0, bytes = 0;                ///< Σ op × count over the step (all `batch` tokens)
  std::optional<double> attainable_tpot_s;    ///< Σ predicted op time × count at the roofs (null without roofs)
  std::string roofs_source;                   ///< the roofs the prediction used
};

/// Sums a decode catalogue (build_catalogue with phase decode) and, given a latency model and roofs
/// (peak FLOP/s, bandwidth B/s, both > 0), predicts each op with latency_model::predict as `ops`
/// does. Throws input_error("--phase") when an op is not a decode op.
decode_step_cost decode_cost(const std::vector<op_desc>& ops, const latency_model* lat = nullptr, double peak = 0,
                             double bandwidth = 0, const std::string& roofs_source = "");

/// The roofs a measured TPOT is judged against; 0 = unknown.
struct decode_roofs {
  double peak_nominal = 0, bandwidth_nominal = 0;    ///< FLOP/s, B/s (the datasheet's, derived)
  double peak_measured = 0, bandwidth_measured = 0;  ///< FLOP/s, B/s (the best measured)
};

/// A measured TPOT against the step: MBU, MFU of the step's FLOPs, the attainable TPOT and the share
/// of it achieved, and whether the machine can do it at all.
struct decode_utilization {
  decode_step_cost step;
  int gpus = 1;                     ///< GPUs the step ran on (tensor parallel: each moves step.bytes ÷ gpus)
  double tpot_s = 0;                ///< measured, s
  double tokens_per_s = 0;          ///< batch ÷ TPOT
  double achieved_bytes_per_s = 0;  ///< step bytes ÷ TPOT (all GPUs together)
  double achieved_flops_per_s = 0;  ///< step FLOPs ÷ TPOT
  std::optional<double> mbu;               ///< achieved B/s ÷ (nominal bandwidth × GPUs), 0–1
  std::optional<double> mbu_measured;      ///< ÷ (measured bandwidth × GPUs)
  std::optional<double> step_mfu;          ///< achieved FLOP/s ÷ (nominal peak × GPUs) (catalogue FLOPs)
  std::optional<double> times_attainable;  ///< TPOT ÷ attainable TPOT (≥ 1 on a real machine)
  std::optional<double> share_of_attainable;  ///< attainable ÷ TPOT, 0–1
  bool plausible = true;            ///< false: MBU or MFU above a roof by more than roof_noise
  std::vector<std::string> causes;  ///< why, when not plausible
  std::string verdict;  ///< "25.0 ms/token is 3.53× the attainable 7.09 ms; 26.5% of the bandwidth roof"
};

/// Judges a TPOT (s, finite > 0, else input_error("--tpot")) on `gpus` GPUs. Impossible (plausible =
/// false) when MBU or the step's MFU exceeds 1 + roof_noise against the nominal roof, or the
/// fraction of the measured roof does. TinyLlama-1.1B fp16 on a T4, batch 1, context 2048, 25 ms:
/// 2.12 GB ÷ 25 ms = 84.8 GB/s = 26.5% of 320 GB/s; attainable 7.09 ms, 3.53×.
decode_utilization judge_decode(const decode_step_cost& step, double tpot_s, const decode_roofs& roofs, int gpus = 1);

}  // namespace roofline
