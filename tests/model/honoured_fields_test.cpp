// Every config field that changes FLOPs or bytes is honoured or refused by name, walked over real
// configs (tests/data/model/walk/, shapes of the public models); MoE, sliding window, capacity and
// tensor parallelism give the worked values of docs/formulas-model.md.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "roofline/error.hpp"
#include "roofline/model.hpp"

using namespace roofline;

namespace {

std::string walk(const std::string& f) { return std::string(ROOFLINE_TEST_DATA) + "/model/walk/" + f; }

/// The field an input_error names ("" when none is thrown).
std::string refused_field(const std::string& path) {
  try {
    load_model_config(path);
  } catch (const input_error& e) {
    return e.field();
  }
  return "";
}

double total(const std::vector<op_desc>& ops, const std::string& name) {
  for (const auto& op : ops)
    if (op.name == name) return op.flops;
  ADD_FAILURE() << "no op " << name;
  return 0;
}

}  // namespace

TEST(HonouredFields, EveryWalkedConfigIsCountedOrRefusedByName) {
  struct row {
    const char* file;
    const char* refused;  // the field named, or "" when the config is modelled
  };
  for (const auto& r : std::vector<row>{
           {"mistral-with-moe-keys.json", "num_local_experts"},  // Mixtral shapes under model_type mistral
           {"llama-2-7b-awq.json", ""},  // awq int4 g128: read as the linears' format (weight_format_test)
           {"gpt2-relu.json", "activation_function"},
           {"llama-with-sliding-window.json", "sliding_window"},
           {"phi-with-partial-rotary.json", "partial_rotary_factor"},
           {"qwen3-with-moe-keys.json", "num_experts"},  // a dense qwen3 with expert keys
           {"gemma-2-9b.json", ""},
           {"qwen3-8b.json", ""},
           {"qwen3-30b-a3b.json", ""},
           {"qwen1.5-moe-a2.7b.json", ""},
           {"phi-3-mini-4k.json", ""},
           {"qwen2-sliding-upper-layers.json", ""},
           {"mistral-7b-v0.2.json", ""},
           {"deepseek-v3.json", ""},  // fp8 block-wise weights, as published: read (§2.1)
           {"deepseek-v2-lite.json", ""},
       }) {
    SCOPED_TRACE(r.file);
    EXPECT_EQ(refused_field(walk(r.file)), r.refused);
  }
  for (const auto& name : shipped_models()) {
    SCOPED_TRACE(name);
    EXPECT_EQ(refused_field(resolve_model_path(name)), "");
  }
}

TEST(HonouredFields, QwenSlidingWindowOnlyAboveMaxWindowLayers) {
  // transformers Qwen2: use_sliding_window and layer_idx >= max_window_layers (21 of 28 layers).
  const auto c = load_model_config(walk("qwen2-sliding-upper-layers.json"));
  EXPECT_EQ(c.sliding_window, 4096);
  EXPECT_EQ(c.sliding_layers, 7);
  const auto v2 = load_model_config(walk("mistral-7b-v0.2.json"));  // sliding_window null: full attention
  EXPECT_EQ(v2.sliding_window, 0);
  EXPECT_EQ(v2.sliding_layers, 0);
}

