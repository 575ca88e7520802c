// What the GEMM probe runs at one size beside its timed repeats, and the data it runs on
// (docs/methodology-gpu.md, "Tensor cores" and "Input data"). Pure host code (no CUDA header),
// unit-tested in tests/cudahost.
#pragma once
#include <cstdint>
#include <string>

namespace roofline::cuda {

/// The runs after the timed repeats of one GEMM size.
struct gemm_extra_runs {
  /// The burst-versus-sustained run (run_burst): its length in seconds, 0 for none. From n = 2048, not
  /// --quick, for the model's precision only (every precision without a model): 1.5 s at n = 8192, whose
  /// sustained rate is the flag and the energy window; 0.4 s at the other sizes.
  double burst_s = 0;
  /// A second sustained run of the same length on all-zero inputs, after the random-data one: the model's
  /// precision (fp16 without a model) on its plain probe (gemm/fp16, not gemm/fp16-acc16), at n = 8192.
  /// The same algorithm on zeros toggles no bits, draws less power and, under a power cap, holds a higher
  /// clock (torch bf16 8192³ on an H100 at 700 W: normal(0,1) 670–672 TFLOP/s at 1365–1388 MHz and 697 W;
  /// zeros 809 TFLOP/s at 1635 MHz and 450 W). The roof stays the random-data one.
  bool zeros = false;
};

/// The extra runs of probe `probe` (gemm/<probe>, "fp16", "fp16-acc16", …) of precision `precision` at
/// n × n × n. `model_precision`: probe_options::model_precision ("" without a model).
gemm_extra_runs gemm_extras(const std::string& probe, const std::string& precision, std::int64_t n, bool quick,
                            const std::string& model_precision);

/// The distribution the probe fills A and B with (compute_result::inputs): int8 uniform integers in
/// [−16, 15] (a normal draw has no int8 form that keeps products exact in int32 at K = 16384); every
/// floating type normal(0,1), what torch.randn draws (inputs_normal).
std::string gemm_inputs(const std::string& precision);

}  // namespace roofline::cuda
