// Embedding gather: out[r][:] = table[ids[r]][:] for r < rows, rows of width cols from a
// [vocab × cols] table, ids random in [0, vocab). vocab comes from op.k when set, else op.n (op_desc
// has no vocab field: the note says which was used).
// Bytes: reads rows·cols·b of the table + rows·4 of ids, writes rows·cols·b (b = 2); 0 FLOPs.
// Kernel: grid-stride over 16-byte vectors of the output (cols % 8 == 0; else a scalar kernel).
// The table (vocab·cols·b, 131 MB for TinyLlama) is shared by all buffer sets; ids and outputs rotate.
// Check: an fp32 reference gather over every output: must match exactly (rel err 0 expected).
#include "backends/cuda/ops_common.cuh"

namespace roofline::cuda::detail {
namespace {

template <typename T>
__global__ void __launch_bounds__(256) gather_vec_kernel(const T* __restrict__ table, const int32_t* __restrict__ ids,
                                                         T* __restrict__ out, size_t rows, int cols) {
  const int vpr = cols / 8;
  const size_t n = rows * vpr;
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x) {
    const size_t r = i / vpr;
    const int c = static_cast<int>(i % vpr);
    const size_t src = size_t(__ldg(ids + r)) * vpr + c;
    reinterpret_cast<uint4*>(out)[i] = __ldg(reinterpret_cast<const uint4*>(table) + src);
  }
}
template <typename T>
__global__ void gather_scalar_kernel(const T* __restrict__ table, const int32_t* __restrict__ ids, T* __restrict__ out,
                                     size_t rows, int cols) {
  const size_t n = rows * cols;
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x)
    out[i] = table[size_t(ids[i / cols]) * cols + i % cols];
}
template <typename T>
__global__ void gather_reference(const T* table, const int32_t* ids, float* ref, size_t rows, int cols, int64_t vocab,
                                 unsigned* bad_ids) {
  const size_t n = rows * cols;
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x) {
    const int32_t id = ids[i / cols];
    if (id < 0 || id >= vocab) {
      atomicAdd(bad_ids, 1u);
      ref[i] = 0.f;
      continue;
    }
    ref[i] = elem<T>::to_f(table[size_t(id) * cols + i % cols]);
  }
}

template <typename T>
op_timing run_embedding_typed(const op_desc& op, const timing_options& timing, const op_context& ctx, dtype_id dt) {
  const int64_t vocab = op.k > 0 ? op.k : op.n;
  const char* vocab_src = op.k > 0 ? "op.k" : "op.n";
  if (op.rows <= 0 || op.cols <= 0 || vocab <= 0 || vocab > INT32_MAX)
    throw probe_error(cat(op_label(op), ": embedding needs rows, cols > 0 and a vocab in op.k (or op.n); got rows ",
                          op.rows, ", cols ", op.cols, ", k ", op.k, ", n ", op.n));
  const size_t rows = op.rows;
  const int cols = static_cast<int>(op.cols);
  const size_t n = rows * cols;
  device_buffer table(size_t(vocab) * cols * sizeof(T));
  fill_random(table.get(), dt, size_t(vocab) * cols, 0xe3bull, 1.0f, ctx.stream);
  const size_t ib = align256(rows * sizeof(int32_t)), ob = align256(n * sizeof(T));
  const rotation rot = plan_rotation(ib + ob + n * sizeof(T), ctx.l2_bytes);  // table rows touched count too
  const size_t set_bytes = ib + ob;
  device_buffer pool(set_bytes * rot.n_sets);
  // ids of every set in one launch (the output areas get ids too: overwritten before any use)
  fill_random_ids(pool.as<int32_t>(), pool.bytes() / sizeof(int32_t), 0x1d5ull, int32_t(vocab), ctx.stream);
  auto ids_of = [&](int s) { return pool.as<int32_t>(size_t(s) * set_bytes); };
  auto out_of = [&](int s) { return pool.as<T>(size_t(s) * set_bytes + ib); };
  const bool vec = cols % 8 == 0;
  const unsigned grid = grid_for(vec ? n / 8 : n, 256, ctx);
  auto launch = [&](int s) {
    if (vec)
      gather_vec_kernel<T><<<grid, 256, 0, ctx.stream>>>(table.as<T>(), ids_of(s), out_of(s), rows, cols);
    else
      gather_scalar_kernel<T><<<grid, 256, 0, ctx.stream>>>(table.as<T>(), ids_of(s), out_of(s), rows, cols);
    ROOFLINE_CUDA_LAUNCH_CHECK();
  };
  const int cs = rot.n_sets - 1;
  device_buffer ref(n * sizeof(float)), bad(sizeof(unsigned));
  ROOFLINE_CUDA_CALL(cudaMemsetAsync(bad.get(), 0, sizeof(unsigned), ctx.stream));
  gather_reference<T><<<grid_for(n, 256, ctx), 256, 0, ctx.stream>>>(table.as<T>(), ids_of(cs), ref.as<float>(), rows,
                                                                     cols, vocab, bad.as<unsigned>());
  ROOFLINE_CUDA_LAUNCH_CHECK();
  unsigned bad_h = 0;
  ROOFLINE_CUDA_CALL(cudaMemcpyAsync(&bad_h, bad.get(), sizeof bad_h, cudaMemcpyDeviceToHost, ctx.stream));
  ROOFLINE_CUDA_CALL(cudaStreamSynchronize(ctx.stream));
  if (bad_h) throw probe_error(cat(op_label(op), ": ", bad_h, " outputs had token ids outside [0, ", vocab, ")"));
  poison(out_of(cs), n * sizeof(T), ctx.stream);
  launch(cs);
  const std::string checked =
      require_close(compare(out_of(cs), dt, ref.as<float>(), rows, cols, cols, nullptr, ctx.stream), 0.0, op, "all");
  return time_launches(ctx, timing, rot.n_sets, launch,
                       cat("roofline cuda embedding (own kernel: ", vec ? "16-byte vectorised gather" : "scalar gather", ")"),
                       cat("vocab ", vocab, " (from ", vocab_src, "), random token ids, table ",
                           fmt_bytes(double(table.bytes())), " shared by all sets; ", checked, "; ", rot.note()));
}

}  // namespace

op_timing run_embedding(const op_desc& op, const timing_options& timing, const op_context& ctx) {
  const dtype_id dt = parse_dtype(op);
  return dt == dtype_id::f16 ? run_embedding_typed<__half>(op, timing, ctx, dt)
                             : run_embedding_typed<__nv_bfloat16>(op, timing, ctx, dt);
}

}  // namespace roofline::cuda::detail
