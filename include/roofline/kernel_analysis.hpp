// The user's own kernels judged against the measured roofs: one typed verdict per kernel (its
// precision and engine, the roofs of exactly those, the time at the roof, the fraction reached and
// one of five classes), the time split of a trace (GPU busy, host gaps, time by class, fusion
// candidates) and the diff against a baseline run. Formulas, thresholds and their sources:
// docs/formulas-analysis.md, "Kernel verdicts". Readers (roofline/ingest.hpp) only read; the report
// (roofline/report.hpp) only renders; everything judged is here.
#pragma once
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "roofline/ingest.hpp"
#include "roofline/results.hpp"

namespace roofline {

/// The six classes a kernel falls in (docs/formulas-analysis.md, "Kernel verdicts"): at the roof;
/// below a binding roof but on its side, the bandwidth slope (memory-bound) or under the compute
/// roof (compute-bound: wave/tile quantization, prologue/epilogue); below both; launch-bound;
/// unattributed.
enum class verdict_class { at_roof, bandwidth, compute, below_both, launch_bound, unattributed };
inline constexpr std::size_t verdict_class_count = 6;
std::string to_string(verdict_class c);
/// All five, in the order the report lists them.
const std::array<verdict_class, verdict_class_count>& verdict_classes();
/// The advice of a class: one line, stated once (the report prints it as a table class → advice).
std::string verdict_advice(verdict_class c);

/// At the roof from 80% of the binding roof: a well-tuned library GEMM reaches 85-95% of the best
/// measured one and a streaming kernel 80-90% of the best measured read, so 0.8 separates "tuned"
/// from "room left" with the run-to-run spread of a boosted GPU (a few %) to spare.
inline constexpr double at_roof_threshold = 0.8;
/// On the bandwidth slope (or under the compute roof) from 50% of the attainable: below half of it,
/// neither roof explains the time (more than half of it is something else: latency, occupancy,
/// instruction issue).
inline constexpr double slope_threshold = 0.5;
/// Launch-bound up to 2 × the measured launch floor: at that length at least half of the kernel's
/// time is the fixed cost every launch pays, whatever it computes.
inline constexpr double launch_multiple = 2.0;

/// A memory level's roof for one kernel: its bytes at that level and the level's bandwidth.
struct level_roof {
  std::string level;  ///< "dram" | "l2" | "l1"
  double bytes = 0;
  std::string bytes_source;  ///< ingest::to_string(count_source)
  double bandwidth = 0;      ///< B/s (never clock-scaled: the HBM clock is not the SM clock)
  std::string bandwidth_source;  ///< "measured read dram 4.29 GB" | "nominal (not measured)"
  double time_s = 0;             ///< bytes ÷ bandwidth
};

/// The measured floors a kernel's time is compared with (measured.launch, measured.small_work).
struct kernel_floors {
  std::optional<double> launch_s;  ///< the floor launch_bound compares against (back-to-back when known)
  std::string launch_source;       ///< which one: "back-to-back on one stream" | "alone (launch to sync)"
  std::optional<double> launch_alone_s, launch_back_to_back_s, small_work_s;
  std::string text() const;        ///< "launch 3.92 µs back-to-back (8.99 µs alone), small-work floor 869 ns"
};
/// The floors of a results file. Back-to-back launch time is read from measured.launch.method
/// ("back-to-back on one stream = 3.92 µs"), the only place the probe records it.
kernel_floors floors_of(const results& r);

/// One kernel judged.
struct kernel_verdict {
  std::size_t number = 0;  ///< 1-based, in the file's order: the figure's and the table's number
  std::string name, id, shapes, framework_op, note;
  std::string cost_from;  ///< where its FLOPs and bytes came from when not its own counters or shapes (ingest::kernel_record::cost_from)
  std::string model_op;   ///< the model op it was matched to ("" none)
  double seconds = 0;
  std::optional<double> start_s;
  std::optional<std::int64_t> stream;
  bool gemm_like = false;  ///< a GEMM or attention kernel (fusion-candidate boundary)

  // FLOPs: the largest count is placed; hardware counts preferred over model counts.
  std::string precision, engine;     ///< of the placed count ("" engine: not known)
  double flops = 0;                  ///< placed (0 when none)
  std::string flops_source = "none";  ///< "counter" | "shape_model" | "none"
  std::string flops_metric;
  std::optional<double> hardware_flops, model_flops;  ///< Σ of each kind, when any
  std::optional<double> model_over_hardware;          ///< model ÷ hardware: the kernel's MFU-style ratio

  // The compute roof of that precision and engine.
  std::optional<double> compute_roof, compute_roof_unscaled;  ///< FLOP/s (clock-matched, and as measured)
  std::string compute_roof_source;  ///< "measured fp16 GEMM n = 8192" | "nominal fp32 vector peak (not measured)"
  std::optional<double> clock_scale;  ///< kernel SM clock ÷ roof SM clock, when both are known
  std::string clock_note;             ///< what was scaled and why (or why not)

  std::vector<level_roof> levels;  ///< the levels with bytes and a roof
  std::vector<std::string> unjudged;  ///< bytes with no roof at their level, one line each
  std::optional<double> dram_bytes;   ///< the intensity's denominator (else the first level's)
  std::optional<double> intensity;    ///< FLOP/B against dram_bytes
  double achieved_flops_per_s = 0;

