// Each layer's window applies to its own KV reads and FLOPs in every phase (attention_layer_groups,
// the one function the catalogue, model_flops_per_token and kv_cache_bytes read). Worked values:
//  - Gemma-2-9B (Gemma Team 2024, "Gemma 2", Table 1: 42 layers, 8 KV heads of 256, local window
//    4096 on every other layer, global span 8192): decode at context 8192, batch 16, fp16: the 21
//    global layers read 8192 cached tokens, the 21 local ones 4096; KV reads = 16 · 2·8·256·2 B ·
//    21 · (8192 + 4096) = 33.8 GB, the step ≈ 52.7 GB (41.4 GB when every layer was capped at 4096).
//  - Qwen2 with use_sliding_window and max_window_layers 21 of 28 (transformers Qwen2: layers with
//    index >= max_window_layers slide): decode at 16384: 2N + 4·28·128·(21·16384 + 7·4096) =
//    19.5 GFLOP/token (15.8 when every layer was capped at the window).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "roofline/model.hpp"

using namespace roofline;

namespace {

std::string walk(const std::string& f) { return std::string(ROOFLINE_TEST_DATA) + "/model/walk/" + f; }

const op_desc& find(const std::vector<op_desc>& ops, const std::string& name) {
  for (const auto& op : ops)
    if (op.name == name) return op;
  throw std::runtime_error("no op " + name);
}

double step_bytes(const std::vector<op_desc>& ops) {
  double s = 0;
  for (const auto& op : ops) s += op.bytes() * double(op.count);
  return s;
}
double step_flops(const std::vector<op_desc>& ops) {
  double s = 0;
  for (const auto& op : ops) s += op.flops * double(op.count);
  return s;
}

}  // namespace

TEST(PerLayerAttention, GroupsNameEachKindOfLayer) {
  const auto g = attention_layer_groups(load_model_config(walk("gemma-2-9b.json")));
  ASSERT_EQ(g.size(), 2u);
  EXPECT_EQ(g[0].name, "attention");
  EXPECT_EQ(g[0].window, 0);
  EXPECT_EQ(g[0].layers, 21);
  EXPECT_EQ(g[1].name, "attention_sliding");
  EXPECT_EQ(g[1].window, 4096);
  EXPECT_EQ(g[1].layers, 21);
  const auto m = attention_layer_groups(load_model_config(resolve_model_path("mistral-7b")));  // every layer slides
  ASSERT_EQ(m.size(), 1u);
  EXPECT_EQ(m[0].name, "attention");
  EXPECT_EQ(m[0].window, 4096);
  EXPECT_EQ(decode_keys(8192, 0), 8192);
  EXPECT_EQ(decode_keys(8192, 4096), 4096);
  EXPECT_EQ(decode_keys(1000, 4096), 1000);
}

TEST(PerLayerAttention, Gemma2DecodeGlobalLayersReadTheWholeCache) {
  const auto cfg = load_model_config(walk("gemma-2-9b.json"));
  catalogue_options o;
  o.ph = phase::decode, o.batch = 16, o.context = 8192;
  const auto ops = build_catalogue(cfg, o);
  const op_desc& global = find(ops, "attention");
  const op_desc& local = find(ops, "attention_sliding");
  EXPECT_EQ(global.kv_len, 8192);
  EXPECT_EQ(local.kv_len, 4096);
  const double kv_per_layer_token = 2.0 * 8 * 256 * 2;  // K and V, 8 heads of 256, fp16
  // a global layer reads 4096 more cached tokens per sequence than a local one
  EXPECT_DOUBLE_EQ(global.bytes_read - local.bytes_read, 16 * 4096 * kv_per_layer_token);
  // the step: weights ≈ 18.5 GB + KV ≈ 33.8 GB = 52.7 GB (not 41.4 GB)
  EXPECT_NEAR(step_bytes(ops) / 1e9, 52.7, 0.1);
  // the KV-cache line and the op reads agree
  EXPECT_DOUBLE_EQ(16 * kv_cache_bytes(cfg, 2, 8192), 16 * kv_per_layer_token * 21 * (8192 + 4096));
  // at 4096 both kinds read the same 4096 tokens: the step is 41.4 GB
  o.context = 4096;
  EXPECT_NEAR(step_bytes(build_catalogue(cfg, o)) / 1e9, 41.4, 0.1);
}

TEST(PerLayerAttention, QwenMaxWindowLayersDecodeFlopsAgreeWithTheModel) {
  const auto cfg = load_model_config(walk("qwen2-sliding-upper-layers.json"));
  catalogue_options o;
  o.ph = phase::decode, o.batch = 1, o.context = 16384;
  const auto ops = build_catalogue(cfg, o);
  EXPECT_EQ(find(ops, "attention").kv_len, 16384);  // 21 layers below max_window_layers: full
  EXPECT_EQ(find(ops, "attention").count, 21);
  EXPECT_EQ(find(ops, "attention_sliding").kv_len, 4096);
  EXPECT_EQ(find(ops, "attention_sliding").count, 7);
  const token_flops m = model_flops_per_token(cfg, phase::decode, 16384);
  EXPECT_DOUBLE_EQ(m.attention, 4.0 * 28 * 128 * (21.0 * 16384 + 7.0 * 4096));
  EXPECT_NEAR(m.total / 1e9, 19.5, 0.05);
  // the catalogue (every op, elementwise included) agrees with the model within 0.5 %
  EXPECT_NEAR(step_flops(ops) / m.total, 1.0, 0.005);
  EXPECT_NEAR(step_flops(ops) / 1e9, 19.5, 0.1);
}

TEST(PerLayerAttention, PrefillSlidingLayersScoreAtMostTheWindow) {
  const auto cfg = load_model_config(walk("gemma-2-9b.json"));
  catalogue_options o;
  o.ph = phase::prefill, o.batch = 1, o.seq = 8192;
  const auto ops = build_catalogue(cfg, o);
  const double per_score = 4 * 256 + 5 + 3;  // QKᵀ, A·V, softmax, soft-cap
  EXPECT_DOUBLE_EQ(find(ops, "attention").flops, 16.0 * (8192.0 * 8193 / 2) * per_score);
  EXPECT_DOUBLE_EQ(find(ops, "attention_sliding").flops, 16.0 * (4096.0 * 4097 / 2 + 4096.0 * 4096) * per_score);
}
