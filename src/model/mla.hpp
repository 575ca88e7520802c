// Multi-head latent attention (MLA) of DeepSeek-V2/V3: its weights, its catalogue ops and its
// per-token FLOPs (private to src/model/). Formulas and sources: docs/formulas-model.md, "MLA and
// DeepSeekMoE".
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "roofline/model.hpp"

namespace roofline::detail {

/// Weights of MLA's projections in one layer (norms excluded): q_a_proj h·q_lora + q_b_proj
/// q_lora·H·(qk_nope + qk_rope) (or q_proj h·H·(qk_nope + qk_rope) when q_lora_rank is 0) +
/// kv_a_proj_with_mqa h·(kv_lora + qk_rope) + kv_b_proj kv_lora·H·(qk_nope + v) + o_proj H·v·h.
/// DeepSeek-V3: 187,105,280 (DeepSeek-V2 §2.1, eq. 9-19).
std::int64_t mla_matmul_parameters(const model_config& cfg);

/// One MLA attention kernel of `batch` sequences, q_len queries each against kv_len keys (per layer).
///  - absorbed (DeepSeek-V2 §2.1.2, W_UK folded into the query and W_UV into the output): MQA over
///    the latent, every head sharing one key row of kv_lora + qk_rope elements whose first kv_lora
///    elements are also the value: d_qk = kv_lora + qk_rope, d_v = kv_lora, the cache read once
///    (batch·kv_len·(kv_lora + qk_rope)·kvb);
///  - naive: H heads of d_qk = qk_nope + qk_rope and d_v = v_head_dim over the up-projected keys and
///    values (batch·kv_len·(H·(qk_nope + v)·b + qk_rope·kvb): the RoPE key is shared by the heads).
/// FLOPs = batch·H·P·(2·d_qk + 2·d_v + 5), P the scored pairs as attention_op counts them (the
/// causal triangle when q_len = kv_len and causal_halved). Decode also writes the new token's latent
/// and RoPE key (batch·(kv_lora + qk_rope)·kvb); attention_naive writes and re-reads the scores as
/// attention_op does. op.head_dim = d_qk, op.v_head_dim = d_v, op.kv_heads = 1 (absorbed) or H.
op_desc mla_attention_op(const model_config& cfg, op_kind kind, bool absorbed, std::int64_t batch, std::int64_t q_len,
                         std::int64_t kv_len, int b, int kvb, bool causal_halved);

/// Builds one linear of the block in its weight format (the catalogue's one weight-format path,
/// linear_format): op `name` of m rows reading the weights of checkpoint module `module` ("q_absorb"
/// reads kv_b_proj's key rows), [m × in]·[in × out].
using mla_linear = std::function<op_desc(const std::string& name, const std::string& module, std::int64_t m,
                                         std::int64_t in, std::int64_t out)>;

/// The ops of one MLA attention block from the normed input to o_proj, in execution order, for
/// `tokens` rows (batch·q_len), `form` already resolved (absorbed or naive). Decode naive runs
/// kv_b_proj on the batch·kv_len cached latents every step. Every projection is built by `linear`
/// (its weights in the checkpoint's format: DeepSeek-V3's fp8 blocks are read as fp8); q_absorb and
/// v_absorb read kv_b_proj's weights in kv_b_proj's format, weight_bytes summed over the H groups.
/// Shapes: docs/formulas-model.md.
std::vector<op_desc> mla_attention_ops(const model_config& cfg, catalogue_options::mla_form form, op_kind kind,
                                       std::int64_t batch, std::int64_t q_len, std::int64_t kv_len, int b, int kvb,
                                       bool causal_halved, const mla_linear& linear);

/// MLA attention FLOPs of one token in one layer, forward, with `keys` the keys it attends to
/// (decode: the context C; prefill: T or T/2): 2·H·keys·(d_qk + d_v) with the form's widths; naive
/// decode adds kv_b_proj on the C − 1 other cached latents, 2·(C − 1)·kv_lora·H·(qk_nope + v) (the
/// token's own latent is in 2N).
double mla_attention_flops_per_layer(const model_config& cfg, phase ph, double keys, catalogue_options::mla_form form);

}  // namespace roofline::detail
