// `roofline mfu`: model FLOPs utilization (and HFU) from a measured TPOT, throughput or step time,
// against the nominal dense peak (comparable) and the measured roof (what is left to gain).
// Formulas: docs/formulas-analysis.md §4 (PaLM appendix B); FLOPs per token: model_flops_per_token,
// the one model `ops` prints too (docs/formulas-model.md §5). Computed in src/analysis/mfu.cpp
// (compute_mfu), rendered by src/report/mfu_view.cpp; this file parses the flags.
#include <cstdio>
#include <fmt/format.h>
#include <memory>

#include "app/commands.hpp"
#include "app/options.hpp"
#include "roofline/command_views.hpp"
#include "roofline/json.hpp"
#include "roofline/mfu.hpp"
#include "roofline/units.hpp"

namespace roofline::app {

namespace {

/// The flags: the request compute_mfu takes, the durations as typed, the output form.
struct mfu_options : mfu_request {
  std::string tpot_text, step_time_text;  ///< with units: "25ms", "0.025", "25000us"
  bool json_out = false, csv_out = false;
};

}  // namespace

void add_mfu(CLI::App& app, context& ctx) {
  auto o = std::make_shared<mfu_options>();
  auto* sub = app.add_subcommand("mfu", "model FLOPs utilization (and HFU) from TPOT, tokens/s or step time");
  sub->add_option("--model", o->model, "shipped model name or path to a HuggingFace config.json")->required();
  sub->add_option("--phase", o->phase_name, "decode | prefill | train")->required()->check(phase_value());
  auto* tpot = sub->add_option("--tpot", o->tpot_text, "decode: time per output token with units (25ms, 0.025, 25000us; a bare number is seconds)");
  auto* tps = sub->add_option("--tokens-per-s", o->tokens_per_s, "throughput of all --gpus together, tokens/s")->check(finite_positive());
  sub->add_option("--step-time", o->step_time_text, "time per step of --batch sequences of --seq tokens, with units (1.2s, 850ms; bare: seconds)")->excludes(tpot, tps);
  tps->excludes(tpot);
  sub->add_option("--batch", o->batch, "sequences per step")->capture_default_str()->check(finite_positive());
  auto* seq = sub->add_option("--seq", o->seq, "prefill/train: tokens per sequence (required); decode: KV context")->check(finite_positive());
  // decode: the KV context is also --context, as in `ops` and `run`, with the same default
  sub->add_option("--context", o->seq, "decode: KV-cache length (tokens; default " + std::to_string(catalogue_options{}.context) + " as in ops)")
      ->excludes(seq)->check(finite_positive());
  add_roofs_options(sub, o->device, o->results_file);
  sub->add_option("--gpus", o->gpus,
                  "GPUs together: decode and prefill plan one deployment over them as `ops --tp N` (attainable step, MBU, "
                  "the all-reduces); train: the GPUs the throughput was measured on")
      ->capture_default_str()->check(finite_positive());
  sub->add_option("--ep", o->ep, "decode/prefill, MoE: expert-parallel ranks, 1 or --gpus (experts placed whole)")
      ->capture_default_str()->check(finite_positive());
  sub->add_option("--logits", o->logits, "prefill: last (each sequence's last position, a server's TTFT; the default) | all "
                                         "(every position, as training)")
      ->check(CLI::IsMember({"last", "all"}));
  add_ecc_option(sub, o->ecc);
  add_memory_utilization_option(sub, o->memory_utilization);
  sub->add_option("--tp-busbw", o->link.busbw_gb_per_s, "--gpus > 1: all-reduce bus bandwidth in GB/s (default: the device's nominal link)")
      ->check(CLI::NonNegativeNumber);
  sub->add_option("--tp-latency", o->link.latency_us, "--gpus > 1: all-reduce latency in µs (default 10)")->check(CLI::NonNegativeNumber);
  sub->add_option("--tp-fleet", o->link.fleet_file, "--gpus > 1: fleet results JSON whose measured all_reduce roof gives busbw and latency")
      ->check(CLI::ExistingFile);
  sub->add_option("--precision", o->precision, "peak precision (default: the results' precision, else fp16)")->check(precision_value());
  sub->add_option("--peak", o->peak, "dense peak FLOP/s per GPU, instead of the table's")->check(finite_positive());
  add_weights_options(sub, o->weights, o->group_size);
  sub->add_option("--kv-dtype", o->kv_dtype, "decode: KV cache dtype fp32 | fp16 | bf16 | fp8 | int8 (default: the precision's)")
      ->check(dtype_value());
  sub->add_option("--recompute", o->recompute,
                  "train, what HFU adds: none | full (alone: full) | selective (Megatron: core attention) | "
                  "selective-layer[:N] (torchtitan's default: every 2nd layer) | selective-op (torchtitan: every 2nd matmul)")
      ->expected(0, 1)
      ->default_str("full");
  sub->add_option("--causal", o->causal, "prefill/train attention FLOPs: halved (causal triangle) | full (PaLM)")
      ->capture_default_str()->check(CLI::IsMember({"halved", "full"}));
  sub->add_flag("--json", o->json_out, "print JSON");
  sub->add_flag("--csv", o->csv_out, "print CSV: a header line and one value line")->excludes("--json");
  sub->callback([o, &ctx] {
    if (!o->tpot_text.empty()) {
      o->tpot = parse_duration(o->tpot_text, "--tpot");
      if (duration_is_bare(o->tpot_text) && *o->tpot >= 1)
        fmt::print(stderr, "warning: --tpot {} is read as {} per token; did you mean ms? write units ({}ms)\n", o->tpot_text,
                   units::seconds(*o->tpot), o->tpot_text);
    }
    if (!o->step_time_text.empty()) o->step_time = parse_duration(o->step_time_text, "--step-time");
    const mfu_result r = compute_mfu(*o);
    std::fputs((o->csv_out ? mfu_csv(r) : o->json_out ? mfu_json(r).dump(2) + "\n" : mfu_text(r)).c_str(), stdout);
    ctx.exit_code = r.plausible ? 0 : 1;  // impossible: the full answer printed, with its causes, exit 1
  });
}

}  // namespace roofline::app
