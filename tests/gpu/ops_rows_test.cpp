// GPU: the row ops (RMSNorm one- and two-pass, LayerNorm, softmax), RoPE and the embedding gather
// verify against their fp32 references at TinyLlama shapes (hidden 2048, 32 + 4 heads of 64,
// vocab 32000) and at shapes that take the generic paths.
#include "ops_fixture.hpp"

namespace roofline::cuda::test {
namespace {

TEST(ops_rows, rmsnorm_layernorm_softmax_verify) {
  ROOFLINE_SKIP_WITHOUT_GPU();
  gpu_context g;
  for (const char* dt : {"fp16", "bf16"}) {
    for (op_kind k : {op_kind::rmsnorm, op_kind::layernorm, op_kind::softmax}) {
      // 2048 cols: registers path (1 vector/thread); 768: GPT-2 width; 1000: generic; 20000: > 16384
      for (std::int64_t cols : {2048, 768, 1000, 20000}) {
        const op_desc op = rows_cols(k, 64, cols, dt);
        op_timing t;
        ASSERT_NO_THROW(t = run_op(op, quick_timing(), g.ctx)) << to_string(k) << " " << dt << " cols " << cols;
        expect_verified(t, op);
      }
    }
  }
}

TEST(ops_rows, two_pass_rmsnorm_verifies_and_is_not_faster_than_one_pass) {
  ROOFLINE_SKIP_WITHOUT_GPU();
  gpu_context g;
  op_desc one = rows_cols(op_kind::rmsnorm, 8192, 2048);
  op_desc two = one;
  two.name = "rmsnorm_two_pass";
  const op_timing t1 = run_op(one, quick_timing(), g.ctx), t2 = run_op(two, quick_timing(), g.ctx);
  expect_verified(t2, two);
  EXPECT_NE(t2.implementation.find("two-pass"), std::string::npos) << t2.implementation;
  // bytes: one pass 2·n·b + w, two passes 3·n·b + w + per-row stats: 3/2 as many
  EXPECT_NEAR(kernel_bytes(two) / kernel_bytes(one), 1.5, 0.01);
  EXPECT_LE(t1.seconds, t2.seconds * 1.05) << "one-pass " << t1.seconds << " s, two-pass " << t2.seconds << " s";
}

TEST(ops_rows, rope_verifies_in_decode_and_prefill) {
  ROOFLINE_SKIP_WITHOUT_GPU();
  gpu_context g;
  for (int d : {64, 128, 72}) {  // 72: not a multiple of 16 -> scalar kernel
    op_desc op = rows_cols(op_kind::rope, 256, 0);
    op.heads = 32;
    op.kv_heads = 4;
    op.head_dim = d;
    op.seq = 256;
    op.ph = phase::prefill;
    op_timing t;
    ASSERT_NO_THROW(t = run_op(op, quick_timing(), g.ctx)) << "d " << d;
    expect_verified(t, op);
    op.ph = phase::decode;
    op.rows = 32;
    op.context = 2047;
    ASSERT_NO_THROW(t = run_op(op, quick_timing(), g.ctx)) << "decode d " << d;
    expect_verified(t, op);
  }
}

TEST(ops_rows, embedding_gather_is_exact) {
  ROOFLINE_SKIP_WITHOUT_GPU();
  gpu_context g;
  op_desc op = rows_cols(op_kind::embedding, 32, 2048);
  op.k = 32000;  // vocab
  const op_timing t = run_op(op, quick_timing(), g.ctx);
  expect_verified(t, op);
  EXPECT_NE(t.note.find("rel err 0.00e+00"), std::string::npos) << t.note;
  op.k = 0;
  op.n = 0;
  EXPECT_THROW(run_op(op, quick_timing(), g.ctx), probe_error);  // no vocab anywhere
}

}  // namespace
}  // namespace roofline::cuda::test
