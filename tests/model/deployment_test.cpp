// The model side of real deployments: one KV share and one weight-format path for every attention
// kind (memory, capacity and the step's bytes read the same cache and the same weights, under tensor
// and expert parallelism and every weight format), last-position logits in a server's prefill, the
// context rope_scaling allows, transformers' defaults for absent keys, and the FLOPs each recompute
// policy adds. Configs: tests/data/model/serving/README.md (and walk/, the shipped models/).
// Conventions: docs/formulas-model.md §5.3, §5.5, §8.1, §8.2.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "roofline/error.hpp"
#include "roofline/io.hpp"
#include "roofline/json.hpp"
#include "roofline/model.hpp"

using namespace roofline;

namespace {

std::string data(const std::string& f) { return std::string(ROOFLINE_TEST_DATA) + "/model/" + f; }
model_config load(const std::string& f) { return load_model_config(data(f)); }
model_config shipped(const std::string& name) { return load_model_config(resolve_model_path(name)); }

const op_desc& find(const std::vector<op_desc>& ops, const std::string& name) {
  const auto it = std::find_if(ops.begin(), ops.end(), [&](const op_desc& o) { return o.name == name; });
  if (it == ops.end()) throw std::runtime_error("no op " + name);
  return *it;
}

template <class F>
std::string refused(F f) {
  try {
    f();
  } catch (const input_error& e) {
    return e.field() + ": " + e.what();
  }
  return "";
}

/// The KV cache a decode step's attention ops read, Σ over the layer kinds × count: each op's reads
/// less its queries (the K/V or latent rows of the cache, as attention_op and mla_attention_op count them).
double cache_read(const std::vector<op_desc>& ops) {
  double sum = 0;
  for (const auto& op : ops) {
    if (op.kind != op_kind::attention_decode) continue;
    const double q = double(op.batch) * double(op.q_len) * double(op.heads) * double(op.head_dim) * op.dtype_bytes;
    sum += (op.bytes_read - q) * double(op.count);
  }
  return sum;
}

/// What the step reads of the linears' weights if every resident weight were touched once: the plain
/// GEMMs' weight bytes, and each routed expert GEMM's bytes per expert × the experts on this GPU.
double resident_linear_bytes(const model_config& cfg, const catalogue_options& opt, const std::vector<op_desc>& ops) {
  const double used = cfg.experts > 0 ? expected_distinct_experts(cfg.experts, cfg.experts_per_token, opt.batch) / opt.ep : 1;
  double sum = 0;
  for (const auto& op : ops) {
    if (op.kind != op_kind::gemm) continue;
    const bool routed = op.name.rfind("expert_", 0) == 0;
    sum += (routed ? op.weight_bytes / used * double(cfg.experts) / opt.ep : op.weight_bytes) * double(op.count);
  }
  return sum;
}

struct family {
  std::string what;
  model_config cfg;
  std::vector<int> tps;
};

}  // namespace

