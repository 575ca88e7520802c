// PLACEHOLDER (branch cudaroofs) until the op kernels of branch cudaops are merged: that branch's
// src/backends/cuda/ops_*.cu define roofline::cuda::run_op. DELETE THIS FILE AT MERGE.
// Weak, so a real definition linked beside it wins.
#include "backends/cuda/cuda_ops.hpp"
#include "roofline/error.hpp"

namespace roofline::cuda {

__attribute__((weak)) op_timing run_op(const op_desc& op, const timing_options&, const op_context&) {
  throw probe_error("CUDA op runner not implemented (placeholder src/backends/cuda/todo_cuda_ops.cpp; op kind " +
                    to_string(op.kind) + ")");
}

}  // namespace roofline::cuda
