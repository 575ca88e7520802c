// Model FLOPs utilization (MFU) and hardware FLOPs utilization (HFU). Model FLOPs per token come
// from the one model, model_flops_per_token (roofline/model.hpp). Formulas: docs/formulas-analysis.md §4.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "roofline/decode_utilization.hpp"
#include "roofline/energy_analysis.hpp"
#include "roofline/model.hpp"
#include "roofline/ops_step.hpp"

namespace roofline {

/// MFU = model FLOPs per token × tokens/s ÷ (dense peak FLOP/s per chip × chips) (PaLM, Chowdhery
/// et al. 2022, appendix B); HFU is the same with the recomputed FLOPs added to the numerator.
/// `tokens_per_s` is the throughput of all `chips` together. Throws input_error when the peak is
/// marked sparse ("--peak": a sparse peak is not a peak), or any input is not finite and > 0.
double model_flops_utilization(double flops_per_token, double tokens_per_s, double peak_flops_per_chip,
                               int chips, bool peak_is_sparse = false);

/// What `roofline mfu` is asked (its flags, durations already parsed to seconds).
struct mfu_request {
  std::string model;                 ///< shipped model name or config.json path (resolve_model_path)
  std::string phase_name;            ///< decode | prefill | train
  std::string device, results_file;  ///< the roofs: --device NAME or --results FILE (or neither with --peak)
  std::string precision;             ///< "" = the results' main precision, else default_precision("cuda")
  std::string causal = "halved";     ///< halved | full (attention FLOPs of prefill and train)
  std::string weights, group_size, kv_dtype;  ///< decode step: --weights, --group-size, --kv-dtype
  std::optional<double> tpot;          ///< s per output token (decode)
  std::optional<double> tokens_per_s;  ///< of all `gpus` together
  std::optional<double> step_time;     ///< s per step of batch × seq tokens
  std::optional<double> peak;          ///< --peak: dense FLOP/s per GPU
  std::int64_t batch = 1;
  std::optional<std::int64_t> seq;     ///< prefill/train: tokens per sequence; decode: KV context
  /// GPUs together. Decode and prefill: one deployment planned as `ops --tp gpus` (tensor parallel,
  /// + expert parallel with `ep`); train: GPUs the throughput was measured on (data parallel).
  int gpus = 1;
  int ep = 1;                          ///< --ep: expert-parallel ranks (MoE; 1 or gpus)
  /// --recompute: none | full | selective | selective-layer[:N] | selective-op (recompute_flops_per_token)
  std::string recompute = "none";
  /// --logits: "last" | "all" | "" (the serving default: last in prefill)
  std::string logits;
  std::string ecc;                     ///< --ecc on|off ("" = as the part ships)
  double memory_utilization = 1;       ///< --gpu-memory-utilization
  allreduce_link_request link;         ///< --tp-busbw, --tp-latency, --tp-fleet (the device's link by default)
};

/// The step of a deployment as `roofline ops` plans it (compute_ops_step: one GPU's share at tp =
/// --gpus, its all-reduces), and the measured step against it.
struct step_plan {
  int tp = 1, ep = 1;
  double flops_per_gpu = 0, bytes_per_gpu = 0;  ///< one GPU's step (Σ op × count)
  std::optional<double> attainable_s;           ///< one GPU's ops at the roofs + the all-reduces (ops' "predicted step time")
  double allreduce_s = 0;                       ///< of which the all-reduces (0 at tp 1)
  std::string allreduce_source;                 ///< the link (ops_step::tp_source)
  std::string allreduce_note;                   ///< per layer, in words
  memory_need need;                             ///< per GPU
  std::optional<std::int64_t> fit;              ///< decode: sequences whose KV cache fits per GPU
  double memory_bytes = 0;                      ///< the device memory it was checked against (0 = unknown)
  std::string memory_source;
  std::string bandwidth_note;                   ///< ECC words (command_roofs::bandwidth_note)
  double measured_s = 0;                        ///< the step time given (--tpot / --step-time, or from tokens/s)
  std::optional<double> times_attainable;       ///< measured ÷ attainable
  std::string verdict;                          ///< prefill: "2.10 s per step is 1.31× the attainable 1.60 s"
};

/// Everything `mfu` prints, computed once by compute_mfu; mfu_json and mfu_text
/// (roofline/command_views.hpp) only render it.
struct mfu_result {
  std::string model, precision, peak_label, tps_formula, convention;
  std::string devices;  ///< what --gpus counts when it is not whole packages ("GCDs: ..."), else empty
  phase ph = phase::decode;
  std::int64_t batch = 1;
  int gpus = 1;
  bool default_context = false;  ///< decode without --context: catalogue_options' default, as in `ops`
  token_flops fpt, all_params, full_attention;  ///< the headline and the two labelled alternatives
  double peak_flops = 0;         ///< FLOP/s per GPU, dense
  double peak_measured = 0;      ///< FLOP/s, the measured roof (0 = none)
  double tps = 0;                ///< tokens/s of all GPUs
  double mfu = 0, hfu = 0, mfu_all = 0, mfu_full = 0;  ///< fractions
  double recompute = 0;  ///< FLOPs per token HFU adds (0 without --recompute)
  std::string recompute_policy = "none";  ///< as asked, in words (recompute_flops_per_token)
  std::string peak_note;  ///< the nominal peak's note ("uncertain, no vendor datasheet: …"), "" when none
  std::vector<std::string> defaults_used;  ///< model_config::defaults_used (family defaults for absent keys)
  std::optional<step_plan> plan;  ///< decode and prefill with roofs: the deployment's step as `ops --tp --gpus` plans it
  bool plausible = true;
  std::vector<std::string> causes;
  std::optional<double> frac_measured;  ///< model FLOP/s ÷ (measured peak × GPUs)
  std::optional<double> intensity;      ///< decode: the catalogue step's FLOPs ÷ bytes (as `ops` prints), FLOP/B
  std::optional<double> ceiling;        ///< decode: min(1, intensity ÷ nominal ridge)
  std::optional<double> ridge_nominal;  ///< FLOP/B
  std::optional<decode_utilization> decode;  ///< decode: MBU, attainable TPOT (the catalogue's step)
  std::string weights;  ///< decode: the step's weight format and its source
  /// decode with --results: the step placed on the file's measured step sweep (analysis.step_sweep)
  std::optional<step_placement> on_curve;
  std::string on_curve_why;  ///< why not placed (when --results was given)
};

/// MFU, HFU and the two labelled alternatives (every parameter; full T² attention) from one of
/// tpot, tokens_per_s or step_time, against the dense peak (--peak, else the device's nominal peak
/// of the precision); with a measured roof, the fraction of it; in decode, the catalogue's step
/// (build_catalogue: the FLOPs and bytes `roofline ops` prints, so its intensity is `ops`' step
/// intensity) judged by judge_decode (MBU, attainable TPOT), and with --results the step placed on
/// the file's measured step curve. Formulas: docs/formulas-analysis.md §4 (PaLM app. B).
/// Decode and prefill on --gpus N > 1 are one deployment: the step is planned as `ops --tp N` (and
/// `--ep`) plans it, one GPU's share of the ops plus the all-reduces, so the attainable TPOT, MBU (each
/// GPU's bytes ÷ TPOT ÷ its bandwidth) and the verdict are the deployment's, never one GPU's.
/// Throws input_error naming the flag: none of tpot/tokens_per_s/step_time ("--tpot"), tpot outside
/// decode, recompute outside train, no seq in prefill/train ("--seq"), decode-only flags outside
/// decode, no peak ("--device"), a sparse --peak ("--peak"), no nominal peak or a sparse one, or a
/// GPU without the engine's peak ("--precision"); "--gpus" when the model cannot be split over that
/// many GPUs (the plan `ops --tp` would refuse); "--ep" as catalogue_options::ep; "--logits" last in
/// training; and the model's and roofs' loading errors.
mfu_result compute_mfu(const mfu_request& o);

}  // namespace roofline
