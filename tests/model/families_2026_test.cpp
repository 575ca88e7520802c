// Gemma-3, Llama-4 and gpt-oss counted from their published config.json (tests/data/model/, sources
// in its README.md): exact parameter counts against the model cards, the per-layer attention kinds
// (5 local : 1 global, chunked RoPE layers beside global NoPE layers, alternating sliding layers) and
// one decode at long context per family whose KV reads are worked by hand below.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "roofline/error.hpp"
#include "roofline/io.hpp"
#include "roofline/json.hpp"
#include "roofline/model.hpp"

using namespace roofline;

namespace {

std::string data(const std::string& f) { return std::string(ROOFLINE_TEST_DATA) + "/model/" + f; }

/// The published config without one key (gpt-oss: quantization_config, whose weight formats are
/// counted elsewhere), parsed under the same file name.
model_config without(const std::string& f, const char* key) {
  json j = json::parse(read_file(data(f)));
  j.erase(key);
  return parse_model_config(j.dump(), data(f));
}

/// The field an input_error names ("" when none is thrown).
std::string refused_field(const std::string& text, const std::string& file) {
  try {
    parse_model_config(text, file);
  } catch (const input_error& e) {
    return e.field();
  }
  return "";
}

const op_desc& find(const std::vector<op_desc>& ops, const std::string& name) {
  for (const auto& op : ops)
    if (op.name == name) return op;
  throw std::runtime_error("no op " + name);
}
bool has(const std::vector<op_desc>& ops, const std::string& name) {
  for (const auto& op : ops)
    if (op.name == name) return true;
  return false;
}

}  // namespace

// ---- Gemma 3 (Gemma Team 2025, "Gemma 3 Technical Report", Table 1: parameters by part) ----

TEST(Families2026, Gemma3TextCountsEveryWeight) {
  const model_config c = load_model_config(data("gemma-3-1b-it.json"));
  EXPECT_EQ(c.model_type, "gemma3_text");
  EXPECT_TRUE(c.qk_norm && c.sandwich_norms && c.gelu_mlp && c.tied_embeddings && c.scaled_embedding);
  // Table 1, 1B: 302M embedding + 698M non-embedding. Exactly: the table 262144·1152 = 301,989,888;
  // per layer q/o 2·1152·1024 + k/v 2·1152·256 + q/k norms 2·256 + 4 norms·1152 + GeGLU 3·1152·6912
  // = 26,842,112, × 26 = 697,894,912; + the final norm 1152 = 999,885,952.
  EXPECT_EQ(c.parameters(), 999'885'952);
  EXPECT_NEAR(double(c.parameters() - c.vocab * c.hidden) / 1e6, 698, 0.5);
  // sliding_window_pattern 6: layer i slides unless (i + 1) % 6 == 0: 22 local, 4 global of 26
  EXPECT_EQ(c.sliding_window, 512);
  EXPECT_EQ(c.sliding_layers, 22);
  EXPECT_EQ(c.full_attention_layers(), 4);
}

