// GPU: cuBLASLt GEMMs at TinyLlama's decode and prefill linear shapes verify on sampled rows;
// decode attention (GQA 32/4, context 2048), naive and fused prefill attention verify against the
// fp32 reference, and fused agrees with naive within 1e-2.
#include <cstdio>

#include "backends/cuda/cudnn_sdpa.hpp"
#include "ops_fixture.hpp"

namespace roofline::cuda::test {
namespace {

op_desc gemm(std::int64_t m, std::int64_t n, std::int64_t k, const std::string& dt = "fp16") {
  op_desc op;
  op.name = "test_gemm";
  op.kind = op_kind::gemm;
  op.m = m;
  op.n = n;
  op.k = k;
  op.dtype = dt;
  op.dtype_bytes = 2;
  op.shape = std::to_string(m) + "x" + std::to_string(k) + "x" + std::to_string(n);
  return op;
}

/// What ran, its notes, and the candidate not chosen with its verification (op_timing::choice).
std::string described(const op_timing& t) {
  std::string s = t.implementation + " | " + t.note;
  if (t.choice) s += " | over " + t.choice->over + ": " + t.choice->over_detail;
  return s;
}

/// A choice made now (not kept from earlier in the run) has both times, the chosen one the faster.
void expect_timed_choice(const op_timing& t) {
  ASSERT_TRUE(t.choice) << described(t);
  EXPECT_FALSE(t.choice->kept);
  ASSERT_TRUE(t.choice->chosen_s && t.choice->over_s) << described(t);
  EXPECT_GT(*t.choice->chosen_s, 0);
  EXPECT_LE(*t.choice->chosen_s, *t.choice->over_s) << described(t);
}

TEST(ops_gemm, linear_shapes_verify) {
  ROOFLINE_SKIP_WITHOUT_GPU();
  gpu_context g;
  for (const char* dt : {"fp16", "bf16"})
    for (const op_desc& op : {gemm(1, 2048, 2048, dt), gemm(32, 5632, 2048, dt), gemm(2048, 2048, 5632, dt),
                              gemm(7, 1000, 304, dt)}) {
      op_timing t;
      ASSERT_NO_THROW(t = run_op(op, quick_timing(), g.ctx)) << op.shape << " " << dt;
      expect_verified(t, op);
      // cuBLASLt always runs and is named with its tile; at m <= 8 our GEMV is the other candidate
      const std::string both = described(t);
      EXPECT_NE(both.find("cuBLASLt"), std::string::npos) << both;
      EXPECT_NE(both.find("tile"), std::string::npos) << both;
      if (op.m <= 8) {
        EXPECT_NE(both.find("GEMV"), std::string::npos) << both;
        expect_timed_choice(t);  // a fresh context: no earlier choice to keep
      } else {
        EXPECT_FALSE(t.choice) << both;
      }
    }
}

// One choice per shape for the run (op_context::memo): the second call of a shape runs the kernel
// the first chose, says it was kept, and carries the times that first choice was made with.
TEST(ops_gemm, a_kept_choice_carries_the_times_it_was_made_with) {
  ROOFLINE_SKIP_WITHOUT_GPU();
  gpu_context g;
  choice_memo memo;
  g.ctx.memo = &memo;
  const op_desc op = gemm(2, 2048, 5632);
  op_timing first, again;
  ASSERT_NO_THROW(first = run_op(op, quick_timing(), g.ctx));
  ASSERT_NO_THROW(again = run_op(op, quick_timing(), g.ctx));
  expect_timed_choice(first);
  ASSERT_TRUE(again.choice) << described(again);
  EXPECT_TRUE(again.choice->kept);
  const bool gemv = first.implementation.find("GEMV") != std::string::npos;  // the same kernel ran
  EXPECT_EQ(again.implementation.find("GEMV") != std::string::npos, gemv) << described(again);
  EXPECT_EQ(again.choice->over, first.choice->over);
  EXPECT_EQ(again.choice->chosen_s, first.choice->chosen_s);
  EXPECT_EQ(again.choice->over_s, first.choice->over_s);
}

TEST(ops_gemm, gemv_candidate_verifies_for_every_small_m) {
  ROOFLINE_SKIP_WITHOUT_GPU();
  gpu_context g;
  for (std::int64_t m = 1; m <= 8; ++m)
    for (const op_desc& op : {gemm(m, 256, 2048), gemm(m, 2048, 5632), gemm(m, 33, 8 * 39)}) {
      op_timing t;
      ASSERT_NO_THROW(t = run_op(op, quick_timing(), g.ctx)) << op.shape;
      expect_verified(t, op);
      const std::string both = described(t);
      EXPECT_NE(both.find("GEMV (m=" + std::to_string(m)), std::string::npos) << both;
      if (m == 1) std::printf("[ info ] %s: %s\n", op.shape.c_str(), both.c_str());
      // both candidates were checked: two "rel err" lines
      EXPECT_NE(both.find("rel err"), both.rfind("rel err")) << both;
    }
}

TEST(ops_attention, decode_verifies) {
  ROOFLINE_SKIP_WITHOUT_GPU();
  gpu_context g;
  for (const char* dt : {"fp16", "bf16"}) {
    for (const op_desc& op :
         {attention(op_kind::attention_decode, 1, 32, 4, 64, 1, 2048, false, dt),    // TinyLlama, batch 1
          attention(op_kind::attention_decode, 32, 32, 4, 64, 1, 2048, false, dt),   // TinyLlama, batch 32
          attention(op_kind::attention_decode, 2, 32, 32, 128, 1, 1000, false, dt),  // Llama-2-7B (MHA), odd length
          attention(op_kind::attention_decode, 1, 48, 4, 128, 1, 300, false, dt),    // g = 12 > 8: 16-row groups
          attention(op_kind::attention_decode, 2, 64, 2, 64, 1, 4099, false, dt),    // g = 32: two 16-row groups
          attention(op_kind::attention_decode, 1, 32, 8, 128, 1, 8192, false, dt),   // Llama-3-8B, long context
          attention(op_kind::attention_decode, 3, 4, 4, 64, 1, 1, false, dt),        // one key
          attention(op_kind::attention_decode, 1, 8, 1, 256, 1, 77, false, dt)}) {   // CUDA-core path
      op_timing t;
      ASSERT_NO_THROW(t = run_op(op, quick_timing(), g.ctx)) << op.shape << " " << dt;
      expect_verified(t, op);
      // our kernel is verified and named whichever candidate was faster (cuDNN's, where it loads)
      const std::string both = described(t);
      EXPECT_NE(both.find(op.head_dim == 256 ? "CUDA cores" : "mma.sync"), std::string::npos) << both;
      EXPECT_TRUE(both.find("cuDNN plans:") != std::string::npos || both.find("cuDNN not used:") != std::string::npos)
          << both;
    }
  }
}

TEST(ops_attention, naive_and_fused_prefill_verify) {
  ROOFLINE_SKIP_WITHOUT_GPU();
  gpu_context g;
  for (const char* dt : {"fp16", "bf16"})
    for (op_kind k : {op_kind::attention_naive, op_kind::attention_fused})
      for (const op_desc& op : {attention(k, 1, 32, 4, 64, 256, 256, true, dt),
                                attention(k, 2, 8, 8, 128, 200, 200, true, dt),
                                attention(k, 1, 8, 2, 64, 100, 300, true, dt),  // kv_len > q_len: offset diagonal
                                attention(k, 1, 4, 4, 128, 130, 130, false, dt)}) {
        op_timing t;
        ASSERT_NO_THROW(t = run_op(op, quick_timing(), g.ctx)) << to_string(k) << " " << op.shape << " " << dt;
        expect_verified(t, op);
      }
}

// cuDNN's fused SDPA, where the library loads (it does on the benchmark machine, through PyTorch's
// wheels or the CUDA toolkit): a plan builds and verifies at TinyLlama's prefill (causal, 2048
// tokens, GQA 32/4 × 64) and decode (context 2048) shapes, in fp16 and bf16, and the op names it
// when it is the faster candidate.
TEST(ops_attention, cudnn_sdpa_builds_and_verifies_where_it_loads) {
  ROOFLINE_SKIP_WITHOUT_GPU();
  std::string why;
  const std::string lib = cudnn_available(why);
  if (lib.empty()) GTEST_SKIP() << why;
  gpu_context g;
  for (const char* dt : {"fp16", "bf16"})
    for (const op_desc& op : {attention(op_kind::attention_fused, 1, 32, 4, 64, 2048, 2048, true, dt),
                              attention(op_kind::attention_fused, 1, 8, 2, 64, 100, 300, true, dt),
                              attention(op_kind::attention_decode, 1, 32, 4, 64, 1, 2048, false, dt),
                              attention(op_kind::attention_decode, 32, 32, 8, 128, 1, 1000, false, dt)}) {
      op_timing t;
      ASSERT_NO_THROW(t = run_op(op, quick_timing(), g.ctx)) << op.shape << " " << dt;
      expect_verified(t, op);
      const std::string both = described(t);
      EXPECT_NE(both.find("cuDNN plans: "), std::string::npos) << lib << ": " << both;
      EXPECT_NE(both.find(" us"), std::string::npos) << both;
      expect_timed_choice(t);  // our kernel and cuDNN's plan both ran: the faster is the op
      EXPECT_EQ(t.choice->over, t.implementation.find("cuDNN") != std::string::npos ? "our kernel" : "cuDNN") << both;
    }
}

TEST(ops_attention, fused_matches_naive) {
  ROOFLINE_SKIP_WITHOUT_GPU();
  gpu_context g;
  for (const char* dt : {"fp16", "bf16"}) {
    const double e1 = fused_vs_naive_attention(attention(op_kind::attention_fused, 1, 32, 4, 64, 512, 512, true, dt), g.ctx);
    EXPECT_LT(e1, 1e-2) << dt;
    const double e2 =
        fused_vs_naive_attention(attention(op_kind::attention_fused, 1, 8, 8, 128, 333, 333, false, dt), g.ctx);
    EXPECT_LT(e2, 1e-2) << dt;
  }
}

TEST(ops_attention, fused_prefill_is_faster_than_naive_at_tinyllama_2048) {
  ROOFLINE_SKIP_WITHOUT_GPU();
  gpu_context g;
  const op_desc naive = attention(op_kind::attention_naive, 1, 32, 4, 64, 2048, 2048, true);
  const op_desc fused = attention(op_kind::attention_fused, 1, 32, 4, 64, 2048, 2048, true);
  const double tn = run_op(naive, quick_timing(), g.ctx).seconds, tf = run_op(fused, quick_timing(), g.ctx).seconds;
  EXPECT_LT(tf, tn) << "fused " << tf << " s, naive " << tn << " s";
}

}  // namespace
}  // namespace roofline::cuda::test
