// The GEMM probe's extra runs and input data (gemm_plan.hpp).
#include "backends/cuda/gemm_plan.hpp"

#include "roofline/results.hpp"
#include "roofline/vocabulary.hpp"

namespace roofline::cuda {

gemm_extra_runs gemm_extras(const std::string& probe, const std::string& precision, std::int64_t n, bool quick,
                            const std::string& model_precision) {
  gemm_extra_runs x;
  // the burst rates are read by the latency model for the model's precision only
  const bool burst_read = model_precision.empty() || model_precision == precision;
  if (n < 2048 || quick || !burst_read) return x;
  x.burst_s = n == 8192 ? 1.5 : 0.4;
  const std::string wanted = model_precision.empty() ? default_precision("cuda") : model_precision;
  x.zeros = n == 8192 && probe == wanted;
  return x;
}

std::string gemm_inputs(const std::string& precision) {
  return precision == "int8" ? "uniform integers in [−16, 15]" : inputs_normal;
}

}  // namespace roofline::cuda
