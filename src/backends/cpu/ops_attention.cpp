// Attention, fp32: q [batch, heads, q_len, head_dim], k/v [batch, kv_heads, kv_len, head_dim] (GQA:
// head h reads kv head h / (heads / kv_heads)), out like q, scale 1/sqrt(head_dim); kernels in
// attention_kernels.cpp:
//   attention_decode  q_len = 1, split-KV with online softmax (flash-decoding, Dao et al. 2023)
//   attention_naive   S = Q·Kᵀ materialised (its size is in the note), softmax in place, O = P·V
//   attention_fused   query tiles, scores only in a per-thread tile (FlashAttention-style)
// Bytes: q, k, v read, out written (naive: the scores written and read too); FLOPs: the two products
// and the softmax, as the op catalogue counts them (src/model/catalogue.cpp, docs/formulas-model.md). Check: 6 (batch,
// head, query) rows of copy 0, every dimension, against a softmax·V in double over the visible keys, |got − ref| ≤
// 1e-4.
#include "backends/cpu/op_kernels.hpp"
#include "backends/cpu/ops_common.hpp"

namespace roofline::cpu::detail {

void setup_attention(const op_desc& op, op_setup& setup) {
  arena& ar = setup.ar;
  auto& kernel = setup.kernel;
  auto& verify = setup.verify;
  std::string& note = setup.note;
  auto& scores = setup.scores;
  attention_shape s;
  s.batch = need(op.batch, op, "batch");
  s.heads = need(op.heads, op, "heads");
  s.kv_heads = op.kv_heads > 0 ? op.kv_heads : s.heads;
  s.head_dim = need(op.head_dim, op, "head_dim");
  const bool decode = op.kind == op_kind::attention_decode;
  s.q_len = decode ? 1 : (op.q_len > 0 ? op.q_len : need(op.seq, op, "q_len"));
  s.kv_len = op.kv_len > 0 ? op.kv_len : op.context > 0 ? op.context : s.q_len;
  s.causal = decode ? false : op.causal;
  if (s.heads % s.kv_heads != 0)
    throw probe_error(fmt::format("op {}: heads {} not a multiple of kv_heads {}", op.name, s.heads, s.kv_heads));
  const auto q = ar.add(s.batch * s.heads * s.q_len * s.head_dim);
  const auto k = ar.add(s.batch * s.kv_heads * s.kv_len * s.head_dim);
  const auto v = ar.add(s.batch * s.kv_heads * s.kv_len * s.head_dim);
  const auto o = ar.add(s.batch * s.heads * s.q_len * s.head_dim);
  const op_kind kind = op.kind;
  if (kind == op_kind::attention_naive) {
    scores = aligned_buffer<float>(static_cast<std::size_t>(s.batch * s.heads * s.q_len * s.kv_len));
    note += fmt::format("; scores materialised ({:.0f} MiB)", 4.0 * scores.size() / 1048576);
  }
  kernel = [&ar, &scores, q, k, v, o, s, kind](int c) {
    if (kind == op_kind::attention_decode)
      attention_decode_kernel(ar.at(c, q), ar.at(c, k), ar.at(c, v), ar.at(c, o), s);
    else if (kind == op_kind::attention_naive)
      attention_naive_kernel(ar.at(c, q), ar.at(c, k), ar.at(c, v), scores.data(), ar.at(c, o), s);
    else
      attention_fused_kernel(ar.at(c, q), ar.at(c, k), ar.at(c, v), ar.at(c, o), s);
  };
  verify = [&ar, &op, q, k, v, o, s] {
    const std::int64_t d = s.head_dim, group = s.heads / s.kv_heads;
    for (std::int64_t t = 0; t < 6; ++t) {
      const std::int64_t b = (s.batch - 1) * t / 5, h = (s.heads - 1) * t / 5, i = (s.q_len - 1) * t / 5;
      const float* qi = ar.at(0, q + ((b * s.heads + h) * s.q_len + i) * d);
      const float* kb = ar.at(0, k + (b * s.kv_heads + h / group) * s.kv_len * d);
      const float* vb = ar.at(0, v + (b * s.kv_heads + h / group) * s.kv_len * d);
      const std::int64_t vis = s.causal ? std::min(s.kv_len, s.kv_len - s.q_len + i + 1) : s.kv_len;
      std::vector<double> p(static_cast<std::size_t>(vis));
      double m = -INFINITY, sum = 0;
      for (std::int64_t j = 0; j < vis; ++j) {
        double dd = 0;
        for (std::int64_t c = 0; c < d; ++c) dd += double(qi[c]) * kb[j * d + c];
        p[j] = dd / std::sqrt(double(d));
        m = std::max(m, p[j]);
      }
      for (auto& x : p) x = std::exp(x - m), sum += x;
      const float* oi = ar.at(0, o + ((b * s.heads + h) * s.q_len + i) * d);
      for (std::int64_t c = 0; c < d; ++c) {
        double ref = 0;
        for (std::int64_t j = 0; j < vis; ++j) ref += p[j] * vb[j * d + c];
        ref /= sum;
        check(std::abs(oi[c] - ref) <= 1e-4, op,
              fmt::format("batch {} head {} query {} dim {}: {} vs {}", b, h, i, c, oi[c], ref));
      }
    }
  };
}

std::string attention_implementation(const op_desc& op, int threads) {
  const std::string omp = omp_note(threads);
  switch (op.kind) {
    case op_kind::attention_decode:
      return fmt::format(
          "roofline cpu decode attention (split-KV, the query heads of a KV head together, online softmax, fp32; {})",
          omp);
    case op_kind::attention_naive:
#ifdef ROOFLINE_HAVE_OPENBLAS
      return fmt::format(
          "roofline cpu naive attention (as eager attention: S = Q·Kᵀ by {} cblas_sgemm per head, full rows "
          "materialised and masked, softmax in place, O = P·V by cblas_sgemm; {})",
          openblas_version(), omp);
#else
      return fmt::format("roofline cpu naive attention (scores materialised, then softmax, then P·V; {})", omp);
#endif
    case op_kind::attention_fused:
#ifdef ROOFLINE_HAVE_OPENBLAS
      return fmt::format(
          "roofline cpu fused attention (query tiles of up to 256 rows: S = Q·Kᵀ and O = P·V by {} cblas_sgemm, "
          "causal mask and softmax per row in a per-thread tile, fp32; {})",
          openblas_version(), omp);
#else
      return fmt::format("roofline cpu fused attention (online softmax over key blocks, fp32; {})", omp);
#endif
    default:
      return "roofline cpu (unknown op kind)";
  }
}

}  // namespace roofline::cpu::detail
