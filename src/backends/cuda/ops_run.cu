// run_op: dispatches an op_desc to the runner of its kind (one file per kind: ops_<kind>.cu).
// Every runner allocates its buffers, fills them from a hash (never zeros), poisons the outputs with
// NaN, runs once and checks against an fp32 reference, then times through time_repeated().
#include "backends/cuda/ops_common.cuh"  // first: configures fmt for nvcc


namespace roofline::cuda {

op_timing run_op(const op_desc& op, const timing_options& timing, const op_context& ctx) {
  using namespace detail;
  (void)parse_dtype(op);  // throws for anything but fp16 / bf16
  ROOFLINE_CUDA_CALL(cudaSetDevice(ctx.device));
  switch (op.kind) {
    case op_kind::gemm: return run_gemm(op, timing, ctx);
    case op_kind::add:
    case op_kind::mul:
    case op_kind::silu:
    case op_kind::silu_mul:
    case op_kind::gelu: return run_elementwise(op, timing, ctx);
    case op_kind::rmsnorm:
    case op_kind::layernorm: return run_norm(op, timing, ctx);
    case op_kind::softmax: return run_softmax(op, timing, ctx);
    case op_kind::rope: return run_rope(op, timing, ctx);
    case op_kind::embedding: return run_embedding(op, timing, ctx);
    case op_kind::attention_decode: return run_attention_decode(op, timing, ctx);
    case op_kind::attention_naive:
    case op_kind::attention_fused: return run_attention_prefill(op, timing, ctx);
  }
  throw probe_error(op_label(op) + ": op kind not implemented by the CUDA op runner");
}

}  // namespace roofline::cuda
