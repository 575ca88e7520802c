// Weight formats: bits per weight from each format's definition, the quantization_config reader over
// real configs (tests/data/model/quant/README.md says what each file is), and what follows from the
// bytes: the decode step, the knee, the capacity. Worked values: docs/formulas-model.md §2.1.
#include "roofline/json.hpp"
#include "roofline/weight_format.hpp"

#include <gtest/gtest.h>

#include <string>

#include "roofline/error.hpp"
#include "roofline/model.hpp"

using namespace roofline;

namespace {

std::string quant(const std::string& f) { return std::string(ROOFLINE_TEST_DATA) + "/model/quant/" + f; }

/// The field an input_error names, "" when none is thrown.
template <class F>
std::string refused(F f) {
  try {
    f();
  } catch (const input_error& e) {
    return e.field();
  }
  return "";
}

/// Σ weight bytes × count over a catalogue's linears, and lm_head's alone.
struct linear_bytes {
  double all = 0, lm_head = 0;
};
linear_bytes weight_bytes(const std::vector<op_desc>& ops) {
  linear_bytes b;
  for (const auto& op : ops) {
    if (op.kind != op_kind::gemm) continue;
    b.all += op.weight_bytes * double(op.count);
    if (op.name == "lm_head") b.lm_head += op.weight_bytes;
  }
  return b;
}

constexpr double k4096 = 4096.0 * 4096.0;

}  // namespace

// Each row of the table against its definition, on a 4096 × 4096 weight.
TEST(WeightFormat, BitsPerWeightFromEachDefinition) {
  // fp16: 2 bytes, nothing else
  EXPECT_DOUBLE_EQ(weight_tensor_bytes(weight_quant_of("fp16"), 4096, 4096), 2 * k4096);
  // int4 (AWQ/GPTQ): 4 bits + one fp16 scale + one 4-bit zero per 128 inputs = 4 + 20/128 = 4.15625
  EXPECT_DOUBLE_EQ(weight_tensor_bytes(weight_quant_of("int4"), 4096, 4096), k4096 / 2 + 4096.0 * 32 * 20 / 8);
  EXPECT_DOUBLE_EQ(bits_per_weight(weight_quant_of("int4"), 4096, 4096), 4.15625);
  // NVFP4: 4 bits + one E4M3 (8-bit) scale per 16 + one fp32 per tensor = 4.5 bits (+ 32 bits per tensor)
  EXPECT_DOUBLE_EQ(weight_tensor_bytes(weight_quant_of("nvfp4"), 4096, 4096), k4096 / 2 + 4096.0 * 256 + 4);
  EXPECT_NEAR(bits_per_weight(weight_quant_of("nvfp4"), 4096, 4096), 4.5, 2e-6);
  // MXFP4 (OCP MX v1.0 §5): 4 bits + one E8M0 scale per 32 = 4.25 exactly
  EXPECT_DOUBLE_EQ(bits_per_weight(weight_quant_of("mxfp4"), 4096, 4096), 4.25);
  // fp8 per tensor: one fp32 scale; in 128×128 blocks (DeepSeek-V3): 32·32 fp32 scales = 8.00195 bits
  EXPECT_DOUBLE_EQ(weight_tensor_bytes(weight_quant_of("fp8"), 4096, 4096), k4096 + 4);
  EXPECT_DOUBLE_EQ(weight_tensor_bytes(weight_quant_of("fp8", "128"), 4096, 4096), k4096 + 32 * 32 * 4);
  EXPECT_NEAR(bits_per_weight(weight_quant_of("fp8", "128"), 4096, 4096), 8.00195, 1e-5);
  // int8 (LLM.int8()): one fp32 absmax per output channel
  EXPECT_DOUBLE_EQ(weight_tensor_bytes(weight_quant_of("int8"), 4096, 4096), k4096 + 4096.0 * 4);
  // nf4: fp32 absmax per 64 = 4.5 bits; double quant 4 + 8/64 + 32/(64·256) = 4.127 (QLoRA §3)
  EXPECT_DOUBLE_EQ(bits_per_weight(weight_quant_of("nf4"), 4096, 4096), 4.5);
}

