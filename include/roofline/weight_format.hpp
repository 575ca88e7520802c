// Weight formats of linear layers: bits per weight with their scales, from each format's definition.
// One table (weight_formats()) serves the CLI (--weights, --group-size) and the config reader
// (quantization_config). Formulas and sources: docs/formulas-model.md §2.1.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace roofline {

/// How a format's scales are laid over a [k × n] weight (k = in features, n = out features).
enum class scale_layout {
  none,     ///< no scale (fp32, fp16, bf16)
  tensor,   ///< one scale per tensor
  channel,  ///< one scale per output channel (n scales)
  group,    ///< one scale per `group` consecutive inputs of one output channel (n·⌈k/g⌉ scales)
  block,    ///< one scale per g×g tile (⌈k/g⌉·⌈n/g⌉ scales; DeepSeek-V3's 128×128)
};
std::string to_string(scale_layout s);

/// One row of the format table: a weight format as its definition lays it out.
struct weight_format {
  const char* name;        ///< "int4", the --weights value
  int bits;                ///< bits per stored element
  scale_layout layout;     ///< default scale layout
  std::int64_t group;      ///< default group (group: inputs per scale; block: tile side); 0 when not grouped
  int scale_bits;          ///< bits per scale
  int zero_bits;           ///< bits of a zero point stored beside each scale (0 = symmetric)
  int tensor_scale_bits;   ///< a second-level scale per tensor (NVFP4: one fp32), 0 = none
  bool group_fixed;        ///< the group is part of the format (NVFP4 16, MXFP4 32): --group-size refused
  const char* scale_type;  ///< "fp16", "FP8 E4M3", "E8M0", "fp32"
  const char* source;      ///< the definition it follows
};

/// Every format roofline counts, one row each: fp32, fp16, bf16, fp8, int8, int4, nvfp4, mxfp4, nf4.
const std::vector<weight_format>& weight_formats();
/// The row named `name`; nullptr when there is none.
const weight_format* find_weight_format(const std::string& name);
/// The names of the table, "fp32, fp16, …" (for error messages and --help).
std::string weight_format_names();

/// A resolved weight format: a table row with the layout and group a config or the CLI chose.
struct weight_quant {
  std::string format = "fp16";  ///< a weight_formats() name
  int bits = 16;
  scale_layout layout = scale_layout::none;
  std::int64_t group = 0;
  int scale_bits = 0, zero_bits = 0, tensor_scale_bits = 0;
  /// bitsandbytes double quantization: the scales are themselves quantized to scale_bits, with one
  /// fp32 second-level scale per `super_group` scales (bitsandbytes: 256). 0 = none.
  std::int64_t super_group = 0;
  int super_scale_bits = 0;
  /// Bytes per input row stored beside the weight (GPTQ with desc_act: the int32 g_idx), 0 = none.
  int row_index_bytes = 0;
  std::string method;  ///< "awq", "gptq", "fp8", "compressed-tensors", … or "" (plain dtype / --weights)
  /// "int4 g128, fp16 scale + 4-bit zero" — what a table prints beside the op.
  std::string label() const;
  bool quantized() const { return layout != scale_layout::none; }
};

/// The format row `name` at its defaults (a plain dtype: no scales). `group` overrides the default
/// group: a positive number, "channel" or "tensor" (--group-size). Throws input_error naming
/// `field` for an unknown name, a group the format does not take (NVFP4, MXFP4, the plain dtypes),
/// or a group that is not a positive integer, channel or tensor.
weight_quant weight_quant_of(const std::string& name, const std::string& group = "",
                             const std::string& field = "--weights");

/// An activation dtype (--dtype: fp32, fp16, bf16, fp8, int8 and their aliases) as a weight
/// format: 8·dtype_bytes bits, no scales. Throws input_error("--dtype").
weight_quant plain_weights(const std::string& dtype);

/// Bytes of one [k × n] weight (k inputs, n outputs) in `q`: elements k·n·bits/8 + scales (+ zero
/// points) + second-level scales + per-row indices. fp16 4096×4096: 33,554,432 B; int4 g128 with a
/// 4-bit zero: 4096·4096·4/8 + 4096·32·(16 + 4)/8 = 8,716,288 B (4.156 bits per weight).
double weight_tensor_bytes(const weight_quant& q, std::int64_t k, std::int64_t n);
/// Effective bits per weight of a [k × n] weight: weight_tensor_bytes · 8 ÷ (k·n).
double bits_per_weight(const weight_quant& q, std::int64_t k, std::int64_t n);

/// How a model's linear layers are stored: the format of the quantized linears, the modules a
/// checkpoint keeps unconverted, and where that came from.
struct weight_scheme {
  weight_quant linear;     ///< the quantized linears' format (format = the activation dtype when none)
  bool quantized = false;  ///< false: every weight in the activation dtype (--dtype)
  /// Module names (HuggingFace, as modules_to_not_convert / ignore / exclude_modules list them:
  /// "lm_head", "model.layers.*.self_attn", "re:…") left in the activation dtype.
  std::vector<std::string> not_converted;
  /// lm_head quantized like the linears (GPTQModel `lm_head: true`, compressed-tensors targets
  /// listing it). Default false: every method here leaves lm_head unquantized unless it says so.
  bool lm_head_quantized = false;
  std::string method;  ///< quant_method of the config, or "" for --weights
  std::string source;  ///< "quantization_config (awq) of FILE" | "--weights int4" | ""
  std::string note;    ///< what was overridden or assumed, in words
};

/// The scheme a step uses: `--weights` (with `--group-size`) when given, overriding the config's
/// and saying so in .note; else the config's; else every weight in `dtype`. Throws input_error
/// ("--weights", "--group-size").
weight_scheme resolve_weight_scheme(const weight_scheme& from_config, const std::string& dtype,
                                    const std::string& weights, const std::string& group_size);

/// True when a module list entry names the module at `path` ("model.layers.3.self_attn.q_proj"):
/// the entry (with `*` matching one dotted component, or "re:" a regular expression) matches a
/// whole run of the path's dotted components — "lm_head", "gate" (not gate_proj),
/// "model.layers.*.self_attn" — as transformers' modules_to_not_convert and compressed-tensors'
/// ignore are applied.
bool module_matches(const std::string& entry, const std::string& path);

}  // namespace roofline
