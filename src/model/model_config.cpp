// model_config: reading a HuggingFace config.json and counting its parameters exactly.
// Field names follow transformers' LlamaConfig / MistralConfig / Qwen2Config / GPT2Config; defaults
// are those classes' defaults where a key is optional there too (docs/formulas-model.md §1).
#include <cmath>
#include <filesystem>

#include "roofline/error.hpp"
#include "roofline/io.hpp"
#include "roofline/model.hpp"

namespace roofline {

namespace {

struct reader {
  const json& j;
  const std::string& file;

  bool has(const char* key) const { return j.contains(key) && !j.at(key).is_null(); }

  std::int64_t positive_int(const char* key) const {
    if (!has(key)) throw input_error(file, key, "missing (a positive integer is required)");
    return checked_int(key);
  }
  std::int64_t positive_int(const char* key, std::int64_t fallback) const {
    return has(key) ? checked_int(key) : fallback;
  }
  std::int64_t checked_int(const char* key) const {
    const json& v = j.at(key);
    if (!v.is_number_integer())
      throw input_error(file, key, "must be an integer, got " + v.dump());
    const std::int64_t x = v.get<std::int64_t>();
    if (x <= 0) throw input_error(file, key, "must be positive, got " + std::to_string(x));
    return x;
  }
  bool boolean(const char* key, bool fallback) const {
    if (!has(key)) return fallback;
    const json& v = j.at(key);
    if (!v.is_boolean()) throw input_error(file, key, "must be true or false, got " + v.dump());
    return v.get<bool>();
  }
  double positive_number(const char* key, double fallback) const {
    if (!has(key)) return fallback;
    const json& v = j.at(key);
    if (!v.is_number() || !(v.get<double>() > 0) || !std::isfinite(v.get<double>()))
      throw input_error(file, key, "must be a positive number, got " + v.dump());
    return v.get<double>();
  }
  std::string string(const char* key) const {
    if (!has(key)) throw input_error(file, key, "missing");
    const json& v = j.at(key);
    if (!v.is_string()) throw input_error(file, key, "must be a string, got " + v.dump());
    return v.get<std::string>();
  }
};

std::string stem_of(const std::string& file) {
  const std::string s = std::filesystem::path(file).stem().string();
  return s.empty() ? file : s;
}

void parse_llama_family(const reader& r, model_config& c) {
  if (r.has("hidden_act")) {
    const std::string act = r.string("hidden_act");
    if (act != "silu" && act != "swish")
      throw input_error(r.file, "hidden_act", "'" + act + "' is not supported (SwiGLU models use silu)");
  }
  c.family = "llama";
  c.hidden = r.positive_int("hidden_size");
  c.intermediate = r.positive_int("intermediate_size");
  c.layers = r.positive_int("num_hidden_layers");
  c.heads = r.positive_int("num_attention_heads");
  c.kv_heads = r.positive_int("num_key_value_heads", c.heads);  // HF: None -> num_attention_heads
  c.vocab = r.positive_int("vocab_size");
  c.max_positions = r.positive_int("max_position_embeddings", 2048);
  c.tied_embeddings = r.boolean("tie_word_embeddings", false);  // LlamaConfig/MistralConfig/Qwen2Config default
  c.rms_norm_eps = r.positive_number("rms_norm_eps", 1e-6);
  // Mistral attends to the last `sliding_window` keys; Qwen2 carries the key but use_sliding_window false.
  if (c.model_type == "mistral" || (c.model_type == "qwen2" && r.boolean("use_sliding_window", false)))
    c.sliding_window = r.positive_int("sliding_window", 0);
  if (c.model_type == "qwen2") {
    c.attention_bias = true;  // Qwen2Attention: q/k/v_proj bias=True, o_proj bias=False
    c.o_proj_bias = false;
  } else if (c.model_type == "llama") {
    c.attention_bias = r.boolean("attention_bias", false);  // LlamaAttention: q/k/v/o bias=attention_bias
    c.o_proj_bias = c.attention_bias;
    c.mlp_bias = r.boolean("mlp_bias", false);
  }
  if (r.has("head_dim")) {
    c.head_dim = r.positive_int("head_dim");
  } else {
    if (c.hidden % c.heads != 0)
      throw input_error(r.file, "num_attention_heads",
                        std::to_string(c.heads) + " does not divide hidden_size " + std::to_string(c.hidden));
    c.head_dim = c.hidden / c.heads;
  }
  if (c.heads % c.kv_heads != 0)
    throw input_error(r.file, "num_key_value_heads",
                      std::to_string(c.kv_heads) + " does not divide num_attention_heads " + std::to_string(c.heads));
}

void parse_gpt2(const reader& r, model_config& c) {
  c.family = "gpt2";
  c.hidden = r.positive_int("n_embd");
  c.layers = r.positive_int("n_layer");
  c.heads = r.positive_int("n_head");
  c.kv_heads = c.heads;
  c.vocab = r.positive_int("vocab_size");
  c.max_positions = r.positive_int("n_positions");
  c.intermediate = r.positive_int("n_inner", 4 * c.hidden);  // GPT2MLP: n_inner None -> 4·n_embd
  c.tied_embeddings = r.boolean("tie_word_embeddings", true);  // GPT2LMHeadModel ties lm_head to wte
  c.attention_bias = c.o_proj_bias = c.mlp_bias = true;       // Conv1D layers all carry a bias
  c.rms_norm_eps = r.positive_number("layer_norm_epsilon", 1e-5);
  if (c.hidden % c.heads != 0)
    throw input_error(r.file, "n_head", std::to_string(c.heads) + " does not divide n_embd " + std::to_string(c.hidden));
  c.head_dim = c.hidden / c.heads;
}

}  // namespace

std::int64_t model_config::parameters() const {
  const std::int64_t h = hidden, q = heads * head_dim, kv = kv_heads * head_dim, f = intermediate;
  const std::int64_t table = vocab * h;
  if (family == "gpt2") {
    const std::int64_t per_layer = 2 * h                 // ln_1 weight + bias
                                   + h * 3 * q + 3 * q   // c_attn
                                   + q * h + h           // attn.c_proj
                                   + 2 * h               // ln_2
                                   + h * f + f           // mlp.c_fc
                                   + f * h + h;          // mlp.c_proj
    return table + max_positions * h + layers * per_layer + 2 * h + (tied_embeddings ? 0 : table);
  }
  std::int64_t attn = h * q + 2 * h * kv + q * h;
  if (attention_bias) attn += q + 2 * kv;
  if (o_proj_bias) attn += h;
  std::int64_t mlp = 3 * h * f;
  if (mlp_bias) mlp += 2 * f + h;
  const std::int64_t per_layer = attn + mlp + 2 * h;  // input + post-attention RMSNorm weights
  return table + layers * per_layer + h + (tied_embeddings ? 0 : table);
}

model_config parse_model_config(const std::string& text, const std::string& file) {
  json j;
  try {
    j = json::parse(text);
  } catch (const json::exception& e) {  // parse_error, or out_of_range for a number that overflows a double
    throw input_error(file, "", std::string("not valid JSON: ") + e.what());
  }
  if (!j.is_object()) throw input_error(file, "", "a config.json must be a JSON object");
  const reader r{j, file};
  model_config c;
  c.source = file;
  c.model_type = r.string("model_type");
  c.name = stem_of(file);  // "tinyllama-1.1b"; a file named config.json takes its _name_or_path
  if (c.name == "config" && r.has("_name_or_path") && j.at("_name_or_path").is_string())
    c.name = j.at("_name_or_path").get<std::string>();
  if (c.model_type == "llama" || c.model_type == "mistral" || c.model_type == "qwen2")
    parse_llama_family(r, c);
  else if (c.model_type == "gpt2")
    parse_gpt2(r, c);
  else
    throw input_error(file, "model_type", "'" + c.model_type + "' is not supported (llama, mistral, qwen2, gpt2)");
  return c;
}

model_config load_model_config(const std::string& path) { return parse_model_config(read_file(path), path); }

}  // namespace roofline
