// Elementwise ops and activations on rows × cols fp32 elements (n = rows·cols), one pass:
//   add, mul   z = x ∘ y                                   1 FLOP, 12 B per element (2 reads + 1 write)
//   silu_mul   z = silu(x)·y (fused SwiGLU, fast exp)      12 B per element
//   silu       y = x / (1 + e^-x) (fast exp)               8 B per element
//   gelu       y = ½x(1 + tanh(√(2/π)(x + 0.044715x³)))    8 B per element (Hendrycks & Gimpel 2016, eq. 2)
// FLOPs and bytes as the op catalogue counts them (docs/formulas-model.md). Check: 257 evenly spaced
// elements of copy 0 against a double-precision reference, |got − ref| ≤ 1e-5·max(1, |ref|).
#include "backends/cpu/op_kernels.hpp"
#include "backends/cpu/ops_common.hpp"

namespace roofline::cpu::detail {

void setup_binary(const op_desc& op, op_setup& setup) {
  arena& ar = setup.ar;
  auto& kernel = setup.kernel;
  auto& verify = setup.verify;
  const std::int64_t n = need(op.rows, op, "rows") * need(op.cols, op, "cols");
  const auto x = ar.add(n), y = ar.add(n), z = ar.add(n);
  const op_kind k = op.kind;
  kernel = [&ar, x, y, z, n, k](int c) {
    if (k == op_kind::add)
      add_kernel(ar.at(c, x), ar.at(c, y), ar.at(c, z), n);
    else if (k == op_kind::mul)
      mul_kernel(ar.at(c, x), ar.at(c, y), ar.at(c, z), n);
    else
      silu_mul_kernel(ar.at(c, x), ar.at(c, y), ar.at(c, z), n);
  };
  verify = [&ar, &op, x, y, z, n, k] {
    for (std::int64_t q = 0; q < 257; ++q) {
      const std::int64_t i = (n - 1) * q / 256;
      const double a = *ar.at(0, x + i), b = *ar.at(0, y + i);
      const double ref = k == op_kind::add ? a + b : k == op_kind::mul ? a * b : silu_ref(a) * b;
      check(close(*ar.at(0, z + i), ref, 1e-5), op, fmt::format("element {}", i));
    }
  };
}

void setup_unary(const op_desc& op, op_setup& setup) {
  arena& ar = setup.ar;
  auto& kernel = setup.kernel;
  auto& verify = setup.verify;
  const std::int64_t n = need(op.rows, op, "rows") * need(op.cols, op, "cols");
  const auto x = ar.add(n), y = ar.add(n);
  const bool is_silu = op.kind == op_kind::silu;
  kernel = [&ar, x, y, n, is_silu](int c) {
    if (is_silu)
      silu_kernel(ar.at(c, x), ar.at(c, y), n);
    else
      gelu_kernel(ar.at(c, x), ar.at(c, y), n);
  };
  verify = [&ar, &op, x, y, n, is_silu] {
    for (std::int64_t q = 0; q < 257; ++q) {
      const std::int64_t i = (n - 1) * q / 256;
      const double a = *ar.at(0, x + i);
      const double ref =
          is_silu ? silu_ref(a) : 0.5 * a * (1 + std::tanh(std::sqrt(2.0 / M_PI) * (a + 0.044715 * a * a * a)));
      check(close(*ar.at(0, y + i), ref, 1e-5), op, fmt::format("element {}", i));
    }
  };
}

std::string elementwise_implementation(const op_desc& op, int threads) {
  const std::string omp = omp_note(threads);
  switch (op.kind) {
    case op_kind::add:
      return fmt::format("roofline cpu add (omp simd, one pass; {})", omp);
    case op_kind::mul:
      return fmt::format("roofline cpu mul (omp simd, one pass; {})", omp);
    case op_kind::silu_mul:
      return fmt::format("roofline cpu silu_mul (fused SwiGLU, fast exp, one pass; {})", omp);
    case op_kind::silu:
      return fmt::format("roofline cpu silu (fast exp, one pass; {})", omp);
    case op_kind::gelu:
      return fmt::format("roofline cpu gelu (tanh form, one pass; {})", omp);
    default:
      return "roofline cpu (unknown op kind)";
  }
}

}  // namespace roofline::cpu::detail
