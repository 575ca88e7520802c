// Transformer model configs (HuggingFace config.json) and the op catalogue: every op of a forward
// (or training) step with its FLOPs and bytes. Formulas and their sources: docs/formulas-model.md.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "roofline/json_fwd.hpp"
#include "roofline/op_shapes.hpp"
#include "roofline/weight_format.hpp"

namespace roofline {

/// A decoder-only transformer, read from a HuggingFace config.json.
struct model_config {
  std::string name;    ///< e.g. "TinyLlama-1.1B"
  std::string source;  ///< file it came from
  std::string family;  ///< "llama" (llama/mistral/qwen2: RMSNorm, SwiGLU, RoPE) | "gpt2" (LayerNorm, GELU, learned pos)
  /// What the count leaves out or assumes, in words ("" when nothing): a multimodal wrapper (gemma3,
  /// llama4) counts its text decoder only, and says that its vision tower is not counted.
  std::string note;
  std::int64_t hidden = 0, intermediate = 0, layers = 0, heads = 0, kv_heads = 0, vocab = 0;
  std::int64_t head_dim = 0;          ///< hidden / heads unless the config says otherwise
  std::int64_t max_positions = 0;
  /// The longest context the config is built for (check_positions): max_position_embeddings, or the
  /// context its rope_scaling extends to (yarn, llama3: max(max_position_embeddings, original ×
  /// factor); linear, dynamic: max_position_embeddings × factor; longrope: max_position_embeddings).
  /// Qwen3-8B with the card's YaRN (factor 4, original 32768): 131072. docs/formulas-model.md §5.3.
  std::int64_t context_limit = 0;
  std::string context_limit_source;  ///< how context_limit was found, in words
  /// Keys the config leaves out that the family's transformers config class defaults, each in words
  /// ("num_key_value_heads = 8 (MistralConfig's default; absent)"): `ops` and `mfu` print them.
  std::vector<std::string> defaults_used;
  bool tied_embeddings = false;
  bool attention_bias = false;        ///< q/k/v biases (qwen2: true; gpt2: all linears have bias)
  bool mlp_bias = false;
  bool o_proj_bias = false;           ///< llama: attention_bias also biases o_proj; qwen2: no; gpt2: yes
  double rms_norm_eps = 1e-5;
  /// config.json model_type (llama | mistral | qwen2 | gpt2 | ...); a multimodal wrapper gives its
  /// text model's type (gemma3 -> gemma3_text, llama4 -> llama4_text).
  std::string model_type;
  std::int64_t sliding_window = 0;    ///< attention window (keys per query); 0 = full attention
  std::int64_t sliding_layers = 0;    ///< how many layers use the window (mistral: all; gemma2: every other)
  /// Chunked attention (llama4 attention_chunk_size on its RoPE layers): the sequence is cut into
  /// aligned chunks of `attention_chunk` tokens and a query attends only within its own chunk.
  std::int64_t attention_chunk = 0;   ///< 0 = none
  std::int64_t chunked_layers = 0;    ///< how many layers attend in chunks (Llama-4: 3 of every 4)
  std::int64_t nope_layers = 0;       ///< layers without RoPE (llama4 no_rope_layers 0 entries: the global layers)
  // Mixture of experts (mixtral, qwen2_moe, qwen3_moe): each of the `moe_layers` MoE layers has
  // `experts` SwiGLU experts of width `expert_intermediate`, a router [hidden × experts], and sends
  // each token to `experts_per_token` of them; the other layers use the dense `intermediate` MLP.
  std::int64_t experts = 0, experts_per_token = 0;  ///< 0 = dense
  std::int64_t expert_intermediate = 0;
  std::int64_t shared_expert_intermediate = 0;  ///< qwen2_moe, llama4: one always-on expert beside the routed ones
  bool shared_expert_gate = false;  ///< qwen2_moe: the shared expert's output is gated by sigmoid(x·w), w [h × 1]; llama4, deepseek: no gate
  bool expert_bias = false;     ///< gpt_oss: router bias [E], each expert's gate/up bias [2f] and down bias [h]
  double swiglu_limit = 0;      ///< gpt_oss: clamped SwiGLU (gate ≤ limit, |up| ≤ limit, (up + 1)·gate·σ(1.702·gate)); 0 = plain SwiGLU
  std::int64_t moe_layers = 0;
  bool qk_norm = false;         ///< qwen3, gemma3: RMSNorm over head_dim on q and k (2·head_dim weights per layer)
  bool qk_l2_norm = false;      ///< llama4 use_qk_norm: weightless L2 norm over head_dim on q and k of the RoPE layers
  bool attn_temperature = false;  ///< llama4 attn_temperature_tuning: q × a per-position scale on the NoPE layers
  bool attention_sinks = false;   ///< gpt_oss: one learned logit per head joins each softmax (H weights per layer)
  bool scaled_embedding = false;  ///< gemma2, gemma3: the gathered embeddings × sqrt(hidden_size)
  bool gelu_mlp = false;        ///< gemma2, gemma3: GeGLU (tanh GELU on the gate) instead of SwiGLU
  bool fused_projections = false;  ///< phi3: one qkv_proj [h × (H+2G)·d] and one gate_up_proj [h × 2f]
  bool sandwich_norms = false;  ///< gemma2, gemma3: RMSNorm before and after attention and the MLP (4 per layer)
  double attn_softcap = 0, final_softcap = 0;  ///< gemma2: c·tanh(x/c) on the scores / the logits
  /// The checkpoint's linear-layer format, from its quantization_config (weights.quantized false
  /// without one: every weight in the activation dtype). docs/formulas-model.md §2.1.
  weight_scheme weights;
  // DeepSeek-V2/V3 (deepseek_v2, deepseek_v3). Multi-head latent attention (MLA, DeepSeek-V2,
  // arXiv:2405.04434 §2.1): kv_lora_rank > 0. The query goes h → q_lora_rank (q_a_proj, RMSNorm
  // q_a_layernorm) → heads·head_dim (q_b_proj), or h → heads·head_dim directly when q_lora_rank is 0;
  // kv_a_proj_with_mqa maps h → kv_lora_rank + qk_rope_head_dim (the latent c_KV, RMSNorm
  // kv_a_layernorm, and one shared RoPE key), kv_b_proj kv_lora_rank → heads·(qk_nope + v_head_dim),
  // o_proj heads·v_head_dim → h. head_dim = qk_nope_head_dim + qk_rope_head_dim (the q·k width).
  std::int64_t q_lora_rank = 0, kv_lora_rank = 0;  ///< 0 = no low-rank query / not MLA
  std::int64_t qk_rope_head_dim = 0, v_head_dim = 0;
  bool router_bias = false;         ///< deepseek_v3 topk_method noaux_tc: e_score_correction_bias [experts]
  bool router_sigmoid = false;      ///< scoring_func sigmoid (deepseek_v3) instead of a softmax over experts
  /// num_nextn_predict_layers: DeepSeek-V3's multi-token-prediction module (README_WEIGHTS.md: 11.5B
  /// parameters beside the 671B main model, used for speculative decoding only). Not counted by
  /// parameters() nor built into the catalogue: read and reported, never mixed into the main model.
  std::int64_t nextn_layers = 0;
  bool mla() const { return kv_lora_rank > 0; }

