// Row normalisations and the row softmax over rows × cols fp32 (eps = 1e-5, op_desc carries none):
//   rmsnorm    y = x / sqrt(mean(x²) + eps) · w            (Zhang & Sennrich 2019, eq. 4), one pass per row;
//              op.name containing "two_pass": all rows' 1/rms first, then y (x read twice, the unfused form)
//   layernorm  y = (x − mean) / sqrt(var + eps) · w + b    (Ba et al. 2016, eq. 4)
//   softmax    y = e^(x − max) / Σ e^(x − max) per row     3 reads + 1 write per element
// Reads x (and w, b: cols each), writes y; FLOPs and bytes as the op catalogue counts them
// (docs/formulas-model.md). Check: 4 evenly spaced rows of copy 0, every column, against a
// double-precision reference, |got − ref| ≤ 1e-4·max(1, |ref|).
#include "backends/cpu/op_kernels.hpp"
#include "backends/cpu/ops_common.hpp"

namespace roofline::cpu::detail {

void setup_norm(const op_desc& op, op_setup& setup) {
  arena& ar = setup.ar;
  auto& kernel = setup.kernel;
  auto& verify = setup.verify;
  const std::int64_t rows = need(op.rows, op, "rows"), cols = need(op.cols, op, "cols");
  const auto x = ar.add(rows * cols), y = ar.add(rows * cols), w = ar.add(cols), b = ar.add(cols);
  const op_kind k = op.kind;
  const bool two_pass = k == op_kind::rmsnorm && op.name.find("two_pass") != std::string::npos;
  kernel = [&ar, x, y, w, b, rows, cols, k, two_pass](int c) {
    if (two_pass)
      rmsnorm_two_pass_kernel(ar.at(c, x), ar.at(c, w), ar.at(c, y), rows, cols, 1e-5f);
    else if (k == op_kind::rmsnorm)
      rmsnorm_kernel(ar.at(c, x), ar.at(c, w), ar.at(c, y), rows, cols, 1e-5f);
    else if (k == op_kind::layernorm)
      layernorm_kernel(ar.at(c, x), ar.at(c, w), ar.at(c, b), ar.at(c, y), rows, cols, 1e-5f);
    else
      softmax_kernel(ar.at(c, x), ar.at(c, y), rows, cols);
  };
  verify = [&ar, &op, x, y, w, b, rows, cols, k] {
    for (std::int64_t q = 0; q < 4; ++q) {
      const std::int64_t r = (rows - 1) * q / 3;
      const float* xr = ar.at(0, x + r * cols);
      const float* yr = ar.at(0, y + r * cols);
      const float* wr = ar.at(0, w);
      const float* br = ar.at(0, b);
      double s = 0, ss = 0, m = -INFINITY;
      for (std::int64_t c = 0; c < cols; ++c) s += xr[c], ss += double(xr[c]) * xr[c], m = std::max<double>(m, xr[c]);
      const double mean = s / cols;
      double var = 0, se = 0;
      for (std::int64_t c = 0; c < cols; ++c) var += (xr[c] - mean) * (xr[c] - mean), se += std::exp(xr[c] - m);
      var /= cols;
      for (std::int64_t c = 0; c < cols; ++c) {
        double ref = 0;
        if (k == op_kind::rmsnorm)
          ref = xr[c] / std::sqrt(ss / cols + 1e-5) * wr[c];
        else if (k == op_kind::layernorm)
          ref = (xr[c] - mean) / std::sqrt(var + 1e-5) * wr[c] + br[c];
        else
          ref = std::exp(xr[c] - m) / se;
        check(close(yr[c], ref, 1e-4), op, fmt::format("row {} col {}: {} vs {}", r, c, yr[c], ref));
      }
    }
  };
}

std::string norm_implementation(const op_desc& op, int threads) {
  const std::string omp = omp_note(threads);
  switch (op.kind) {
    case op_kind::rmsnorm:
      return op.name.find("two_pass") != std::string::npos
                 ? fmt::format("roofline cpu rmsnorm (two passes: sum of squares, then scale; {}, rows split)", omp)
                 : fmt::format("roofline cpu rmsnorm (one pass per row; {}, rows split)", omp);
    case op_kind::layernorm:
      return fmt::format("roofline cpu layernorm (per row; {}, rows split)", omp);
    case op_kind::softmax:
      return fmt::format("roofline cpu softmax (max, exp-sum, scale per row; {}, rows split)", omp);
    default:
      return "roofline cpu (unknown op kind)";
  }
}

}  // namespace roofline::cpu::detail
