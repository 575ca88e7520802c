// Runs one catalogue op on the CPU at its real shape (fp32), checks it against a double-precision
// reference on sampled elements / rows, then times it through time_repeated().
//
// Shape fields read from op_desc: gemm m, n, k; elementwise rows × cols; rmsnorm / layernorm /
// softmax rows, cols; rope tokens = rows (else batch × seq), heads, kv_heads, head_dim; embedding
// rows, cols and the vocabulary in k (when 0 the table has `rows` rows, noted); attention batch,
// heads, kv_heads, head_dim, q_len (else seq; decode 1), kv_len (else context, else q_len), causal.
//
// Inputs are uniform random in [-1, 1) (never zeros), allocated once per call. Ops smaller than
// 2× the LLC rotate over copies of their buffers (one copy per timed run, ≥ 2× LLC in all; the
// copies are byte copies of the first) so that each run starts from DRAM, as the roofline's DRAM
// prediction assumes.
#pragma once
#include "roofline/backend.hpp"
#include "roofline/whole_step.hpp"

namespace roofline::cpu {

/// Throws probe_error on a missing shape field, a failed check, or (gemm) no OpenBLAS.
op_timing run_cpu_op(const op_desc& op, const timing_options& timing);

/// The op_timing::implementation string of `op` on `threads` worker threads, e.g.
/// "OpenBLAS 0.3.21 cblas_sgemm, row-major NN, 16 threads" or
/// "roofline cpu rmsnorm (one pass per row; OpenMP, 16 threads, rows split)".
std::string cpu_implementation(const op_desc& op, int threads);

/// The same op, verified, then handed to `hook` (number of input copies, launch(copy)) instead of
/// being timed: the whole-step runner (run_cpu_step) chains every op's launch this way.
op_timing run_cpu_op(const op_desc& op, const timing_options& timing, const step_hook* hook);

/// A whole step on the CPU: every op of `step` in step_order(), one after the other on the worker
/// threads, timed as one pass on the host clock; per-layer ops use input copy (layer mod copies), so
/// each layer reads its own weights as in the model. Throws probe_error as run_cpu_op.
op_timing run_cpu_step(const std::vector<op_desc>& step, const timing_options& timing);

}  // namespace roofline::cpu