  std::string binding;  ///< "compute" | a level | "" (nothing known)
  double time_at_roof_s = 0;  ///< max(flops ÷ compute roof, bytes_l ÷ bw_l)
  std::optional<double> fraction, fraction_unscaled;  ///< time at the roof ÷ measured time
  verdict_class cls = verdict_class::unattributed;
  std::string why;  ///< the class with its numbers, one line
  bool plausible = true;
  std::vector<std::string> causes;
};

/// Judges one kernel against the roofs of `r` (measured where measured, else nominal, said in each
/// source). `default_precision` is used for a FLOP count without a precision (the user's own CSV).
/// `floors` from floors_of(r).
kernel_verdict judge_kernel(const ingest::kernel_record& k, const results& r, const std::string& default_precision,
                            const kernel_floors& floors);
/// Every kernel, numbered from 1.
std::vector<kernel_verdict> judge_kernels(const std::vector<ingest::kernel_record>& ks, const results& r,
                                          const std::string& default_precision);
/// A GEMM or attention kernel, by its cost model, framework op or name (gemm, cutlass, xmma, mma,
/// flash, fmha, attention, aten::mm/addmm/bmm/linear/matmul/scaled_dot_product).
bool is_gemm_like(const ingest::kernel_record& k);

// ---- a trace's time split ----

/// An idle interval of the GPU between two kernels, with what the host did meanwhile.
struct host_gap {
  double start_s = 0, duration_s = 0;
  std::size_t after = 0, before = 0;  ///< kernel numbers on either side
  std::vector<std::pair<std::string, double>> host;  ///< host intervals overlapping it: name, overlap (s), longest first
};

/// Kernels of one name, summed.
struct kernel_group {
  std::string name;
  std::size_t count = 0;
  double total_s = 0;
  verdict_class cls = verdict_class::unattributed;  ///< the class holding most of its time
  bool gemm_like = false;
};

/// A run of consecutive memory-bound (or below-both) non-GEMM kernels between two GEMM/attention
/// kernels on one stream: one fused kernel would not write and re-read the intermediates.
struct fusion_candidate {
  std::optional<std::int64_t> stream;
  std::size_t after = 0, before = 0;   ///< the GEMM/attention kernel numbers bounding it
  std::vector<std::size_t> kernels;    ///< the run's kernel numbers
  double seconds = 0;                  ///< their time now
  std::optional<double> bytes_saved;   ///< DRAM bytes a fused kernel would not move (null: bytes unknown)
  std::optional<double> time_saved_s;  ///< bytes_saved ÷ the DRAM roof
  std::string how;                     ///< the approximation used
};

struct trace_summary {
  std::size_t kernels = 0;
  std::optional<double> span_s;
  double busy_s = 0;
  std::optional<double> busy_fraction;
  double kernel_time_s = 0;  ///< Σ durations (> busy_s when streams overlap)
  std::vector<host_gap> gaps;  ///< largest first
  kernel_floors floors;
  std::optional<double> launch_floor_total_s;  ///< floor × kernel count
  std::array<double, verdict_class_count> time_by_class{};  ///< seconds, indexed by verdict_class
  std::vector<kernel_group> top;  ///< by total time
  double gemm_s = 0;
  std::optional<double> gemm_share;  ///< of the kernel time
  std::vector<fusion_candidate> fusion;  ///< most time saved first
  double fusion_bytes_saved = 0, fusion_time_saved_s = 0;  ///< Σ over the candidates whose bytes are known
  std::optional<double> dram_roof;  ///< B/s the fusion savings are timed at
  std::string dram_roof_source;
};

/// The split of `in` (kernels with start times, host intervals) with its verdicts (same order).
/// `top_n` groups, `max_gaps` gaps.
trace_summary summarize_trace(const ingest::ingest_result& in, const std::vector<kernel_verdict>& v, const results& r,
                              std::size_t top_n = 10, std::size_t max_gaps = 5);

// ---- baseline diff ----

struct baseline_match {
  std::string name, shapes;
  std::size_t occurrence = 0;  ///< 0-based among kernels of this name and shape
  std::size_t old_number = 0, new_number = 0;
  double old_s = 0, new_s = 0;
  std::optional<double> old_intensity, new_intensity;
  double old_flops_per_s = 0, new_flops_per_s = 0;
  double saved_s = 0;  ///< old − new (negative: slower)
};
struct baseline_diff {
  std::string file;
  std::vector<baseline_match> matched;
  std::vector<std::size_t> only_new, only_old;  ///< kernel numbers without a partner
  double old_total_s = 0, new_total_s = 0;      ///< of the matched kernels
  double saved_s = 0;                           ///< Σ saved over matched
  /// The whole runs, matched or not: Σ kernel time and kernel count (a compiled run's Triton kernels
  /// match none of the eager run's, so its gain shows here, not in `matched`).
  double old_run_s = 0, new_run_s = 0;
  std::size_t old_kernels = 0, new_kernels = 0;
  std::optional<double> old_span_s, new_span_s;  ///< traces: first to last GPU activity (ingest_result::span_s)
};
/// Kernels matched by name (+ shapes when both know them) and occurrence index.
baseline_diff diff_baseline(const std::vector<kernel_verdict>& old_run, const std::vector<kernel_verdict>& new_run);

}  // namespace roofline
