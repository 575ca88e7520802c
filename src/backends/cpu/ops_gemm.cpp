// Linear layers: C[m×n] = A[m×k]·B[k×n] through OpenBLAS, fp32 (cblas_sgemm row-major NN; m = 1:
// cblas_sgemv with B transposed, c = Bᵀ·a). FLOPs = 2·m·n·k; bytes: A and B read, C written
// (the op catalogue's count, src/model/catalogue.cpp). Throws
// probe_error when built without OpenBLAS. Check: 16 sampled entries of C in copy 0 against a dot
// product in double within k·2^-24·Σ|a||b| (Higham, Accuracy and Stability of Numerical Algorithms, §3.1).
#include "backends/cpu/op_kernels.hpp"
#include "backends/cpu/ops_common.hpp"

#ifdef ROOFLINE_HAVE_OPENBLAS
#include <cblas.h>
#endif

namespace roofline::cpu::detail {

void setup_gemm(const op_desc& op, op_setup& setup) {
#ifndef ROOFLINE_HAVE_OPENBLAS
  (void)op, (void)setup;
  throw probe_error("built without OpenBLAS");
#else
  arena& ar = setup.ar;
  auto& kernel = setup.kernel;
  auto& verify = setup.verify;
  std::string& note = setup.note;
  const std::int64_t m = need(op.m, op, "m"), n = need(op.n, op, "n"), k = need(op.k, op, "k");
  const auto a = ar.add(m * k), b = ar.add(k * n), c = ar.add(m * n);
  openblas_set_num_threads(worker_threads());
  kernel = [&ar, a, b, c, m, n, k](int cp) { gemm_kernel(ar.at(cp, a), ar.at(cp, b), ar.at(cp, c), m, n, k); };
  verify = [&ar, &op, a, b, c, m, n, k] {
    for (std::int64_t q = 0; q < 16; ++q) {
      const std::int64_t i = (q * 7919) % m, j = (q * 104729 + 5) % n;
      double ref = 0, mag = 0;
      for (std::int64_t l = 0; l < k; ++l) {
        const double x = *ar.at(0, a + i * k + l), y = *ar.at(0, b + l * n + j);
        ref += x * y, mag += std::abs(x * y);
      }
      check(std::abs(*ar.at(0, c + i * n + j) - ref) <= k * 0x1.0p-24 * mag + 1e-30, op, fmt::format("C[{},{}]", i, j));
    }
  };
  note += m == 1 ? "; OpenBLAS cblas_sgemv" : "; OpenBLAS cblas_sgemm";
#endif
}

std::string gemm_implementation(const op_desc& op, int threads) {
  return op.m == 1 ? fmt::format("{} cblas_sgemv, row-major B transposed (c = Bᵀ·a), {}", openblas_version(),
                                 openblas_threading(threads))
                   : fmt::format("{} cblas_sgemm, row-major NN, {}", openblas_version(), openblas_threading(threads));
}

}  // namespace roofline::cpu::detail
