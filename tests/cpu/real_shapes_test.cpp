// TinyLlama-1.1B op shapes at their real size (hidden 2048, intermediate 5632, 32 heads, 4 KV heads,
// head_dim 64; decode batch 32 with context 2048, prefill 2048). Slow (tens of seconds on 2
// cores): disabled by default; run with --gtest_also_run_disabled_tests.
#include <gtest/gtest.h>

#include <cstdio>

#include "roofline/backend.hpp"

using namespace roofline;

TEST(CpuOpsRealShape, DISABLED_TinyLlama) {
  auto be = make_cpu_backend();
  const timing_options t{1, 3, 10, 0.1, 1.0};
  auto base = [](const char* name, op_kind k) {
    op_desc o;
    o.name = name;
    o.kind = k;
    o.dtype = "fp32";
    o.dtype_bytes = 4;
    o.heads = 32, o.kv_heads = 4, o.head_dim = 64;
    return o;
  };
  std::vector<op_desc> ops;
  {
    auto o = base("q_proj b32", op_kind::gemm);
    o.m = 32, o.k = 2048, o.n = 2048;
    ops.push_back(o);
  }
  {
    auto o = base("silu_mul b32", op_kind::silu_mul);
    o.rows = 32, o.cols = 5632;
    ops.push_back(o);
  }
  {
    auto o = base("rmsnorm prefill", op_kind::rmsnorm);
    o.rows = 2048, o.cols = 2048;
    ops.push_back(o);
  }
  {
    auto o = base("attention decode b32", op_kind::attention_decode);
    o.batch = 32, o.kv_len = 2048, o.context = 2048, o.ph = phase::decode;
    ops.push_back(o);
  }
  for (op_kind k : {op_kind::attention_fused, op_kind::attention_naive}) {
    auto o = base(k == op_kind::attention_fused ? "attention fused prefill" : "attention naive prefill", k);
    o.batch = 1, o.q_len = 2048, o.kv_len = 2048, o.seq = 2048, o.causal = true, o.ph = phase::prefill;
    ops.push_back(o);
  }
  for (const auto& o : ops) {
    const op_timing r = be->run_op(o, t);
    std::printf("%-26s median %.4g s  best %.4g s  (%d repeats) %s\n", o.name.c_str(), r.seconds, r.best_seconds,
                r.repeats, r.note.c_str());
    EXPECT_GT(r.seconds, 0);
  }
}