// One KV share and one weight-format path: for MHA (Llama-2-7B, 32 KV heads), GQA (Llama-3-8B, 8),
// sliding windows (Mistral-7B every layer, Gemma-2-9B every other), chunked attention (Llama-4-Scout)
// and MLA (DeepSeek-V2-Lite, DeepSeek-V3 fp8 as published), at each tensor-parallel degree the model
// splits into and each weight format: the cache memory counts is the cache the step's attention reads
// (+ the token it writes), the sequences that fit are what that cache and the weights leave room for,
// and the weights memory counts are the weights the step reads.
TEST(Deployment, MemoryCapacityAndStepBytesAgreeForEveryAttentionKind) {
  const std::vector<family> families = {
      {"MHA", shipped("llama-2-7b"), {1, 2, 8}},
      {"GQA", shipped("llama-3-8b"), {1, 2, 8, 16}},  // 16 > 8 KV heads: one replicated per GPU
      {"sliding", shipped("mistral-7b"), {1, 4}},
      {"sliding, every other layer", load("walk/gemma-2-9b.json"), {1, 2}},
      {"chunked", load("llama-4-scout-17b-16e.json"), {1, 8}},
      {"MLA", load("walk/deepseek-v2-lite.json"), {1, 2}},
      {"MLA fp8", load("walk/deepseek-v3.json"), {1, 8}},
  };
  for (const auto& f : families)
    for (const int tp : f.tps)
      for (const std::string w : {"", "int4", "fp8", "nvfp4"}) {
        SCOPED_TRACE(f.what + ", tp " + std::to_string(tp) + ", weights '" + w + "'");
        catalogue_options opt;
        opt.ph = phase::decode, opt.batch = 4, opt.context = 4096, opt.dtype = "bf16", opt.tp = tp, opt.weights = w;
        const auto ops = build_catalogue(f.cfg, opt);
        const memory_need need = estimate_memory(f.cfg, opt, ops);
        // the cache: memory keeps context + 1 tokens per sequence, the step reads the context's
        EXPECT_NEAR(need.kv_cache, 4.0 * kv_cache_bytes_per_gpu(f.cfg, 2, 4097, tp), 1e-6 * need.kv_cache);
        EXPECT_NEAR(cache_read(ops), 4.0 * kv_cache_bytes_per_gpu(f.cfg, 2, 4096, tp), 1e-6 * cache_read(ops));
        // the capacity: what the cache memory counts per sequence fits beside the weights and activations
        const double device = 80.0 * 1024 * 1024 * 1024;
        const auto fit = sequences_that_fit(f.cfg, opt, need, device);
        const double room = device - need.weights - need.activations;
        EXPECT_EQ(fit, room > 0 ? std::int64_t(std::floor(room / (need.kv_cache / 4.0))) : 0);
        // the weights: every resident linear as the step reads it, in its format
        EXPECT_NEAR(need.linear_weights, resident_linear_bytes(f.cfg, opt, ops), 1e-9 * need.linear_weights);
      }
}

