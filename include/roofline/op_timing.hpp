// What timing one op (or one whole step) returns: its measured time, what ran, and what one launch
// executes. Types only, in roofline_base: the backends fill them in (roofline/backend.hpp), the
// whole-step harness (roofline/whole_step.hpp, src/measure/whole_step.cpp) passes them through, and
// the pipeline copies them into results.hpp's op_result and whole_step_result.
#pragma once
#include <optional>
#include <string>

#include "roofline/results.hpp"

namespace roofline {

/// The FLOPs one launch of a kernel executes, by engine, where they differ from the op's model count
/// (op_desc::flops) — what its energy is charged by (docs/formulas-analysis.md §10.2): a cuBLASLt GEMM
/// executes its tile-padded FLOPs on the tensor cores, 2·k·⌈n/tile_m⌉·tile_m·⌈m/tile_n⌉·tile_n (layout TN:
/// the tile's M spans the features, its N the batch); our GEMV executes exactly 2·m·n·k on the CUDA cores.
struct executed_flops {
  double tensor = 0;      ///< FLOPs on the tensor cores (matrix engine), padding included
  double cuda_cores = 0;  ///< FLOPs on the CUDA cores' FMA pipes (vector engine)
  double total() const { return tensor + cuda_cores; }
};

/// The measured time of one op, verified against a reference.
struct op_timing {
  double seconds = 0;       ///< median
  double best_seconds = 0;
  int repeats = 0;
  std::string note;         ///< verification, buffer rotation, timing mode
  /// What ran: our kernel + variant + launch configuration, or library + version + chosen algorithm
  /// (copied into op_result::implementation).
  std::string implementation;
  /// How `implementation` was chosen where two implementations can run the op (copied into
  /// op_result::choice); absent otherwise.
  std::optional<kernel_choice> choice;
  /// The energy counter around the timed runs (run_step), absent where not read.
  std::optional<energy_window> energy;
  /// What one launch executes, where the runner knows it differs from the model's FLOPs (a GEMM's
  /// tile padding, a GEMV on CUDA cores); for a whole step (run_step), the step's total over every op
  /// and instance (an op that does not say counts its model FLOPs as tensor). Absent: not known.
  std::optional<executed_flops> executed;
};

}  // namespace roofline
