// fp32 reference attention for checking the decode, naive and fused attention kernels.
// o[b,h,i,:] = Σ_j softmax_j(q[b,h,i,:]·k[b,h/g,j,:] / √d) · v[b,h/g,j,:], g = heads / kv_heads,
// query i at position i + kv_len − q_len; causal: keys j ≤ that position. One thread per checked
// query row, online softmax (Milakov & Gimelshein 2018) with fp32 accumulators; inputs read as
// stored (fp16/bf16) and converted to fp32. Slow and simple on purpose: it shares no code with the
// kernels it checks.
#include "backends/cuda/ops_kernels.cuh"

namespace roofline::cuda::detail {
namespace {

constexpr int ref_max_d = 256;

template <typename T>
__global__ void attention_reference(const T* q, const T* k, const T* v, float* ref, int batch, int heads,
                                    int kv_heads, int d, int q_len, int kv_len, bool causal, const int32_t* rows,
                                    size_t n_rows) {
  const size_t r = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
  if (r >= n_rows) return;
  const size_t flat = rows ? static_cast<size_t>(rows[r]) : r;  // (b * heads + h) * q_len + i
  const int i = static_cast<int>(flat % q_len);
  const size_t bh = flat / q_len;
  const int h = static_cast<int>(bh % heads), b = static_cast<int>(bh / heads);
  const int kvh = h / (heads / kv_heads);
  const T* qr = q + flat * d;
  const T* kb = k + (size_t(b) * kv_heads + kvh) * size_t(kv_len) * d;
  const T* vb = v + (size_t(b) * kv_heads + kvh) * size_t(kv_len) * d;
  const int last = causal ? i + (kv_len - q_len) : kv_len - 1;
  const float scale = rsqrtf(static_cast<float>(d));
  float acc[ref_max_d];
  for (int c = 0; c < d; ++c) acc[c] = 0.f;
  float m = -INFINITY, l = 0.f;
  for (int j = 0; j <= last && j < kv_len; ++j) {
    float s = 0.f;
    for (int c = 0; c < d; ++c) s += elem<T>::to_f(qr[c]) * elem<T>::to_f(kb[size_t(j) * d + c]);
    s *= scale;
    const float mn = fmaxf(m, s);
    const float corr = expf(m - mn), p = expf(s - mn);
    l = l * corr + p;
    for (int c = 0; c < d; ++c) acc[c] = acc[c] * corr + p * elem<T>::to_f(vb[size_t(j) * d + c]);
    m = mn;
  }
  for (int c = 0; c < d; ++c) ref[r * d + c] = acc[c] / l;
}

}  // namespace

template <typename T>
void launch_attention_reference(const T* q, const T* k, const T* v, float* ref, int batch, int heads, int kv_heads,
                                int d, int q_len, int kv_len, bool causal, const int32_t* rows, size_t n_rows,
                                cudaStream_t s) {
  if (d > ref_max_d) throw probe_error(cat("attention reference: head_dim ", d, " > ", ref_max_d));
  attention_reference<T><<<static_cast<unsigned>((n_rows + 63) / 64), 64, 0, s>>>(
      q, k, v, ref, batch, heads, kv_heads, d, q_len, kv_len, causal, rows, n_rows);
  ROOFLINE_CUDA_LAUNCH_CHECK();
}
template void launch_attention_reference<__half>(const __half*, const __half*, const __half*, float*, int, int, int,
                                                 int, int, int, bool, const int32_t*, size_t, cudaStream_t);
template void launch_attention_reference<__nv_bfloat16>(const __nv_bfloat16*, const __nv_bfloat16*,
                                                        const __nv_bfloat16*, float*, int, int, int, int, int, int,
                                                        bool, const int32_t*, size_t, cudaStream_t);

}  // namespace roofline::cuda::detail
