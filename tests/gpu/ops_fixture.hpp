// Shared by the tests/gpu/ops_*_test.cpp files: a CUDA op_context (stream, cuBLASLt handle, 32 MiB
// workspace, the device's L2 size) and op_desc builders. Tests skip when there is no CUDA device.
#pragma once
#include <cublasLt.h>
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <string>

#include "backends/cuda/cuda_ops.hpp"
#include "roofline/error.hpp"
#include "roofline/measure.hpp"

namespace roofline::cuda::test {

inline bool have_cuda_device() {
  int n = 0;
  return cudaGetDeviceCount(&n) == cudaSuccess && n > 0;
}

#define ROOFLINE_SKIP_WITHOUT_GPU()                                             \
  do {                                                                          \
    if (!::roofline::cuda::test::have_cuda_device()) GTEST_SKIP() << "no CUDA device"; \
  } while (0)

/// Owns what run_op needs. Failures here are test failures (ADD_FAILURE), not crashes.
struct gpu_context {
  op_context ctx;
  gpu_context() {
    ctx.device = 0;
    EXPECT_EQ(cudaSetDevice(0), cudaSuccess);
    EXPECT_EQ(cudaStreamCreate(&ctx.stream), cudaSuccess);
    EXPECT_EQ(cublasLtCreate(&ctx.lt), CUBLAS_STATUS_SUCCESS);
    ctx.workspace_bytes = size_t(32) << 20;
    EXPECT_EQ(cudaMalloc(&ctx.workspace, ctx.workspace_bytes), cudaSuccess);
    int l2 = 0;
    EXPECT_EQ(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, 0), cudaSuccess);
    ctx.l2_bytes = static_cast<size_t>(l2);
  }
  ~gpu_context() {
    if (ctx.workspace) cudaFree(ctx.workspace);
    if (ctx.lt) cublasLtDestroy(ctx.lt);
    if (ctx.stream) cudaStreamDestroy(ctx.stream);
  }
  gpu_context(const gpu_context&) = delete;
  gpu_context& operator=(const gpu_context&) = delete;
};

inline op_desc rows_cols(op_kind k, std::int64_t rows, std::int64_t cols, const std::string& dtype = "fp16") {
  op_desc op;
  op.name = "test_" + to_string(k);
  op.kind = k;
  op.rows = rows;
  op.cols = cols;
  op.dtype = dtype;
  op.dtype_bytes = 2;
  op.shape = std::to_string(rows) + "x" + std::to_string(cols);
  return op;
}

inline op_desc attention(op_kind k, int batch, int heads, int kv_heads, int d, int q_len, int kv_len, bool causal,
                         const std::string& dtype = "fp16") {
  op_desc op;
  op.name = "test_" + to_string(k);
  op.kind = k;
  op.ph = k == op_kind::attention_decode ? phase::decode : phase::prefill;
  op.batch = batch;
  op.heads = heads;
  op.kv_heads = kv_heads;
  op.head_dim = d;
  op.q_len = q_len;
  op.kv_len = kv_len;
  op.seq = q_len;
  op.context = kv_len;
  op.causal = causal;
  op.dtype = dtype;
  op.dtype_bytes = 2;
  op.kv_dtype_bytes = 2;
  op.shape = "b" + std::to_string(batch) + " h" + std::to_string(heads) + "/" + std::to_string(kv_heads) + " d" +
             std::to_string(d) + " q" + std::to_string(q_len) + " kv" + std::to_string(kv_len);
  return op;
}

/// A run that verified: positive times, a note that reports the check.
inline void expect_verified(const op_timing& t, const op_desc& op) {
  EXPECT_GT(t.seconds, 0) << op.name;
  EXPECT_GT(t.best_seconds, 0) << op.name;
  EXPECT_LE(t.best_seconds, t.seconds) << op.name;
  EXPECT_GE(t.repeats, 1) << op.name;
  EXPECT_NE(t.note.find("rel err"), std::string::npos) << op.name << ": " << t.note;
}

}  // namespace roofline::cuda::test