TEST(WeightFormat, GroupSizeWhereItApplies) {
  EXPECT_DOUBLE_EQ(bits_per_weight(weight_quant_of("int4", "64"), 4096, 4096), 4 + 20.0 / 64);  // 4.3125
  EXPECT_DOUBLE_EQ(weight_tensor_bytes(weight_quant_of("int4", "channel"), 4096, 4096), k4096 / 2 + 4096 * 2.5);
  EXPECT_EQ(weight_quant_of("fp8", "channel").layout, scale_layout::channel);
  EXPECT_EQ(refused([] { weight_quant_of("nvfp4", "32"); }), "--group-size");  // NVFP4 fixes 16
  EXPECT_EQ(refused([] { weight_quant_of("mxfp4", "16"); }), "--group-size");  // MXFP4 fixes 32
  EXPECT_EQ(refused([] { weight_quant_of("fp16", "128"); }), "--group-size");  // no scales to group
  EXPECT_EQ(refused([] { weight_quant_of("int4", "0"); }), "--group-size");
  EXPECT_EQ(refused([] { weight_quant_of("int4", "12x"); }), "--group-size");
  EXPECT_EQ(refused([] { weight_quant_of("int3"); }), "--weights");
  EXPECT_EQ(refused([] { resolve_weight_scheme({}, "fp16", "", "64"); }), "--group-size");  // needs --weights
}

TEST(WeightFormat, ModuleNamesMatchAsTransformersAppliesThem) {
  EXPECT_TRUE(module_matches("lm_head", "lm_head"));
  // AWQ Mixtral's ["gate"]: the router, not gate_proj
  EXPECT_TRUE(module_matches("gate", "model.layers.7.block_sparse_moe.gate"));
  EXPECT_FALSE(module_matches("gate", "model.layers.7.mlp.gate_proj"));
  // gpt-oss: model.layers.*.self_attn covers every attention projection of every layer
  EXPECT_TRUE(module_matches("model.layers.*.self_attn", "model.layers.3.self_attn.q_proj"));
  EXPECT_FALSE(module_matches("model.layers.*.self_attn", "model.layers.3.mlp.experts.0.gate_proj"));
  EXPECT_TRUE(module_matches("model.layers.*.mlp.router", "model.layers.0.mlp.router"));
  EXPECT_TRUE(module_matches("re:.*lm_head$", "lm_head"));
  EXPECT_FALSE(module_matches("model.embed_tokens", "lm_head"));
}

