// model.config of results.json: the parsed model config, written and read back typed
// (roofline/model_record.hpp).
#include "roofline/json.hpp"
#include "roofline/model_record.hpp"

#include <cmath>
#include <cstddef>
#include <filesystem>
#include <limits>
#include <utility>

#include <fmt/format.h>

#include "roofline/error.hpp"
#include "roofline/results.hpp"

namespace roofline {

namespace {

// ---- the fields, counted: a field added to model_config, weight_scheme or weight_quant fails the
// build here until the writer and the reader below carry it (an aggregate's members counted as the
// largest number of initialisers its braces accept). ----
struct any_field {
  template <class U>
  operator U() const;  // declared only: used in unevaluated braces
};
template <class T, std::size_t... I>
constexpr bool braces_take(std::index_sequence<I...>) {
  return requires { T{(void(I), any_field{})...}; };
}
template <class T, std::size_t N = 0>
constexpr std::size_t field_count() {
  if constexpr (braces_take<T>(std::make_index_sequence<N + 1>{})) return field_count<T, N + 1>();
  else return N;
}
static_assert(field_count<model_config>() == 52, "model_config changed: write and read the new field in model_record.cpp");
static_assert(field_count<weight_scheme>() == 7, "weight_scheme changed: write and read the new field in model_record.cpp");
static_assert(field_count<weight_quant>() == 11, "weight_quant changed: write and read the new field in model_record.cpp");

constexpr scale_layout layouts[] = {scale_layout::none, scale_layout::tensor, scale_layout::channel, scale_layout::group,
                                    scale_layout::block};

/// Reads typed fields of one object, naming "model.config.<path><key>" and the file in its errors.
struct reader {
  const json& j;
  std::string path;  ///< "model.config." or "model.config.weights."
  const std::string& file;

  const json* at(const char* key) const {
    if (!j.is_object()) throw input_error(file, path.substr(0, path.size() - 1), "expected an object, got " + std::string(j.type_name()));
    const auto it = j.find(key);
    return it == j.end() || it->is_null() ? nullptr : &*it;
  }
  [[noreturn]] void bad(const char* key, const std::string& what) const { throw input_error(file, path + key, what); }

