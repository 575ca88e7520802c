// Rotary embedding, rotate-half form (Su et al. 2021; HF Llama apply_rotary_pos_emb), in place on
// q [tokens, heads, head_dim] and k [tokens, kv_heads, head_dim], theta = 10000, positions from the
// context on decode (else 0). The cos/sin tables [tokens, head_dim/2] are inputs, as HF computes them
// once per forward; every copy holds them. Bytes: q and k read and written, the tables read; FLOPs as
// the op catalogue counts them (docs/formulas-model.md). Check: 8 (token, head) pairs of q in copy 0,
// every dimension, against the rotation of the saved input in double, |got − ref| ≤ 1e-4·max(1, |ref|).
#include "backends/cpu/op_kernels.hpp"
#include "backends/cpu/ops_common.hpp"

namespace roofline::cpu::detail {

void setup_rope(const op_desc& op, op_setup& setup) {
  arena& ar = setup.ar;
  auto& kernel = setup.kernel;
  auto& verify = setup.verify;
  auto& before = setup.before;
  std::string& note = setup.note;
  auto& saved = setup.saved;
  bool& rotate = setup.rotate;
  const std::int64_t llc = setup.llc;
  const std::int64_t tokens = op.rows > 0 ? op.rows : need(op.batch * op.seq, op, "rows");
  const std::int64_t heads = need(op.heads, op, "heads");
  const std::int64_t kvh = op.kv_heads > 0 ? op.kv_heads : heads;
  const std::int64_t d = op.head_dim > 0 ? op.head_dim : need(op.cols, op, "head_dim") / heads;
  const auto q = ar.add(tokens * heads * d), k = ar.add(tokens * kvh * d), cs = ar.add(tokens * d / 2),
             sn = ar.add(tokens * d / 2);
  const std::int64_t pos0 = op.ph == phase::decode ? op.context : 0;
  const std::int64_t half = d / 2;
  // The cos/sin tables are inputs (HF computes them once per forward); fill every copy.
  auto tables = [&ar, cs, sn, tokens, d, pos0] {
    for (int c = 0; c < ar.copies; ++c) rope_tables(ar.at(c, cs), ar.at(c, sn), tokens, d, pos0);
  };
  before = [&ar, &saved, q, tokens, heads, d] { saved.assign(ar.at(0, q), ar.at(0, q) + tokens * heads * d); };
  kernel = [&ar, q, k, cs, sn, tokens, heads, kvh, d](int c) {
    rope_kernel(ar.at(c, q), ar.at(c, k), ar.at(c, cs), ar.at(c, sn), tokens, heads, kvh, d);
  };
  verify = [&ar, &op, &saved, q, tokens, heads, d, half, pos0] {
    for (std::int64_t s = 0; s < 8; ++s) {
      const std::int64_t t = (tokens - 1) * s / 7, h = (heads - 1) * s / 7;
      const float* x0 = saved.data() + (t * heads + h) * d;
      const float* y = ar.at(0, q + (t * heads + h) * d);
      for (std::int64_t i = 0; i < half; ++i) {
        const double a = static_cast<double>(pos0 + t) * std::pow(10000.0, -2.0 * i / d);
        check(close(y[i], x0[i] * std::cos(a) - x0[i + half] * std::sin(a), 1e-4), op,
              fmt::format("token {} head {} dim {}", t, h, i));
        check(close(y[i + half], x0[i + half] * std::cos(a) + x0[i] * std::sin(a), 1e-4), op,
              fmt::format("token {} head {} dim {}", t, h, i + half));
      }
    }
  };
  ar.allocate(llc, true, 7);
  tables();
  rotate = false;  // already allocated
  note += "; cos/sin tables read as inputs";
}

std::string rope_implementation(const op_desc&, int threads) {
  return fmt::format("roofline cpu rope (cos/sin tables as inputs, in place; {})", omp_note(threads));
}

}  // namespace roofline::cpu::detail
