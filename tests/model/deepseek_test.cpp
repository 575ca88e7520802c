// DeepSeek-V3 from its real config.json (deepseek-ai/DeepSeek-V3 on HuggingFace, copied to
// tests/data/model/walk/deepseek-v3.json): MLA (DeepSeek-V2, arXiv:2405.04434 §2.1) and DeepSeekMoE
// (DeepSeek-V3, arXiv:2412.19437 §2.1), counted exactly and pinned against the published totals.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "roofline/error.hpp"
#include "roofline/io.hpp"
#include "roofline/json.hpp"
#include "roofline/model.hpp"

using namespace roofline;

namespace {

const std::string published = std::string(ROOFLINE_TEST_DATA) + "/model/walk/deepseek-v3.json";

/// The published config with one key removed (quantization_config): the model in bf16, as the parameter counts read it.
model_config without(const std::string& key, const std::string& extra_key = "", const json& extra = nullptr) {
  json j = json::parse(read_file(published));
  j.erase(key);
  if (!extra_key.empty()) j[extra_key] = extra;
  return parse_model_config(j.dump(), published);
}

model_config v3() { return without("quantization_config"); }

std::string refused_field(const std::string& text) {
  try {
    parse_model_config(text, "test.json");
  } catch (const input_error& e) {
    return e.field();
  }
  return "";
}

const op_desc& find(const std::vector<op_desc>& ops, const std::string& name) {
  const auto it = std::find_if(ops.begin(), ops.end(), [&](const op_desc& o) { return o.name == name; });
  if (it == ops.end()) throw std::runtime_error("no op " + name);
  return *it;
}
bool has(const std::vector<op_desc>& ops, const std::string& name) {
  return std::any_of(ops.begin(), ops.end(), [&](const op_desc& o) { return o.name == name; });
}

catalogue_options decode(std::int64_t batch, std::int64_t context) {
  catalogue_options o;
  o.ph = phase::decode, o.batch = batch, o.context = context, o.dtype = "bf16";
  return o;
}

}  // namespace

TEST(DeepSeekV3, PublishedConfigIsReadWithItsFp8BlockWeights) {
  // As published, quantization_config {quant_method fp8, fmt e4m3, weight_block_size [128, 128]}: the
  // linears are 8-bit with one fp32 scale per 128 × 128 block (docs/formulas-model.md §2.1); every
  // other key is the same model as without it (same parameters).
  const model_config c = load_model_config(published);
  EXPECT_TRUE(c.weights.quantized);
  EXPECT_EQ(c.weights.linear.format, "fp8");
  EXPECT_EQ(c.weights.linear.bits, 8);
  EXPECT_EQ(c.weights.method, "fp8");
  EXPECT_EQ(c.parameters(), v3().parameters());
}

