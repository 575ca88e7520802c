// The energy roofline and the decode step sweep over batch (results.analysis.energy and
// results.analysis.step_sweep), computed by analyse() from the measured energy windows
// (results.hpp energy_window) and whole steps. Formulas: docs/formulas-analysis.md §8.1 (the sweep)
// and §10 (energy); fields and units: docs/results-schema.md "analysis".
// The blocks' types: roofline/schema/energy_analysis.hpp.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "roofline/batch_sweep.hpp"
#include "roofline/schema/energy_analysis.hpp"

namespace roofline {

struct results;  // roofline/results.hpp, which holds these blocks

struct energy_window;       // results.hpp
struct whole_step_result;  // results.hpp

/// The shortest window an energy reading is used over (s): NVML averages power over 1 s on Ampere
/// and newer, and on the H200 the energy counter over windows of 0.05–0.25 s read 275 W
/// where the integrated samples read 119 W, and 850–928 W (above the 700 W limit) over 0.2 s step
/// replays: shorter windows say so instead of giving a power.
inline constexpr double min_energy_window_s = 1.0;
/// Average power over a window from its energy counter: counter_j ÷ window_s (W); nullopt without a
/// counter or a window.
std::optional<double> counter_power_w(const energy_window& w);
/// Average power from the integrated power samples: integrated_j ÷ window_s (W); nullopt without.
std::optional<double> integrated_power_w(const energy_window& w);
/// The device's power limit (W): the device property (NVML's enforced limit, read only) or the telemetry's;
/// nullopt when neither says.
std::optional<double> device_power_limit_w(const results& r);
/// The share of the power limit from which a window's power counts as held by the power cap: the cap holds
/// the average at the limit (an H100 at 700 W: capped GEMMs read 696–727 W over their windows, the decode
/// steps, uncapped, 300–640 W; bench/results/h100/2026-12-06-5a46f81-energy-windows).
inline constexpr double power_cap_share = 0.95;
/// True when the window's counter power is at least power_cap_share × limit_w (false without either).
bool at_power_cap(const energy_window& w, std::optional<double> limit_w);
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
/// The charge of step `w` under `e`; zeros when e is incomplete or w has no FLOPs and bytes. A decode step's
/// FLOPs are charged at the decode GEMMs' J/FLOP where e has them (§10.3), each engine falling back to the
/// probes' as before.
step_energy_charge charge_step(const energy_roofline& e, const whole_step_result& w);

/// What a FLOP of the decode step's GEMMs costs on each engine, read from its linear layers replayed alone
/// (results.step_sweep.linear_layers) at the clock the decode steps run at (docs/formulas-analysis.md §10.3).
/// The roof GEMM's ε_flop is read where the power cap holds the clock low (H100: 0.89 pJ at 1350 MHz); the
/// decode GEMMs run uncapped at the maximum clock, on skinny tiles, and cost more per FLOP (H100: 1.4–1.6 pJ
/// at 1980 MHz, bench/results/h100/2026-12-06-5a46f81-energy-windows). Each replay i (time t_i s, power
/// P_i W, Q_i bytes, Ft_i tensor and Fc_i CUDA-core FLOPs executed) leaves, beyond idle and bytes,
///     D_i = (P_i − π0)·t_i − ε_mem·Q_i = ε_t·Ft_i + ε_c·Fc_i      (J)
/// Replays at the power cap (at_power_cap under e.power_limit_w) are not used: the cap set their clock.
/// Of the rest, the smallest and the largest batch: two replays whose engine mix differs (|Ft_1·Fc_2 − Ft_2·Fc_1| ≥ 0.1 × the larger product) give both by
/// Cramer's rule; otherwise each engine comes from the replay where it runs more than half of the FLOPs (the
/// most of them), the other engine's FLOPs charged at its coefficient (the tensor one solved first, else e's; the
/// CUDA cores' from e, the tensor one without). A coefficient ≤ 0 is not kept (a note says why).
/// Worked: π0 = 100 W, ε_mem = 60 pJ/B; batch 1: t = 1 ms, P = 262 W, Q = 2 GB, Ft = 1 GFLOP, Fc = 2 GFLOP →
/// D = 0.162 − 0.12 = 0.042 J; batch 256: t = 4 ms, P = 383 W, Q = 2.2 GB, Ft = 500 GFLOP, Fc = 0 → D = 1.132 −
/// 0.132 = 1.0 J: ε_t = 1.0 ÷ 500 G = 2 pJ, ε_c = (0.042 − 2 pJ × 1 G) ÷ 2 G = 20 pJ.
struct decode_gemm_joules {
  std::optional<double> tensor, cuda_cores;  ///< J/FLOP
  std::string source;                        ///< the replays and how they were solved
  std::vector<std::string> notes;            ///< why a coefficient is absent
};
decode_gemm_joules decode_gemm_coefficients(const energy_roofline& e, const std::vector<whole_step_result>& linear_layers);

/// The energy roofline of `r` (always a block: unknown coefficients carry notes).
energy_roofline analyse_energy(const results& r);
/// The decode step sweep of `r` (r.step_sweep and whole_step[] decode entries at its context);
/// nullopt without r.step_sweep.
std::optional<step_sweep_analysis> analyse_step_sweep(const results& r, const energy_roofline& e);

}  // namespace roofline