  void get(const char* key, std::string& v) const {
    if (const json* x = at(key)) {
      if (!x->is_string()) bad(key, "expected a string, got " + std::string(x->type_name()));
      v = x->get<std::string>();
    }
  }
  void get(const char* key, bool& v) const {
    if (const json* x = at(key)) {
      if (!x->is_boolean()) bad(key, "expected a boolean, got " + std::string(x->type_name()));
      v = x->get<bool>();
    }
  }
  void get(const char* key, double& v) const {
    if (const json* x = at(key)) {
      if (!x->is_number()) bad(key, "expected a number, got " + std::string(x->type_name()));
      v = x->get<double>();
      if (!std::isfinite(v)) bad(key, "must be finite");
    }
  }
  template <class I>
    requires(std::is_integral_v<I> && !std::is_same_v<I, bool>)
  void get(const char* key, I& v) const {
    const json* x = at(key);
    if (!x) return;
    if (!x->is_number()) bad(key, "expected an integer, got " + std::string(x->type_name()));
    // a whole number within the field's range (a double cast out of range is undefined behaviour)
    const double d = x->get<double>();
    if (!std::isfinite(d) || d != std::trunc(d)) bad(key, x->dump() + " is not a whole number");
    if (d < static_cast<double>(std::numeric_limits<I>::min()) || d >= std::ldexp(1.0, std::numeric_limits<I>::digits))
      bad(key, x->dump() + " does not fit in an integer field");
    v = x->is_number_integer() && !x->is_number_unsigned() ? static_cast<I>(x->get<std::int64_t>()) : static_cast<I>(d);
  }
  void get(const char* key, std::vector<std::string>& v) const {
    const json* x = at(key);
    if (!x) return;
    if (!x->is_array()) bad(key, "expected an array of strings, got " + std::string(x->type_name()));
    v.clear();
    for (const auto& e : *x) {
      if (!e.is_string()) bad(key, "expected an array of strings");
      v.push_back(e.get<std::string>());
    }
  }
  void get(const char* key, scale_layout& v) const {
    std::string name = to_string(v);
    get(key, name);
    for (const scale_layout l : layouts)
      if (to_string(l) == name) {
        v = l;
        return;
      }
    bad(key, "'" + name + "' is not a scale layout");
  }
  reader sub(const char* key) const {
    static const json empty = json::object();
    const json* x = at(key);
    return reader{x ? *x : empty, path + key + ".", file};
  }
};

json weight_quant_json(const weight_quant& q) {
  return {{"format", q.format},         {"bits", q.bits},
          {"layout", to_string(q.layout)}, {"group", q.group},
          {"scale_bits", q.scale_bits}, {"zero_bits", q.zero_bits},
          {"tensor_scale_bits", q.tensor_scale_bits}, {"super_group", q.super_group},
          {"super_scale_bits", q.super_scale_bits}, {"row_index_bytes", q.row_index_bytes},
          {"method", q.method}};
}

weight_quant weight_quant_from(const reader& in) {
  weight_quant q;
  in.get("format", q.format), in.get("bits", q.bits), in.get("layout", q.layout), in.get("group", q.group);
  in.get("scale_bits", q.scale_bits), in.get("zero_bits", q.zero_bits), in.get("tensor_scale_bits", q.tensor_scale_bits);
  in.get("super_group", q.super_group), in.get("super_scale_bits", q.super_scale_bits);
  in.get("row_index_bytes", q.row_index_bytes), in.get("method", q.method);
  return q;
}

}  // namespace

json model_config_json(const model_config& c) {
  const weight_scheme& w = c.weights;
  return {{"name", c.name},
          {"source", c.source},
          {"family", c.family},
          {"note", c.note},
          {"model_type", c.model_type},
          {"hidden", c.hidden},
          {"intermediate", c.intermediate},
          {"layers", c.layers},
          {"heads", c.heads},
          {"kv_heads", c.kv_heads},
          {"vocab", c.vocab},
          {"head_dim", c.head_dim},
          {"max_positions", c.max_positions},
          {"context_limit", c.context_limit},
          {"context_limit_source", c.context_limit_source},
          {"defaults_used", c.defaults_used},
          {"tied_embeddings", c.tied_embeddings},
          {"attention_bias", c.attention_bias},
          {"mlp_bias", c.mlp_bias},
          {"o_proj_bias", c.o_proj_bias},
          {"rms_norm_eps", c.rms_norm_eps},
          {"sliding_window", c.sliding_window},
          {"sliding_layers", c.sliding_layers},
          {"attention_chunk", c.attention_chunk},
          {"chunked_layers", c.chunked_layers},
          {"nope_layers", c.nope_layers},
          {"experts", c.experts},
          {"experts_per_token", c.experts_per_token},
          {"expert_intermediate", c.expert_intermediate},
          {"shared_expert_intermediate", c.shared_expert_intermediate},
          {"shared_expert_gate", c.shared_expert_gate},
          {"expert_bias", c.expert_bias},
          {"swiglu_limit", c.swiglu_limit},
          {"moe_layers", c.moe_layers},
          {"qk_norm", c.qk_norm},
          {"qk_l2_norm", c.qk_l2_norm},
          {"attn_temperature", c.attn_temperature},
          {"attention_sinks", c.attention_sinks},
          {"scaled_embedding", c.scaled_embedding},
          {"gelu_mlp", c.gelu_mlp},
          {"fused_projections", c.fused_projections},
          {"sandwich_norms", c.sandwich_norms},
          {"attn_softcap", c.attn_softcap},
          {"final_softcap", c.final_softcap},
          {"q_lora_rank", c.q_lora_rank},
          {"kv_lora_rank", c.kv_lora_rank},
          {"qk_rope_head_dim", c.qk_rope_head_dim},
          {"v_head_dim", c.v_head_dim},
          {"router_bias", c.router_bias},
          {"router_sigmoid", c.router_sigmoid},
          {"nextn_layers", c.nextn_layers},
          {"weights",
           {{"linear", weight_quant_json(w.linear)},
            {"quantized", w.quantized},
            {"not_converted", w.not_converted},
            {"lm_head_quantized", w.lm_head_quantized},
            {"method", w.method},
            {"source", w.source},
            {"note", w.note}}}};
}

bool is_stored_model_config(const json& config) { return config.is_object() && config.contains("hidden"); }

json model_sizes(const json& config) {
  if (!is_stored_model_config(config)) return config;
  json out = json::object();
  for (const auto& [hf, ours] : {std::pair{"hidden_size", "hidden"}, {"intermediate_size", "intermediate"},
                                 {"num_hidden_layers", "layers"}, {"num_attention_heads", "heads"},
                                 {"num_key_value_heads", "kv_heads"}, {"head_dim", "head_dim"}, {"vocab_size", "vocab"},
                                 {"tie_word_embeddings", "tied_embeddings"}})
    if (config.contains(ours)) out[hf] = config[ours];
  return out;
}

model_config model_config_from_json(const json& config, const std::string& file) {
  const reader in{config, "model.config.", file};
  model_config c;
  in.get("name", c.name), in.get("source", c.source), in.get("family", c.family), in.get("note", c.note);
  in.get("model_type", c.model_type);
  in.get("hidden", c.hidden), in.get("intermediate", c.intermediate), in.get("layers", c.layers), in.get("heads", c.heads);
  in.get("kv_heads", c.kv_heads), in.get("vocab", c.vocab), in.get("head_dim", c.head_dim), in.get("max_positions", c.max_positions);
  in.get("context_limit", c.context_limit), in.get("context_limit_source", c.context_limit_source);
  in.get("defaults_used", c.defaults_used);
  in.get("tied_embeddings", c.tied_embeddings), in.get("attention_bias", c.attention_bias), in.get("mlp_bias", c.mlp_bias);
  in.get("o_proj_bias", c.o_proj_bias), in.get("rms_norm_eps", c.rms_norm_eps);
  in.get("sliding_window", c.sliding_window), in.get("sliding_layers", c.sliding_layers);
  in.get("attention_chunk", c.attention_chunk), in.get("chunked_layers", c.chunked_layers), in.get("nope_layers", c.nope_layers);
  in.get("experts", c.experts), in.get("experts_per_token", c.experts_per_token), in.get("expert_intermediate", c.expert_intermediate);
  in.get("shared_expert_intermediate", c.shared_expert_intermediate), in.get("shared_expert_gate", c.shared_expert_gate);
  in.get("expert_bias", c.expert_bias), in.get("swiglu_limit", c.swiglu_limit), in.get("moe_layers", c.moe_layers);
  in.get("qk_norm", c.qk_norm), in.get("qk_l2_norm", c.qk_l2_norm), in.get("attn_temperature", c.attn_temperature);
  in.get("attention_sinks", c.attention_sinks), in.get("scaled_embedding", c.scaled_embedding), in.get("gelu_mlp", c.gelu_mlp);
  in.get("fused_projections", c.fused_projections), in.get("sandwich_norms", c.sandwich_norms);
  in.get("attn_softcap", c.attn_softcap), in.get("final_softcap", c.final_softcap);
  in.get("q_lora_rank", c.q_lora_rank), in.get("kv_lora_rank", c.kv_lora_rank), in.get("qk_rope_head_dim", c.qk_rope_head_dim);
  in.get("v_head_dim", c.v_head_dim), in.get("router_bias", c.router_bias), in.get("router_sigmoid", c.router_sigmoid);
  in.get("nextn_layers", c.nextn_layers);
  const reader w = in.sub("weights");
  c.weights.linear = weight_quant_from(w.sub("linear"));
  w.get("quantized", c.weights.quantized), w.get("not_converted", c.weights.not_converted);
  w.get("lm_head_quantized", c.weights.lm_head_quantized), w.get("method", c.weights.method);
  w.get("source", c.weights.source), w.get("note", c.weights.note);
  return c;
}

std::optional<model_config> stored_model_config(const results& r, std::string* why) {
  auto fail = [&](const std::string& w) -> std::optional<model_config> {
    if (why) *why = w;
    return std::nullopt;
  };
  if (!r.model) return fail("no model in the results");
  if (!is_stored_model_config(r.model->config))
    return fail(fmt::format("the model cannot be rebuilt: this results.json does not store its parsed config (model.config; files "
                            "written before it was stored) and its config.json{} was not readable where the file was loaded",
                            r.model->source.empty() ? std::string() : " (model.source " + r.model->source + ")"));
  try {
    return model_config_from_json(r.model->config, "results.json");
  } catch (const std::exception& e) {
    return fail(std::string("the model cannot be rebuilt: ") + e.what());
  }
}

bool attach_model_config(results& r, const std::string& file, std::string* why) {
  if (!r.model) {
    if (why) *why = "no model in the results";
    return false;
  }
  if (is_stored_model_config(r.model->config)) {
    (void)model_config_from_json(r.model->config, file);  // a malformed block is bad input: exit 2, named
    return true;
  }
  // A run executes its ops with weights in its dtype (runnable_weights): a quantization_config is not what ran.
  const auto load = [](const std::string& path) {
    model_config c = load_model_config(path);
    c.weights = weight_scheme{};
    return c;
  };
  const std::string& source = r.model->source;
  if (source.empty()) {
    if (why) *why = "no model.source to rebuild the model from";
    return false;
  }
  try {
    r.model->config = model_config_json(load(source));
    return true;
  } catch (const std::exception& e) {
    // A shipped model is recorded relative to the tree it ran in ("models/NAME.json"): the shipped copy of
    // the same name is the same file's content, so `roofline report` gives the same answer from any directory.
    try {
      const std::filesystem::path src(source);
      if (src.parent_path() != "models") throw;
      r.model->config = model_config_json(load(resolve_model_path(src.stem().string())));
      return true;
    } catch (const std::exception&) {
      if (why) *why = std::string("model config not readable here: ") + e.what();
      return false;
    }
  }
}

results load_results_with_model(const std::string& path) {
  results r = load_results(path);
  attach_model_config(r, path);
  return r;
}

}  // namespace roofline
