// The op-cost models of the framework ops real training and serving runs contain, each checked by
// hand for one shape. The calls are written as torch.profiler records them (record_shapes=True:
// Input Dims, Input type, Concrete Inputs), copied from the traces in tests/data/h100-2026-12-05
// (README.md there says how each was made) where the op occurs in one, else from PyTorch's
// native_functions.yaml signature. Every expected number is worked out in the comment above it.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "ingest/aten_cost.hpp"

using roofline::ingest::detail::aten_call;
using roofline::ingest::detail::aten_cost;
using roofline::ingest::detail::aten_input;
using roofline::ingest::detail::cost_aten_op;

namespace {

aten_input t(std::vector<std::int64_t> dims, std::string type, std::string concrete = "") {
  aten_input in;
  in.dims = std::move(dims), in.type = std::move(type), in.concrete = std::move(concrete);
  return in;
}
aten_input scalar(std::string concrete) { return t({}, "Scalar", std::move(concrete)); }
aten_input none() { return t({}, ""); }
aten_input list(std::vector<std::vector<std::int64_t>> shapes) {
  aten_input in;
  in.is_list = true, in.type = "TensorList", in.list = std::move(shapes);
  return in;
}

aten_cost cost(const aten_call& c, const std::string& kernel = "") {
  std::string why;
  const auto r = cost_aten_op(c, kernel, why);
  EXPECT_TRUE(r.has_value()) << c.name << ": " << why;
  return r.value_or(aten_cost{});
}

const std::string bf16 = "c10::BFloat16";

}  // namespace

// Qwen2 training (train-qwen2-2l): aten::_cudnn_attention_backward(grad_out, q [4,14,512,64],
// k [4,2,512,64], v, out, logsumexp [4,14,512,1], …, is_causal at 14 = True).
// Forward: B·H·P·(4d + 5), P = 512·513/2 = 131,328: 4·14·131,328·261 = 1,919,490,048; backward
// 2.5× = 4,798,725,120 (FlashAttention backward recomputes QKᵀ). Bytes: q = 4·512·14·64·2 =
// 3,670,016; K+V = 2·4·512·2·64·2 = 1,048,576; logsumexp 4·14·512·4 = 114,688; read q, out, dO, K, V,
// lse = 3·3,670,016 + 1,048,576 + 114,688 = 12,173,312; written dq, dk, dv = 4,718,592.
TEST(AtenCost, CudnnAttentionBackward) {
  aten_call c{"aten::_cudnn_attention_backward",
              {t({4, 14, 512, 64}, bf16), t({4, 14, 512, 64}, bf16), t({4, 2, 512, 64}, bf16), t({4, 2, 512, 64}, bf16),
               t({4, 14, 512, 64}, bf16), t({4, 14, 512, 1}, "float"), t({}, "long int"), t({}, "long int"), none(),
               none(), none(), scalar("512"), scalar("512"), scalar("0."), scalar("True"), scalar("0.125")}};
  const auto r = cost(c);
  EXPECT_EQ(r.cost_model, "attention_backward_op");
  EXPECT_EQ(r.precision, "bf16");
  EXPECT_DOUBLE_EQ(r.op.flops, 4798725120.0);
  EXPECT_DOUBLE_EQ(r.op.bytes_read, 12173312.0);
  EXPECT_DOUBLE_EQ(r.op.bytes_written, 4718592.0);
  EXPECT_NE(r.note.find("is_causal=True"), std::string::npos);
}

// TinyLlama layer, flash backend (train-llama-1l-flash): aten::_flash_attention_backward takes
// [B, L, H, D]: grad [2,256,32,64], k [2,256,4,64]; is_causal at 11 = True. P = 256·257/2 = 32,896;
// forward 2·32·32,896·261 = 549,494,784; backward 1,373,736,960. q = 2·256·32·64·2 = 2,097,152;
// K+V = 2·2·256·4·64·2 = 524,288; lse 2·32·256·4 = 65,536: read 3·q + K+V + lse = 6,881,280, written
// q + K+V = 2,621,440.
TEST(AtenCost, FlashAttentionBackwardTakesBLHD) {
  aten_call c{"aten::_flash_attention_backward",
              {t({2, 256, 32, 64}, bf16), t({2, 256, 32, 64}, bf16), t({2, 256, 4, 64}, bf16), t({2, 256, 4, 64}, bf16),
               t({2, 256, 32, 64}, bf16), t({2, 32, 256}, "float"), none(), none(), scalar("256"), scalar("256"),
               scalar("0."), scalar("True"), t({2}, "long unsigned int"), t({}, "long unsigned int"), scalar("0.125"), none(),
               none()}};
  const auto r = cost(c);
  EXPECT_DOUBLE_EQ(r.op.flops, 1373736960.0);
  EXPECT_DOUBLE_EQ(r.op.bytes_read, 6881280.0);
  EXPECT_DOUBLE_EQ(r.op.bytes_written, 2621440.0);
}

