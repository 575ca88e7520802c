// `roofline ops`: parses the flags, computes the step (compute_ops_step, compute_ops_sweep in
// src/analysis/ops_step.cpp) and prints its view (src/report/ops_view.cpp). The step: every op of one model step with FLOPs, bytes, intensity and, given roofs (--device
// nominal or --results measured), bound and predicted time = max(FLOPs ÷ peak, bytes ÷ bandwidth).
#include <cstdio>
#include <fmt/format.h>
#include <optional>

#include "app/commands.hpp"
#include "app/options.hpp"
#include "roofline/command_views.hpp"
#include "roofline/error.hpp"
#include "roofline/json.hpp"
#include "roofline/model.hpp"
#include "roofline/ops_step.hpp"

namespace roofline::app {

namespace {

struct ops_options {
  std::string model = "tinyllama-1.1b";
  std::string phase = "decode";
  std::string batch = "1";
  std::int64_t context = catalogue_options{}.context, seq = catalogue_options{}.seq;
  std::string dtype = "fp16", kv_dtype;
  std::string weights, group_size;  ///< --weights, --group-size ("" = the config's, else --dtype)
  std::string attention = "fused", causal = "halved";
  std::string mla = "automatic";  ///< MLA models: absorbed | naive | automatic (absorbed decode, naive prefill)
  bool recompute = false, fusion = false, fused_silu_mul = false, json = false, csv = false;
  std::string device, results;
  int tp = 1;             ///< tensor-parallel ranks: per-GPU shapes and the per-layer all-reduces
  int ep = 1;             ///< expert-parallel ranks (MoE): 1 or --tp
  std::string logits;     ///< prefill: last (default, a server's TTFT) | all
  std::string ecc;        ///< --ecc on|off ("" = as the part ships)
  double memory_utilization = 1;  ///< --gpu-memory-utilization
  double tp_busbw_gb = 0; ///< all-reduce bus bandwidth (GB/s); default: the --device's nominal link
  std::optional<double> tp_latency_us;  ///< all-reduce latency; default: roofline::default_allreduce_latency_s
  std::string tp_fleet;   ///< fleet results JSON whose measured all_reduce roof gives busbw and latency
};

using roofs = placement_roofs;

std::int64_t parse_count(const std::string& s, const char* flag) {
  std::int64_t v = 0;
  if (!CLI::detail::lexical_cast(s, v)) throw input_error("", flag, "'" + s + "' is not an integer");
  if (v < 1) throw input_error("", flag, fmt::format("must be positive, got {}", v));
  return v;
}

std::optional<roofs> ops_roofs(const ops_options& o, const std::string& precision) {
  roofs_request q;
  q.device = o.device, q.results_file = o.results, q.precision = precision, q.precision_flag = "--dtype", q.fall_back = true;
  q.ecc = o.ecc, q.memory_utilization = o.memory_utilization;
  return resolve_placement_roofs(q);
}

/// The step's catalogue options as the flags give them.
catalogue_options step_options(const ops_options& o, phase ph) {
  catalogue_options opt;
  opt.ph = ph;
  opt.batch = parse_count(o.batch, "--batch");
  opt.seq = o.seq;
  opt.context = o.context;
  opt.dtype = o.dtype;
  opt.kv_dtype = o.kv_dtype;
  opt.weights = o.weights, opt.group_size = o.group_size;
  opt.fused_attention = o.attention == "fused";
  opt.causal_halved = o.causal == "halved";
  opt.recompute = o.recompute;
  opt.fused_silu_mul = o.fused_silu_mul;
  opt.tp = o.tp;
  opt.ep = o.ep;
  if (!o.logits.empty() && ph == phase::train && o.logits == "last")
    throw input_error("", "--logits", "last: training computes the logits (and the loss) of every position");
  opt.last_logits = ph == phase::prefill && o.logits != "all";  // the serving profile: TTFT computes one position's logits
  opt.mla = o.mla == "absorbed" ? catalogue_options::mla_form::absorbed
            : o.mla == "naive"  ? catalogue_options::mla_form::naive
                                : catalogue_options::mla_form::automatic;
  return opt;
}

void run_ops(const ops_options& o) {
  const phase ph = parse_phase(o.phase);
  const model_config cfg = load_model_config(resolve_model_path(o.model));
  const std::string precision = o.dtype == "float32" ? "fp32" : o.dtype == "float16" ? "fp16" : o.dtype == "bfloat16" ? "bf16" : o.dtype;
  const std::optional<roofs> r = ops_roofs(o, precision);

  const auto colon = o.batch.find(':');
  if (colon != std::string::npos && ph != phase::decode)
    throw input_error("", "--batch", fmt::format("{} is the decode linear-layer sweep; --phase {} takes one batch", o.batch, o.phase));
  if (colon != std::string::npos && o.tp != 1)
    throw input_error("", "--tp", "the --batch B0:B1 sweep is per GPU without tensor parallelism; give one batch");
  if (colon != std::string::npos) {
    const std::int64_t b0 = parse_count(o.batch.substr(0, colon), "--batch");
    const std::int64_t b1 = parse_count(o.batch.substr(colon + 1), "--batch");
    if (b1 < b0) throw input_error("", "--batch", fmt::format("{}: B0 must not exceed B1", o.batch));
    catalogue_options co;
    co.dtype = o.dtype, co.weights = o.weights, co.group_size = o.group_size;
    co.context = o.context, co.kv_dtype = o.kv_dtype;
    const ops_sweep sw = compute_ops_sweep(cfg, co, b0, b1, r);
    std::fputs((o.csv ? ops_sweep_csv(sw) : o.json ? ops_sweep_json(sw).dump(2) + "\n" : ops_sweep_text(sw)).c_str(), stdout);
    return;
  }
  const ops_step res = compute_ops_step(cfg, step_options(o, ph), r, o.fusion, {o.tp_busbw_gb, o.tp_latency_us, o.tp_fleet, o.device});
  std::fputs((o.csv ? ops_step_csv(res) : o.json ? ops_step_json(res).dump(2) + "\n" : ops_step_text(res)).c_str(), stdout);
}

}  // namespace

void add_ops(CLI::App& app, context&) {
  auto o = std::make_shared<ops_options>();
  auto* sub = app.add_subcommand("ops", "every op of a model step: FLOPs, bytes, intensity, bound, predicted time");
  sub->add_option("--model", o->model, "shipped model name or path to a HuggingFace config.json")->capture_default_str();
  sub->add_option("--phase", o->phase, "decode | prefill | train")->capture_default_str()->check(phase_value());
  sub->add_option("--batch", o->batch, "batch B, or B0:B1 for the decode linear batch sweep")->capture_default_str();
  sub->add_option("--context", o->context, "decode: KV-cache length (tokens)")->capture_default_str()->check(finite_positive());
  sub->add_option("--seq", o->seq, "prefill / train: sequence length")->capture_default_str()->check(finite_positive());
  sub->add_option("--dtype", o->dtype, "activations (and weights unless --weights): fp32 | fp16 | bf16 | fp8")->capture_default_str()->check(dtype_value());
  sub->add_option("--kv-dtype", o->kv_dtype, "KV cache dtype: fp32 | fp16 | bf16 | fp8 | int8 (default: --dtype)")->check(dtype_value());
  add_weights_options(sub, o->weights, o->group_size);
  sub->add_option("--attention", o->attention, "prefill/train attention: naive | fused")
      ->capture_default_str()->check(CLI::IsMember({"naive", "fused"}));
  sub->add_option("--causal", o->causal, "prefill/train attention FLOPs: halved (causal triangle) | full (PaLM)")
      ->capture_default_str()->check(CLI::IsMember({"halved", "full"}));
  sub->add_option("--mla", o->mla, "MLA models (DeepSeek): absorbed | naive | automatic (absorbed decode, naive prefill)")
      ->capture_default_str()->check(CLI::IsMember({"absorbed", "naive", "automatic"}));
  sub->add_flag("--recompute", o->recompute, "train: activation recompute (each layer's forward runs twice)");
  sub->add_flag("--fused-silu-mul", o->fused_silu_mul, "one silu_mul op instead of silu then mul");
  sub->add_flag("--fusion", o->fusion, "list fused alternatives and the bytes/time they save");
  add_roofs_options(sub, o->device, o->results);
  sub->add_option("--tp", o->tp, "tensor-parallel ranks: add the per-layer all-reduces (Megatron-LM)")
      ->capture_default_str()->check(finite_positive());
  sub->add_option("--ep", o->ep, "MoE: expert-parallel ranks, 1 or --tp (experts placed whole, E/ep per GPU)")
      ->capture_default_str()->check(finite_positive());
  sub->add_option("--logits", o->logits, "prefill: last (each sequence's last position, a server's TTFT; the default) | all "
                                         "(every position, as training)")
      ->check(CLI::IsMember({"last", "all"}));
  add_ecc_option(sub, o->ecc);
  add_memory_utilization_option(sub, o->memory_utilization);
  sub->add_option("--tp-busbw", o->tp_busbw_gb, "all-reduce bus bandwidth in GB/s (default: --device's nominal link)")
      ->check(CLI::NonNegativeNumber);
  sub->add_option("--tp-latency", o->tp_latency_us, "all-reduce latency in µs (default 10)")->check(CLI::NonNegativeNumber);
  sub->add_option("--tp-fleet", o->tp_fleet, "fleet results JSON: its measured all_reduce latency and busbw")->check(CLI::ExistingFile);
  sub->add_flag("--json", o->json, "machine-readable output");
  sub->add_flag("--csv", o->csv, "the op table as CSV (one line per op; with B0:B1 one line per batch)")->excludes("--json");
  sub->callback([o] { run_ops(*o); });
}

}  // namespace roofline::app
