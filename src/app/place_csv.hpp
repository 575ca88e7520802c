// Kernel lists for `roofline place --csv FILE`: roofline's own CSV or an Nsight Compute export.
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

/// Reads `path`, one of:
/// - roofline's own CSV: a header with `name`, `flops`, `bytes` and `time_s` (or `seconds`) columns;
/// - an Nsight Compute CSV export (`ncu --csv --metrics ...`), either the long form (one row per
///   metric: "ID", "Kernel Name", "Metric Name", "Metric Unit", "Metric Value") or the raw page
///   (`--page raw`: one row per kernel, a units row under the header). Per kernel launch (ID):
///   time = gpu__time_duration.sum; bytes = dram__bytes.sum, else dram__bytes_read.sum +
///   dram__bytes_write.sum; FLOPs = Σ over fp64/fp32/fp16 of add + mul + 2 × fma, from
///   smsp__sass_thread_inst_executed_op_{d,f,h}{add,mul,fma}_pred_on.sum (the instruction-count
///   roofline method of Yang, Kurth, Williams, "Hierarchical Roofline Analysis for GPUs", CCPE 2020,
///   §3). Units: second/msecond/usecond/nsecond, byte/Kbyte/Mbyte/Gbyte (SI, as ncu prints them).
/// Throws input_error naming the file and the missing column or bad value (row number).
std::vector<kernel_row> read_kernel_csv(const std::string& path);

}  // namespace roofline::app
