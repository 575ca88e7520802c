// Which format each catalogue linear reads its weights in: the step's weight scheme, except lm_head
// and the modules a checkpoint leaves unconverted (docs/formulas-model.md §2.1).
#include <algorithm>
#include <fmt/format.h>

#include "roofline/error.hpp"
#include "roofline/model.hpp"

namespace roofline {

namespace {

/// The transformers module path of catalogue op `op` in layer `layer` (expert `expert` for the
/// grouped expert GEMMs); "" for an op that is no linear of the model.
std::string module_path(const model_config& cfg, const std::string& op, std::int64_t layer, std::int64_t expert) {
  if (op == "lm_head") return "lm_head";
  if (cfg.family == "gpt2") {
    const std::string h = fmt::format("transformer.h.{}.", layer);
    if (op == "c_attn") return h + "attn.c_attn";
    if (op == "attn_c_proj") return h + "attn.c_proj";
    if (op == "c_fc") return h + "mlp.c_fc";
    if (op == "mlp_c_proj") return h + "mlp.c_proj";
    return "";
  }
  const std::string l = fmt::format("model.layers.{}.", layer);
  if (op == "q_proj" || op == "k_proj" || op == "v_proj" || op == "o_proj" || op == "qkv_proj" || op == "q_a_proj" ||
      op == "q_b_proj" || op == "kv_a_proj_with_mqa" || op == "kv_b_proj")  // the last four: MLA (DeepseekV3Attention)
    return l + "self_attn." + op;
  if (op == "gate_proj" || op == "up_proj" || op == "down_proj" || op == "gate_up_proj") return l + "mlp." + op;
  const bool mixtral = cfg.model_type == "mixtral";  // MixtralSparseMoeBlock: gate, experts.N.w1/w3/w2
  if (op == "router") return l + (mixtral ? "block_sparse_moe.gate" : "mlp.gate");
  if (op.rfind("expert_", 0) == 0) {
    const std::string proj = op.substr(7);  // gate_proj | up_proj | down_proj
    if (mixtral)
      return fmt::format("{}block_sparse_moe.experts.{}.{}", l, expert,
                         proj == "gate_proj" ? "w1"
                         : proj == "up_proj" ? "w3"
                                             : "w2");
    return fmt::format("{}mlp.experts.{}.{}", l, expert, proj);
  }
  const bool deepseek = cfg.model_type.rfind("deepseek", 0) == 0;  // DeepseekV3MoE.shared_experts (plural)
  if (op.rfind("shared_expert_", 0) == 0 && op != "shared_expert_gate")
    return l + (deepseek ? "mlp.shared_experts." : "mlp.shared_expert.") + op.substr(14);
  if (op == "shared_expert_gate") return l + "mlp.shared_expert_gate";
  return "";
}

}  // namespace

weight_scheme step_weights(const model_config& cfg, const catalogue_options& opt) {
  return resolve_weight_scheme(cfg.weights, opt.dtype, opt.weights, opt.group_size);
}

weight_quant linear_format(const model_config& cfg, const weight_scheme& s, const std::string& dtype,
                           const std::string& op, std::string* why) {
  auto say = [&](std::string w) {
    if (why) *why = std::move(w);
  };
  say("");
  if (!s.quantized) return s.linear;
  if (op == "lm_head" && !s.lm_head_quantized) {
    say(fmt::format("lm_head in {}: {} leaves it unquantized", dtype, s.method.empty() ? "--weights" : s.method));
    return plain_weights(dtype);
  }
  if (op == "router" && cfg.model_type.rfind("deepseek", 0) == 0) {  // DeepseekV3TopkRouter / MoEGate: an nn.Parameter
    say(fmt::format("router in {}: DeepSeek's MoE gate weight is a parameter, not a Linear the method converts", dtype));
    return plain_weights(dtype);
  }
  if (s.not_converted.empty()) return s.linear;
  // One format per catalogue op: every layer (and expert) of it must agree.
  const std::int64_t layers = op == "lm_head" ? 1 : std::max<std::int64_t>(cfg.layers, 1);
  const std::int64_t experts = op.rfind("expert_", 0) == 0 ? std::max<std::int64_t>(cfg.experts, 1) : 1;
  std::string hit;
  std::int64_t matched = 0, total = 0;
  for (std::int64_t i = 0; i < layers; ++i)
    for (std::int64_t e = 0; e < experts; ++e) {
      const std::string path = module_path(cfg, op, i, e);
      if (path.empty()) return s.linear;
      ++total;
      for (const auto& entry : s.not_converted)
        if (module_matches(entry, path)) {
          ++matched;
          if (hit.empty()) hit = entry;
          break;
        }
    }
  if (matched == 0) return s.linear;
  if (matched != total)
    throw input_error(cfg.source, "quantization_config",
                      fmt::format("'{}' leaves {} of {} {} modules unconverted: one format per op is counted, a "
                                  "per-layer mix is not modelled",
                                  hit, matched, total, op));
  say(fmt::format("{} in {}: the checkpoint lists '{}' as not converted", op, dtype, hit));
  return plain_weights(dtype);
}

model_config runnable_weights(model_config cfg, const std::string& dtype, const std::string& weights,
                              std::string& note) {
  note.clear();
  const auto kernel = [](const std::string& w) { return w == "fp32" || w == "fp16" || w == "bf16"; };
  if (!weights.empty()) {
    if (!find_weight_format(weights))
      throw input_error("", "--weights",
                        fmt::format("'{}' is not a weight format ({})", weights, weight_format_names()));
    if (!kernel(weights))
      throw input_error(
          "", "--weights",
          fmt::format("not run: no kernel for {} weights (roofline run executes its ops in fp32, fp16 or bf16); "
                      "predict it with `roofline ops --weights {}`",
                      weights, weights));
    if (!dtype.empty() && weights != dtype)
      throw input_error(
          "", "--weights",
          fmt::format("{} with --dtype {}: roofline run's kernels read weights in the ops' dtype (give --dtype {})",
                      weights, dtype, weights));
    if (cfg.weights.quantized)
      note = fmt::format(
          "--weights {} overrides the config's {} ({}): the model's shapes run with weights in the ops' dtype", weights,
          cfg.weights.linear.label(), cfg.weights.source);
    cfg.weights = weight_scheme{};
    return cfg;
  }
  if (cfg.weights.quantized)
    throw input_error(cfg.source, "quantization_config",
                      fmt::format("not run: no kernel for {} weights ({}); predict it with `roofline ops`, or give "
                                  "--weights {} to run the model's shapes in {}",
                                  cfg.weights.linear.label(), cfg.weights.method, dtype.empty() ? "fp16" : dtype,
                                  dtype.empty() ? "fp16" : dtype));
  return cfg;
}

}  // namespace roofline
