// The backend interface (BabelStream-style): a device describes itself, derives its nominal roofs,
// offers a list of probes that measure its real roofs, and runs model ops. Blocking calls only.
// Implementations: src/backends/cpu (always), src/backends/cuda (when built with CUDA).
#pragma once
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "roofline/energy.hpp"
#include "roofline/error.hpp"
#include "roofline/interference.hpp"
#include "roofline/measure.hpp"
#include "roofline/model.hpp"
#include "roofline/op_timing.hpp"
#include "roofline/results.hpp"

namespace roofline {

using progress_fn = std::function<void(const std::string& what, double fraction)>;

struct probe_options {
  bool quick = false;
  timing_options timing;
  std::vector<std::string> only;  ///< probe groups to run ("bandwidth", "compute", "gemm", "launch"); empty = all
  progress_fn progress;           ///< may be empty
  /// The precision the model's ops run in ("fp16", "bf16", …; `run` with a model part). A GPU's GEMM
  /// burst runs (burst_flops_per_s, read by the latency model for that precision only) and the fused
  /// attention rates are measured for it alone; empty (`measure`, no model): for every precision.
  std::string model_precision;
  /// The model's linear layers and decode attention at the decode step's batches (`run` with a model
  /// part; decode_probe_ops): one GEMM op per distinct weight N × K and batch M, its name the linears
  /// of that shape ("k_proj, v_proj"), and one decode attention op per distinct attention shape and
  /// batch. A GPU's gemm/rows and gemm/decode-attention probes run each through the op runner
  /// (measured.gemm_rows with `linears`, measured.gemm_attention with gemm "decode"); empty: no such
  /// probes. The CPU measures its rows at a fixed weight and ignores these.
  std::vector<op_desc> model_decode_ops;
};

/// One probe: a name (e.g. "bandwidth/copy") and a function that appends its results to `out`.
/// It throws probe_error on failure (the driver records it and goes on) and device_lost_error when
/// the device cannot run anything more.
struct probe {
  std::string name;
  std::string group;  ///< bandwidth | compute | gemm | launch
  std::function<void(measured_roofs& out)> run;
  /// The same probe with longer samples (more bytes or FLOPs per timed sample), which the driver
  /// runs as the second attempt when the first one's repeats disagreed; empty = run `run` again.
  std::function<void(measured_roofs& out)> run_longer = {};
  std::string longer_note = {};  ///< what run_longer changes, e.g. "4× longer samples"
  /// The probe re-measures a row whose repeats disagree itself, at once, with run_longer's longer
  /// samples (and flags it): on a quiet machine the driver then keeps the rows that still disagree out
  /// of the roofs instead of running the whole probe again; a busy machine still gets the re-run.
  bool remeasures_noisy_rows = false;
};

class backend {
 public:
  virtual ~backend() = default;
  virtual device_info describe() = 0;
  virtual nominal_roofs nominal() = 0;
  virtual std::vector<probe> probes(const probe_options& opt) = 0;
  /// Runs `op` at its real shape, verifies the output, returns its time. Throws probe_error when the
  /// op kind is not implemented on this backend or verification fails.
  virtual op_timing run_op(const op_desc& op, const timing_options& timing) = 0;
  /// The launch floor (s) to add to predictions of ops on this device (0 on the CPU).
  virtual double launch_floor_s() { return 0; }
  /// Completes `n` from what was measured where the nominal could not be derived from a table
  /// (CPU: a part the FMA table does not know gets "measured, no datasheet" peaks). Default: none.
  virtual void complete_nominal(nominal_roofs& n, const measured_roofs& m) {
    (void)n;
    (void)m;
  }
  /// The processes holding this device now (GPU: NVML), this one included; nullopt where the
  /// device cannot tell (a CPU, no NVML).
  virtual std::optional<std::vector<device_process>> device_processes() { return std::nullopt; }
  /// Runs a whole step — every op of `step` (one build_catalogue result) in step_order()
  /// (roofline/whole_step.hpp), each op verified first — as one unit: one CUDA graph on a GPU, one
  /// pass on the CPU; returns the time of the whole step (median, best, repeats; note says how).
  /// Throws probe_error when an op cannot run or this backend has no whole-step runner.
  virtual op_timing run_step(const std::vector<op_desc>& step, const timing_options& timing) {
    (void)step, (void)timing;
    throw probe_error("whole-step measurement is not implemented on this backend");
  }
  /// Reads the device's energy counter now (GPU: NVML total energy; CPU: RAPL); `raw` empty when it
  /// cannot be read (energy_between then says why). Never throws.
  virtual energy_mark energy_now() { return {now_s(), {}}; }
  /// The energy between two marks of energy_now(): the counter's increase (wrap undone) and, where
  /// the device samples its power, the power integrated over [a.t_s, b.t_s]. Never throws.
  virtual energy_window energy_between(const energy_mark& a, const energy_mark& b) {
    energy_window w;
    w.window_s = b.t_s - a.t_s;
    w.note = "not available (this backend reads no energy counter)";
    return w;
  }
};

/// What the user states about the device that it cannot tell itself (CPUs: `--uarch`, `--memory`).
struct device_overrides {
  std::string uarch;   ///< e.g. "zen4"; "" = detect
  std::string memory;  ///< e.g. "12 x DDR5-4800"; "" = detect
  bool empty() const { return uarch.empty() && memory.empty(); }
};

/// Checks `o` without touching the device: the --memory syntax, the --uarch name, and that both
/// describe a CPU (`device` "cpu" or "auto"). Throws input_error naming the flag.
void check_overrides(const std::string& device, const device_overrides& o);

/// "auto" (a CUDA GPU when there is one, else the CPU), "cpu", "cuda", "cuda:N".
/// Throws input_error for an unknown device string or a GPU that is not there.
std::unique_ptr<backend> make_backend(const std::string& device, const device_overrides& overrides = {});

std::unique_ptr<backend> make_cpu_backend(const device_overrides& overrides = {});
#ifdef ROOFLINE_HAVE_CUDA
/// Number of visible CUDA devices (0 when none or no driver).
int cuda_device_count();
std::unique_ptr<backend> make_cuda_backend(int index);
#endif

}  // namespace roofline