  /// Exact parameter count (TinyLlama-1.1B: 1,100,048,384; Llama-2-7B: 6,738,415,616;
  /// Mixtral-8x7B: 46,702,792,704 with every expert; Qwen3-8B 8,190,735,360; Qwen3-30B-A3B
  /// 30,532,122,624; Qwen1.5-MoE-A2.7B 14,315,784,192; Gemma-2-9B 9,241,705,984; Phi-3-mini
  /// 3,821,079,552; Gemma-3-1B 999,885,952; Gemma-3-27B text decoder 27,009,346,304; Llama-4-Scout
  /// text 107,769,861,120; Llama-4-Maverick text 400,711,848,960; gpt-oss-20b 20,914,757,184;
  /// gpt-oss-120b 116,829,156,672).
  std::int64_t parameters() const;
  /// DeepSeek-V3 (deepseek-ai/DeepSeek-V3 config.json, its quantization_config removed):
  /// 671,026,419,200 (the paper's 671B; the MTP module excluded).
  /// Parameters of one routed expert: gate, up and down [3·h·f] (+ gpt_oss biases 2f + h).
  std::int64_t expert_parameters() const;
  /// Parameters one token uses: parameters() less the (experts − experts_per_token) experts it is
  /// not routed to (Mixtral-8x7B: 12,879,925,248; gpt-oss-120b 5,711,982,912, of which the
  /// 579,133,440 of the embedding table: OpenAI's 5.13B active leaves the table out). Dense: parameters().
  std::int64_t active_parameters() const;
  /// The layers that attend to the full context (layers − sliding_layers − chunked_layers).
  std::int64_t full_attention_layers() const { return layers - sliding_layers - chunked_layers; }
};

/// Reads a HuggingFace config.json. Throws input_error naming the file and field on a missing or
/// invalid field, an unsupported model_type, or a field that changes the FLOPs or bytes and is not
/// modelled for that model_type (MoE keys on a dense family, quantization_config, an
/// activation_function or hidden_act other than the family's, sliding-window or soft-capping keys
/// the family does not honour). A gemma3 / llama4 multimodal config is counted from its
/// `text_config` (errors name "text_config.KEY"), with `note` saying the vision tower is not counted.
model_config load_model_config(const std::string& path);
model_config parse_model_config(const std::string& text, const std::string& file);
/// Resolves a model NAME (a file under models/, e.g. "tinyllama-1.1b") or a path to a config.json.
std::string resolve_model_path(const std::string& name_or_path);
/// The names of the shipped models (models/*.json stems).
std::vector<std::string> shipped_models();

/// Reads a HuggingFace `quantization_config` block (the value, not the whole config.json) of `file`:
/// awq (bits, group_size, zero_point), gptq (bits, group_size, desc_act, sym), fp8 (fmt e4m3,
/// weight_block_size), compressed-tensors (config_groups[].weights num_bits/type/strategy/group_size,
/// ignore), mxfp4 (modules_to_not_convert), modelopt (quant_algo FP8 / NVFP4, group_size,
/// ignore / exclude_modules), bitsandbytes (load_in_4bit: nf4/fp4, blocksize 64, double quant;
/// load_in_8bit). Throws input_error naming `file` and "quantization_config.<key>" for a method that
/// is not modelled (naming it), a missing or invalid key, or a bit width no table row has.
weight_scheme parse_quantization_config(const json& q, const std::string& file);

struct catalogue_options {
  phase ph = phase::decode;
  std::int64_t batch = 1;
  std::int64_t seq = 2048;      ///< prefill / train sequence length
  std::int64_t context = 2048;  ///< decode: KV-cache length
  std::string dtype = "fp16";   ///< weights and activations
  std::string kv_dtype;         ///< "" = same as dtype
  /// Linear-layer weights (--weights): a weight_formats() name, "" = the config's quantization_config,
  /// else `dtype`. Activations stay `dtype`. `group_size` (--group-size): a positive integer,
  /// "channel" or "tensor"; "" = the format's default.
  std::string weights, group_size;
  bool fused_attention = true;  ///< prefill attention: fused (Flash) or naive
  bool causal_halved = true;    ///< causal mask halves attention FLOPs (printed either way)
  bool recompute = false;       ///< training: activation recompute (HFU counts it)
  bool fused_silu_mul = false;  ///< SwiGLU: one silu_mul op instead of silu then mul
  /// Norms as one-pass kernels (the row kept on chip: x read once, w once, y written) instead of
  /// the two-pass convention (x read twice). `roofline run` sets it: its kernels are one-pass.
  bool one_pass_norms = false;
  /// Tensor-parallel ranks (Megatron-LM, Shoeybi et al. 2019 §3): the catalogue is one GPU's share:
  /// q/k/v, gate/up column-parallel (heads/tp, intermediate/tp), o/down row-parallel, lm_head
  /// vocab-parallel (ceil(vocab/tp)); norms, residuals and the embedding gather replicated. K/V heads
  /// are split when tp divides them and replicated (one per GPU) when they divide tp (vLLM).
  /// Throws input_error("--tp") when tp does not divide the query heads or the intermediate size, or
  /// neither tp nor the KV heads divides the other.
  int tp = 1;
  /// Expert-parallel ranks (MoE only; 1 or tp): each of the tp GPUs holds E/ep routed experts whole
  /// instead of 1/tp of every expert. Attention and the dense layers stay tensor parallel, so the
  /// tokens are on every GPU after the attention all-reduce: the dispatch is local and the combine is
  /// the MLP all-reduce (vLLM --enable-expert-parallel with tensor-parallel attention). A GPU runs the
  /// expected T·k/ep routed rows and reads its expected distinct local experts,
  /// (E/ep)·(1 − (1 − k/E)^T), under uniform routing. Throws input_error("--ep") unless the model is
  /// MoE, ep ∈ {1, tp} and ep divides the routed experts.
  int ep = 1;
  /// Prefill: logits of each sequence's last position only (a server's TTFT: lm_head [B × h]·[h × V]
  /// instead of [B·n × h]·[h × V]); false: every position, as training computes them.
  bool last_logits = false;
  /// MLA attention (model_config::mla()): absorbed or naive (docs/formulas-model.md, MLA). automatic:
  /// absorbed in decode, naive in prefill and training.
  enum class mla_form { automatic, absorbed, naive } mla = mla_form::automatic;
};
/// "absorbed" | "naive" | "automatic".
std::string to_string(catalogue_options::mla_form f);
/// The form `f` resolves to in phase `ph`: automatic → absorbed (decode) or naive (prefill, train).
catalogue_options::mla_form resolve_mla_form(catalogue_options::mla_form f, phase ph);

/// Every op of one step of `cfg` under `opt`, in execution order, one entry per distinct op (its
/// `count` says how many times it runs per step: the layer count for per-layer ops, 1 for the
/// embedding, final norm and lm_head). Tokens per step T = batch (decode) or batch·seq.
/// llama family: embed_tokens, input_norm, q_proj, k_proj, v_proj, rope, attention, o_proj,
/// attn_residual, post_attention_norm, gate_proj, up_proj, silu + mul (or silu_mul), down_proj,
/// mlp_residual, final_norm, lm_head. gpt2: wte, wpe, embed_add, ln_1, c_attn, attention,
/// attn_c_proj, attn_residual, ln_2, c_fc, gelu, mlp_c_proj, mlp_residual, ln_f, lm_head.
/// train: the forward ops, then `*.recompute` copies of the per-layer ops when opt.recompute, then
/// the backward ops in reverse (backward = true; a linear becomes `*.grad_input` and
/// `*.grad_weight` GEMMs with their own m/n/k). Formulas: docs/formulas-model.md.
/// Sliding-window layers get their own attention op ("attention_sliding" when some layers are full,
/// else "attention"): decode reads min(context, window) cached tokens, prefill/train score at most
/// `window` keys per query. MoE layers (mixtral): router GEMM [T×h]·[h×E], router_softmax over E,
/// then expert_gate_proj / expert_up_proj / expert_down_proj as grouped GEMMs over the T·k routed
/// rows that read the weights of the expected distinct experts (expected_distinct_experts), and
/// moe_combine. Train: a `loss` op (log-softmax + cross-entropy over T × vocab, PyTorch
/// F.cross_entropy) after lm_head, whose backward writes the logits' gradient.
/// Linear layers read their weights in the step's weight_scheme (step_weights): the quantized
/// format, except lm_head (unless the scheme quantizes it) and the modules the checkpoint leaves
/// unconverted, which stay in `dtype`; the embedding table is a gather in `dtype`. Each GEMM's note
/// says which. Training with weights other than `dtype` is refused ("--weights").
/// Throws input_error naming --batch, --seq, --context, --dtype, --kv-dtype, --weights,
/// --group-size or --tp on a bad option.
std::vector<op_desc> build_catalogue(const model_config& cfg, const catalogue_options& opt);

/// The model's linear layers and decode attention as the decode step runs them at each batch in
/// `rows` (each m ≥ 1): for every distinct weight N × K among the step's plain GEMMs (one weight per
/// instance, weights in `base.dtype`: quantized and grouped GEMMs are left out), one gemm op per m
/// with name the linears of that shape in catalogue order ("k_proj, v_proj"); then for every
/// distinct decode attention shape (heads, kv_heads, head_dim, kv_len), one attention_decode op per
/// m. Phase decode, batch m; ordered by shape (first seen) then m. What a GPU's gemm/rows and
/// gemm/decode-attention probes measure (probe_options::model_decode_ops). Throws what
/// build_catalogue throws.
std::vector<op_desc> decode_probe_ops(const model_config& cfg, catalogue_options base, const std::vector<std::int64_t>& rows);

/// The weight scheme of a step: resolve_weight_scheme(cfg.weights, opt.dtype, opt.weights, opt.group_size).
weight_scheme step_weights(const model_config& cfg, const catalogue_options& opt);

/// The format of one catalogue linear (`op`: q_proj, …, lm_head, expert_gate_proj, router) under
/// `scheme`, and in `why` the reason when it is not the scheme's linear format (lm_head kept in the
/// activation dtype; a module the checkpoint lists as not converted). The op is matched to its
/// transformers module path (model.layers.N.self_attn.q_proj, model.layers.N.mlp.experts…) against
/// scheme.not_converted with module_matches; an entry that matches some layers of an op but not
/// others is refused (input_error naming the file and the entry): the catalogue counts one format per op.
weight_quant linear_format(const model_config& cfg, const weight_scheme& scheme, const std::string& dtype,
                           const std::string& op, std::string* why = nullptr);

// ---- backward-pass and optimizer ops, one op at a shape (docs/formulas-model.md §5, "Training step
// ops"): the training catalogue builds its backward pass from these, and the trace reader costs a
// framework's backward and optimizer kernels with the same functions ----

/// The backward of one elementwise, norm, softmax or RoPE forward op (`forward` from elementwise_op
/// or rope_op): 2 × the forward FLOPs; reads the saved input(s) and dY, writes one gradient per
/// input: silu, gelu, softmax (and log-softmax): 2 reads + 1 write of rows·cols·b; mul, silu_mul: 3
/// reads + 2 writes; rmsnorm: x, dY and w read, dx and dw written; layernorm: dx, dw and db written;
/// rope: the inverse rotation, the forward's FLOPs and bytes. Name: forward's + ".bwd". TinyLlama
/// prefill 2048 tokens, silu over 5632 fp16: 92,274,688 FLOP, 46,137,344 B read, 23,068,672 written.
op_desc elementwise_backward_op(const op_desc& forward);
/// The backward of one attention forward op (attention_op). Reads q, k, v, out, dO and the fp32
/// log-sum-exp (batch·heads·q_len·4 B), writes dq, dk, dv. Fused (FlashAttention backward, Dao et
/// al. 2022 §3.1 and appendix B): 2.5 × the forward FLOPs (S = QKᵀ recomputed, then dV, dP, dQ, dK:
/// five matmuls against the forward's two). Naive: 2 × the forward FLOPs, and the scores P, dP, dS
/// materialised (5 reads + 2 writes of batch·heads·q_len·kv_len·b, no log-sum-exp).
op_desc attention_backward_op(const op_desc& forward);
/// The backward of an embedding gather (embedding_op): dY's rows scatter-added into the table's
/// gradient: rows·cols FLOPs (adds); reads dY, the table-gradient rows and the ids
/// (2·rows·cols·b + rows·8), writes the rows (rows·cols·b).
op_desc embedding_backward_op(const op_desc& forward);

/// The optimizers a training step's update runs (PyTorch torch.optim, whose documentation gives
/// each algorithm in pseudo-code; the FLOPs per element below count its per-element arithmetic).
enum class optimizer_kind { sgd, sgd_momentum, adam, adamw };
std::string to_string(optimizer_kind k);
/// Per parameter element: sgd p −= lr·g: 2; sgd_momentum buf = μ·buf + g, p −= lr·buf: 4; adam
/// m = β1·m + (1−β1)·g 3, v = β2·v + (1−β2)·g² 4, denom = √v ÷ √bc2 + ε 3, p −= (lr ÷ bc1)·m ÷ denom
/// 3: 13; adamw adds the decoupled decay p ·= (1 − lr·λ): 14. Weight decay in sgd/adam (L2, g += λ·p)
/// adds 2 and is not counted (the trace does not say whether it is on).
double optimizer_flops_per_element(optimizer_kind k);
/// State tensors per parameter: sgd 0, sgd_momentum 1 (the momentum buffer), adam/adamw 2 (m, v).
int optimizer_states(optimizer_kind k);
/// One optimizer update of `elements` parameters: reads the parameters, gradients and states, writes
/// the parameters and states (adamw, bf16 params/grads/states: 7 × 2 B = 14 B per element;
/// Qwen2.5-0.5B's 494,032,768 parameters: 6.92 GB, 6.92 GFLOP). Throws input_error on elements < 0
/// or a byte size < 1.
op_desc optimizer_op(optimizer_kind k, const std::string& name, double elements, int param_bytes, int grad_bytes,
                     int state_bytes);

// ---- per-token helpers (docs/formulas-model.md §5) ----

/// Weights of every matrix multiply one token goes through (lm_head included; embedding gathers,
/// norms and biases excluded): the N of "2N FLOPs per token" as this catalogue counts its GEMMs.
/// MoE: the experts_per_token routed experts and the router [hidden × experts], not every expert.
std::int64_t matmul_parameters(const model_config& cfg);

/// Keys a query attends to on average in a sequence of t tokens under a window of `window` keys
/// (0 = none): full convention min(t, W); causal-halved Σ_i min(i, W) ÷ t, = (t+1)/2 without a
/// window. Mistral-7B, t = 32768, W = 4096, halved: (4096·4097/2 + 28672·4096) ÷ 32768 = 3840.06.
/// `chunk` > 0 (chunked attention, window ignored): the t tokens fall into n = t ÷ C whole chunks and
/// a last one of r = t mod C; a query sees only its own chunk: halved (n·C(C+1)/2 + r(r+1)/2) ÷ t,
/// full (n·C² + r²) ÷ t (Llama-4, t = 16384, C = 8192, halved: 4096.5).
double attended_keys_per_query(std::int64_t t, std::int64_t window, bool causal_halved, std::int64_t chunk = 0);

/// One kind of attention layer of a model: how many layers attend with which window. The one place
/// the per-layer windows (mistral/phi3 sliding_window on every layer, gemma2 every other layer,
/// gemma3 5 local : 1 global, gpt_oss alternating, qwen2/qwen3 use_sliding_window above
/// max_window_layers, `layer_types`, llama4 chunked RoPE layers beside global NoPE layers) become
/// arithmetic: the catalogue's attention ops (every phase), attention_flops_per_token and
/// kv_cache_bytes all read it.
struct attention_layer_group {
  std::string name;         ///< catalogue op name: "attention", or "attention_sliding" / "attention_chunked" beside full layers
  std::int64_t window = 0;  ///< keys per query at most (sliding); 0 = the whole context (global)
  std::int64_t layers = 0;  ///< layers of this kind
  std::int64_t chunk = 0;   ///< chunked attention: a query sees only its aligned chunk of `chunk` tokens; 0 = none
};
/// Full-context layers first, then sliding-window layers, then chunked layers; groups with no layers
/// are left out. Gemma-2-9B: {attention, 0, 21}, {attention_sliding, 4096, 21}; Llama-4-Scout:
/// {attention, 0, 12}, {attention_chunked, 0, 36, chunk 8192}.
std::vector<attention_layer_group> attention_layer_groups(const model_config& cfg);
/// Cached tokens a decode query reads (and the cache keeps) in a layer of `window` (0 = all) at a
/// KV context of `context` tokens: min(context, window). Gemma-2 at 8192: global 8192, local 4096.
/// `chunk` > 0 (chunked layer): context mod chunk, the earlier tokens of the query's own chunk
/// (Llama-4 at 100000, chunk 8192: 1696; 0 when the query opens a new chunk).
std::int64_t decode_keys(std::int64_t context, std::int64_t window, std::int64_t chunk = 0);

/// Attention FLOPs per token: 4·H·Q·Σ_layers T_eff (QKᵀ and A·V), ×3 in training. T_eff: decode
/// decode_keys() of each layer group; prefill/train T (full convention) or T/2 (causal-halved), and
/// on sliding or chunked layers attended_keys_per_query.
/// MLA (cfg.mla()): 2·H·(d_qk + d_v)·Σ_layers T_eff with d_qk = qk_nope + qk_rope, d_v = v_head_dim
/// in the naive form, d_qk = kv_lora_rank + qk_rope, d_v = kv_lora_rank in the absorbed form; naive
/// decode adds kv_b_proj on every cached latent, 2·C·kv_lora_rank·H·(qk_nope + v_head_dim) per layer.
/// DeepSeek-V3 decode at C = 4096, per layer: absorbed 1,140,850,688; naive 137,774,497,792.
double attention_flops_per_token(const model_config& cfg, phase ph, std::int64_t seq_or_context, bool causal_halved,
                                 catalogue_options::mla_form mla = catalogue_options::mla_form::automatic);

/// Throws input_error ("--context" decode, else "--seq") when t tokens exceed the model's position
/// table (gpt2 n_positions) or trained context (max_position_embeddings): docs/formulas-model.md §5.3.
void check_positions(const model_config& cfg, phase ph, std::int64_t t);

/// One GPU's share of `cfg` under `tp`-way tensor parallelism (catalogue_options::tp): heads / tp,
/// K/V heads / tp when tp divides them, else one (replicated), intermediate and expert widths / tp
/// (experts kept whole with `ep` = tp). MLA's latent cache is shared by the heads and stays whole.
/// The one place the KV share per GPU is decided: the catalogue's attention, estimate_memory and
/// sequences_that_fit all read it. Throws input_error("--tp") as catalogue_options::tp says,
/// ("--ep") as catalogue_options::ep says.
model_config tp_shard(const model_config& cfg, int tp, int ep = 1);

/// KV cache one GPU keeps for one sequence of `context` tokens: kv_cache_bytes(tp_shard(cfg, tp)).
/// Llama-3.1-70B (8 KV heads) bf16 at tp 8: 1/8 of 2·80·8·128·2 B per token; DeepSeek-V3 (MLA) at
/// tp 8: the whole 61·576·2 = 70,272 B per token on every GPU.
double kv_cache_bytes_per_gpu(const model_config& cfg, int kv_dtype_bytes, std::int64_t context, int tp);

/// The named conventions of model FLOPs per token (docs/formulas-model.md §5). The defaults are the
/// ones `roofline ops` and `roofline mfu` both use: N = matmul weights, attention causal-halved.
struct flops_convention {
  /// N: matmul = matmul_parameters() (PaLM, Chowdhery et al. 2022, appendix B; Megatron-LM,
  /// Narayanan et al. 2021 §5.1: the embedding gather does no FLOPs); all = active_parameters().
  enum class params { matmul, all } n = params::matmul;
  /// Prefill/train attention: the causal triangle, T/2 keys per query on average (what a causal
  /// kernel computes; numerically Kaplan et al. 2020 §2.1's 2·n_layer·n_ctx·d_attn forward), or
  /// full T² (PaLM appendix B's 12·L·H·Q·T). Decode has no mask: one query sees all C keys.
  bool causal_halved = true;
  /// MLA models: the attention form counted (automatic: absorbed in decode, naive otherwise).
  catalogue_options::mla_form mla = catalogue_options::mla_form::automatic;
  /// Prefill: the logits of the last position only (catalogue_options::last_logits): lm_head counts
  /// 2·V·h once per sequence, 2·V·h ÷ T per token, instead of 2·V·h per token.
  bool last_logits = false;
};

/// Model FLOPs per token under one convention, each term and the words that say which.
struct token_flops {
  flops_convention convention;
  phase ph = phase::decode;
  std::int64_t tokens = 0;   ///< T (prefill/train sequence) or C (decode KV context)
  double n = 0;              ///< N, parameters
  double weights = 0;        ///< 2N (forward) or 6N (train)
  double attention = 0;      ///< attention_flops_per_token()
  double total = 0;          ///< weights + attention
  /// FLOPs full activation recompute adds (train): each layer's forward again, not the embedding or
  /// the logits, 2·(N_matmul − V·h) + attention ÷ 3 (Korthikanti et al. 2022 §4). HFU counts them.
  double recompute = 0;
  /// FLOPs Megatron-LM's selective recompute adds (train; --recompute-activations, Korthikanti et al.
  /// 2022 §5: the core attention, QKᵀ, softmax and A·V, is recomputed): the forward attention term.
  double recompute_selective = 0;
  std::string formula;       ///< "6N + 6·L·H·Q·T" (+ the sliding window when there is one)
  std::string description;   ///< what N and the attention term count, with sources
};

/// Model FLOPs per token (the one model `ops` and `mfu` use): 2·N + attention (prefill, decode),
/// 6·N + 3 × forward attention (train). Llama-3-8B train, T = 4096, defaults: 6 × 7,504,658,432 +
/// 6·32·32·128·4096 = 48.25 GFLOP; full attention 51.47 GFLOP. Sliding-window layers count min(T, W)
/// keys (Mistral-7B train T = 32768, full: 4.91e10 instead of 9.42e10). Throws input_error when
/// seq_or_context < 1.
token_flops model_flops_per_token(const model_config& cfg, phase ph, std::int64_t seq_or_context,
                                  flops_convention conv = {});

/// FLOPs per token that activation recomputation adds in training (HFU's numerator beyond MFU's), by
/// `policy` (the `--recompute` words):
///  - "none": 0;
///  - "full": every layer's forward again, token_flops::recompute (Korthikanti et al. 2022 §4);
///  - "selective": Megatron-LM's --recompute-activations (Korthikanti et al. 2022 §5): the core
///    attention (QKᵀ, softmax, A·V) again, token_flops::recompute_selective = the forward attention;
///  - "selective-layer[:N]": torchtitan's selective_ac_option N (its default, "2"): every N-th layer
///    fully recomputed, ⌊L/N⌋/L of "full";
///  - "selective-op": torchtitan's selective_ac_option "op": every second matmul of a layer is
///    recomputed, SDPA saved (llama: k_proj, o_proj, up_proj = 2·(h·G·d + H·d·h + h·f) per layer).
/// Llama-3-8B at T = 4096: full 2·(7,504,658,432 − 128256·4096) + 2·32·32·128·4096; selective
/// 2·32·32·128·4096 = 1,073,741,824. Throws input_error("--recompute") on another word, a phase
/// other than train, or selective-op on a model whose per-op policy is not modelled (MoE, MLA).
double recompute_flops_per_token(const model_config& cfg, const token_flops& f, const std::string& policy);
void to_json(json& j, const token_flops& f);

/// Bytes one token adds to the KV cache: 2 (K and V) · layers · kv_heads · head_dim · kv_dtype_bytes
/// (TinyLlama-1.1B fp16: 2·22·4·64·2 = 22,528 B). MLA caches the latent and the RoPE key instead:
/// layers · (kv_lora_rank + qk_rope_head_dim) · kv_dtype_bytes (DeepSeek-V3 bf16: 61·576·2 = 70,272 B).
double kv_cache_bytes_per_token(const model_config& cfg, int kv_dtype_bytes);

/// KV cache of one sequence of `context` tokens: each layer keeps its decode_keys() (sliding-window
/// layers the last sliding_window tokens: Mistral-7B fp16, 32768 tokens: 0.537 GB, not 4.29 GB;
/// chunked layers the tokens of the current chunk).
double kv_cache_bytes(const model_config& cfg, int kv_dtype_bytes, std::int64_t context);

/// Expected number of distinct experts a batch of `tokens` tokens routes to, each token picking
/// `per_token` of `experts` uniformly at random: E·(1 − (1 − k/E)^B) (uniform routing assumed; real
/// routers are skewed, which lowers it). Mixtral (E 8, k 2): B = 1 → 2, B = 4 → 5.47, B = 64 → 8.0.
double expected_distinct_experts(std::int64_t experts, std::int64_t per_token, std::int64_t tokens);

// ---- capacity (docs/formulas-model.md §8) ----

/// Device memory one GPU needs for a step, in bytes.
struct memory_need {
  double weights = 0, kv_cache = 0, activations = 0, optimizer = 0;  ///< optimizer: gradients + Adam state
  /// The linears' share of `weights` on this GPU (every layer, every resident expert, in their
  /// formats): what a decode step reads when it touches every weight once.
  double linear_weights = 0;
  std::string note;
  std::string weights_note;  ///< the formats the weights are counted in ("linears int4 g128 …; lm_head, embedding fp16")
  double total() const { return weights + kv_cache + activations + optimizer; }
};
/// weights = this GPU's linears as the catalogue shards them (build_catalogue at opt.tp, opt.ep:
/// every layer, every resident expert, each weight_tensor_bytes of its linear_format: replicated K/V
/// heads counted on every GPU, MLA's projections in the checkpoint's format) + the other parameters
/// (embedding table, norms, biases) × dtype bytes ÷ tp; KV cache = batch × kv_cache_bytes_per_gpu(
/// context + 1 in decode, seq in prefill); inference activations = the
/// largest op's non-weight, non-cache bytes in `ops` (one build_catalogue result); training adds
/// 14 B/parameter of gradients and Adam state (ZeRO §3.1) and the saved activations of Korthikanti
/// et al. 2022 eq. 2-3 (2·s·b·h per layer with full recompute) plus the logits and their gradient.
/// Llama-3-8B decode, batch 1024 × context 8192, fp16: KV 1.10 TB, weights 16.1 GB.
memory_need estimate_memory(const model_config& cfg, const catalogue_options& opt, const std::vector<op_desc>& ops);

/// Decode sequences of opt.context tokens whose KV cache fits in `device_bytes` beside `need`'s
/// weights and activations: ⌊(device − weights − activations) ÷ kv_cache_bytes_per_gpu(context + 1,
/// opt.tp)⌋, 0 when the weights alone do not fit (DeepSeek-V3 fp8 at tp 8, batch 16, context 32768:
/// 24 in 141e9 B, 28 in the 150,109,880,320 B an H200 reports; the latent cache whole on every GPU). Quantized weights leave
/// more room: Llama-3-8B in 80e9 B at context 8192: fp16 weights (16.06 GB) 59 sequences,
/// int4 g128 (5.73 GB) 69.
std::int64_t sequences_that_fit(const model_config& cfg, const catalogue_options& opt, const memory_need& need,
                                double device_bytes);

/// `roofline run` executes every op with its own kernels, weights in the ops' dtype (fp32, fp16,
/// bf16). Returns `cfg` with every weight in that dtype, or throws input_error naming the format it
/// has no kernel for: "--weights" (int4, nvfp4, mxfp4, nf4, fp8, int8, or a dtype other than
/// `dtype`), or the config's "quantization_config" (unless --weights names `dtype`, which overrides
/// it; `note` then says so). `dtype` "" = the backend's default (checked against fp32/fp16/bf16 only).
model_config runnable_weights(model_config cfg, const std::string& dtype, const std::string& weights, std::string& note);

// ---- fusion (docs/formulas-model.md §6) ----

/// One fused alternative to a sequence of ops in a catalogue, per instance (× count per step).
struct fusion_saving {
  std::string name;         ///< "silu_mul", "rmsnorm_one_pass", "silu_in_gate_epilogue", "add_into_norm", "flash_attention"
  std::string description;  ///< what is fused and why it moves fewer bytes
  std::string ops;          ///< the catalogue ops it replaces, e.g. "silu + mul"
  std::int64_t count = 1;   ///< instances per step
  double bytes_before = 0, bytes_after = 0;  ///< per instance
  /// The kernels before and after, per instance (their bytes sum to bytes_before / bytes_after): the
  /// time saved is predicted per kernel, floor and latency included (docs/formulas-analysis.md §7.4).
  std::vector<op_desc> before_ops, after_ops;
  double bytes_saved() const { return bytes_before - bytes_after; }
  double fraction_saved() const { return bytes_before > 0 ? bytes_saved() / bytes_before : 0; }
};

/// The fused alternatives that apply to `ops` (one build_catalogue result): SiLU then mul → silu_mul
/// (5 tensors → 3: −40%); two-pass → one-pass RMSNorm (3 tensors → 2); SiLU in the gate GEMM's
/// epilogue (the SiLU pass disappears); residual add into the next RMSNorm (6 tensors → 4);
/// FlashAttention vs naive prefill attention (the 6 passes over the scores disappear).
std::vector<fusion_saving> fusion_savings(const std::vector<op_desc>& ops);

// ---- decode batch sweep (docs/formulas-model.md §7) ----

/// One linear op of a decode step at one batch.
struct batch_point {
  std::string name;  ///< q_proj, ..., lm_head
  std::int64_t batch = 1;
  std::int64_t m = 0, n = 0, k = 0;
  double flops = 0, bytes = 0;
  double weight_bytes = 0;  ///< the weight operand's bytes (weight_tensor_bytes), part of `bytes`
  std::string weights;      ///< its format
  double intensity() const { return bytes > 0 ? flops / bytes : 0; }
};

/// Every distinct linear op of one decode step (m = batch) at batch = powers of two from b0 to b1
/// (b0 and b1 themselves included). Throws input_error("--batch") unless 1 ≤ b0 ≤ b1.
std::vector<batch_point> linear_batch_sweep(const model_config& cfg, std::int64_t b0, std::int64_t b1,
                                            int dtype_bytes);
/// The same with the step's dtype and weight format (opt.dtype, opt.weights, opt.group_size; the
/// config's quantization_config): each linear's weight bytes from linear_format.
std::vector<batch_point> linear_batch_sweep(const model_config& cfg, std::int64_t b0, std::int64_t b1,
                                            const catalogue_options& opt);

/// Smallest batch B at which a decode linear [B×k]·[k×n] reaches intensity `ridge` (FLOP/B):
/// I(B) = 2·B·k·n / (b·(B·k + k·n + B·n)), so B = R·b·k·n / (2·k·n − R·b·(k + n)), rounded up.
/// nullopt when it never does (R ≥ 2·k·n / (b·(k + n)), the B → ∞ limit).
std::optional<std::int64_t> knee_batch(std::int64_t k, std::int64_t n, int dtype_bytes, double ridge);
/// The same with weights of `weight_bytes` bytes per element (scales included: weight_tensor_bytes ÷
/// k·n) and activations of `dtype_bytes`: I(B) = 2·B·k·n / (a·B·(k + n) + w·k·n), so
/// B = R·w·k·n / (2·k·n − R·a·(k + n)). Fewer weight bytes lower the knee in proportion: k = n =
/// 4096, R = 300, fp16 activations: fp16 weights → 352; int4 g128 (w = 0.51953125) → 92; mxfp4 → 94.
std::optional<std::int64_t> knee_batch(std::int64_t k, std::int64_t n, int dtype_bytes, double weight_bytes, double ridge);

// ---- tensor-parallel all-reduce (docs/fleet.md, "Tensor-parallel all-reduce per layer") ----

/// One all-reduce of Megatron-style tensor parallelism (Shoeybi et al. 2019, "Megatron-LM", §3 and
/// Fig. 4): per transformer layer, one all-reduce of the activations after the attention block (the
/// row-parallel o_proj) and one after the MLP (the row-parallel down_proj) in the forward pass;
/// training adds the two conjugate all-reduces of the backward pass (4 per layer).
struct tp_allreduce_op {
  std::string name;   ///< attention_allreduce | mlp_allreduce (+ _backward in training)
  double bytes = 0;   ///< message = batch × tokens × hidden × dtype bytes
  std::int64_t count = 0;  ///< instances per step (= layers)
  double predicted_s = 0;  ///< per instance: bytes × 2(tp−1)/tp / bus_bandwidth (+ latency)
};
struct tp_allreduce_plan {
  int tp = 1;
  std::int64_t tokens = 0;  ///< batch × seq (decode: batch × 1)
  std::vector<tp_allreduce_op> ops;
  double bytes_per_layer = 0, seconds_per_layer = 0, seconds_per_step = 0;
  std::string note;  ///< e.g. "tp = 1: no all-reduce"
};
/// The tensor-parallel all-reduces of one step of `cfg`: decode moves batch × 1 tokens per
/// sequence, prefill and train batch × seq. `bus_bandwidth` is the measured all-reduce busbw (B/s)
/// at tp ranks (the nccl-tests convention, fleet.hpp); `dtype` the activation type ("fp16": 2 bytes).
/// TinyLlama-1.1B (hidden 2048, 22 layers), prefill batch 1 × seq 2048, fp16: 2 × 2048 × 2048 × 2 B
/// = 16 MiB per layer.
/// Throws input_error for tp < 1, batch or seq < 1, bus_bandwidth ≤ 0 (when tp > 1).
tp_allreduce_plan tp_allreduce_ops(const model_config& cfg, phase ph, std::int64_t batch, std::int64_t seq,
                                   int tp, double bus_bandwidth, const std::string& dtype = "fp16",
                                   double latency_s = 0);

}  // namespace roofline