TEST(Families2026, Gemma3WrapperCountsTheTextDecoderOnly) {
  const model_config c = load_model_config(data("gemma-3-27b-it.json"));
  EXPECT_EQ(c.model_type, "gemma3_text");
  EXPECT_NE(c.note.find("vision tower"), std::string::npos);
  // The published text_config names neither vocab_size nor sliding_window_pattern: Gemma3TextConfig's
  // 262208 and 6 apply; 62 layers: 52 local (window 1024), 10 global.
  EXPECT_EQ(c.vocab, 262208);
  EXPECT_EQ(c.sliding_layers, 52);
  EXPECT_EQ(c.full_attention_layers(), 10);
  // Table 1, 27B: 417M vision, 1,416M embedding, 25,600M non-embedding. Per layer q/k/v/o
  // 3·5376·4096 + 2·5376·2048 ... = 66,060,288, q/k norms 256, 4 norms 21,504, GeGLU 3·5376·21504
  // = 346,816,512: 412,898,560 × 62 = 25,599,710,720 (+ final norm 5376 = 25,599.7M non-embedding);
  // the table 262208·5376 = 1,409,630,208. Table 1's 1,416M embedding also holds the multimodal
  // projector (1152·5376 + 1152 = 6,194,304), which, like the vision tower, is not counted here.
  EXPECT_EQ(c.parameters(), 27'009'346'304);
  EXPECT_NEAR(double(c.parameters() - c.vocab * c.hidden) / 1e6, 25'600, 1);
  EXPECT_NEAR((double(c.vocab * c.hidden) + 6'194'304) / 1e6, 1'416, 0.5);
}

TEST(Families2026, Gemma3DecodeAtLongContextReadsTheWindowOnLocalLayers) {
  // Gemma-3-27B decode, batch 1, context 32768, fp16 cache: a layer's K and V per token are
  // 2·16·128·2 B = 8192 B; the 10 global layers read 32768 tokens, the 52 local ones 1024:
  // 8192 · (10·32768 + 52·1024) = 8192 · 380,928 = 3,120,562,176 B (16.6 GB if every layer were global).
  const model_config c = load_model_config(data("gemma-3-27b-it.json"));
  catalogue_options o;
  o.ph = phase::decode, o.batch = 1, o.context = 32768;
  const auto ops = build_catalogue(c, o);
  const op_desc& global = find(ops, "attention");
  const op_desc& local = find(ops, "attention_sliding");
  EXPECT_EQ(global.count, 10);
  EXPECT_EQ(global.kv_len, 32768);
  EXPECT_EQ(local.count, 52);
  EXPECT_EQ(local.kv_len, 1024);
  EXPECT_DOUBLE_EQ(kv_cache_bytes(c, 2, 32768), 3'120'562'176.0);
  EXPECT_DOUBLE_EQ(global.bytes_read - local.bytes_read, (32768.0 - 1024) * 8192);
  EXPECT_TRUE(has(ops, "embed_scale") && has(ops, "q_norm") && has(ops, "post_feedforward_norm"));
}

// ---- Llama 4 (Meta, Llama 4 model cards: Scout 17B active / 109B total, Maverick 17B / 400B) ----

TEST(Families2026, Llama4ScoutMoeOnEveryLayerWithASharedExpert) {
  const model_config c = load_model_config(data("llama-4-scout-17b-16e.json"));
  EXPECT_EQ(c.model_type, "llama4_text");
  EXPECT_NE(c.note.find("vision tower"), std::string::npos);
  EXPECT_EQ(c.experts, 16);
  EXPECT_EQ(c.experts_per_token, 1);
  EXPECT_EQ(c.moe_layers, 48);
  EXPECT_EQ(c.expert_intermediate, 8192);
  EXPECT_EQ(c.shared_expert_intermediate, 8192);
  EXPECT_FALSE(c.shared_expert_gate);
  EXPECT_TRUE(c.qk_l2_norm && c.attn_temperature);  // use_qk_norm true; attn_temperature_tuning 4
  // Per layer: attention 2·5120·5120 + 2·5120·1024 = 62,914,560, 2 norms 10,240, 16 experts
  // 16·3·5120·8192 = 2,013,265,920, router 5120·16 = 81,920, shared expert 125,829,120:
  // 2,202,101,760 × 48 = 105,700,884,480; embedding and lm_head 2·202048·5120; final norm 5120.
  EXPECT_EQ(c.parameters(), 107'769'861'120);
  // The card's 109B counts the checkpoint: + the vision encoder (34 layers of 23,807,872, patch and
  // position embeddings, adapter) and projector, 871,932,416 from vision_config: 108.64B.
  EXPECT_NEAR((double(c.parameters()) + 871'932'416) / 1e9, 109, 0.5);
  // Active: less 15 unrouted experts × 125,829,120 × 48 layers = 17,172,894,720 (card: 17B).
  EXPECT_EQ(c.active_parameters(), 17'172'894'720);
  // no_rope_layers [1,1,1,0] × 12: 36 RoPE layers attend in 8192-token chunks, 12 NoPE layers globally
  const auto g = attention_layer_groups(c);
  ASSERT_EQ(g.size(), 2u);
  EXPECT_EQ(g[0].name, "attention");
  EXPECT_EQ(g[0].layers, 12);
  EXPECT_EQ(g[1].name, "attention_chunked");
  EXPECT_EQ(g[1].layers, 36);
  EXPECT_EQ(g[1].chunk, 8192);
  EXPECT_EQ(c.nope_layers, 12);
}

TEST(Families2026, Llama4MaverickInterleavesDenseAndMoeLayers) {
  const model_config c = load_model_config(data("llama-4-maverick-17b-128e-instruct.json"));
  // interleave_moe_layer_step 2: MoE on layers 1, 3, …, 47 (range(1, 48, 2)); the 24 others are
  // dense of intermediate_size_mlp 16384.
  EXPECT_EQ(c.moe_layers, 24);
  EXPECT_EQ(c.intermediate, 16384);
  EXPECT_EQ(c.experts, 128);
  EXPECT_FALSE(c.qk_l2_norm);  // use_qk_norm false
  // attention + norms 62,924,800 × 48 = 3,020,390,400; dense 3·5120·16384 × 24 = 6,039,797,760;
  // MoE (128·125,829,120 + router 655,360 + shared 125,829,120) × 24 = 389,582,684,160;
  // embedding + lm_head 2,068,971,520; final norm 5120. Card: 400B total (+ 0.87B vision: 401.6B).
  EXPECT_EQ(c.parameters(), 400'711'848'960);
  EXPECT_NEAR(double(c.parameters()) / 1e9, 400, 1);
  EXPECT_EQ(c.active_parameters(), 17'184'691'200);  // less 127 × 125,829,120 × 24; card: 17B
}

TEST(Families2026, Llama4DecodeChunkedLayersReadContextModChunk) {
  // Scout decode, batch 1, context 100000, fp16 cache: K and V per layer per token 2·8·128·2 B =
  // 4096 B; the 12 global NoPE layers read 100000 tokens, the 36 chunked layers only the earlier
  // tokens of their chunk, 100000 mod 8192 = 1696: 4096 · (12·100000 + 36·1696) = 4096 · 1,261,056 =
  // 5,165,285,376 B (19.7 GB if every layer read the whole cache).
  const model_config c = load_model_config(data("llama-4-scout-17b-16e.json"));
  catalogue_options o;
  o.ph = phase::decode, o.batch = 1, o.context = 100000;
  const auto ops = build_catalogue(c, o);
  EXPECT_EQ(find(ops, "attention").kv_len, 100000);
  EXPECT_EQ(find(ops, "attention").count, 12);
  EXPECT_EQ(find(ops, "attention_chunked").kv_len, 1696);
  EXPECT_EQ(find(ops, "attention_chunked").count, 36);
  EXPECT_DOUBLE_EQ(kv_cache_bytes(c, 2, 100000), 5'165'285'376.0);
  EXPECT_EQ(find(ops, "rope").count, 36);  // the NoPE layers skip RoPE
  EXPECT_EQ(find(ops, "q_l2_norm").count, 36);
  EXPECT_EQ(find(ops, "attn_temperature_scale").count, 12);
  // model FLOPs: 2N + 4·40·128·(12·100000 + 36·1696)
  EXPECT_DOUBLE_EQ(model_flops_per_token(c, phase::decode, 100000).attention, 4.0 * 40 * 128 * 1'261'056);
  // a query that opens a chunk (context 16384 = 2 × 8192) reads no cached token on chunked layers
  o.context = 16384;
  EXPECT_EQ(find(build_catalogue(c, o), "attention_chunked").kv_len, 0);
  EXPECT_EQ(find(build_catalogue(c, o), "attention_chunked").flops, 0);
}

TEST(Families2026, Llama4PrefillChunkedLayersScoreOnlyTheirChunk) {
  const model_config c = load_model_config(data("llama-4-scout-17b-16e.json"));
  catalogue_options o;
  o.ph = phase::prefill, o.batch = 1, o.seq = 20000;
  const auto ops = build_catalogue(c, o);
  const double per_score = 4 * 128 + 5;
  // global: the causal triangle of 20000; chunked: chunks 8192, 8192, 3616
  EXPECT_DOUBLE_EQ(find(ops, "attention").flops, 40.0 * (20000.0 * 20001 / 2) * per_score);
  EXPECT_DOUBLE_EQ(find(ops, "attention_chunked").flops,
                   40.0 * (2 * 8192.0 * 8193 / 2 + 3616.0 * 3617 / 2) * per_score);
  EXPECT_NEAR(attended_keys_per_query(16384, 0, true, 8192), 4096.5, 1e-9);
}

// ---- gpt-oss (OpenAI 2025, "gpt-oss-120b & gpt-oss-20b Model Card", Table 1) ----

TEST(Families2026, GptOssPublishedConfigIsReadWithItsMxfp4Experts) {
  // The published configs carry quantization_config {quant_method: mxfp4, modules_to_not_convert:
  // self_attn, router, embed_tokens, lm_head}: the experts in MXFP4 (4.25 bits per weight, OCP MX
  // v1.0), the listed modules in the activation dtype; the model itself is the one counted without it.
  for (const char* f : {"gpt-oss-20b.json", "gpt-oss-120b.json"}) {
    SCOPED_TRACE(f);
    const model_config c = load_model_config(data(f));
    EXPECT_TRUE(c.weights.quantized);
    EXPECT_EQ(c.weights.linear.format, "mxfp4");
    EXPECT_EQ(c.weights.not_converted.size(), 4u);
    EXPECT_EQ(c.parameters(), without(f, "quantization_config").parameters());
  }
}

TEST(Families2026, GptOssCountsExpertBiasesAndSinks) {
  // Table 1: gpt-oss-20b 20.91B total, 3.61B active; gpt-oss-120b 116.83B, 5.13B. Per layer:
  // attention 2·2880·4096 + 2·2880·512 = 26,542,080 + biases 4096 + 2·512 + 2880 + sinks 64 + 2 norms
  // 5760 = 26,555,904; one expert 3·2880·2880 + biases 2·2880 + 2880 = 24,891,840; router
  // 2880·E + E. Embedding and unembedding 2·201088·2880 = 1,158,266,880; final norm 2880.
  const model_config s = without("gpt-oss-20b.json", "quantization_config");
  EXPECT_TRUE(s.expert_bias && s.attention_sinks && s.attention_bias && s.o_proj_bias);
  EXPECT_EQ(s.experts, 32);
  EXPECT_EQ(s.experts_per_token, 4);
  EXPECT_EQ(s.head_dim, 64);
  EXPECT_DOUBLE_EQ(s.swiglu_limit, 7.0);
  // 20b: (26,555,904 + 32·24,891,840 + 92,192) × 24 + 1,158,266,880 + 2880
  EXPECT_EQ(s.parameters(), 20'914'757'184);
  EXPECT_NEAR(double(s.parameters()) / 1e9, 20.91, 0.005);
  // The card's active count leaves out the embedding table (201088·2880 = 579,133,440): 3.61B
  EXPECT_EQ(s.active_parameters(), 4'187'440'704);
  EXPECT_NEAR(double(s.active_parameters() - s.vocab * s.hidden) / 1e9, 3.61, 0.005);
  const model_config l = without("gpt-oss-120b.json", "quantization_config");
  EXPECT_EQ(l.parameters(), 116'829'156'672);  // (26,555,904 + 128·24,891,840 + 368,768) × 36 + …
  EXPECT_NEAR(double(l.parameters()) / 1e9, 116.83, 0.005);
  EXPECT_EQ(l.active_parameters(), 5'711'982'912);
  EXPECT_NEAR(double(l.active_parameters() - l.vocab * l.hidden) / 1e9, 5.13, 0.005);
  // layer_types: 18 × [sliding, full], window 128
  EXPECT_EQ(l.sliding_window, 128);
  EXPECT_EQ(l.sliding_layers, 18);
}

TEST(Families2026, GptOssDecodeAtFullContext) {
  // gpt-oss-120b decode, batch 1, context 131072, fp16 cache: K and V per layer per token
  // 2·8·64·2 B = 2048 B; 18 full layers read 131072 tokens, 18 sliding ones 128:
  // 2048 · 18 · (131072 + 128) = 4,836,556,800 B (9.66 GB if every layer read the whole cache).
  const model_config c = without("gpt-oss-120b.json", "quantization_config");
  catalogue_options o;
  o.ph = phase::decode, o.batch = 1, o.context = 131072;
  const auto ops = build_catalogue(c, o);
  EXPECT_EQ(find(ops, "attention").kv_len, 131072);
  EXPECT_EQ(find(ops, "attention_sliding").kv_len, 128);
  EXPECT_DOUBLE_EQ(kv_cache_bytes(c, 2, 131072), 4'836'556'800.0);
  // sinks: one more softmax column per (query, head) row, H = 64 logits of 2 B read
  const op_desc plain = attention_op(op_kind::attention_decode, 1, 64, 8, 64, 1, 128, 2, 2, true);
  EXPECT_DOUBLE_EQ(find(ops, "attention_sliding").flops - plain.flops, 64.0 * 5);
  EXPECT_DOUBLE_EQ(find(ops, "attention_sliding").bytes_read - plain.bytes_read, 64.0 * 2);
  // the router and the experts carry biases; the activation is the clamped SwiGLU (10 FLOPs per element)
  EXPECT_DOUBLE_EQ(find(ops, "expert_gate_proj").flops, 2.0 * 4 * 2880 * 2880 + 4 * 2880);  // T·k = 4 rows
  EXPECT_DOUBLE_EQ(find(ops, "router").flops, 2.0 * 2880 * 128 + 128);
  EXPECT_DOUBLE_EQ(find(ops, "clamped_swiglu").flops, 10.0 * 4 * 2880);
}

TEST(Families2026, WrapperErrorsNameTheKeyInsideTextConfig) {
  json j = json::parse(read_file(data("llama-4-scout-17b-16e.json")));
  j["text_config"]["no_rope_layers"] = json::array({1, 0});
  EXPECT_EQ(refused_field(j.dump(), "scout.json"), "text_config.no_rope_layers");
  j = json::parse(read_file(data("gemma-3-27b-it.json")));
  j["quantization_config"] = {{"quant_method", "hqq"}};  // beside text_config: read, and an unmodelled method named
  EXPECT_EQ(refused_field(j.dump(), "g.json"), "quantization_config.quant_method");
  j = json::parse(read_file(data("gemma-3-27b-it.json")));
  j["text_config"]["num_local_experts"] = 8;  // MoE keys on a dense family
  EXPECT_EQ(refused_field(j.dump(), "g.json"), "text_config.num_local_experts");
  // a chunked-attention key on a family that does not chunk
  EXPECT_EQ(refused_field(R"({"model_type": "llama", "hidden_size": 64, "intermediate_size": 128,
      "num_hidden_layers": 2, "num_attention_heads": 4, "vocab_size": 100, "attention_chunk_size": 8192})",
                          "l.json"),
            "attention_chunk_size");
  // an unsupported model_type names the families that are
  try {
    parse_model_config(R"({"model_type": "gemma4"})", "d.json");
    ADD_FAILURE() << "gemma4 was counted";
  } catch (const input_error& e) {
    EXPECT_EQ(e.field(), "model_type");
    for (const char* t : {"gemma3", "gemma3_text", "llama4", "llama4_text", "gpt_oss", "deepseek_v3"})
      EXPECT_NE(std::string(e.what()).find(t), std::string::npos) << t;
  }
}
