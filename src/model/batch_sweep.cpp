// Decode linear layers across batch sizes, and the batch where one reaches the ridge
// (docs/formulas-model.md §7).
#include <cmath>
#include <fmt/format.h>

#include "roofline/error.hpp"
#include "roofline/model.hpp"

namespace roofline {

std::vector<batch_point> linear_batch_sweep(const model_config& cfg, std::int64_t b0, std::int64_t b1, int dtype_bytes) {
  catalogue_options opt;
  opt.dtype = dtype_bytes == 4 ? "fp32" : dtype_bytes == 1 ? "fp8" : "fp16";
  return linear_batch_sweep(cfg, b0, b1, opt);
}

std::vector<batch_point> linear_batch_sweep(const model_config& cfg, std::int64_t b0, std::int64_t b1,
                                            const catalogue_options& base) {
  if (b0 < 1 || b1 < b0) throw input_error("", "--batch", fmt::format("need 1 ≤ B0 ≤ B1, got {}:{}", b0, b1));
  std::vector<std::int64_t> batches{b0};
  std::int64_t p = 1;
  while (p <= b0) p *= 2;
  for (; p < b1; p *= 2) batches.push_back(p);
  if (b1 != b0) batches.push_back(b1);

  catalogue_options opt = base;
  opt.ph = phase::decode;
  opt.batch = 1;
  opt.context = 1;
  const int a = dtype_bytes(opt.dtype);
  const weight_scheme scheme = step_weights(cfg, opt);
  std::vector<batch_point> out;
  for (const auto& op : build_catalogue(cfg, opt)) {
    if (op.kind != op_kind::gemm || op.groups > 1) continue;  // MLA per-head absorption GEMMs: not one linear layer
    const weight_quant q = linear_format(cfg, scheme, opt.dtype, op.name);
    for (std::int64_t b : batches) {
      const op_desc g = gemm_op(op.name, b, op.n, op.k, a, q);
      out.push_back({op.name, b, b, op.n, op.k, g.flops, g.bytes(), g.weight_bytes, g.weights});
    }
  }
  return out;
}

std::optional<std::int64_t> knee_batch(std::int64_t k, std::int64_t n, int dtype_bytes, double ridge) {
  return knee_batch(k, n, dtype_bytes, double(dtype_bytes), ridge);
}

std::optional<std::int64_t> knee_batch(std::int64_t k, std::int64_t n, int dtype_bytes, double weight_bytes, double ridge) {
  if (k <= 0 || n <= 0 || dtype_bytes <= 0 || !(weight_bytes > 0) || !(ridge > 0)) return std::nullopt;
  const double K = k, N = n, a = dtype_bytes, w = weight_bytes;
  const double denom = 2 * K * N - ridge * a * (K + N);
  if (denom <= 0) return std::nullopt;
  auto intensity = [&](std::int64_t B) { return 2.0 * B * K * N / (a * B * (K + N) + w * K * N); };
  std::int64_t B = std::max<std::int64_t>(1, std::int64_t(std::ceil(ridge * w * K * N / denom)));
  while (B > 1 && intensity(B - 1) >= ridge) --B;  // guard against rounding
  while (intensity(B) < ridge) ++B;
  return B;
}

}  // namespace roofline
