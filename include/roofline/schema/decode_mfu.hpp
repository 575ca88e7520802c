// The block results.analysis.mfu: MFU and HFU of the measured decode steps, one scenario per
// decode batch of the op table. Fields and units: docs/results-schema.md; computed by
// roofline/decode_mfu.hpp (analyse_mfu, in src/analysis); read and written by
// src/common/analysis_json.cpp.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "roofline/json_fwd.hpp"

namespace roofline {

/// One decode step (all `batch` sequences, one token each). Without a TPOT: tpot_s and mfu null
/// and `note` says why; the TPOT-derived fields are absent.
struct mfu_scenario {
  std::int64_t batch = 0, context = 0;
  double step_flops = 0, step_bytes = 0;  ///< FLOP and bytes of the step (Σ op × count)
  double flops_per_token = 0;             ///< step_flops ÷ batch
  std::optional<double> intensity;        ///< FLOP/B; null without bytes
  double predicted_tpot_s = 0;            ///< Σ predicted op time × count, s
  std::optional<double> mfu_ceiling_nominal;         ///< min(1, intensity ÷ nominal ridge), 0–1
  std::optional<double> mfu_ceiling_measured_roofs;  ///< attainable at the measured roofs ÷ nominal peak, 0–1
  std::optional<double> sum_of_ops_tpot_s, whole_step_predicted_s;  ///< s (absent when unknown)
  std::string tpot_source;  ///< "--tpot" | "whole step" | "sum of isolated ops"
  std::optional<double> tpot_s;  ///< s
  std::optional<double> tokens_per_s, achieved_flops_per_s;  ///< batch ÷ tpot_s; step_flops ÷ tpot_s (FLOP/s)
  std::optional<double> mfu, hfu;                   ///< achieved ÷ nominal peak, 0–1 (HFU = MFU: no recompute)
  std::optional<double> fraction_of_measured_roof;  ///< achieved ÷ measured peak, 0–1
  std::optional<double> mfu_over_ceiling;           ///< mfu ÷ mfu_ceiling_nominal
  std::optional<double> mbu;                        ///< step_bytes ÷ tpot_s ÷ nominal bandwidth, 0–1 (§4.5)
  std::optional<double> mbu_measured;               ///< ÷ measured bandwidth
  std::string note;
};

struct decode_mfu {
  std::string precision;
  std::optional<double> peak_nominal, peak_measured;  ///< FLOP/s; null when unknown
  std::string convention;  ///< how model FLOPs, tokens and TPOT are counted
  std::vector<mfu_scenario> scenarios;
  /// The 2N rule of thumb: model_flops_per_token's weights term (the one FLOPs-per-token model,
  /// roofline/model.hpp) under its default convention, N = matmul weights; attention excluded.
  /// FLOP per token; absent when the results have no readable model config.
  std::optional<double> rule_of_thumb_flops_per_token;
  std::string rule_of_thumb;  ///< the convention in words (or why there is no rule of thumb)
  std::string note;           ///< set when there are no decode ops
};

void to_json(json& j, const mfu_scenario& v);
void from_json(const json& j, mfu_scenario& v);
void to_json(json& j, const decode_mfu& v);
void from_json(const json& j, decode_mfu& v);

}  // namespace roofline