// The memory-efficient backend's backward ([B, L, H, D], custom_mask_type at 14: 1 = causal),
// native_functions.yaml: _efficient_attention_backward(grad_out_, query, key, value, bias, out,
// cu_seqlens_q, cu_seqlens_k, max_seqlen_q, max_seqlen_k, logsumexp, dropout_p, philox_seed,
// philox_offset, custom_mask_type, …). GPT-2 shapes, 2 × 256 tokens, 12 heads of 64: P = 32,896;
// forward 2·12·32,896·261 = 206,060,544; backward 515,151,360.
TEST(AtenCost, EfficientAttentionBackwardReadsTheMaskType) {
  aten_call c{"aten::_efficient_attention_backward",
              {t({2, 256, 12, 64}, bf16), t({2, 256, 12, 64}, bf16), t({2, 256, 12, 64}, bf16), t({2, 256, 12, 64}, bf16),
               none(), t({2, 256, 12, 64}, bf16), none(), none(), scalar("256"), scalar("256"), t({2, 12, 256}, "float"),
               scalar("0."), t({}, "long int"), t({}, "long int"), scalar("1"), scalar("False")}};
  EXPECT_DOUBLE_EQ(cost(c).op.flops, 515151360.0);
  c.inputs[14] = scalar("0");  // no mask: all 256² pairs, 2·12·65,536·261·2.5
  EXPECT_DOUBLE_EQ(cost(c).op.flops, 2.5 * 2 * 12 * 65536.0 * 261);
}

// The loss over Qwen2's 151,936-word vocabulary, 2,048 tokens, fp32 logits (train-qwen2-2l).
// aten::_log_softmax([2048,151936] float, 1, False): the catalogue's row softmax, e = 311,164,928:
// 5·e = 1,555,824,640 FLOP; three passes read 3·e·4 = 3,733,979,136 B, one writes e·4 = 1,244,659,712.
// aten::_log_softmax_backward_data(grad, output, 1, 6): 2 × forward FLOPs; grad and output read
// 2·e·4 = 2,489,319,424, grad_input written e·4.
TEST(AtenCost, LogSoftmaxForwardAndBackward) {
  const auto f = cost({"aten::_log_softmax", {t({2048, 151936}, "float"), scalar("1"), scalar("False")}});
  EXPECT_EQ(f.cost_model, "elementwise_op");
  EXPECT_DOUBLE_EQ(f.op.flops, 1555824640.0);
  EXPECT_DOUBLE_EQ(f.op.bytes_read, 3733979136.0);
  EXPECT_DOUBLE_EQ(f.op.bytes_written, 1244659712.0);
  const auto b = cost({"aten::_log_softmax_backward_data",
                       {t({2048, 151936}, "float"), t({2048, 151936}, "float"), scalar("1"), scalar("6")}});
  EXPECT_EQ(b.cost_model, "elementwise_backward_op");
  EXPECT_DOUBLE_EQ(b.op.flops, 3111649280.0);
  EXPECT_DOUBLE_EQ(b.op.bytes_read, 2489319424.0);
  EXPECT_DOUBLE_EQ(b.op.bytes_written, 1244659712.0);
}

// aten::nll_loss_forward(self [2048,151936], target [2048], weight, reduction 1 (mean), -100): the
// 2,048 targets (8 B) and picked log-probs (4 B) read = 24,576 B; the loss and total_weight written
// = 8 B; 2,048 FLOPs (the sum). aten::nll_loss_backward(grad [] , self, target, …): targets and the
// scalar grad read = 2,048·8 + 4 = 16,388 B; 2,048 gradient entries written = 8,192 B.
TEST(AtenCost, NllLossForwardAndBackward) {
  const auto f = cost({"aten::nll_loss_forward",
                       {t({2048, 151936}, "float"), t({2048}, "long int"), none(), scalar("1"), scalar("-100")}});
  EXPECT_DOUBLE_EQ(f.op.bytes_read, 24576.0);
  EXPECT_DOUBLE_EQ(f.op.bytes_written, 8.0);
  EXPECT_DOUBLE_EQ(f.op.flops, 2048.0);
  const auto b = cost({"aten::nll_loss_backward",
                       {t({}, "float"), t({2048, 151936}, "float"), t({2048}, "long int"), none(), scalar("1"),
                        scalar("-100"), t({}, "float")}});
  EXPECT_DOUBLE_EQ(b.op.bytes_read, 16388.0);
  EXPECT_DOUBLE_EQ(b.op.bytes_written, 8192.0);
}