// Real quantization_config blocks (tests/data/model/quant/README.md).
TEST(QuantizationConfig, EveryMethodReadsItsBlock) {
  {  // TheBloke/Llama-2-7B-AWQ: bits 4, group 128, zero_point
    const auto c = load_model_config(std::string(ROOFLINE_TEST_DATA) + "/model/walk/llama-2-7b-awq.json");
    EXPECT_TRUE(c.weights.quantized);
    EXPECT_EQ(c.weights.method, "awq");
    EXPECT_DOUBLE_EQ(bits_per_weight(c.weights.linear, 4096, 4096), 4.15625);
  }
  {  // TheBloke/TinyLlama-1.1B-Chat-v1.0-GPTQ: 4-bit g128, desc_act: qzeros 4-bit + g_idx int32 per input row
    const auto c = load_model_config(quant("tinyllama-1.1b-chat-gptq.json"));
    EXPECT_EQ(c.weights.method, "gptq");
    EXPECT_DOUBLE_EQ(weight_tensor_bytes(c.weights.linear, 2048, 2048),
                     2048.0 * 2048 / 2 + 2048.0 * 16 * 20 / 8 + 2048 * 4);
  }
  {  // Qwen/Qwen3-8B-FP8: e4m3 in 128×128 blocks
    const auto c = load_model_config(quant("qwen3-8b-fp8.json"));
    EXPECT_EQ(c.weights.linear.format, "fp8");
    EXPECT_EQ(c.weights.linear.layout, scale_layout::block);
    EXPECT_EQ(c.weights.linear.group, 128);
  }
  {  // compressed-tensors: FP8 per channel, NVFP4, W4A16 int4 g128 symmetric (no zero point)
    const auto f = load_model_config(quant("llama-3-8b-fp8-dynamic.json")).weights;
    EXPECT_EQ(f.linear.format, "fp8");
    EXPECT_EQ(f.linear.layout, scale_layout::channel);
    EXPECT_EQ(f.not_converted, std::vector<std::string>{"lm_head"});
    EXPECT_EQ(load_model_config(quant("llama-3-8b-nvfp4-compressed-tensors.json")).weights.linear.format, "nvfp4");
    const auto w4 = load_model_config(quant("llama-3-8b-w4a16-compressed-tensors.json")).weights.linear;
    EXPECT_EQ(w4.format, "int4");
    EXPECT_DOUBLE_EQ(bits_per_weight(w4, 4096, 4096), 4.125);  // 4 + 16/128
  }
  {  // TensorRT Model Optimizer NVFP4
    const auto c = load_model_config(quant("llama-3-8b-modelopt-nvfp4.json"));
    EXPECT_EQ(c.weights.linear.format, "nvfp4");
    EXPECT_EQ(c.weights.method, "modelopt");
  }
  {  // bitsandbytes nf4 + double quant: 4 + 8/64 + 32/(64·256) = 4.127 bits (QLoRA §3)
    const auto c = load_model_config(quant("llama-3-8b-bnb-4bit.json"));
    EXPECT_EQ(c.weights.linear.format, "nf4");
    EXPECT_NEAR(bits_per_weight(c.weights.linear, 4096, 4096), 4 + 8.0 / 64 + 32.0 / (64 * 256), 1e-12);
  }
  {  // openai/gpt-oss-20b: mxfp4 with attention, router, embeddings and lm_head kept in bf16.
    const json j = json::parse(R"({"modules_to_not_convert": ["model.layers.*.self_attn", "model.layers.*.mlp.router",
                                   "model.embed_tokens", "lm_head"], "quant_method": "mxfp4"})");
    const auto s = parse_quantization_config(j, "gpt-oss-20b.json");
    EXPECT_EQ(s.linear.format, "mxfp4");
    EXPECT_EQ(s.not_converted.size(), 4u);
    const auto c = load_model_config(quant("gpt-oss-20b.json"));  // the family too (gpt_oss)
    EXPECT_EQ(c.weights.linear.format, "mxfp4");
    EXPECT_EQ(c.weights.not_converted.size(), 4u);
  }
}

TEST(QuantizationConfig, UnmodelledMethodsAreRefusedByName) {
  try {
    load_model_config(quant("tinyllama-hqq.json"));
    FAIL() << "hqq was not refused";
  } catch (const input_error& e) {
    EXPECT_EQ(e.field(), "quantization_config.quant_method");
    EXPECT_NE(std::string(e.what()).find("hqq"), std::string::npos);
  }
  const json fp8_e5m2 = json::parse(R"({"quant_method": "fp8", "fmt": "e5m2"})");
  EXPECT_EQ(refused([&] { parse_quantization_config(fp8_e5m2, "x.json"); }), "quantization_config.fmt");
  const json awq3 = json::parse(R"({"quant_method": "awq", "bits": 3, "group_size": 128})");
  EXPECT_EQ(refused([&] { parse_quantization_config(awq3, "x.json"); }), "quantization_config.bits");
}

// AWQ Mixtral (TheBloke/Mixtral-8x7B-v0.1-AWQ: modules_to_not_convert ["gate"]): the router stays
// fp16, the experts are int4; a list naming one layer of an op is refused (one format per op).
TEST(QuantizationConfig, UnconvertedModulesByName) {
  auto c = load_model_config(resolve_model_path("mixtral-8x7b"));
  c.weights = parse_quantization_config(
      json::parse(
          R"({"quant_method": "awq", "bits": 4, "group_size": 128, "zero_point": true, "modules_to_not_convert": ["gate"]})"),
      "mixtral-awq.json");
  std::string why;
  EXPECT_EQ(linear_format(c, c.weights, "fp16", "router", &why).format, "fp16");
  EXPECT_NE(why.find("'gate'"), std::string::npos);
  EXPECT_EQ(linear_format(c, c.weights, "fp16", "expert_gate_proj").format, "int4");
  EXPECT_EQ(linear_format(c, c.weights, "fp16", "q_proj").format, "int4");
  EXPECT_EQ(linear_format(c, c.weights, "fp16", "lm_head", &why).format, "fp16");
  EXPECT_NE(why.find("unquantized"), std::string::npos);
  c.weights.not_converted = {"model.layers.0.self_attn"};
  EXPECT_EQ(refused([&] { linear_format(c, c.weights, "fp16", "q_proj"); }), "quantization_config");
}

