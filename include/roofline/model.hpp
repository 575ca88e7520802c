// Transformer model configs (HuggingFace config.json) and the op catalogue: every op of a forward
// (or training) step with its FLOPs and bytes. Formulas and their sources: docs/formulas.md.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "roofline/json.hpp"

namespace roofline {

/// A decoder-only transformer, read from a HuggingFace config.json.
struct model_config {
  std::string name;    ///< e.g. "TinyLlama-1.1B"
  std::string source;  ///< file it came from
  std::string family;  ///< "llama" (llama/mistral/qwen2: RMSNorm, SwiGLU, RoPE) | "gpt2" (LayerNorm, GELU, learned pos)
  std::int64_t hidden = 0, intermediate = 0, layers = 0, heads = 0, kv_heads = 0, vocab = 0;
  std::int64_t head_dim = 0;          ///< hidden / heads unless the config says otherwise
  std::int64_t max_positions = 0;
  bool tied_embeddings = false;
  bool attention_bias = false;        ///< q/k/v biases (qwen2: true; gpt2: all linears have bias)
  bool mlp_bias = false;
  double rms_norm_eps = 1e-5;

  /// Exact parameter count (TinyLlama-1.1B: 1,100,048,384; Llama-2-7B: 6,738,415,616).
  std::int64_t parameters() const;
};

/// Reads a HuggingFace config.json. Throws input_error naming the file and field on a missing or
/// invalid field or an unsupported model_type.
model_config load_model_config(const std::string& path);
model_config parse_model_config(const std::string& text, const std::string& file);
/// Resolves a model NAME (a file under models/, e.g. "tinyllama-1.1b") or a path to a config.json.
std::string resolve_model_path(const std::string& name_or_path);
/// The names of the shipped models (models/*.json stems).
std::vector<std::string> shipped_models();

enum class phase { decode, prefill, train };
std::string to_string(phase p);
phase parse_phase(const std::string& s);  ///< throws input_error

/// What kind of kernel an op is; backends implement each kind once.
enum class op_kind {
  gemm,             ///< C[m×n] = A[m×k]·B[k×n] (linear layers: m = tokens, k = in, n = out)
  add,              ///< z = x + y (residual)
  mul,              ///< z = x * y
  silu,             ///< y = x·sigmoid(x)
  silu_mul,         ///< y = silu(g) * u (fused SwiGLU activation)
  gelu,             ///< y = gelu(x) (tanh approximation)
  rmsnorm,          ///< y = x / rms(x) * w, per row of `cols`
  layernorm,        ///< y = (x - mean) / std * w + b, per row of `cols`
  softmax,          ///< row softmax over `cols`
  rope,             ///< rotary embedding applied to q and k in place
  embedding,        ///< gather `rows` rows of width `cols` from a [vocab × cols] table
  attention_decode, ///< one query token per sequence against a KV cache of `context` tokens
  attention_naive,  ///< prefill: S = QKᵀ written to memory, softmax, then S·V
  attention_fused,  ///< prefill: FlashAttention-style, scores never leave on-chip memory
};
std::string to_string(op_kind k);

/// One op instance of a step: its shape, FLOPs and bytes (per instance; `count` instances per step).
struct op_desc {
  std::string name;  ///< q_proj, k_proj, v_proj, o_proj, gate_proj, up_proj, down_proj, lm_head, ...
  op_kind kind = op_kind::add;
  phase ph = phase::decode;
  std::int64_t batch = 1, seq = 1, context = 0;
  // gemm: m × k times k × n. elementwise / norm / softmax / embedding: rows × cols.
  std::int64_t m = 0, n = 0, k = 0;
  std::int64_t rows = 0, cols = 0;
  // attention: per sequence, heads of head_dim; q_len queries against kv_len keys.
  std::int64_t heads = 0, kv_heads = 0, head_dim = 0, q_len = 0, kv_len = 0;
  bool causal = true;
  int dtype_bytes = 2;     ///< activations / weights
  int kv_dtype_bytes = 2;  ///< KV cache
  std::string dtype;       ///< "fp16", "bf16", "fp32"
  std::int64_t count = 1;  ///< instances per step (usually the layer count)
  double flops = 0, bytes_read = 0, bytes_written = 0;
  std::string shape;       ///< human readable shape
  double bytes() const { return bytes_read + bytes_written; }
  double intensity() const { return bytes() > 0 ? flops / bytes() : 0; }
};

struct catalogue_options {
  phase ph = phase::decode;
  std::int64_t batch = 1;
  std::int64_t seq = 2048;      ///< prefill / train sequence length
  std::int64_t context = 2048;  ///< decode: KV-cache length
  std::string dtype = "fp16";   ///< weights and activations
  std::string kv_dtype;         ///< "" = same as dtype
  bool fused_attention = true;  ///< prefill attention: fused (Flash) or naive
  bool causal_halved = true;    ///< causal mask halves attention FLOPs (printed either way)
  bool recompute = false;       ///< training: activation recompute (HFU counts it)
};

/// Every op of one step of `cfg` under `opt`, in execution order, one entry per distinct op (its
/// `count` says how many times it runs per step).
std::vector<op_desc> build_catalogue(const model_config& cfg, const catalogue_options& opt);

/// Bytes per element of a dtype name ("fp32" 4, "fp16"/"bf16" 2, "fp8"/"int8" 1). Throws input_error.
int dtype_bytes(const std::string& dtype);

}  // namespace roofline
