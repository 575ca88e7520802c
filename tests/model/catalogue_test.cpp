// Whole-step catalogues of shipped models: the ops issue 2 lists, tensor sizes, per-token FLOPs,
// training and fusion.
#include <gtest/gtest.h>

#include "roofline/model.hpp"

using namespace roofline;

namespace {

model_config shipped(const std::string& name) { return load_model_config(resolve_model_path(name)); }

const op_desc& find(const std::vector<op_desc>& ops, const std::string& name) {
  for (const auto& op : ops)
    if (op.name == name) return op;
  throw std::runtime_error("no op " + name);
}

double total_flops(const std::vector<op_desc>& ops, bool gemm_only = false) {
  double f = 0;
  for (const auto& op : ops)
    if (!gemm_only || op.kind == op_kind::gemm) f += op.flops * op.count;
  return f;
}

catalogue_options decode(std::int64_t batch) {
  catalogue_options o;
  o.ph = phase::decode;
  o.batch = batch;
  o.context = 2048;
  return o;
}

}  // namespace

TEST(Catalogue, TinyLlamaDecodeListsEveryOp) {
  const auto ops = build_catalogue(shipped("tinyllama-1.1b"), decode(1));
  for (const char* n : {"embed_tokens", "input_norm", "q_proj", "k_proj", "v_proj", "rope", "attention", "o_proj",
                        "attn_residual", "post_attention_norm", "gate_proj", "up_proj", "silu", "mul", "down_proj",
                        "mlp_residual", "final_norm", "lm_head"})
    EXPECT_NO_THROW(find(ops, n)) << n;
  EXPECT_EQ(find(ops, "q_proj").count, 22);
  EXPECT_EQ(find(ops, "lm_head").count, 1);
  EXPECT_EQ(find(ops, "k_proj").n, 256);  // 4 KV heads × 64
  EXPECT_NEAR(find(ops, "attention").intensity(), 8.0, 0.25);
}

TEST(Catalogue, TinyLlamaDecodeBatch32FfnTensorsAre360KB) {
  const auto ops = build_catalogue(shipped("tinyllama-1.1b"), decode(32));
  const double tensor = 32.0 * 5632 * 2;  // 360,448 B
  EXPECT_DOUBLE_EQ(find(ops, "gate_proj").bytes_written, tensor);
  EXPECT_DOUBLE_EQ(find(ops, "silu").bytes_read, tensor);
  EXPECT_DOUBLE_EQ(find(ops, "silu").bytes_written, tensor);
  EXPECT_DOUBLE_EQ(find(ops, "mul").bytes_read, 2 * tensor);
  EXPECT_DOUBLE_EQ(find(ops, "mul").bytes_written, tensor);
  EXPECT_NEAR(find(ops, "q_proj").intensity(), 31.0, 0.1);
}

TEST(Catalogue, SiluMulFusionSaves40Percent) {
  const auto fusions = fusion_savings(build_catalogue(shipped("tinyllama-1.1b"), decode(32)));
  bool found = false;
  for (const auto& f : fusions)
    if (f.name == "silu_mul") {
      found = true;
      EXPECT_DOUBLE_EQ(f.fraction_saved(), 0.4);
      EXPECT_DOUBLE_EQ(f.bytes_before, 5 * 32.0 * 5632 * 2);
      EXPECT_EQ(f.count, 22);
    }
  EXPECT_TRUE(found);
}

TEST(Catalogue, FusedSiluMulOption) {
  auto o = decode(32);
  o.fused_silu_mul = true;
  const auto ops = build_catalogue(shipped("tinyllama-1.1b"), o);
  EXPECT_EQ(find(ops, "silu_mul").kind, op_kind::silu_mul);
  EXPECT_DOUBLE_EQ(find(ops, "silu_mul").bytes(), 3 * 32.0 * 5632 * 2);
}

TEST(Catalogue, PerTokenFlopsMatchTheFormula) {
  const auto cfg = shipped("tinyllama-1.1b");
  const auto ops = build_catalogue(cfg, decode(1));
  // the catalogue adds softmax's 5 FLOP per score to 2N + 4·L·H·Q·T: within 0.5%
  EXPECT_NEAR(total_flops(ops) / model_flops_per_token(cfg, phase::decode, 2048).total, 1.0, 0.005);
  EXPECT_DOUBLE_EQ(kv_cache_bytes_per_token(cfg, 2), 22528.0);                       // 2·22·4·64·2
  EXPECT_DOUBLE_EQ(kv_cache_bytes_per_token(shipped("llama-2-7b"), 2), 524288.0);   // 0.5 MiB per token
}

TEST(Catalogue, TrainingGemmsAreThreeTimesForward) {
  const auto cfg = shipped("tinyllama-1.1b");
  catalogue_options o;
  o.ph = phase::prefill;
  o.seq = 512;
  const double fwd = total_flops(build_catalogue(cfg, o), true);
  o.ph = phase::train;
  const auto train = build_catalogue(cfg, o);
  EXPECT_NEAR(total_flops(train, true) / fwd, 3.0, 1e-9);
  // 6N per token from the GEMMs (Kaplan et al. 2020 §2.1)
  EXPECT_NEAR(total_flops(train, true) / 512, 6.0 * double(matmul_parameters(cfg)), 1.0);
  // recompute re-runs every layer's forward GEMMs (lm_head is outside the checkpointed layers)
  const double lm_head = find(train, "lm_head").flops;
  o.recompute = true;
  EXPECT_NEAR(total_flops(build_catalogue(cfg, o), true) - total_flops(train, true), fwd - lm_head, 1.0);
}