// DeepSeek-V3 as published (fp8, 128×128 blocks with fp32 scales) on 8 H200s, batch 16, context
// 32768: the latent cache (61 layers × 576 × 2 B = 70,272 B per token) is whole on every GPU, 36.8 GB
// for 16 × 32769 tokens, and 24 sequences of 32768 fit beside the weights in 141 GB (141e9 B, the
// figure the capacity check was given when it answered 197: the cache divided by 8 as if it had
// heads); in the 150,109,880,320 B an H200 reports, 28. The MLA projections are read in fp8 as memory
// counts them: q_a_proj [7168 × 1536] = 11,010,048 B + 56 × 12 fp32 block scales.
TEST(Deployment, DeepSeekV3Fp8LatentCacheIsWholeOnEveryGpu) {
  const model_config cfg = load("walk/deepseek-v3.json");
  catalogue_options opt;
  opt.ph = phase::decode, opt.batch = 16, opt.context = 32768, opt.dtype = "bf16", opt.tp = 8;
  const auto ops = build_catalogue(cfg, opt);
  const memory_need need = estimate_memory(cfg, opt, ops);
  EXPECT_DOUBLE_EQ(kv_cache_bytes_per_token(cfg, 2), 70272);
  EXPECT_NEAR(need.kv_cache, 16.0 * 70272 * 32769, 1);
  EXPECT_NEAR(need.kv_cache / 1e9, 36.8, 0.05);
  EXPECT_EQ(sequences_that_fit(cfg, opt, need, 141e9), 24);
  EXPECT_EQ(sequences_that_fit(cfg, opt, need, 150'109'880'320.0), 28);
  EXPECT_DOUBLE_EQ(find(ops, "q_a_proj").weight_bytes, 7168.0 * 1536 + 56 * 12 * 4);
  EXPECT_NE(find(ops, "q_a_proj").weights.find("fp8"), std::string::npos);
  // kv_b_proj [512 × 128·(128 + 128)] per GPU (16 heads), read as the absorbed q_absorb + v_absorb in fp8
  const double absorbed = find(ops, "q_absorb").weight_bytes + find(ops, "v_absorb").weight_bytes;
  EXPECT_DOUBLE_EQ(absorbed, 16 * (128.0 * 512 + 4 * 4) + 16 * (512.0 * 128 + 4 * 4));
  // One GPU's decode step at batch 1, context 2048 reads 37.9 GB, not the 49.2 GB it read with the MLA
  // projections at 16 bit: ≈ 36.6 G matmul weights a token uses at ~1 B (fp8; lm_head's 0.93 G and the
  // router's 0.1 G at 2 B) + the 0.14 GB latent cache.
  catalogue_options one;
  one.ph = phase::decode, one.batch = 1, one.context = 2048, one.dtype = "bf16";
  double bytes = 0;
  for (const auto& op : build_catalogue(cfg, one)) bytes += op.bytes() * double(op.count);
  EXPECT_NEAR(bytes / 1e9, 37.9, 0.05);
  // --weights int4 reads the projections in int4 too (4 bits + a 16-bit scale and 4-bit zero per 128)
  opt.weights = "int4";
  EXPECT_DOUBLE_EQ(find(build_catalogue(cfg, opt), "q_a_proj").weight_bytes, 7168.0 * 1536 / 2 + 1536.0 * 56 * 20 / 8);
}

// Expert parallelism over the tensor-parallel GPUs: Mixtral-8x7B at ep = tp = 8 keeps one whole expert
// per GPU (f = 14336, not 1792) and runs the T·k/8 routed rows expected there; its memory per GPU
// equals the tensor-parallel split's (1/8 of every expert either way); the routed FLOPs of the step
// sum to the model's (2·T·k·h·f per projection over the 8 GPUs).
TEST(Deployment, ExpertParallelPlacesWholeExperts) {
  const model_config cfg = shipped("mixtral-8x7b");
  catalogue_options tp;
  tp.ph = phase::decode, tp.batch = 32, tp.context = 2048, tp.dtype = "bf16", tp.tp = 8;
  catalogue_options ep = tp;
  ep.ep = 8;
  const auto t_ops = build_catalogue(cfg, tp), e_ops = build_catalogue(cfg, ep);
  EXPECT_EQ(find(t_ops, "expert_gate_proj").n, 14336 / 8);
  EXPECT_EQ(find(e_ops, "expert_gate_proj").n, 14336);
  EXPECT_DOUBLE_EQ(find(e_ops, "expert_gate_proj").flops * 8, 2.0 * 32 * 2 * 4096 * 14336);
  EXPECT_DOUBLE_EQ(find(t_ops, "expert_gate_proj").flops * 8, 2.0 * 32 * 2 * 4096 * 14336);
  EXPECT_NEAR(estimate_memory(cfg, ep, e_ops).weights, estimate_memory(cfg, tp, t_ops).weights, 1);
  // refused: a dense model, ep other than tp, ep not dividing the experts
  EXPECT_NE(refused([&] {
              catalogue_options d = ep;
              build_catalogue(shipped("llama-3-8b"), d);
            }).find("--ep"),
            std::string::npos);
  catalogue_options four = tp;
  four.ep = 4;
  EXPECT_NE(refused([&] { build_catalogue(cfg, four); }).find("ep = tp"), std::string::npos);
  catalogue_options sixteen = tp;
  sixteen.tp = sixteen.ep = 16;
  EXPECT_NE(refused([&] { build_catalogue(cfg, sixteen); }).find("--ep"), std::string::npos);  // 16 ∤ 8 experts
}

// A server's prefill computes the logits of each sequence's last position (vLLM's LogitsProcessor,
// TensorRT-LLM's gather of the last tokens): lm_head [B × h]·[h × V], not [B·n × h]·[h × V].
// Llama-3.2-1B (tied, V·h = 262,668,288): N = 1,235,746,816 matmul weights; per token at T = 2048,
// 2N − 2·V·h·(1 − 1/2048) + 2·16·32·64·2048.
TEST(Deployment, ServingPrefillComputesTheLastPositionsLogits) {
  const model_config cfg = load("serving/llama-3.2-1b.json");
  EXPECT_EQ(cfg.parameters(), 1'235'814'400);
  EXPECT_EQ(matmul_parameters(cfg), 1'235'746'816);
  catalogue_options opt;
  opt.ph = phase::prefill, opt.batch = 2, opt.seq = 2048, opt.dtype = "bf16", opt.last_logits = true;
  EXPECT_EQ(find(build_catalogue(cfg, opt), "lm_head").m, 2);
  opt.last_logits = false;
  EXPECT_EQ(find(build_catalogue(cfg, opt), "lm_head").m, 4096);
  flops_convention c;
  c.last_logits = true;
  const token_flops last = model_flops_per_token(cfg, phase::prefill, 2048, c);
  EXPECT_DOUBLE_EQ(last.total, 2.0 * 1'235'746'816 - 2.0 * 262'668'288 * (1 - 1.0 / 2048) + 2.0 * 16 * 32 * 64 * 2048);
  EXPECT_NE(last.formula.find("2·V·h·(1 − 1/T)"), std::string::npos) << last.formula;
  EXPECT_DOUBLE_EQ(model_flops_per_token(cfg, phase::prefill, 2048).total, 2.0 * 1'235'746'816 + 2.0 * 16 * 32 * 64 * 2048);
  // training computes every position's logits: last is refused
  opt.ph = phase::train, opt.last_logits = true;
  EXPECT_NE(refused([&] { build_catalogue(cfg, opt); }).find("--logits"), std::string::npos);
}

// rope_scaling sets the context a RoPE model is built for (transformers modeling_rope_utils):
// Qwen3-8B with the card's YaRN (factor 4 of 32768) runs 131,072 tokens, without it 40,960;
// Qwen2.5-7B-Instruct's card YaRN the same 131,072; Llama-3.1's llama3 scaling (8 × 8192 = 65,536)
// stays within its max_position_embeddings 131,072; Phi-3-mini-128k's longrope max_position_embeddings
// is the extended 131,072; DeepSeek-V3's yarn 40 × 4096 = its 163,840; Gemma-3-27B's linear × 8 is
// already in its 131,072 (Gemma 3 report: 32k pre-training extended to 128k).
TEST(Deployment, RopeScalingSetsTheContextLimit) {
  const model_config yarn = load("serving/qwen3-8b-yarn.json");
  EXPECT_EQ(yarn.context_limit, 131072);
  EXPECT_NE(yarn.context_limit_source.find("yarn"), std::string::npos) << yarn.context_limit_source;
  EXPECT_NO_THROW(check_positions(yarn, phase::decode, 100000));
  EXPECT_NO_THROW(check_positions(yarn, phase::prefill, 131072));
  EXPECT_NE(refused([&] { check_positions(yarn, phase::decode, 131073); }).find("--context"), std::string::npos);
  EXPECT_EQ(load("walk/qwen3-8b.json").context_limit, 40960);
  EXPECT_NE(refused([&] { check_positions(load("walk/qwen3-8b.json"), phase::decode, 100000); }).find("40960"), std::string::npos);
  EXPECT_EQ(load("serving/qwen2.5-7b-instruct-yarn.json").context_limit, 131072);
  EXPECT_EQ(load("serving/llama-3.1-70b-instruct.json").context_limit, 131072);
  EXPECT_EQ(load("serving/phi-3-mini-128k-longrope.json").context_limit, 131072);
  EXPECT_EQ(load("walk/deepseek-v3.json").context_limit, 163840);
  EXPECT_EQ(load("gemma-3-27b-it.json").context_limit, 131072);
  EXPECT_EQ(shipped("gpt2").context_limit, 1024);
  // a rope type the tool does not know is refused by name, never read as no scaling
  json j = json::parse(read_file(data("walk/qwen3-8b.json")));
  j["rope_scaling"] = {{"rope_type", "mrope"}, {"factor", 2}};
  EXPECT_NE(refused([&] { parse_model_config(j.dump(), "q.json"); }).find("rope_scaling.rope_type"), std::string::npos);
  j["rope_scaling"] = {{"rope_type", "dynamic"}, {"factor", 2}};
  EXPECT_EQ(parse_model_config(j.dump(), "q.json").context_limit, 2 * 40960);
}

// Absent keys take the family's transformers default, and the config says so: a Mistral config without
// num_key_value_heads is MistralConfig's 8 KV heads (7,241,732,096 parameters, the published count), not
// 32 (8.05 B); Mixtral's default is its published 8; Qwen2Config's default 32 does not divide
// Qwen2.5-7B's 28 heads: refused naming the default, as transformers cannot build it either.
TEST(Deployment, AbsentKeysTakeTheFamilysTransformersDefaultNamed) {
  const model_config m = load("serving/mistral-7b-without-kv-heads.json");
  EXPECT_EQ(m.kv_heads, 8);
  EXPECT_EQ(m.parameters(), 7'241'732'096);
  ASSERT_FALSE(m.defaults_used.empty());
  EXPECT_NE(m.defaults_used.front().find("num_key_value_heads = 8 (MistralConfig"), std::string::npos) << m.defaults_used.front();
  EXPECT_TRUE(shipped("mistral-7b").defaults_used.empty());  // the published file names every key
  EXPECT_EQ(load("serving/mixtral-8x7b-without-kv-heads.json").parameters(), 46'702'792'704);
  const std::string q = refused([] { load("serving/qwen2.5-7b-without-kv-heads.json"); });
  EXPECT_NE(q.find("num_key_value_heads"), std::string::npos) << q;
  EXPECT_NE(q.find("Qwen2Config's default 32"), std::string::npos) << q;
  // LlamaConfig: absent → num_attention_heads (multi-head), said as such
  json j = json::parse(read_file(resolve_model_path("llama-3-8b")));
  j.erase("num_key_value_heads");
  const model_config l = parse_model_config(j.dump(), "l.json");
  EXPECT_EQ(l.kv_heads, 32);
  EXPECT_NE(l.defaults_used.front().find("multi-head"), std::string::npos);
}

// HFU's recompute FLOPs per token, Llama-3-8B training at T = 4096 (N = 7,504,658,432 matmul weights,
// V·h = 525,336,576, forward attention 2·32·32·128·4096 = 1,073,741,824 causal-halved):
//  full (Korthikanti et al. 2022 §4): 2·(N − V·h) + the forward attention = 15,032,385,536;
//  selective (Megatron --recompute-activations, §5: core attention only) = 1,073,741,824;
//  selective-layer (torchtitan's default selective_ac_option "2": 16 of 32 layers) = 7,516,192,768;
//  selective-op (torchtitan "op": every second mm, k/o/up) = 2·32·(4096·1024 + 4096² + 4096·14336) = 5,100,273,664.
TEST(Deployment, RecomputePoliciesAsMegatronAndTorchtitanDefineThem) {
  const model_config cfg = shipped("llama-3-8b");
  const token_flops f = model_flops_per_token(cfg, phase::train, 4096);
  EXPECT_DOUBLE_EQ(recompute_flops_per_token(cfg, f, "none"), 0);
  EXPECT_DOUBLE_EQ(recompute_flops_per_token(cfg, f, "full"), 15'032'385'536.0);
  EXPECT_DOUBLE_EQ(recompute_flops_per_token(cfg, f, "selective"), 1'073'741'824.0);
  EXPECT_DOUBLE_EQ(recompute_flops_per_token(cfg, f, "selective-layer"), 7'516'192'768.0);
  EXPECT_DOUBLE_EQ(recompute_flops_per_token(cfg, f, "selective-layer:4"), 15'032'385'536.0 / 4);
  EXPECT_DOUBLE_EQ(recompute_flops_per_token(cfg, f, "selective-op"), 5'100'273'664.0);
  EXPECT_NE(refused([&] { recompute_flops_per_token(cfg, f, "sometimes"); }).find("--recompute"), std::string::npos);
  EXPECT_NE(refused([&] { recompute_flops_per_token(cfg, f, "selective-layer:0"); }).find("--recompute"), std::string::npos);
  const model_config moe = shipped("mixtral-8x7b");
  EXPECT_NE(refused([&] { recompute_flops_per_token(moe, model_flops_per_token(moe, phase::train, 4096), "selective-op"); })
                .find("mixture of experts"),
            std::string::npos);
}
