// The energy roofline and the decode step sweep over batch (results.analysis.energy and
// results.analysis.step_sweep), computed by analyse() from the measured energy windows
// (results.hpp energy_window) and whole steps. Formulas: docs/formulas-analysis.md §8.1 (the sweep)
// and §10 (energy); fields and units: docs/results-schema.md "analysis".
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "roofline/json_fwd.hpp"
#include "roofline/batch_sweep.hpp"

namespace roofline {

struct results;  // roofline/results.hpp, which holds these blocks

struct energy_window;       // results.hpp
struct whole_step_result;  // results.hpp

/// The drift check of a step sweep (docs/formulas-analysis.md §8.2): the first decode step's largest
/// op (most bytes: the LM head in a decoder) timed again after the steps, beside its op-table time
/// (results.step_sweep.drift, measured by `run`; analysed in step_sweep_analysis below).
/// The steps are predicted from roofs measured earlier in the run; when the machine's own speed moved
/// since (a guest's memory bandwidth shared with its neighbours), this op moved with it.
struct drift_check {
  std::string op;        ///< op name, e.g. "lm_head"
  std::string scenario;  ///< e.g. "decode b1"
  double bytes = 0;      ///< the op's bytes (B)
  double predicted_s = 0;  ///< its prediction from the run's roofs (s)
  double table_s = 0;    ///< its time in the op table (s, median)
  double after_s = 0;    ///< its time timed again after the steps (s, median)
};


/// Average power over a window from its energy counter: counter_j ÷ window_s (W); nullopt without a
/// counter or a window.
/// The shortest window an energy reading is used over (s): NVML averages power over 1 s on Ampere
/// and newer, and on the H200 the energy counter over windows of 0.05–0.25 s read 275 W
/// where the integrated samples read 119 W, and 850–928 W (above the 700 W limit) over 0.2 s step
/// replays: shorter windows say so instead of giving a power.
inline constexpr double min_energy_window_s = 1.0;
std::optional<double> counter_power_w(const energy_window& w);
/// Average power from the integrated power samples: integrated_j ÷ window_s (W); nullopt without.
std::optional<double> integrated_power_w(const energy_window& w);
/// Why a window gives no power: too short (min_energy_window_s), else its own note ("no reading"
/// without one).
std::string no_power_reason(const energy_window& w);

/// Joules per token of a step measured inside a window: the window's average power (counter) ×
/// the step's time ÷ the tokens of one step (decode: the batch). Worked: a 0.2 s window whose
/// counter rose 100 J (500 W), a 2 ms step at batch 4 → 500 × 0.002 ÷ 4 = 0.25 J/token.
/// nullopt without a counter, a window, a time or tokens.
std::optional<double> joules_per_token(const energy_window& w, double step_s, std::int64_t tokens);

/// Predicted energy of one op's kernel (J): Choi, Bedard, Fowler, Vuduc, "A roofline model of energy",
/// IPDPS 2013, eq. (4) with constant power: E = π0·T + ε_mem·Q + ε_flop·W, π0 the idle power (W),
/// T the (predicted) time (s), ε_mem J/B, Q bytes, ε_flop J/FLOP, W FLOPs.
/// Worked: π0 = 100 W, T = 2 ms, ε_mem = 60 pJ/B, Q = 2.2 GB, ε_flop = 0.5 pJ/FLOP, W = 2.2 GFLOP →
/// 0.2 + 0.132 + 0.0011 = 0.3331 J.
double predicted_energy_j(double idle_w, double seconds, double joules_per_byte, double bytes, double joules_per_flop,
                          double flops);

/// The largest batch whose time is at most `target_s` (a TPOT target); nullopt when none is.
/// Worked: (1, 1.2 ms), (8, 1.3 ms), (64, 3.1 ms), (256, 9 ms), target 5 ms → 64.
std::optional<std::int64_t> largest_batch_within(const std::vector<batch_time>& points, double target_s);

/// One probe's energy window, as the analysis reads it.
struct probe_energy {
  std::string probe;  ///< "bandwidth/read dram 1.0 GiB", "gemm bf16 n = 8192"
  double window_s = 0;
  std::optional<double> power_w;                ///< counter ÷ window
  std::optional<double> integrated_power_w;     ///< integrated power ÷ window
  std::optional<double> counter_vs_integrated;  ///< integrated ÷ counter − 1 (the cross-check)
  std::optional<double> power_cap_share;        ///< power_w ÷ power limit
  std::string note;
};

/// Predicted energy of one op of the catalogue (per instance).
struct op_energy {
  std::string name, phase;
  std::int64_t batch = 1, count = 1;
  double predicted_j = 0;                 ///< at the op's predicted time
  std::optional<double> measured_time_j;  ///< the same formula at its measured time (absent when not run)
};

/// The energy roofline (Choi et al. 2013): idle power π0, energy per byte ε_mem from the device-memory
/// bandwidth probe, energy per FLOP ε_flop from the largest GEMM of the main precision, each from
/// the probe's energy counter: ε_mem = (P_bw − π0) ÷ BW_median, ε_flop = (P_gemm − π0) ÷ F_median.
struct energy_roofline {
  std::string definition;
  std::optional<double> idle_w;
  std::string idle_source;
  std::optional<double> joules_per_byte;
  std::string bytes_source;
  std::optional<double> joules_per_flop;
  std::string flops_source;
  /// J/FLOP of the CUDA cores (vector engine): (P − idle) ÷ rate of the largest fp32 GEMM with a usable
  /// window (SGEMM runs on the CUDA cores). What a whole step's FLOPs on CUDA cores are charged at
  /// (docs/formulas-analysis.md §10.2). Absent: no such GEMM, or the main precision is fp32.
  std::optional<double> joules_per_flop_cuda_cores;
  std::string cuda_cores_source;
  std::optional<double> power_limit_w;  ///< NVML enforced limit (read only) / RAPL package limit
  /// Where the power cap bound a probe: "gemm fp16 n = 8192: the power cap bound (sw_power_cap in 84% of
  /// samples); SM clock 1320 MHz against 1980 MHz max"; and what the data does to it, where the GEMM ran
  /// sustained on random and on all-zero inputs: "gemm fp16 n = 8192, sustained: normal(0,1) inputs draw
  /// 697 W and hold 1388 MHz (671 TFLOP/s); all-zero inputs draw 450 W and hold 1635 MHz (809 TFLOP/s, 1.21×
  /// the random-data rate); the roof is the random-data one"
  std::vector<std::string> power_cap;
  std::vector<probe_energy> probes;
  std::vector<op_energy> ops;
  std::vector<std::string> notes;  ///< what is unknown and why
  bool complete() const { return idle_w && joules_per_byte && joules_per_flop; }
};

/// One decode batch of the step sweep: time, throughput and energy, predicted beside measured.
struct step_sweep_point {
  std::int64_t batch = 0;
  double predicted_s = 0;                        ///< Σ predicted op time × count
  std::optional<double> measured_s;              ///< median replay (one CUDA graph / one CPU pass)
  std::optional<double> error;                   ///< predicted ÷ measured − 1
  double predicted_tokens_per_s = 0;             ///< batch ÷ predicted_s
  std::optional<double> measured_tokens_per_s;   ///< batch ÷ measured_s
  std::optional<double> power_w;                 ///< the replay window's counter ÷ window
  std::optional<double> power_cap_share;         ///< power_w ÷ power limit
  std::optional<double> j_per_token_measured;    ///< joules_per_token (counter)
  std::optional<double> j_per_token_integrated;  ///< the same from the integrated power samples
  std::optional<double> j_per_token_predicted;   ///< predicted_energy_j(step at predicted_s) ÷ batch
  std::optional<double> energy_error;            ///< predicted ÷ measured J/token − 1
  /// The FLOPs the prediction charged (step_energy_charge): at J/FLOP (the tensor cores, as executed)
  /// and at the CUDA cores' J/FLOP. Absent: no prediction.
  std::optional<double> flops_charged_tensor, flops_charged_cuda_cores;
  std::optional<double> counter_vs_integrated;   ///< integrated ÷ counter − 1
  std::string note;                              ///< why a measured value is missing
};

struct step_sweep_analysis {
  std::string definition;
  std::int64_t context = 0;
  std::vector<step_sweep_point> points;
  std::optional<double> knee_measured, knee_predicted;  ///< knee_of() of the measured / predicted step times
  std::optional<double> tpot_target_s;
  std::optional<std::int64_t> largest_batch_measured, largest_batch_predicted;  ///< largest_batch_within
  std::optional<std::int64_t> kv_capacity_batch;
  std::vector<std::string> notes;  ///< the plan's notes: batches not run and why
  std::optional<drift_check> drift;    ///< the plan's drift check (null: not run)
  std::optional<double> drift_change;  ///< drift.after_s ÷ drift.table_s − 1
  /// |drift_change| > drift_threshold: the machine's speed moved between the op table and the steps
  /// (worked: lm_head 9.32 ms in the op table, 12.4 ms after the sweep → +33.0 %, moved).
  bool drift_moved = false;
};

/// The change of the drift check's op (docs/formulas-analysis.md §8.2) above which the run says the
/// machine moved: 10 %, above a quiet machine's run-to-run spread of one op's median (≤ 5 %) and
/// below what moves a step's prediction out of its 15 % bound.
constexpr double drift_threshold = 0.10;

/// A framework's measured step placed on roofline's measured step curve.
struct step_placement {
  std::int64_t batch = 0;
  double user_s = 0;   ///< the framework's step time (TPOT in decode)
  double curve_s = 0;  ///< roofline's measured whole step at that batch
  double ratio = 0;    ///< user_s ÷ curve_s
  std::string how;     ///< "measured at batch 1" | "interpolated between batch 2 (…) and batch 4 (…)"
};

/// Places `user_s` at `batch` on the measured points of `s`: the measured step at that batch, else
/// linear interpolation in log(time) over log(batch) between the nearest measured batches around it;
/// nullopt (with `why`) when the batch is outside the measured range or nothing was measured.
/// Worked: measured (1, 1.23 ms); user 3.31 ms at batch 1 → ratio 2.69 ("2.7×").
std::optional<step_placement> place_on_step_curve(const step_sweep_analysis& s, std::int64_t batch, double user_s,
                                                  std::string& why);

/// A whole step's predicted energy (docs/formulas-analysis.md §10.2): Choi et al.'s E = π0·T + ε_mem·Q +
/// ε_flop·W with W split by where the kernels execute it — the tensor cores' FLOPs as executed (a
/// cuBLASLt GEMM's tile padding included) at ε_flop, the CUDA cores' FLOPs (our GEMV) at ε_flop of the
/// CUDA cores (energy_roofline::joules_per_flop_cuda_cores; ε_flop where unknown). T = the step's
/// predicted time, Q its bytes. A step whose runners did not record what they execute
/// (whole_step_result::flops_executed_tensor absent) charges its model FLOPs at ε_flop.
/// Worked (TinyLlama decode at batch 1 on the H100, bench/results/h100/2026-12-06-68258b4-step-energy):
/// π0 = 124.6 W, T = 1.402 ms, ε_mem = 137.2 pJ/B, Q = 2.119 GB, ε_flop = 0.891 pJ × 0.378 GFLOP on the
/// tensor cores, ε_cuda = 10.03 pJ × 2.069 GFLOP (the GEMV) → 0.1747 + 0.2908 + 0.0003 + 0.0207 =
/// 0.4866 J, against 0.538 J measured (−9.6 %).
struct step_energy_charge {
  double tensor_flops = 0, cuda_core_flops = 0;  ///< FLOPs charged at each engine's J/FLOP
  double joules = 0;                             ///< the step's predicted energy (J)
};
/// The charge of step `w` under `e`; zeros when e is incomplete or w has no FLOPs and bytes.
step_energy_charge charge_step(const energy_roofline& e, const whole_step_result& w);

/// The energy roofline of `r` (always a block: unknown coefficients carry notes).
energy_roofline analyse_energy(const results& r);
/// The decode step sweep of `r` (r.step_sweep and whole_step[] decode entries at its context);
/// nullopt without r.step_sweep.
std::optional<step_sweep_analysis> analyse_step_sweep(const results& r, const energy_roofline& e);

void to_json(json& j, const probe_energy& v);
void from_json(const json& j, probe_energy& v);
void to_json(json& j, const op_energy& v);
void from_json(const json& j, op_energy& v);
void to_json(json& j, const energy_roofline& v);
void from_json(const json& j, energy_roofline& v);
void to_json(json& j, const step_sweep_point& v);
void from_json(const json& j, step_sweep_point& v);
void to_json(json& j, const step_sweep_analysis& v);
void from_json(const json& j, step_sweep_analysis& v);

}  // namespace roofline
