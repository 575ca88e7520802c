// The weight-format table and the bytes of one linear weight in a format (docs/formulas-model.md
// §2.1). Every byte count of a linear's weights goes through weight_tensor_bytes.
#include "roofline/weight_format.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <regex>

#include "roofline/error.hpp"
#include "roofline/op_shapes.hpp"

namespace roofline {

std::string to_string(scale_layout s) {
  switch (s) {
    case scale_layout::none:
      return "none";
    case scale_layout::tensor:
      return "per tensor";
    case scale_layout::channel:
      return "per channel";
    case scale_layout::group:
      return "per group";
    case scale_layout::block:
      return "per block";
  }
  return "?";
}

const std::vector<weight_format>& weight_formats() {
  using L = scale_layout;
  static const std::vector<weight_format> rows = {
      {"fp32", 32, L::none, 0, 0, 0, 0, false, "-", "IEEE 754-2019 binary32"},
      {"fp16", 16, L::none, 0, 0, 0, 0, false, "-", "IEEE 754-2019 binary16"},
      {"bf16", 16, L::none, 0, 0, 0, 0, false, "-", "bfloat16: 8-bit exponent, 7-bit mantissa (Kalamkar et al. 2019)"},
      {"fp8", 8, L::tensor, 0, 32, 0, 0, false, "fp32",
       "FP8 E4M3 (Micikevicius et al. 2022, \"FP8 Formats for Deep Learning\"); one fp32 scale per tensor "
       "(Transformer Engine, compressed-tensors strategy tensor), per output channel, or per 128×128 block "
       "(DeepSeek-V3 Technical Report §3.3.2: weight_block_size [128, 128], fp32 weight_scale_inv)"},
      {"int8", 8, L::channel, 0, 32, 0, 0, false, "fp32",
       "int8 with one fp32 absmax scale per output channel (Dettmers et al. 2022, \"LLM.int8()\" §3; "
       "bitsandbytes Int8Params.SCB)"},
      {"int4", 4, L::group, 128, 16, 4, 0, false, "fp16",
       "int4 in groups of 128 inputs, one fp16 scale and one 4-bit zero point per group (AWQ, Lin et al. 2024; "
       "GPTQ, Frantar et al. 2023: AutoAWQ/AutoGPTQ store qweight packed 8 per int32, scales fp16 [k/g × n], "
       "qzeros packed 4-bit [k/g × n])"},
      {"nvfp4", 4, L::group, 16, 8, 0, 32, true, "FP8 E4M3",
       "NVFP4: E2M1 elements, one FP8 E4M3 scale per 16 elements and one fp32 scale per tensor (NVIDIA, "
       "\"Introducing NVFP4 for Efficient and Accurate Low-Precision Inference\", 2025; TensorRT Model Optimizer)"},
      {"mxfp4", 4, L::group, 32, 8, 0, 0, true, "E8M0",
       "MXFP4: E2M1 elements, one E8M0 (power-of-two) scale per block of 32 (OCP Microscaling Formats (MX) "
       "Specification v1.0, 2023, §5 Table 1)"},
      {"nf4", 4, L::group, 64, 32, 0, 0, false, "fp32",
       "4-bit NormalFloat, one fp32 absmax per block of 64 (Dettmers et al. 2023, \"QLoRA\" §3; bitsandbytes "
       "blocksize 64); with double quantization the absmax is 8-bit with one fp32 per 256 blocks: "
       "4 + 8/64 + 32/(64·256) = 4.127 bits (QLoRA §3)"},
  };
  return rows;
}

const weight_format* find_weight_format(const std::string& name) {
  for (const auto& f : weight_formats())
    if (name == f.name) return &f;
  return nullptr;
}

std::string weight_format_names() {
  std::string s;
  for (const auto& f : weight_formats()) s += (s.empty() ? "" : ", ") + std::string(f.name);
  return s;
}

std::string weight_quant::label() const {
  switch (layout) {
    case scale_layout::none:
      return format;
    case scale_layout::tensor:
      return fmt::format("{} (per-tensor {}-bit scale)", format, scale_bits);
    case scale_layout::channel:
      return fmt::format("{} (per-channel {}-bit scale)", format, scale_bits);
    case scale_layout::block:
      return fmt::format("{} ({}×{} blocks, {}-bit scale)", format, group, group, scale_bits);
    case scale_layout::group:
      break;
  }
  std::string s = fmt::format("{} g{} ({}-bit scale", format, group, scale_bits);
  if (zero_bits > 0) s += fmt::format(" + {}-bit zero", zero_bits);
  if (super_group > 0) s += fmt::format(", fp32 per {} scales", super_group);
  if (tensor_scale_bits > 0) s += fmt::format(", {}-bit per-tensor scale", tensor_scale_bits);
  return s + ")";
}

namespace {

weight_quant from_row(const weight_format& f) {
  weight_quant q;
  q.format = f.name, q.bits = f.bits, q.layout = f.layout, q.group = f.group;
  q.scale_bits = f.scale_bits, q.zero_bits = f.zero_bits, q.tensor_scale_bits = f.tensor_scale_bits;
  return q;
}

}  // namespace

weight_quant weight_quant_of(const std::string& name, const std::string& group, const std::string& field) {
  const weight_format* f = find_weight_format(name);
  if (!f) throw input_error("", field, fmt::format("'{}' is not a weight format ({})", name, weight_format_names()));
  weight_quant q = from_row(*f);
  if (group.empty()) return q;
  if (f->layout == scale_layout::none)
    throw input_error("", "--group-size", fmt::format("{} weights have no scales to group", name));
  if (f->group_fixed)
    throw input_error("", "--group-size",
                      fmt::format("{} fixes its group at {} elements ({})", name, f->group, f->source));
  if (group == "tensor") {
    q.layout = scale_layout::tensor, q.group = 0, q.zero_bits = 0;
  } else if (group == "channel") {
    q.layout = scale_layout::channel, q.group = 0;
  } else {
    std::int64_t g = 0;
    std::size_t used = 0;
    try {
      g = std::stoll(group, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used != group.size() || g <= 0)
      throw input_error("", "--group-size", fmt::format("'{}' is not a positive integer, channel or tensor", group));
    q.group = g;
    // fp8's grouped form is DeepSeek-V3's square block; the others group inputs of one output channel
    q.layout = name == "fp8" ? scale_layout::block : scale_layout::group;
  }
  return q;
}

weight_quant plain_weights(const std::string& dtype) {
  weight_quant q;
  q.format = dtype, q.bits = 8 * dtype_bytes(dtype);
  return q;
}

double weight_tensor_bytes(const weight_quant& q, std::int64_t k, std::int64_t n) {
  const double K = double(k), N = double(n);
  double bits = K * N * q.bits;
  const auto ceil_div = [](std::int64_t a, std::int64_t b) { return double((a + b - 1) / b); };
  double scales = 0;
  switch (q.layout) {
    case scale_layout::none:
      break;
    case scale_layout::tensor:
      scales = 1;
      break;
    case scale_layout::channel:
      scales = N;
      break;
    case scale_layout::group:
      scales = N * ceil_div(k, q.group);
      break;
    case scale_layout::block:
      scales = ceil_div(k, q.group) * ceil_div(n, q.group);
      break;
  }
  bits += scales * (q.scale_bits + (q.layout == scale_layout::tensor ? 0 : q.zero_bits));
  if (q.super_group > 0) bits += std::ceil(scales / double(q.super_group)) * q.super_scale_bits;
  bits += q.tensor_scale_bits;
  return bits / 8 + K * q.row_index_bytes;
}

double bits_per_weight(const weight_quant& q, std::int64_t k, std::int64_t n) {
  return weight_tensor_bytes(q, k, n) * 8 / (double(k) * double(n));
}

weight_scheme resolve_weight_scheme(const weight_scheme& from_config, const std::string& dtype,
                                    const std::string& weights, const std::string& group_size) {
  if (weights.empty()) {
    if (!group_size.empty()) throw input_error("", "--group-size", "applies to --weights (give --weights FORMAT)");
    if (from_config.quantized) return from_config;
    weight_scheme s;
    s.linear = plain_weights(dtype);
    return s;
  }
  weight_scheme s;
  s.linear = weight_quant_of(weights, group_size);
  s.quantized = s.linear.quantized() || weights != dtype;
  s.source = "--weights " + weights + (group_size.empty() ? "" : " --group-size " + group_size);
  if (from_config.quantized)
    s.note = fmt::format("--weights {} overrides the config's {} ({})", weights, from_config.linear.label(),
                         from_config.source);
  return s;
}

bool module_matches(const std::string& entry, const std::string& path) {
  if (entry.rfind("re:", 0) == 0) {  // compressed-tensors: a regular expression over the module name
    try {
      return std::regex_match(path, std::regex(entry.substr(3)));
    } catch (const std::regex_error&) {
      return false;
    }
  }
  auto split = [](const std::string& s) {
    std::vector<std::string> parts;
    std::size_t a = 0;
    while (true) {
      const std::size_t b = s.find('.', a);
      parts.push_back(s.substr(a, b == std::string::npos ? std::string::npos : b - a));
      if (b == std::string::npos) break;
      a = b + 1;
    }
    return parts;
  };
  const auto e = split(entry), p = split(path);
  if (e.empty() || e.size() > p.size()) return false;
  for (std::size_t start = 0; start + e.size() <= p.size(); ++start) {
    bool all = true;
    for (std::size_t i = 0; i < e.size() && all; ++i) all = e[i] == "*" || e[i] == p[start + i];
    if (all) return true;
  }
  return false;
}

}  // namespace roofline