// Llama-3-8B decode at batch 1 (32 layers; per layer q, o 4096×4096, k, v 4096×1024, gate, up
// 4096×14336, down 14336×4096: 218,103,808 weights; ×32 = 6,979,321,856; lm_head 4096×128256 =
// 525,336,576, kept in fp16 by every method):
//   fp16      6,979,321,856 × 2                              = 13,958,643,712 B + lm_head 1,050,673,152
//   int4 g128 × (0.5 + 2.5/128) = × 0.51953125                =  3,625,975,808 B + lm_head 1,050,673,152
//   nvfp4     × (0.5 + 1/16) + 4 B × 7 tensors × 32 layers    =  3,925,869,440 B + lm_head
//   mxfp4     × (0.5 + 1/32)                                  =  3,707,764,736 B + lm_head
// Activations stay fp16: the linears' activation bytes and every other op are the same in all four.
TEST(WeightFormat, Llama3DecodeWeightBytesByHand) {
  const auto c = load_model_config(resolve_model_path("llama-3-8b"));
  catalogue_options o;  // decode, batch 1, context 2048, fp16
  const auto fp16 = build_catalogue(c, o);
  o.weights = "int4";
  const auto int4 = build_catalogue(c, o);
  o.weights = "nvfp4";
  const auto nvfp4 = build_catalogue(c, o);
  o.weights = "mxfp4";
  const auto mxfp4 = build_catalogue(c, o);
  EXPECT_DOUBLE_EQ(weight_bytes(fp16).all, 13'958'643'712.0 + 1'050'673'152.0);
  EXPECT_DOUBLE_EQ(weight_bytes(int4).all, 3'625'975'808.0 + 1'050'673'152.0);
  EXPECT_DOUBLE_EQ(weight_bytes(nvfp4).all, 3'925'869'440.0 + 1'050'673'152.0);
  EXPECT_DOUBLE_EQ(weight_bytes(mxfp4).all, 3'707'764'736.0 + 1'050'673'152.0);
  EXPECT_DOUBLE_EQ(weight_bytes(int4).lm_head, 1'050'673'152.0);
  // nothing else moves: the step's bytes differ by the weight bytes alone, FLOPs not at all
  double b16 = 0, b4 = 0, f16 = 0, f4 = 0;
  for (const auto& op : fp16) b16 += op.bytes() * double(op.count), f16 += op.flops * double(op.count);
  for (const auto& op : int4) b4 += op.bytes() * double(op.count), f4 += op.flops * double(op.count);
  EXPECT_DOUBLE_EQ(b16 - b4, 13'958'643'712.0 - 3'625'975'808.0);
  EXPECT_DOUBLE_EQ(f16, f4);
  // the KV cache keeps its own dtype
  o.kv_dtype = "fp8";
  for (const auto& op : build_catalogue(c, o))
    if (op.kind == op_kind::attention_decode) EXPECT_EQ(op.kv_dtype_bytes, 1);
}

// The knee (docs/formulas-model.md §7) with weights of w bytes per element: k = n = 4096, ridge 300,
// fp16 activations: B = R·w / (2 − R·a·(k + n)/(k·n)) = 300·w / 1.70703: fp16 (w = 2) 351.5 → 352;
// int4 g128 (w = 0.51953125) 91.3 → 92; mxfp4 (w = 0.53125) 93.4 → 94.
TEST(WeightFormat, KneeFallsWithTheWeightBytes) {
  EXPECT_EQ(knee_batch(4096, 4096, 2, 300.0), 352);
  EXPECT_EQ(knee_batch(4096, 4096, 2, 2.0, 300.0), 352);
  EXPECT_EQ(knee_batch(4096, 4096, 2, 0.51953125, 300.0), 92);
  EXPECT_EQ(knee_batch(4096, 4096, 2, 0.53125, 300.0), 94);
  const auto c = load_model_config(resolve_model_path("llama-3-8b"));
  catalogue_options o;
  o.weights = "int4";
  for (const auto& p : linear_batch_sweep(c, 1, 1, o))
    if (p.name == "q_proj") EXPECT_DOUBLE_EQ(p.weight_bytes, 4096.0 * 4096 * 0.51953125);
}

// Qwen/Qwen3-8B-FP8's own tensors (its safetensors: 8.79 GiB): 36 layers of fp8 linears, 192,937,984
// weights each = 6,945,767,424 B, their 128×128-block scales (32·32 + 2·8·32 + 3·96·32 = 11,776 per
// layer, fp32 here) 1,695,744 B, embedding and lm_head in bf16 2·151936·4096·2 = 2,489,319,424 B,
// norms 616,448 B: 9,437,399,040 B = 8.79 GiB.
TEST(WeightFormat, CapacityCountsTheCheckpointsBytes) {
  const auto c = load_model_config(quant("qwen3-8b-fp8.json"));
  catalogue_options o;
  o.dtype = "bf16";
  const auto m = estimate_memory(c, o, build_catalogue(c, o));
  EXPECT_DOUBLE_EQ(m.weights, 9'437'399'040.0);
  EXPECT_NEAR(m.weights / (1024.0 * 1024 * 1024), 8.79, 0.005);
  // more room for the KV cache: Llama-3-8B on an 80 GB device at context 8192 (1,073,872,896 B per sequence)
  const auto l = load_model_config(resolve_model_path("llama-3-8b"));
  catalogue_options d;
  d.context = 8192;
  const auto need16 = estimate_memory(l, d, build_catalogue(l, d));
  d.weights = "int4";
  const auto need4 = estimate_memory(l, d, build_catalogue(l, d));
  EXPECT_DOUBLE_EQ(need16.weights - need4.weights, 13'958'643'712.0 - 3'625'975'808.0);
  EXPECT_EQ(sequences_that_fit(l, d, need16, 80e9),
            std::int64_t((80e9 - need16.weights - need16.activations) / 1'073'872'896.0));
  EXPECT_GT(sequences_that_fit(l, d, need4, 80e9), sequences_that_fit(l, d, need16, 80e9) + 9);
}

TEST(WeightFormat, TrainingWithQuantizedWeightsIsRefused) {
  const auto c = load_model_config(resolve_model_path("tinyllama-1.1b"));
  catalogue_options o;
  o.ph = phase::train, o.seq = 128, o.weights = "int4";
  EXPECT_EQ(refused([&] { build_catalogue(c, o); }), "--weights");
  o.weights = "fp16";  // the dtype itself is fine
  EXPECT_EQ(refused([&] { build_catalogue(c, o); }), "");
}

TEST(WeightFormat, RunRefusesFormatsItHasNoKernelFor) {
  const auto tiny = load_model_config(resolve_model_path("tinyllama-1.1b"));
  std::string note;
  for (const char* w : {"int4", "nvfp4", "mxfp4", "nf4", "fp8", "int8"})
    EXPECT_EQ(refused([&] { runnable_weights(tiny, "fp16", w, note); }), "--weights") << w;
  EXPECT_EQ(refused([&] { runnable_weights(tiny, "fp16", "bf16", note); }), "--weights");  // kernels read --dtype
  const auto gptq = load_model_config(quant("tinyllama-1.1b-chat-gptq.json"));
  EXPECT_EQ(refused([&] { runnable_weights(gptq, "fp16", "", note); }), "quantization_config");
  const auto ran = runnable_weights(gptq, "fp16", "fp16", note);  // the override runs the shapes in fp16
  EXPECT_FALSE(ran.weights.quantized);
  EXPECT_NE(note.find("overrides"), std::string::npos);
}