// aten::silu_backward(grad [4,512,4864], self [4,512,4864]) bf16 (train-qwen2-2l): e = 9,961,472;
// 2 × SiLU's 4 FLOPs = 79,691,776; grad and x read 2·e·2 = 39,845,888; dx written 19,922,944.
TEST(AtenCost, SiluBackward) {
  const auto r = cost({"aten::silu_backward", {t({4, 512, 4864}, bf16), t({4, 512, 4864}, bf16)}});
  EXPECT_DOUBLE_EQ(r.op.flops, 79691776.0);
  EXPECT_DOUBLE_EQ(r.op.bytes_read, 39845888.0);
  EXPECT_DOUBLE_EQ(r.op.bytes_written, 19922944.0);
}

// aten::native_layer_norm_backward(grad [4,256,768], input [4,256,768], [768], mean, rstd, w, b, mask)
// bf16 (train-gpt2-2l): rows 1,024, cols 768, e = 786,432; 2 × LayerNorm's 8 FLOPs = 12,582,912; x
// and dY read 2·e·2 + w 768·2 = 3,147,264; dx, dw and db written e·2 + 2·1,536 = 1,575,936.
TEST(AtenCost, LayerNormBackward) {
  const auto r = cost({"aten::native_layer_norm_backward",
                       {t({4, 256, 768}, bf16), t({4, 256, 768}, bf16), t({}, "ScalarList", "[768]"), t({4, 256, 1}, "float"),
                        t({4, 256, 1}, "float"), t({768}, bf16), t({768}, bf16), t({}, "ScalarList", "[True, True, True]")}});
  EXPECT_DOUBLE_EQ(r.op.flops, 12582912.0);
  EXPECT_DOUBLE_EQ(r.op.bytes_read, 3147264.0);
  EXPECT_DOUBLE_EQ(r.op.bytes_written, 1575936.0);
}

// aten::embedding_dense_backward(grad [4,512,896] bf16, ids [4,512], 151936, -1, False)
// (train-qwen2-2l): 2,048 rows of 896, e = 1,835,008 adds; dY and the gradient rows read 2·e·2 + the
// ids 2,048·8 = 7,356,416 B; the rows written e·2 = 3,670,016 B.
TEST(AtenCost, EmbeddingBackward) {
  const auto r = cost({"aten::embedding_dense_backward",
                       {t({4, 512, 896}, bf16), t({4, 512}, "long int"), scalar("151936"), scalar("-1"), scalar("False")}});
  EXPECT_EQ(r.cost_model, "embedding_backward_op");
  EXPECT_DOUBLE_EQ(r.op.flops, 1835008.0);
  EXPECT_DOUBLE_EQ(r.op.bytes_read, 7356416.0);
  EXPECT_DOUBLE_EQ(r.op.bytes_written, 3670016.0);
}

// aten::native_dropout([4,256,768] bf16, 0.1, True) (train-gpt2-2l): e = 786,432; x read e·2 =
// 1,572,864 B; y and the bool mask written e·(2 + 1) = 2,359,296 B. Backward(grad, mask, scale): the
// reverse.
TEST(AtenCost, DropoutWritesItsMask) {
  const auto f = cost({"aten::native_dropout", {t({4, 256, 768}, bf16), scalar("0.1"), scalar("True")}});
  EXPECT_DOUBLE_EQ(f.op.bytes_read, 1572864.0);
  EXPECT_DOUBLE_EQ(f.op.bytes_written, 2359296.0);
  const auto b = cost({"aten::native_dropout_backward", {t({4, 256, 768}, bf16), t({4, 256, 768}, "bool"), scalar("1.11")}});
  EXPECT_DOUBLE_EQ(b.op.bytes_read, 2359296.0);
  EXPECT_DOUBLE_EQ(b.op.bytes_written, 1572864.0);
}

