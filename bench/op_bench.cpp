// roofline_op_bench: runs the CUDA op runner's kernels at the shapes the H200 benchmark sets beside
// PyTorch (bench/torch_reference.py ops) and prints one JSON object: the decode-attention context
// sweep (TinyLlama-1.1B: 32 query / 4 KV heads, head_dim 64; Llama-3-8B: 32 / 8, head_dim 128;
// batch 1 and 32; contexts 512 … 32768) and causal prefill attention (TinyLlama, 2048 tokens; batch
// 4 × 8192 tokens, 32 heads, head_dim 64 and 128), each op verified against its fp32 reference before it is
// timed (run_op), with the measured median and best, the bytes the kernel must move, the achieved
// bandwidth, and the implementation that ran.
//   roofline_op_bench [--quick] > ops.json
// Exit status: 0 when every case verified; 1 when any failed (its error is in the JSON).
#include <cublasLt.h>
#include <cuda_runtime.h>

#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "backends/cuda/cuda_ops.hpp"
#include "roofline/error.hpp"
#include "roofline/json.hpp"
#include "roofline/measure.hpp"

using namespace roofline;

namespace {

op_desc decode(int batch, int heads, int kv_heads, int d, int ctx, const char* model) {
  op_desc op;
  op.name = std::string("attention_decode ") + model;
  op.kind = op_kind::attention_decode;
  op.ph = phase::decode;
  op.batch = batch, op.heads = heads, op.kv_heads = kv_heads, op.head_dim = d;
  op.q_len = 1, op.kv_len = ctx, op.seq = 1, op.context = ctx;
  op.dtype = "fp16", op.dtype_bytes = 2, op.kv_dtype_bytes = 2;
  op.flops = 4.0 * batch * heads * double(ctx) * d;
  return op;
}

// Causal prefill attention of `tokens` tokens per sequence (fused: our kernel or cuDNN's, the faster).
op_desc prefill(int batch, int heads, int kv_heads, int d, int tokens, const char* model) {
  op_desc op;
  op.name = std::string("attention_prefill ") + model;
  op.kind = op_kind::attention_fused;
  op.ph = phase::prefill;
  op.batch = batch, op.heads = heads, op.kv_heads = kv_heads, op.head_dim = d;
  op.q_len = tokens, op.kv_len = tokens, op.seq = tokens, op.context = tokens;
  op.causal = true;
  op.dtype = "fp16", op.dtype_bytes = 2, op.kv_dtype_bytes = 2;
  op.flops = 4.0 * batch * heads * (double(tokens) * (tokens + 1) / 2) * d;  // causal count
  return op;
}

}  // namespace

int main(int argc, char** argv) {
  const bool quick = argc > 1 && std::strcmp(argv[1], "--quick") == 0;
  cuda::op_context ctx;
  if (cudaSetDevice(0) != cudaSuccess || cudaStreamCreate(&ctx.stream) != cudaSuccess ||
      cublasLtCreate(&ctx.lt) != CUBLAS_STATUS_SUCCESS) {
    std::fprintf(stderr, "roofline_op_bench: no usable CUDA device\n");
    return 2;
  }
  ctx.workspace_bytes = size_t(32) << 20;
  if (cudaMalloc(&ctx.workspace, ctx.workspace_bytes) != cudaSuccess) return 2;
  int l2 = 0;
  cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, 0);
  ctx.l2_bytes = static_cast<size_t>(l2);
  cudaDeviceProp prop{};
  cudaGetDeviceProperties(&prop, 0);

  std::vector<op_desc> cases;
  const std::vector<int> contexts = quick ? std::vector<int>{2048} : std::vector<int>{512, 1024, 2048, 4096, 8192, 16384, 32768};
  for (const int b : {1, 32})
    for (const int c : contexts) cases.push_back(decode(b, 32, 4, 64, c, "TinyLlama-1.1B"));
  for (const int b : {1, 32})
    for (const int c : contexts) cases.push_back(decode(b, 32, 8, 128, c, "Llama-3-8B"));
  cases.push_back(prefill(1, 32, 4, 64, 2048, "TinyLlama-1.1B"));
  if (!quick) {
    cases.push_back(prefill(4, 32, 32, 64, 8192, "MHA-32x64"));
    cases.push_back(prefill(4, 32, 32, 128, 8192, "MHA-32x128"));
  }

  timing_options timing;  // defaults: the same warm-up and repeats as roofline run
  json out = {{"device", prop.name}, {"sms", prop.multiProcessorCount}, {"l2_bytes", l2}, {"ops", json::array()}};
  int failed = 0;
  for (const op_desc& op : cases) {
    json e = {{"name", op.name}, {"batch", op.batch}, {"heads", op.heads}, {"kv_heads", op.kv_heads},
              {"head_dim", op.head_dim}, {"context", op.context}, {"q_len", op.q_len}, {"causal", op.causal},
              {"dtype", op.dtype}, {"flops", op.flops},
              {"kernel_bytes", cuda::kernel_bytes(op)}};
    try {
      const op_timing t = cuda::run_op(op, timing, ctx);
      e["measured_s"] = t.seconds;
      e["best_s"] = t.best_seconds;
      e["bytes_per_s"] = cuda::kernel_bytes(op) / t.seconds;
      e["flops_per_s"] = op.flops / t.seconds;
      e["implementation"] = t.implementation;
      e["note"] = t.note;
      std::fprintf(stderr, "%s b=%lld ctx=%lld: %.2f us (%.0f GB/s)\n", op.name.c_str(), (long long)op.batch,
                   (long long)op.context, t.seconds * 1e6, cuda::kernel_bytes(op) / t.seconds / 1e9);
    } catch (const std::exception& ex) {
      ++failed;
      e["error"] = ex.what();
      std::fprintf(stderr, "%s b=%lld ctx=%lld: FAILED %s\n", op.name.c_str(), (long long)op.batch,
                   (long long)op.context, ex.what());
    }
    out["ops"].push_back(e);
  }
  std::printf("%s\n", out.dump(1).c_str());
  cudaFree(ctx.workspace);
  cublasLtDestroy(ctx.lt);
  cudaStreamDestroy(ctx.stream);
  return failed ? 1 : 0;
}