TEST(Moe, Mixtral8x7bParametersExactly) {
  const auto c = load_model_config(resolve_model_path("mixtral-8x7b"));
  EXPECT_EQ(c.experts, 8);
  EXPECT_EQ(c.experts_per_token, 2);
  EXPECT_EQ(c.parameters(), 46'702'792'704);
  // less 6 unrouted experts × 32 layers × 3 × 4096 × 14336
  EXPECT_EQ(c.active_parameters(), 46'702'792'704 - 32LL * 6 * 3 * 4096 * 14336);
  EXPECT_EQ(c.active_parameters(), 12'879'925'248);
}

TEST(Moe, ExpectedDistinctExpertsUnderUniformRouting) {
  EXPECT_DOUBLE_EQ(expected_distinct_experts(8, 2, 1), 2.0);
  EXPECT_NEAR(expected_distinct_experts(8, 2, 4), 8 * (1 - std::pow(0.75, 4)), 1e-12);  // 5.47
  EXPECT_NEAR(expected_distinct_experts(8, 2, 64), 8.0, 1e-6);
}

TEST(Moe, DecodeReadsTheRoutedExpertsAndTheRouter) {
  const auto c = load_model_config(resolve_model_path("mixtral-8x7b"));
  catalogue_options o;
  o.ph = phase::decode, o.batch = 4, o.context = 1024;
  const auto ops = build_catalogue(c, o);
  const op_desc* gate = nullptr;
  bool router = false;
  for (const auto& op : ops) {
    if (op.name == "expert_gate_proj") gate = &op;
    router |= op.name == "router";
  }
  ASSERT_NE(gate, nullptr);
  EXPECT_TRUE(router);
  EXPECT_EQ(gate->m, 4 * 2);                                              // T·k routed rows
  EXPECT_DOUBLE_EQ(gate->flops, 2.0 * 8 * 4096 * 14336);                  // active-expert FLOPs
  const double used = expected_distinct_experts(8, 2, 4);
  EXPECT_DOUBLE_EQ(gate->bytes_read, (8.0 * 4096 + used * 4096.0 * 14336) * 2);  // 5.47 experts' weights
  // per-token model FLOPs use the routed experts only: 2·(active matmul weights) + attention
  EXPECT_EQ(matmul_parameters(c), 32LL * (2 * 4096 * 4096 + 2 * 4096 * 1024 + 2 * 3 * 4096 * 14336 + 4096 * 8) + 32000LL * 4096);
}

TEST(SlidingWindow, EveryPhase) {
  const auto c = load_model_config(resolve_model_path("mistral-7b"));
  ASSERT_EQ(c.sliding_window, 4096);
  // prefill attention per layer at 32768 tokens, causal halved: 2.08 TFLOP (8.88 without the window)
  catalogue_options p;
  p.ph = phase::prefill, p.seq = 32768;
  const double per_layer = total(build_catalogue(c, p), "attention");
  const double pairs = 4096.0 * 4097 / 2 + (32768.0 - 4096) * 4096;
  EXPECT_DOUBLE_EQ(per_layer, 32 * pairs * (4 * 128 + 5));
  EXPECT_NEAR(per_layer / 1e12, 2.08, 0.005);
  // train FLOPs per token (full convention): 6N + 12·L·H·Q·min(T, W)
  const double N = double(matmul_parameters(c));
  EXPECT_DOUBLE_EQ(model_flops_per_token(c, phase::train, 32768, {flops_convention::params::matmul, false}).total, 6 * N + 12.0 * 32 * 4096 * 4096);
  EXPECT_NEAR(model_flops_per_token(c, phase::train, 32768, {flops_convention::params::matmul, false}).total / 1e10, 4.91, 0.005);
  // decode: the KV cache holds the last 4096 tokens: 0.537 GB, not 4.29 GB
  EXPECT_DOUBLE_EQ(kv_cache_bytes(c, 2, 32768), 2.0 * 32 * 8 * 128 * 2 * 4096);
  catalogue_options d;
  d.ph = phase::decode, d.context = 32000;
  for (const auto& op : build_catalogue(c, d))
    if (op.name == "attention") EXPECT_EQ(op.kv_len, 4096);
}

TEST(Positions, BeyondTheTableIsRefused) {
  const auto gpt2 = load_model_config(resolve_model_path("gpt2"));
  catalogue_options o;
  o.ph = phase::prefill, o.seq = 2048;  // n_positions 1024
  try {
    build_catalogue(gpt2, o);
    FAIL() << "expected --seq refused";
  } catch (const input_error& e) {
    EXPECT_EQ(e.field(), "--seq");
    EXPECT_NE(std::string(e.what()).find("n_positions"), std::string::npos);
  }
  o.seq = 1024;
  EXPECT_NO_THROW(build_catalogue(gpt2, o));
  const auto llama3 = load_model_config(resolve_model_path("llama-3-8b"));
  catalogue_options d;
  d.ph = phase::decode, d.context = 8193;  // max_position_embeddings 8192
  EXPECT_THROW(build_catalogue(llama3, d), input_error);
}

TEST(Capacity, Llama3DecodeBatch1024Needs1TB) {
  const auto c = load_model_config(resolve_model_path("llama-3-8b"));
  catalogue_options o;
  o.ph = phase::decode, o.batch = 1024, o.context = 8191;
  const auto m = estimate_memory(c, o, build_catalogue(c, o));
  EXPECT_DOUBLE_EQ(m.kv_cache, 1024.0 * 2 * 32 * 8 * 128 * 2 * 8192);  // 1.10e12 B
  EXPECT_DOUBLE_EQ(m.weights, double(c.parameters()) * 2);
  EXPECT_GT(m.total(), 16e9);
}

TEST(TensorParallel, PerGpuShapesAndRefusals) {
  const auto c = load_model_config(resolve_model_path("llama-3-8b"));
  catalogue_options o;
  o.ph = phase::decode, o.batch = 8, o.tp = 8;
  const auto ops = build_catalogue(c, o);
  for (const auto& op : ops) {
    if (op.name == "q_proj") EXPECT_EQ(op.n, 4096 / 8);
    if (op.name == "k_proj") EXPECT_EQ(op.n, 128);  // 8 KV heads / 8
    if (op.name == "down_proj") EXPECT_EQ(op.k, 14336 / 8);
    if (op.name == "lm_head") EXPECT_EQ(op.n, 128256 / 8);
    if (op.name == "attention") EXPECT_EQ(op.heads, 4);
  }
  o.tp = 3;  // divides neither 32 heads nor 8 KV heads
  try {
    build_catalogue(c, o);
    FAIL();
  } catch (const input_error& e) {
    EXPECT_EQ(e.field(), "--tp");
  }
  o.tp = 16;  // 8 KV heads divide 16: replicated, one per GPU; 32 heads / 16 = 2
  for (const auto& op : build_catalogue(c, o))
    if (op.name == "attention") EXPECT_EQ(op.kv_heads, 1);
}

TEST(Training, LossOpAndItsGradient) {
  const auto c = load_model_config(resolve_model_path("gpt2"));
  catalogue_options o;
  o.ph = phase::train, o.seq = 1024;
  const auto ops = build_catalogue(c, o);
  double loss_bytes = 0, step_bytes = 0;
  for (const auto& op : ops) {
    step_bytes += op.bytes() * op.count;
    if (op.name == "loss" || op.name == "loss.bwd") loss_bytes += op.bytes() * op.count;
  }
  // T × V logits: forward 3 reads + 1 write, backward reads logits and dY, writes the gradient
  EXPECT_DOUBLE_EQ(loss_bytes, 1024.0 * 50257 * 2 * (4 + 3));
  EXPECT_GT(loss_bytes / step_bytes, 0.08);
}

// Published totals (HuggingFace safetensors metadata of each repository).
TEST(Families, ParameterCountsExactly) {
  EXPECT_EQ(load_model_config(walk("qwen3-8b.json")).parameters(), 8'190'735'360);          // + q/k norms
  EXPECT_EQ(load_model_config(walk("qwen3-30b-a3b.json")).parameters(), 30'532'122'624);    // 128 experts
  EXPECT_EQ(load_model_config(walk("qwen1.5-moe-a2.7b.json")).parameters(), 14'315'784'192);  // + shared expert
  EXPECT_EQ(load_model_config(walk("gemma-2-9b.json")).parameters(), 9'241'705'984);        // tied, 4 norms
  EXPECT_EQ(load_model_config(walk("phi-3-mini-4k.json")).parameters(), 3'821'079'552);
  // Qwen3-30B-A3B: 8 of 128 experts per token
  const auto q = load_model_config(walk("qwen3-30b-a3b.json"));
  EXPECT_EQ(q.moe_layers, 48);
  EXPECT_EQ(q.active_parameters(), 30'532'122'624 - 48LL * 120 * 3 * 2048 * 768);
}

TEST(Families, OpsOfEachFamily) {
  catalogue_options o;
  o.ph = phase::prefill, o.seq = 4096;
  auto names = [&](const std::string& f) {
    std::vector<std::string> n;
    for (const auto& op : build_catalogue(load_model_config(walk(f)), o)) n.push_back(op.name + "×" + std::to_string(op.count));
    return n;
  };
  auto has = [](const std::vector<std::string>& v, const std::string& x) { return std::find(v.begin(), v.end(), x) != v.end(); };
  const auto qwen3 = names("qwen3-8b.json");
  EXPECT_TRUE(has(qwen3, "q_norm×36") && has(qwen3, "k_norm×36"));
  const auto phi3 = names("phi-3-mini-4k.json");
  EXPECT_TRUE(has(phi3, "qkv_proj×32") && has(phi3, "gate_up_proj×32"));
  EXPECT_FALSE(has(phi3, "q_proj×32"));
  const auto gemma = names("gemma-2-9b.json");
  // alternating window: 21 sliding layers (even indices), 21 full; GeGLU; 4 norms; soft-capped logits
  EXPECT_TRUE(has(gemma, "attention×21") && has(gemma, "attention_sliding×21"));
  EXPECT_TRUE(has(gemma, "gelu×42") && has(gemma, "pre_feedforward_norm×42") && has(gemma, "post_feedforward_norm×42"));
  EXPECT_TRUE(has(gemma, "logit_softcap×1"));
  EXPECT_TRUE(has(gemma, "embed_scale×1"));   // inputs_embeds × sqrt(3584)
  EXPECT_FALSE(has(qwen3, "embed_scale×1"));  // Gemma's alone
  for (const auto& op : build_catalogue(load_model_config(walk("gemma-2-9b.json")), o))
    if (op.name == "embed_scale") {
      EXPECT_DOUBLE_EQ(op.flops, 4096.0 * 3584);              // one multiply per element, 4096 tokens
      EXPECT_DOUBLE_EQ(op.bytes(), 2.0 * 4096 * 3584 * 2);    // read + write, 2-byte elements
    }
  const auto moe = names("qwen1.5-moe-a2.7b.json");
  EXPECT_TRUE(has(moe, "router×24") && has(moe, "expert_gate_proj×24") && has(moe, "shared_expert_gate×24"));
  // gemma2 scores are soft-capped: 3 more FLOPs per score on top of 4·d + 5
  const auto g = load_model_config(walk("gemma-2-9b.json"));
  for (const auto& op : build_catalogue(g, o))
    if (op.name == "attention")
      EXPECT_DOUBLE_EQ(op.flops, 16.0 * (4096.0 * 4097 / 2) * (4 * 256 + 5 + 3));
}

TEST(Capacity, MoeActivationsAreNotExpertWeights) {
  // Mixtral decode, batch 4: the largest op's activations are kB, not the 5.47 experts' weights.
  const auto c = load_model_config(resolve_model_path("mixtral-8x7b"));
  catalogue_options o;
  o.ph = phase::decode, o.batch = 4, o.context = 4096;
  const auto m = estimate_memory(c, o, build_catalogue(c, o));
  EXPECT_DOUBLE_EQ(m.weights, 46'702'792'704.0 * 2);
  EXPECT_LT(m.activations, 1e6);
  EXPECT_DOUBLE_EQ(m.kv_cache, 4.0 * 2 * 32 * 8 * 128 * 2 * 4097);
}