// aten::_fused_adamw_ over Qwen2-2-layer's 26 parameter tensors, 165,960,320 elements (the sum of the
// first TensorList's shapes in train-qwen2-2l), bf16 by the kernel's FusedAdamMathFunctor<c10::BFloat16,
// …>: AdamW reads p, g, m, v and writes p, m, v = 7 × 2 B = 14 B per element = 2,323,444,480 B; 14
// FLOPs per element = 2,323,444,480 FLOP.
TEST(AtenCost, FusedAdamWFromTheKernelsElementType) {
  std::vector<std::vector<std::int64_t>> p = {{151936, 896}, {896, 896}, {896}, {128, 896}, {128}, {128, 896}, {128},
                                              {896, 896}, {4864, 896}, {4864, 896}, {896, 4864}, {896}, {896}};
  for (std::size_t i = 0, n = p.size(); i < n; ++i)
    if (i > 0) p.push_back(p[i]);  // the second layer repeats the first's 12 tensors
  p.push_back({896});              // the final norm
  aten_call c{"aten::_fused_adamw_", {list(p), list(p), list(p), list(p), list({}), list(std::vector<std::vector<std::int64_t>>(26)),
                                      scalar("0.0001"), scalar("0.9"), scalar("0.999"), scalar("0.01"), scalar("1e-08"),
                                      scalar("False"), scalar("False"), none(), none()}};
  const std::string kernel =
      "void at::native::(anonymous namespace)::multi_tensor_apply_kernel<at::native::(anonymous "
      "namespace)::FusedOptimizerTensorListMetadata<4>, at::native::(anonymous namespace)::FusedAdamMathFunctor<c10::BFloat16, 4, "
      "(at::native::ADAM_MODE)1, false>, float const*, double>";
  const auto r = cost(c, kernel);
  EXPECT_EQ(r.cost_model, "optimizer_op");
  EXPECT_EQ(r.precision, "bf16");
  EXPECT_DOUBLE_EQ(r.op.bytes(), 165960320.0 * 14);
  EXPECT_DOUBLE_EQ(r.op.flops, 165960320.0 * 14);
  std::string why;
  EXPECT_FALSE(cost_aten_op(c, "some_kernel_without_a_functor", why));
  EXPECT_NE(why.find("element type"), std::string::npos);
}

// aten::_foreach_addcmul_(exp_avg_sq, grad, grad, 1 − β2) of a foreach Adam (train-llama-1l-flash):
// 175,118,336 elements in 12 tensors; the kernel PointwiseOpScalarFunctor<c10::BFloat16, 3, 3, 0>
// reads 3 lists and writes list 0: 175,118,336·2·(3 + 1) = 1,400,946,688 B; addcmul 2 FLOPs per element.
TEST(AtenCost, ForeachListsFromTheKernelsFunctor) {
  std::vector<std::vector<std::int64_t>> p = {{32000, 2048}, {2048, 2048}, {256, 2048}, {256, 2048},
                                              {2048, 2048}, {5632, 2048}, {5632, 2048}, {2048, 5632},
                                              {2048}, {2048}, {2048}, {32000, 2048}};
  const std::string kernel =
      "void at::native::(anonymous namespace)::multi_tensor_apply_kernel<at::native::(anonymous namespace)::TensorListMetadata<3>, "
      "at::native::(anonymous namespace)::PointwiseOpScalarFunctor<c10::BFloat16, 3, 3, 0>, std::multiplies<float>, float>";
  const auto r = cost({"aten::_foreach_addcmul_", {list(p), list(p), list(p), scalar("0.001")}}, kernel);
  EXPECT_DOUBLE_EQ(r.op.bytes(), 1400946688.0);
  EXPECT_DOUBLE_EQ(r.op.flops, 2 * 175118336.0);
  // a long list is written `[]` by the profiler (the full Qwen2.5-0.5B's 290 step counters in
  // aten::_foreach_add_): shapes not recorded, not a list of no tensors costing 0 B
  std::string why;
  EXPECT_FALSE(cost_aten_op({"aten::_foreach_add_", {list({}), scalar("1")}}, kernel, why));
  EXPECT_NE(why.find("shapes not recorded"), std::string::npos) << why;
}

