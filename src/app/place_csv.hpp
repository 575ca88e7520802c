// Kernel lists for `roofline place --csv FILE`: a thin adapter over the ingest readers
// (roofline/ingest.hpp), kept until `place` reads kernel_records itself.
#pragma once
#include <string>
#include <vector>

namespace roofline::app {

/// One kernel to place: FLOPs, bytes moved to and from device memory, and its run time (s).
struct kernel_row {
  std::string name;
  double flops = 0, bytes = 0, seconds = 0;
  std::string note;  ///< how the numbers were read (e.g. which Nsight Compute metrics)
};

/// Reads `path` with ingest::read_any (format by content: roofline's own CSV, an Nsight Compute
/// export, long form or raw page). Per kernel: flops = the sum of its counted FLOPs (every
/// precision and engine; 0 when none was counted), bytes = its dram bytes (0 when unknown),
/// seconds = its duration; Nsight Compute kernels are named "<Kernel Name> (ID <ID>)".
/// Throws input_error (see ingest::read_any).
std::vector<kernel_row> read_kernel_csv(const std::string& path);

}  // namespace roofline::app
