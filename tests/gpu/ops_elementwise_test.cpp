// GPU: elementwise ops verify against the fp32 reference at TinyLlama's shapes (batch-32 FFN
// 32 × 5632, residual 32 × 2048) and at an odd size that exercises the scalar tail; fused SiLU·mul
// moves 3/5 of the unfused pair's bytes and is not slower than silu followed by mul.
#include "ops_fixture.hpp"

namespace roofline::cuda::test {
namespace {

TEST(ops_elementwise, every_kind_verifies_fp16_and_bf16) {
  ROOFLINE_SKIP_WITHOUT_GPU();
  gpu_context g;
  for (const char* dt : {"fp16", "bf16"})
    for (op_kind k : {op_kind::add, op_kind::mul, op_kind::silu, op_kind::silu_mul, op_kind::gelu}) {
      const op_desc op = rows_cols(k, 32, 5632, dt);
      op_timing t;
      ASSERT_NO_THROW(t = run_op(op, quick_timing(), g.ctx)) << to_string(k) << " " << dt;
      expect_verified(t, op);
    }
}

TEST(ops_elementwise, odd_sizes_use_the_scalar_tail) {
  ROOFLINE_SKIP_WITHOUT_GPU();
  gpu_context g;
  for (op_kind k : {op_kind::add, op_kind::silu_mul, op_kind::gelu}) {
    const op_desc op = rows_cols(k, 3, 1001);  // 3003 elements: 375 vectors + 3 tail elements
    op_timing t;
    ASSERT_NO_THROW(t = run_op(op, quick_timing(), g.ctx)) << to_string(k);
    expect_verified(t, op);
  }
}

TEST(ops_elementwise, fused_silu_mul_moves_three_fifths_of_the_bytes) {
  // 32 × 5632 fp16: fused reads g, u and writes y = 3 × 360,448 B = 1,081,344 B; unfused silu (2 tensors)
  // + mul (3 tensors) = 5 × 360,448 B = 1,802,240 B. No GPU needed.
  EXPECT_DOUBLE_EQ(kernel_bytes(rows_cols(op_kind::silu_mul, 32, 5632)), 1081344.0);
  EXPECT_DOUBLE_EQ(kernel_bytes(rows_cols(op_kind::silu, 32, 5632)) + kernel_bytes(rows_cols(op_kind::mul, 32, 5632)),
                   1802240.0);
}

TEST(ops_elementwise, fused_silu_mul_is_not_slower_than_silu_then_mul) {
  ROOFLINE_SKIP_WITHOUT_GPU();
  gpu_context g;
  // prefill FFN activation of TinyLlama: 2048 tokens × 5632 (23 MB per tensor): bandwidth-bound
  const timing_options timing = quick_timing();
  const double fused = run_op(rows_cols(op_kind::silu_mul, 2048, 5632), timing, g.ctx).seconds;
  const double unfused = run_op(rows_cols(op_kind::silu, 2048, 5632), timing, g.ctx).seconds +
                         run_op(rows_cols(op_kind::mul, 2048, 5632), timing, g.ctx).seconds;
  EXPECT_LE(fused, unfused) << "fused " << fused << " s, silu + mul " << unfused << " s";
  // bandwidth-bound: the time ratio should sit near the 3/5 byte ratio (loose: launch overheads)
  EXPECT_LT(fused / unfused, 0.8) << "fused " << fused << " s, silu + mul " << unfused << " s";
}

TEST(ops_elementwise, unsupported_dtype_is_a_probe_error) {
  // no GPU needed: the dtype is checked before any CUDA call
  EXPECT_THROW(run_op(rows_cols(op_kind::add, 4, 8, "fp32"), quick_timing(), op_context{}), probe_error);
}

}  // namespace
}  // namespace roofline::cuda::test