TEST(Catalogue, PalmTrainingFormula) {
  const auto cfg = shipped("llama-2-7b");
  const double n = double(matmul_parameters(cfg));
  EXPECT_DOUBLE_EQ(model_flops_per_token(cfg, phase::train, 4096, {flops_convention::params::matmul, false}).total, 6 * n + 12.0 * 32 * 32 * 128 * 4096);
  EXPECT_DOUBLE_EQ(model_flops_per_token(cfg, phase::train, 4096).total, 6 * n + 6.0 * 32 * 32 * 128 * 4096);
}

TEST(Catalogue, Gpt2AndQwenSpecifics) {
  catalogue_options o;
  o.ph = phase::prefill;
  o.seq = 1024;
  const auto g = build_catalogue(shipped("gpt2"), o);
  EXPECT_EQ(find(g, "c_attn").n, 2304);
  EXPECT_EQ(find(g, "ln_1").kind, op_kind::layernorm);
  EXPECT_EQ(find(g, "gelu").cols, 3072);
  EXPECT_EQ(find(g, "wpe").kind, op_kind::embedding);
  EXPECT_DOUBLE_EQ(find(g, "c_attn").flops, 2.0 * 1024 * 2304 * 768 + 1024.0 * 2304);  // + bias
  const auto q = build_catalogue(shipped("qwen2.5-0.5b"), o);
  EXPECT_DOUBLE_EQ(find(q, "k_proj").flops, 2.0 * 1024 * 128 * 896 + 1024.0 * 128);  // q/k/v bias
  EXPECT_DOUBLE_EQ(find(q, "o_proj").flops, 2.0 * 1024 * 896 * 896);                 // o_proj: none
}

TEST(Catalogue, BatchSweepPowersOfTwo) {
  const auto pts = linear_batch_sweep(shipped("tinyllama-1.1b"), 1, 1024, 2);
  EXPECT_EQ(pts.size(), 8u * 11);  // q, k, v, o, gate, up, down, lm_head × 1, 2, …, 1024
  EXPECT_EQ(pts.front().batch, 1);
  EXPECT_EQ(pts[10].batch, 1024);
  EXPECT_NEAR(pts[5].intensity(), 31.03, 0.01);  // q_proj at 32
  EXPECT_EQ(linear_batch_sweep(shipped("tinyllama-1.1b"), 3, 20, 2).size(), 8u * 5);  // 3, 4, 8, 16, 20
}

TEST(Catalogue, MistralSlidingWindowCapsTheDecodeCache) {
  const auto cfg = shipped("mistral-7b");
  EXPECT_EQ(cfg.sliding_window, 4096);
  EXPECT_EQ(shipped("qwen2.5-7b").sliding_window, 0);  // use_sliding_window: false
  auto o = decode(1);
  o.context = 8192;
  EXPECT_EQ(find(build_catalogue(cfg, o), "attention").kv_len, 4096);
  o.context = 1024;
  EXPECT_EQ(find(build_catalogue(cfg, o), "attention").kv_len, 1024);
}

// The GPU's gemm/rows probe runs the model's own linear weights at each batch: TinyLlama has five
// distinct N × K in its decode step, q_proj and o_proj sharing 2048 × 2048, k_proj and v_proj 256 × 2048
// (4 KV heads of 64), gate_proj and up_proj 5632 × 2048.
TEST(Catalogue, DecodeProbeOpsAreOneGemmPerWeightShapeAndBatchThenAttention) {
  catalogue_options base = decode(1);
  const auto ops = decode_probe_ops(shipped("tinyllama-1.1b"), base, {1, 16});
  ASSERT_EQ(ops.size(), 12u);
  struct want { const char* names; std::int64_t n, k; };
  const want shapes[] = {{"q_proj, o_proj", 2048, 2048}, {"k_proj, v_proj", 256, 2048}, {"gate_proj, up_proj", 5632, 2048},
                         {"down_proj", 2048, 5632}, {"lm_head", 32000, 2048}};
  for (std::size_t i = 0; i < 5; ++i)
    for (std::size_t j = 0; j < 2; ++j) {
      const op_desc& op = ops[2 * i + j];
      EXPECT_EQ(op.name, shapes[i].names);
      EXPECT_EQ(op.n, shapes[i].n);
      EXPECT_EQ(op.k, shapes[i].k);
      EXPECT_EQ(op.m, j == 0 ? 1 : 16);
      EXPECT_EQ(op.batch, op.m);
      EXPECT_EQ(op.kind, op_kind::gemm);
      EXPECT_DOUBLE_EQ(op.flops, 2.0 * double(op.m) * double(op.n) * double(op.k));
    }
  // decode attention last: 32 query heads sharing 4 KV heads of 64 against 2048 cached tokens
  for (std::size_t j = 0; j < 2; ++j) {
    const op_desc& a = ops[10 + j];
    EXPECT_EQ(a.kind, op_kind::attention_decode);
    EXPECT_EQ(a.batch, j == 0 ? 1 : 16);
    EXPECT_EQ(a.heads, 32);
    EXPECT_EQ(a.kv_heads, 4);
    EXPECT_EQ(a.head_dim, 64);
    EXPECT_EQ(a.kv_len, 2048);
  }
}