// A KV-cache append: aten::index_copy_(cache [1,4,528,64] fp16, 2, pos [1], k [1,4,1,64]): 256 values
// read (512 B) and the index (8 B), 256 written (512 B).
TEST(AtenCost, IndexCopyIsAKvAppend) {
  const auto r = cost({"aten::index_copy_",
                       {t({1, 4, 528, 64}, "c10::Half"), scalar("2"), t({1}, "long int"), t({1, 4, 1, 64}, "c10::Half")}});
  EXPECT_DOUBLE_EQ(r.op.bytes_read, 520.0);
  EXPECT_DOUBLE_EQ(r.op.bytes_written, 512.0);
}

// Sampling over a 32,000-word vocabulary, batch 4, fp32 logits (e = 128,000, 512,000 B read):
// topk(x, 50, -1): 4·50 values (4 B) and indices (8 B) = 2,400 B written; sort(x, -1, False): every
// value and its index = 128,000·12 = 1,536,000 B written; multinomial(p, 1, False): 4 int64 = 32 B.
TEST(AtenCost, SamplingOps) {
  const auto topk = cost({"aten::topk", {t({4, 32000}, "float"), scalar("50"), scalar("-1"), scalar("True"), scalar("True")}});
  EXPECT_DOUBLE_EQ(topk.op.bytes_read, 512000.0);
  EXPECT_DOUBLE_EQ(topk.op.bytes_written, 2400.0);
  const auto sort = cost({"aten::sort", {t({4, 32000}, "float"), scalar("-1"), scalar("False")}});
  EXPECT_DOUBLE_EQ(sort.op.bytes_written, 1536000.0);
  const auto mn = cost({"aten::multinomial", {t({4, 32000}, "float"), scalar("1"), scalar("False"), none()}});
  EXPECT_DOUBLE_EQ(mn.op.bytes_written, 32.0);
}

// fp8 GEMM: aten::_scaled_mm(a [4096,4096] e4m3, b [4096,4096] e4m3, scale_a, scale_b, bias, None,
// out_dtype 15 (bfloat16), False): 2·4096³ = 137,438,953,472 FLOP on the fp8 tensor engine; reads
// 2·4096²·1 = 33,554,432 B, writes 4096²·2 = 33,554,432 B.
TEST(AtenCost, ScaledMmIsAnFp8Gemm) {
  const std::string e4m3 = "c10::Float8_e4m3fn";
  const auto r = cost({"aten::_scaled_mm",
                       {t({4096, 4096}, e4m3), t({4096, 4096}, e4m3), t({}, "float"), t({}, "float"), none(), none(),
                        scalar("15"), scalar("False")}});
  EXPECT_EQ(r.precision, "fp8");
  EXPECT_EQ(r.engine, "tensor");
  EXPECT_DOUBLE_EQ(r.op.flops, 137438953472.0);
  EXPECT_DOUBLE_EQ(r.op.bytes_read, 33554432.0);
  EXPECT_DOUBLE_EQ(r.op.bytes_written, 33554432.0);
}

// MoE experts: aten::_grouped_mm(a [1024, 4096] bf16, b [8, 4096, 14336] bf16, offs [8]) (Mixtral's
// w1 shape): 2·1024·4096·14336 = 120,259,084,288 FLOP; a read 1024·4096·2 = 8,388,608 B and all 8
// experts 8·4096·14336·2 = 939,524,096 B; written 1024·14336·2 = 29,360,128 B.
TEST(AtenCost, GroupedMmReadsEveryExpert) {
  const auto r = cost({"aten::_grouped_mm", {t({1024, 4096}, bf16), t({8, 4096, 14336}, bf16), t({8}, "int"), none(), none()}});
  EXPECT_DOUBLE_EQ(r.op.flops, 120259084288.0);
  EXPECT_DOUBLE_EQ(r.op.bytes_read, 8388608.0 + 939524096.0);
  EXPECT_DOUBLE_EQ(r.op.bytes_written, 29360128.0);
}

// A comparison writes bools: aten::eq([4, 512] int64, [4, 512] int64) reads 2·2,048·8 = 32,768 B and
// writes 2,048 B.
TEST(AtenCost, ComparisonsWriteOneBytePerElement) {
  const auto r = cost({"aten::eq", {t({4, 512}, "long int"), t({4, 512}, "long int")}});
  EXPECT_DOUBLE_EQ(r.op.bytes_read, 32768.0);
  EXPECT_DOUBLE_EQ(r.op.bytes_written, 2048.0);
}
