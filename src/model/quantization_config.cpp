// parse_quantization_config: a HuggingFace config.json's quantization_config block → the format of
// the model's linear layers (a row of weight_formats() with the config's group and scales) and the
// modules it leaves unconverted. Keys follow transformers' quantizer configs (AwqConfig, GPTQConfig,
// FineGrainedFP8Config, Mxfp4Config, BitsAndBytesConfig), compressed-tensors' QuantizationArgs and
// TensorRT Model Optimizer's export (docs/formulas-model.md §2.1).
#include <fmt/format.h>

#include "roofline/error.hpp"
#include "roofline/json.hpp"
#include "roofline/model.hpp"
#include "roofline/weight_format.hpp"

namespace roofline {

namespace {

struct qreader {
  const json& q;
  const std::string& file;
  std::string field(const char* key) const { return std::string("quantization_config.") + key; }
  bool has(const char* key) const { return q.contains(key) && !q.at(key).is_null(); }
  std::int64_t integer(const char* key, std::int64_t fallback) const {
    if (!has(key)) return fallback;
    if (!q.at(key).is_number_integer())
      throw input_error(file, field(key), "must be an integer, got " + q.at(key).dump());
    return q.at(key).get<std::int64_t>();
  }
  bool boolean(const char* key, bool fallback) const {
    if (!has(key)) return fallback;
    if (!q.at(key).is_boolean()) throw input_error(file, field(key), "must be true or false, got " + q.at(key).dump());
    return q.at(key).get<bool>();
  }
  std::string string(const char* key, const std::string& fallback) const {
    if (!has(key)) return fallback;
    if (!q.at(key).is_string()) throw input_error(file, field(key), "must be a string, got " + q.at(key).dump());
    return q.at(key).get<std::string>();
  }
  std::vector<std::string> names(const char* key) const {
    std::vector<std::string> out;
    if (!has(key)) return out;
    const json& v = q.at(key);
    if (!v.is_array()) throw input_error(file, field(key), "must be a list of module names, got " + v.dump());
    for (const auto& e : v) {
      if (!e.is_string()) throw input_error(file, field(key), "must be a list of module names, got " + e.dump());
      out.push_back(e.get<std::string>());
    }
    return out;
  }
};

weight_quant row(const char* name) { return weight_quant_of(name); }

/// An integer format of `bits` in groups of `group` (-1 or 0: per output channel).
weight_quant integer_groups(const qreader& r, const char* bits_key, std::int64_t bits, std::int64_t group,
                            const char* group_key) {
  weight_quant w;
  if (bits == 4)
    w = row("int4");
  else if (bits == 8)
    w = row("int8"), w.scale_bits = 16, w.zero_bits = 8;
  else
    throw input_error(r.file, r.field(bits_key),
                      fmt::format("{}-bit weights have no row in the format table ({})", bits, weight_format_names()));
  if (group == -1 || group == 0) {
    w.layout = scale_layout::channel, w.group = 0;
  } else if (group > 0) {
    w.layout = scale_layout::group, w.group = group;
  } else {
    throw input_error(r.file, r.field(group_key), fmt::format("must be positive or -1 (per channel), got {}", group));
  }
  return w;
}

weight_scheme awq(const qreader& r) {
  weight_scheme s;
  // AwqConfig: bits 4, group_size 128, zero_point true (AutoAWQ GEMM: qzeros packed at `bits`)
  const std::int64_t bits = r.integer("bits", r.integer("w_bit", 4));
  s.linear = integer_groups(r, "bits", bits, r.integer("group_size", r.integer("q_group_size", 128)), "group_size");
  s.linear.zero_bits = r.boolean("zero_point", true) ? int(bits) : 0;
  s.not_converted = r.names("modules_to_not_convert");
  return s;
}

weight_scheme gptq(const qreader& r) {
  weight_scheme s;
  // GPTQConfig: bits, group_size (-1: per channel), desc_act, sym. AutoGPTQ's QuantLinear stores
  // qzeros packed at `bits` per group whether sym or not, and g_idx (int32 per input row).
  const std::int64_t bits = r.integer("bits", 4);
  s.linear = integer_groups(r, "bits", bits, r.integer("group_size", 128), "group_size");
  s.linear.zero_bits = int(bits);
  s.linear.row_index_bytes = 4;
  (void)r.boolean("desc_act", false),
      (void)r.boolean("sym", true);                   // checked for type; the stored tensors are the same
  s.lm_head_quantized = r.boolean("lm_head", false);  // GPTQModel: lm_head quantized too
  s.not_converted = r.names("modules_to_not_convert");
  return s;
}

weight_scheme fp8(const qreader& r) {
  weight_scheme s;
  // FineGrainedFP8Config (DeepSeek-V3): fmt e4m3, weight_block_size [128, 128], fp32 weight_scale_inv
  const std::string f = r.string("fmt", "e4m3");
  if (f != "e4m3") throw input_error(r.file, r.field("fmt"), "'" + f + "' is not modelled (FP8 E4M3 weights)");
  s.linear = row("fp8");
  if (r.has("weight_block_size")) {
    const json& b = r.q.at("weight_block_size");
    if (!b.is_array() || b.size() != 2 || !b[0].is_number_integer() || !b[1].is_number_integer() || b[0] != b[1] ||
        b[0].get<std::int64_t>() <= 0)
      throw input_error(r.file, r.field("weight_block_size"), "must be a square block [N, N], got " + b.dump());
    s.linear.layout = scale_layout::block, s.linear.group = b[0].get<std::int64_t>();
  }
  s.not_converted = r.names("modules_to_not_convert");
  for (const auto& m : r.names("ignored_layers")) s.not_converted.push_back(m);
  return s;
}

weight_scheme mxfp4(const qreader& r) {
  weight_scheme s;  // Mxfp4Config (gpt-oss): the modules it lists stay in bf16
  s.linear = row("mxfp4");
  s.not_converted = r.names("modules_to_not_convert");
  return s;
}

weight_scheme modelopt(const qreader& r) {
  weight_scheme s;
  const std::string algo = r.string("quant_algo", "");
  if (algo == "FP8") {
    s.linear = row("fp8");  // ModelOpt FP8: one fp32 weight scale per tensor
  } else if (algo == "NVFP4" || algo == "W4A16_NVFP4") {
    s.linear = row("nvfp4");
    const std::int64_t g = r.integer("group_size", 16);
    if (g != 16) throw input_error(r.file, r.field("group_size"), fmt::format("NVFP4 groups 16 elements, got {}", g));
  } else {
    throw input_error(r.file, r.field("quant_algo"),
                      "'" + algo + "' is not modelled (modelopt FP8, NVFP4, W4A16_NVFP4)");
  }
  s.not_converted = r.names("ignore");
  for (const auto& m : r.names("exclude_modules")) s.not_converted.push_back(m);
  return s;
}

weight_scheme bitsandbytes(const qreader& r) {
  weight_scheme s;
  if (r.boolean("load_in_4bit", false)) {
    // BitsAndBytesConfig: bnb_4bit_quant_type nf4 | fp4, blocksize 64 (not a config key), double quant
    const std::string t = r.string("bnb_4bit_quant_type", "fp4");
    if (t != "nf4" && t != "fp4")
      throw input_error(r.file, r.field("bnb_4bit_quant_type"), "'" + t + "' is not nf4 or fp4");
    s.linear = row("nf4");  // fp4 has the same layout: 4 bits + fp32 absmax per 64
    if (t == "fp4") s.linear.format = "bnb-fp4";
    if (r.boolean("bnb_4bit_use_double_quant", false))
      s.linear.scale_bits = 8, s.linear.super_group = 256, s.linear.super_scale_bits = 32;
  } else if (r.boolean("load_in_8bit", false)) {
    s.linear = row("int8");  // LLM.int8(): int8 rows, fp32 SCB per output channel
  } else {
    throw input_error(r.file, r.field("load_in_4bit"), "neither load_in_4bit nor load_in_8bit is true");
  }
  s.not_converted = r.names("llm_int8_skip_modules");
  return s;
}

/// compressed-tensors (llm-compressor): every config group must quantize weights the same way.
weight_scheme compressed_tensors(const qreader& r) {
  if (!r.has("config_groups") || !r.q.at("config_groups").is_object() || r.q.at("config_groups").empty())
    throw input_error(r.file, r.field("config_groups"), "missing: compressed-tensors lists its schemes there");
  weight_scheme s;
  bool first = true;
  for (const auto& [name, g] : r.q.at("config_groups").items()) {
    const std::string field = "quantization_config.config_groups." + name + ".weights";
    if (!g.is_object() || !g.contains("weights") || !g.at("weights").is_object())
      throw input_error(r.file, field, "missing: a group without weights quantizes no weight");
    const json& w = g.at("weights");
    const qreader wr{w, r.file};
    const std::int64_t bits = wr.integer("num_bits", 0);
    const std::string type = wr.string("type", "int"), strategy = wr.string("strategy", "tensor");
    const std::int64_t group = wr.integer("group_size", 0);
    weight_quant q;
    if (bits == 4 && type == "float" && (strategy == "tensor_group" || strategy == "group") && group == 16) {
      q = row("nvfp4");
    } else if (bits == 4 && type == "float" && group == 32) {
      q = row("mxfp4");
    } else if ((bits == 4 || bits == 8) && type == "int") {
      q = integer_groups(wr, "num_bits", bits, strategy == "group" ? group : -1, "group_size");
      if (strategy == "tensor") q.layout = scale_layout::tensor, q.group = 0;
      q.scale_bits = 16;  // weight_scale stored in the model dtype
      q.zero_bits = wr.boolean("symmetric", true) ? 0 : int(bits);
    } else if (bits == 8 && type == "float") {
      q = row("fp8");
      q.scale_bits = 16;  // weight_scale stored in the model dtype
      if (strategy == "channel")
        q.layout = scale_layout::channel;
      else if (strategy == "block") {
        const json* b = w.contains("block_structure") ? &w.at("block_structure") : nullptr;
        if (!b || !b->is_array() || b->size() != 2 || (*b)[0] != (*b)[1] || !(*b)[0].is_number_integer())
          throw input_error(r.file, field + ".block_structure", "must be a square block [N, N]");
        q.layout = scale_layout::block, q.group = (*b)[0].get<std::int64_t>(), q.scale_bits = 32;
      } else if (strategy != "tensor") {
        throw input_error(r.file, field + ".strategy",
                          "'" + strategy + "' is not modelled for fp8 (tensor, channel, block)");
      }
    } else {
      throw input_error(r.file, field,
                        fmt::format("{}-bit {} weights ({}) have no row in the format table ({})", bits, type, strategy,
                                    weight_format_names()));
    }
    q.method = "compressed-tensors";
    if (!first && q.label() != s.linear.label())
      throw input_error(r.file, "quantization_config.config_groups",
                        fmt::format("groups quantize weights differently ({} and {}): mixed schemes are not modelled",
                                    s.linear.label(), q.label()));
    s.linear = q, first = false;
    if (g.contains("targets") && g.at("targets").is_array())
      for (const auto& t : g.at("targets"))
        if (t == "lm_head") s.lm_head_quantized = true;
  }
  s.not_converted = r.names("ignore");
  return s;
}

}  // namespace

weight_scheme parse_quantization_config(const json& q, const std::string& file) {
  if (!q.is_object()) throw input_error(file, "quantization_config", "must be an object, got " + q.dump());
  const qreader r{q, file};
  const std::string method =
      r.string("quant_method", q.contains("load_in_4bit") || q.contains("load_in_8bit") ? "bitsandbytes" : "");
  weight_scheme s;
  if (method == "awq")
    s = awq(r);
  else if (method == "gptq")
    s = gptq(r);
  else if (method == "fp8")
    s = fp8(r);
  else if (method == "mxfp4")
    s = mxfp4(r);
  else if (method == "modelopt")
    s = modelopt(r);
  else if (method == "bitsandbytes")
    s = bitsandbytes(r);
  else if (method == "compressed-tensors")
    s = compressed_tensors(r);
  else
    throw input_error(file, "quantization_config.quant_method",
                      "'" + method +
                          "' is not modelled (awq, gptq, fp8, compressed-tensors, mxfp4, modelopt, bitsandbytes): "
                          "its bytes per weight are unknown");
  s.quantized = true;
  s.method = s.linear.method = method;
  s.source = fmt::format("quantization_config ({}) of {}", method, file);
  return s;
}

}  // namespace roofline
