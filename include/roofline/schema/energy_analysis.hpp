// The blocks results.analysis.energy (the energy roofline, Choi et al. 2013) and
// results.analysis.step_sweep (the decode step sweep over batch, with its drift check). Fields and
// units: docs/results-schema.md "analysis"; computed by roofline/energy_analysis.hpp (in src/analysis;
// formulas: docs/formulas-analysis.md §8.1, §10); read and written by src/common/analysis_json.cpp.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "roofline/json_fwd.hpp"

namespace roofline {

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
  /// J/FLOP of the decode step's GEMMs on each engine, read from its linear layers replayed alone
  /// (results.step_sweep.linear_layers; decode_gemm_joules, docs/formulas-analysis.md §10.3): what a decode
  /// step's FLOPs are charged at, the roof GEMM's being read under the power cap at a lower clock. Absent:
  /// not run, or not separable (then decode steps are charged as prefill is, and the notes say why).
  std::optional<double> joules_per_flop_decode_tensor, joules_per_flop_decode_cuda_cores;
  std::string decode_source;
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