TEST(DeepSeekV3, ParametersMatchThePaper) {
  const model_config c = v3();
  // Per layer, MLA (DeepSeek-V2 §2.1): q_a_proj 7168·1536 + q_a_layernorm 1536 + q_b_proj
  // 1536·128·192 + kv_a_proj_with_mqa 7168·576 + kv_a_layernorm 512 + kv_b_proj 512·128·256 +
  // o_proj 128·128·7168 = 187,107,328; 2 RMSNorms 2·7168. Dense MLP (layers 0-2): 3·7168·18432 =
  // 396,361,728. MoE (layers 3-60): 256 experts · 3·7168·2048 + 1 shared expert 3·7168·2048 + router
  // 7168·256 + e_score_correction_bias 256 = 11,320,164,608. Embedding and lm_head 2·129280·7168 +
  // final norm 7168. Total 671,026,419,200.
  EXPECT_EQ(c.parameters(), 671'026'419'200);
  // DeepSeek-V3 abstract and §1: "671B total parameters"; README_WEIGHTS.md: main model 671B, the
  // MTP module's 11.5B apart (HuggingFace's "685B" adds the MTP layer, 11,610,068,224 by this count,
  // its stored copies of the embedding and head, 1,853,358,080, and the fp8 scale tensors: ≈ 684.5B).
  // Tolerance 0.01%: the paper rounds to 1B; our count is 0.004% above it.
  EXPECT_NEAR(double(c.parameters()) / 671e9, 1.0, 1e-4);
  // Active: less 58 layers × 248 unrouted experts × 44,040,192 = 37,552,297,472 (the embedding table
  // in, as active_parameters() counts it). README_WEIGHTS.md: "36.6B (including 0.9B for the output
  // Head)", i.e. without the embedding gather: 37,552,297,472 − 129280·7168 = 36,625,618,432.
  EXPECT_EQ(c.active_parameters(), 37'552'297'472);
  EXPECT_NEAR(double(c.active_parameters() - c.vocab * c.hidden) / 36.6e9, 1.0, 1e-3);
  EXPECT_NEAR(double(c.active_parameters()) / 37e9, 1.0, 0.015);  // the paper's "37B activated", rounded
  // Matmul weights one token multiplies (2N of model FLOPs): MLA 187,105,280 per layer, 3 dense MLPs,
  // 58 × (8 routed + 1 shared expert + router), lm_head.
  EXPECT_EQ(matmul_parameters(c), 36'624'596'992);
}

TEST(DeepSeekV3, EveryFieldIsReadAsTheReferenceModelDoes) {
  const model_config c = v3();
  EXPECT_EQ(c.model_type, "deepseek_v3");
  EXPECT_EQ(c.layers, 61);
  EXPECT_EQ(c.moe_layers, 58);  // first_k_dense_replace 3, moe_layer_freq 1
  EXPECT_EQ(c.experts, 256);
  EXPECT_EQ(c.experts_per_token, 8);
  EXPECT_EQ(c.expert_intermediate, 2048);
  EXPECT_EQ(c.shared_expert_intermediate, 2048);  // n_shared_experts 1 × moe_intermediate_size
  EXPECT_FALSE(c.shared_expert_gate);
  EXPECT_TRUE(c.router_bias);     // topk_method noaux_tc
  EXPECT_TRUE(c.router_sigmoid);  // scoring_func sigmoid
  EXPECT_EQ(c.head_dim, 192);     // qk_nope 128 + qk_rope 64
  EXPECT_EQ(c.v_head_dim, 128);
  EXPECT_EQ(c.q_lora_rank, 1536);
  EXPECT_EQ(c.kv_lora_rank, 512);
  EXPECT_EQ(c.nextn_layers, 1);  // read, not counted in the main model
  // moe_layer_freq 2: MoE on the even layers from 3 on (4, 6, ..., 60): 29.
  EXPECT_EQ(without("quantization_config", "moe_layer_freq", 2).moe_layers, 29);
  // A key that would change the arithmetic and is not modelled is refused by name.
  json j = json::parse(read_file(published));
  j.erase("quantization_config");
  j["sliding_window"] = 4096;
  EXPECT_EQ(refused_field(j.dump()), "sliding_window");
  j.erase("sliding_window");
  j["n_group"] = 7;  // does not divide 256 experts
  EXPECT_EQ(refused_field(j.dump()), "n_group");
  j["n_group"] = 8, j["topk_method"] = "random";
  EXPECT_EQ(refused_field(j.dump()), "topk_method");
  // DeepSeek keys on a dense llama are refused, not ignored.
  EXPECT_EQ(refused_field(R"({"model_type": "llama", "hidden_size": 64, "intermediate_size": 128,
    "num_hidden_layers": 2, "num_attention_heads": 4, "vocab_size": 100, "first_k_dense_replace": 1})"),
            "first_k_dense_replace");
}

TEST(DeepSeekV3, KvCacheHoldsTheLatentAndTheRopeKey) {
  // Per token and layer: kv_lora_rank 512 + qk_rope_head_dim 64 = 576 elements; × 61 layers × 2 B
  // (bf16) = 70,272 B ≈ 70 KB per token (an MHA cache of the same heads, 2·128·192·61·2 B, would be
  // 5,996,544 B). DeepSeek-V2 §2.1.2 / Table 1: (d_c + d_h^R)·l elements.
  const model_config c = v3();
  EXPECT_DOUBLE_EQ(kv_cache_bytes_per_token(c, 2), 70'272);
  EXPECT_DOUBLE_EQ(kv_cache_bytes(c, 2, 4096), 4096.0 * 70'272);
}

TEST(DeepSeekV3, DecodeFlopsPerTokenAbsorbedAndNaive) {
  const model_config c = v3();
  using form = catalogue_options::mla_form;
  // C = 4096, per layer. Absorbed: 2·H·C·(d_qk + d_v) = 2·128·4096·(576 + 512) = 1,140,850,688.
  // Naive: 2·128·4096·(192 + 128) = 335,544,320 for the scores and A·V, plus kv_b_proj on the 4095
  // other cached latents, 2·4095·512·128·(128 + 128) = 137,405,399,040: 137,740,943,360.
  EXPECT_DOUBLE_EQ(attention_flops_per_token(c, phase::decode, 4096, true, form::absorbed), 61.0 * 1'140'850'688);
  EXPECT_DOUBLE_EQ(attention_flops_per_token(c, phase::decode, 4096, true, form::naive), 61.0 * 137'740'943'360);
  EXPECT_DOUBLE_EQ(attention_flops_per_token(c, phase::decode, 4096, true), 61.0 * 1'140'850'688);  // default: absorbed
  // One decode step per token: 2 × 36,624,596,992 + attention: absorbed 142,841,085,952 (142.8 GFLOP),
  // naive 8,475,446,738,944 (8.5 TFLOP: 59× more, all of it in kv_b_proj over the cache).
  const token_flops a =
      model_flops_per_token(c, phase::decode, 4096, {flops_convention::params::matmul, true, form::absorbed});
  const token_flops n =
      model_flops_per_token(c, phase::decode, 4096, {flops_convention::params::matmul, true, form::naive});
  EXPECT_DOUBLE_EQ(a.total, 142'841'085'952.0);
  EXPECT_DOUBLE_EQ(n.total, 8'475'446'738'944.0);
  EXPECT_NE(a.formula.find("absorbed"), std::string::npos);
  EXPECT_NE(n.formula.find("naive"), std::string::npos);
  // Prefill (naive by default), causal-halved at T = 4096: 2·128·2048·(192 + 128) per layer.
  EXPECT_DOUBLE_EQ(attention_flops_per_token(c, phase::prefill, 4096, true), 61.0 * 2 * 128 * 2048 * 320);
}

TEST(DeepSeekV3, DecodeCatalogueAbsorbedByDefault) {
  const model_config c = v3();
  const auto ops = build_catalogue(c, decode(1, 4096));
  const op_desc& att = find(ops, "attention");
  EXPECT_EQ(att.kv_heads, 1);  // MQA over the latent
  EXPECT_EQ(att.head_dim, 576);
  EXPECT_EQ(att.v_head_dim, 512);
  EXPECT_EQ(att.count, 61);
  // Reads q (128·576·2 B) and the latent cache once (4096·576·2 B); FLOPs 128·4096·(2·576 + 2·512 + 5).
  EXPECT_DOUBLE_EQ(att.bytes_read, 128.0 * 576 * 2 + 4096.0 * 576 * 2);
  EXPECT_DOUBLE_EQ(att.flops, 128.0 * 4096 * (2 * 576 + 2 * 512 + 5));
  EXPECT_NE(att.note.find("MLA form: absorbed"), std::string::npos);
  const op_desc& qa = find(ops, "q_absorb");  // 128 heads × [1×128]·[128×512]
  EXPECT_EQ(qa.groups, 128);
  EXPECT_DOUBLE_EQ(qa.flops, 128.0 * 2 * 128 * 512);
  EXPECT_DOUBLE_EQ(find(ops, "v_absorb").flops, 128.0 * 2 * 512 * 128);
  EXPECT_FALSE(has(ops, "kv_b_proj"));
  for (const char* name : {"q_a_proj", "q_a_layernorm", "q_b_proj", "kv_a_proj_with_mqa", "kv_a_layernorm", "o_proj"})
    EXPECT_TRUE(has(ops, name)) << name;
  EXPECT_EQ(find(ops, "q_b_proj").n, 128 * 192);
  EXPECT_EQ(find(ops, "kv_a_proj_with_mqa").n, 576);
  // Backends take neither the per-head GEMMs nor attention with two widths: `run` says so.
  EXPECT_NE(unrunnable_reason(qa), "");
  EXPECT_NE(unrunnable_reason(att), "");
  EXPECT_EQ(unrunnable_reason(find(ops, "o_proj")), "");
}

TEST(DeepSeekV3, NaiveDecodeUpProjectsTheWholeCache) {
  catalogue_options o = decode(2, 4096);
  o.mla = catalogue_options::mla_form::naive;
  const auto ops = build_catalogue(v3(), o);
  const op_desc& up = find(ops, "kv_b_proj");
  EXPECT_EQ(up.m, 2 * 4096);  // every cached latent of both sequences
  EXPECT_EQ(up.n, 128 * 256);
  const op_desc& att = find(ops, "attention");
  EXPECT_EQ(att.kv_heads, 128);
  EXPECT_EQ(att.head_dim, 192);
  EXPECT_EQ(att.v_head_dim, 128);
  EXPECT_FALSE(has(ops, "q_absorb"));
}

TEST(DeepSeekV3, PrefillIsNaiveByDefault) {
  catalogue_options o;
  o.ph = phase::prefill, o.batch = 1, o.seq = 1024, o.dtype = "bf16";
  const auto ops = build_catalogue(v3(), o);
  EXPECT_EQ(find(ops, "kv_b_proj").m, 1024);
  const op_desc& att = find(ops, "attention");
  EXPECT_EQ(att.head_dim, 192);
  EXPECT_EQ(att.v_head_dim, 128);
  // causal-halved pairs 1024·1025/2 per head, 2·192 + 2·128 + 5 FLOPs each
  EXPECT_DOUBLE_EQ(att.flops, 128.0 * (1024.0 * 1025 / 2) * (2 * 192 + 2 * 128 + 5));
  o.ph = phase::train;
  try {
    build_catalogue(v3(), o);
    FAIL() << "train must be refused for MLA";
  } catch (const input_error& e) {
    EXPECT_EQ(e.field(), "--phase");
  }
}

TEST(DeepSeekV3, MoeLayersOfTheCatalogue) {
  const auto ops = build_catalogue(v3(), decode(4, 4096));
  EXPECT_EQ(find(ops, "gate_proj").count, 3);  // first_k_dense_replace dense layers, 18432 wide
  EXPECT_EQ(find(ops, "gate_proj").n, 18432);
  EXPECT_EQ(find(ops, "router").count, 58);
  EXPECT_EQ(find(ops, "router").n, 256);
  EXPECT_TRUE(has(ops, "router_sigmoid"));
  EXPECT_FALSE(has(ops, "router_softmax"));
  EXPECT_FALSE(has(ops, "shared_expert_gate"));  // DeepSeekMoE shared experts are ungated
  EXPECT_EQ(find(ops, "shared_expert_gate_proj").n, 2048);
  // Routed experts: 4 tokens × 8 rows; the weights of E·(1 − (1 − k/E)^B) distinct experts are read,
  // the same rule as every MoE (expected_distinct_experts): 256·(1 − (248/256)^4) = 30.53.
  const op_desc& g = find(ops, "expert_gate_proj");
  EXPECT_EQ(g.m, 32);
  const double used = expected_distinct_experts(256, 8, 4);
  EXPECT_NEAR(used, 30.53, 0.005);
  EXPECT_DOUBLE_EQ(g.bytes_read, (32.0 * 7168 + used * 7168 * 2048) * 2);
}

TEST(DeepSeekV3, TensorParallelKeepsTheWholeLatentCache) {
  catalogue_options o = decode(1, 4096);
  o.tp = 8;
  const model_config c = v3();
  const auto ops = build_catalogue(c, o);
  EXPECT_EQ(find(ops, "attention").heads, 16);
  EXPECT_EQ(find(ops, "attention").kv_heads, 1);
  const memory_need m = estimate_memory(c, o, ops);
  EXPECT_DOUBLE_EQ(m.kv_cache, 4097.0 * 70'272);  // replicated on every GPU, not divided by 8
}

TEST(DeepSeekV2, LiteParametersMatchThePaper) {
  // DeepSeek-V2-Lite (deepseek_v2; q_lora_rank null: a full q_proj [2048 × 16·192]; 26 MoE layers
  // of 64 experts, 6 routed, 2 shared, width 1408; scoring softmax, topk_method greedy, no bias).
  // DeepSeek-V2 paper, appendix B / model card: "15.7B total parameters, 2.4B activated per token".
  const model_config c = load_model_config(std::string(ROOFLINE_TEST_DATA) + "/model/walk/deepseek-v2-lite.json");
  EXPECT_EQ(c.q_lora_rank, 0);
  EXPECT_EQ(c.moe_layers, 26);
  EXPECT_EQ(c.shared_expert_intermediate, 2 * 1408);
  EXPECT_FALSE(c.router_bias);
  EXPECT_FALSE(c.router_sigmoid);
  // Per layer: q_proj 2048·3072 + kv_a_proj_with_mqa 2048·576 + kv_a_layernorm 512 + kv_b_proj
  // 512·16·256 + o_proj 16·128·2048 + 2 norms; MoE 64·3·2048·1408 + 2·3·2048·1408 + 2048·64.
  EXPECT_EQ(c.parameters(), 15'706'484'224);
  EXPECT_NEAR(double(c.parameters()) / 15.7e9, 1.0, 1e-3);
  EXPECT_EQ(c.active_parameters(), 2'661'150'208);  // 2,451,435,008 without the embedding table: "2.4B"
  EXPECT_NEAR(double(c.active_parameters() - c.vocab * c.hidden) / 2.4e9, 1.0, 0.025);
  const auto ops = build_catalogue(c, decode(1, 1024));
  EXPECT_TRUE(has(ops, "q_proj"));
  EXPECT_FALSE(has(ops, "q_a_proj"));
  EXPECT_TRUE(has(ops, "router_softmax"));
  EXPECT_DOUBLE_EQ(kv_cache_bytes_per_token(c, 2), 27.0 * 576 * 2);
}
