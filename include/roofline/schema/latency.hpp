// The block results.analysis.latency_model: the small-work model `roofline run` predicted with — a
// per-kernel floor and a latency-limited memory ramp, added to the roofline so that an op moving a
// few KiB is predicted at what the machine really takes. Fields and units: docs/results-schema.md
// "analysis"; formulas: docs/formulas-analysis.md §7. latency_model's member functions (predict(),
// memory_time(), compute_rate(), …) are the analysis's: defined in src/analysis/latency_model.cpp
// (roofline_core), declared here because they are members; the free functions that build and use
// the model are in roofline/latency.hpp.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "roofline/json_fwd.hpp"

namespace roofline {

struct op_desc;  // roofline/op_shapes.hpp

/// One point of a cold-read ramp: `bytes` read from device memory by one dependent kernel (GPU) or
/// parallel region (CPU) with no cache holding them; `seconds` per kernel (see the owner's field).
struct ramp_point {
  double bytes = 0;
  double seconds = 0;
};

void to_json(json& j, const ramp_point& v);  // src/common/results_json.cpp
void from_json(const json& j, ramp_point& v);

/// What an op's predicted time is made of (seconds), and its class.
struct time_terms {
  double compute_s = 0;    ///< FLOPs ÷ P(shape)
  double bandwidth_s = 0;  ///< bytes ÷ peak bandwidth (the classical roofline term)
  double memory_s = 0;     ///< bytes ÷ BW(bytes): the ramp (or latency + bytes ÷ bandwidth); ≥ bandwidth_s
  double floor_s = 0;      ///< per dependent kernel
  double total_s = 0;      ///< max(compute_s, memory_s) + floor_s
  std::string bound;       ///< "compute" | "bandwidth" | "latency" | "unknown"
};

/// The small-work model of one device: the per-kernel floor and the memory time as a function of
/// the bytes moved (measured ramp, else the latency-bandwidth form latency_s + bytes ÷ bandwidth).
struct latency_model {
  double floor_s = 0;    ///< per dependent kernel (GPU: in a CUDA graph; CPU: per parallel region)
  double latency_s = 0;  ///< memory latency of the latency-bandwidth form (used when ramp is empty)
  /// Per kernel of a whole step beyond floor_s (GPU: measured.small_work.floor_switch_s − floor_s, at
  /// least 0): a step alternates different kernels, each op's prediction holds the floor of one
  /// kernel repeated. 0: not measured (the CPU). Added by predict_step, not by predict().
  double switch_s = 0;
  /// Cold-read ramp: {bytes, seconds of the memory part = measured per-kernel time − floor_s},
  /// ascending in bytes, seconds non-decreasing.
  std::vector<ramp_point> ramp;
  /// GEMM rate by size (measured.compute GEMM results of the op table's precision): {n, FLOP/s},
  /// ascending in n; P(shape) reads it at n = (m·n·k)^(1/3). Each size's burst rate
  /// (burst_flops_per_s: the first 0.1 s after 0.5 s idle, GPU, n >= 2048) where measured, else its
  /// best timed rate: each op is timed over burst_window_s of back-to-back runs (ops_timing()) and each
  /// whole step over about as long, while the timed sweep point lasts seconds at the power-capped
  /// clock (H200, fp16, n = 2048: 1530 MHz, 579 TFLOP/s timed, 613 in its burst; docs/formulas-analysis.md
  /// §7.1). Empty: the peak.
  std::vector<std::pair<double, double>> gemm_rate;
  /// GEMM rate against rows (measured.gemm_rows of the precision), one curve per weight measured: a
  /// fixed square weight (the CPU: 2048 × 2048, `linears` empty) or each of the model's own linear
  /// weights (the GPU: N × K of q_proj, k_proj, …, `linears` naming them). Points {m, FLOP/s} ascending
  /// in m, the rate of the kernel's time less floor_s (predict() adds the floor back: the probe's time
  /// is the whole kernel's). A GEMM op whose m lies within [first m, last m] of its curve reads it at
  /// its m (log-log), not the square rate: few rows reuse each weight element few times, and a narrow
  /// weight (N = 256) gives the library few output tiles to spread over the SMs, which a square GEMM
  /// of the same FLOPs does not show. Empty: the square rule alone.
  struct rows_curve {
    double n = 0, k = 0;  ///< the weight's outputs (N) and inputs (K)
    std::string linears;  ///< the model's linears of this N × K ("k_proj, v_proj"); empty: a fixed square weight
    std::vector<std::pair<double, double>> points;
  };
  std::vector<rows_curve> gemm_rows;
  /// One-thread regime (CPU, measured.small_work): an op other than a GEMM or attention that writes
  /// fewer than serial_below_elements elements runs on one thread, in a region whose `if` clause
  /// is false: its floor is serial_floor_s and its memory time the one-thread cold-read ramp
  /// serial_ramp ({bytes, seconds of the read}, no region included), not the all-thread ones.
  /// 0 / empty: no op is predicted as one-thread.
  std::int64_t serial_below_elements = 0;
  double serial_floor_s = 0;
  std::vector<ramp_point> serial_ramp;
  /// Attention's tile rates (measured.gemm_attention of the precision, CPU), by head_dim: {head_dim,
  /// QKᵀ FLOP/s, P·V FLOP/s, the softmax between them in FLOP/s at softmax_flops_per_element per score
  /// (0: not measured), the tile's query rows}, ascending in head_dim. Empty: attention_fused reads
  /// the peak.
  struct attention_rate {
    double head_dim = 0, qk = 0, pv = 0, softmax = 0, tile_rows = 0;
  };
  std::vector<attention_rate> attention_rates;
  /// Fused attention's own rate (measured.gemm_attention entries with gemm "sdpa", the GPU) of the
  /// precision: {head_dim, tokens, median FLOP/s}, sorted by head_dim then tokens. attention_fused reads
  /// it log-log in its q_len at its head_dim (log-log in head_dim between measured head dims; outside
  /// them, and without points, the other rules). Empty: not measured.
  struct fused_rate {
    double head_dim = 0, tokens = 0, flops_per_s = 0;
  };
  std::vector<fused_rate> fused_rates;
  /// Decode attention's own rate (measured.gemm_attention entries with gemm "decode", the GPU) of the
  /// precision: {heads, kv_heads, head_dim, keys (cached tokens), batch, FLOP/s of the probe's time
  /// less floor_s}, sorted by shape then batch. An attention_decode op of the same heads, kv_heads,
  /// head_dim and kv_len reads it log-log in its batch (within the measured batches). Empty: not
  /// measured.
  struct decode_rate {
    double heads = 0, kv_heads = 0, head_dim = 0, keys = 0, batch = 0, flops_per_s = 0;
  };
  std::vector<decode_rate> decode_rates;
  /// Write-allocate (measured.small_work.write_cost, CPU): a byte written with ordinary stores costs
  /// write_cost cold-read bytes (the line's fetch and its write-back), and write_cost − 1 (at least
  /// 0) where the op's kind is in write_in_place (the line was just read: write-back only).
  /// nullopt: a written byte costs a read byte.
  std::optional<double> write_cost;
  std::vector<std::string> write_in_place;
  std::string source;  ///< "measured: ..." or "default for <class>: ..." (shown with the predictions)

  /// The bytes an op's memory time is read at on the ramp (B): bytes_read + w · bytes_written with
  /// w = write_cost (out of place) or max(0, write_cost − 1) (in place); bytes_read + bytes_written
  /// when write_cost is not measured. The op's FLOPs, bytes and intensity are not changed by it.
  double traffic_bytes(const op_desc& op) const;
  /// Memory part of the time to move `bytes` at asymptotic bandwidth `bw` (B/s):
  /// ramp — log-log interpolation between points, bytes ÷ bw beyond the last point scaled from it;
  /// no ramp — latency_s + bytes ÷ bw (Hockney's latency-bandwidth form). 0 for bytes ≤ 0.
  double memory_time(double bytes, double bw) const;
  /// The streaming rate an op's class is judged against: the cold-read ramp's rate at its largest
  /// point (bytes ÷ memory part) where that is below `roof_bw`, else `roof_bw`. A CPU's ramp is one
  /// parallel region summing a cold buffer; it ends below the best-pattern DRAM roof (a 2-vCPU Zen 4
  /// guest: 30 vs 77 GB/s), so a 46 MB GEMV that streams at the ramp's rate is bandwidth-bound, not
  /// latency-bound, although its memory time is more than twice bytes ÷ roof.
  double class_bandwidth(double roof_bw) const;
  /// Naive attention's two GEMMs (attention_naive with its head_dim inside attention_rates): QKᵀ and
  /// P·V over every pair of full rows (batch·heads·q_len·kv_len, 2·head_dim FLOPs each) at the tile
  /// rates, seconds; 0 otherwise. predict() adds the softmax as attention_softmax_op() predicts it.
  double naive_gemm_seconds(const op_desc& op) const;
  /// The rows curve a GEMM of weight N × K reads: the one measured at that N × K, else the fixed-weight
  /// curve (`linears` empty), else none. n = k = 0 (decode attention's QKᵀ and P·V, whose "weight" is
  /// the KV cache): the fixed-weight curve only.
  const rows_curve* rows_curve_for(double n, double k) const;
  /// The rate of rows_curve_for(n, k) at m rows (log-log between points); 0 outside its measured
  /// range or without a curve.
  double rows_rate(double m, double n = 0, double k = 0) const;
  /// decode_rates read for an attention_decode op of the same shape at its batch (log-log); 0 for
  /// another kind, another shape, or a batch outside the measured ones.
  double decode_attention_rate(const op_desc& op) const;
  /// P(shape): for a GEMM op with m inside the range of its rows curve (rows_curve_for), the rows
  /// rate at m (log-log); for decode attention, its own measured rate at its batch where
  /// decode_rates holds its shape (decode_attention_rate), else the rows rate of the fixed-weight
  /// curve at the query rows that share a KV head (heads ÷ kv_heads ×
  /// q_len: QKᵀ and P·V are GEMMs of that many rows against the cached K and V); for fused prefill
  /// attention, its own measured rate (fused_rates) where measured, else its FLOPs over the time of
  /// its tiles at its head_dim (log-log in head_dim between measured points, none outside them): the
  /// QKᵀ and P·V GEMMs (4·head_dim FLOPs per scored pair, half each) at their tile rates, scaled to
  /// the pairs a causal kernel of tile_rows-row tiles computes (n(n + T)/2 for n = q_len = kv_len),
  /// plus the softmax's FLOPs at its measured rate; otherwise, for a
  /// GEMM, the rate at the size nearest (log) to (m·n·k)^(1/3), interpolated; at most `peak` either
  /// way; `peak` when no rate applies.
  double compute_rate(const op_desc& op, double peak) const;
  /// True when `op` runs on one thread under this model: serial_below_elements > 0, a serial ramp
  /// measured, the op neither a GEMM nor attention, and bytes_written ÷ dtype_bytes (the elements
  /// it writes) below serial_below_elements.
  bool runs_serial(const op_desc& op) const;
  /// The op's predicted terms and class against peak `peak` (FLOP/s) and bandwidth `bw` (B/s):
  /// predict_time with P(shape) = compute_rate, and the floor and memory time of the regime the op
  /// runs in (runs_serial: serial_floor_s and serial_ramp; else floor_s and memory_time). A GEMM
  /// below the ridge point (intensity < peak ÷ bw) whose m is in its rows curve's range (and decode
  /// attention below it with a decode_attention_rate) moves its measured-rate time FLOPs ÷ rate into
  /// the memory term (max with the ramp) and keeps the
  /// peak as P: the total is the same, and the class says bandwidth, which is what that shape's
  /// measured rate is limited by. Naive attention with naive_gemm_seconds > 0: the softmax op's terms
  /// (attention_softmax_op) plus those seconds in compute_s and total_s, "compute" when they exceed
  /// its memory time. The one place `roofline run`, `place` and `ops` predict an op.
  time_terms predict(const op_desc& op, double peak, double bw) const;
};

/// The model for results.json (analysis.latency_model): floor, latency, ramp (with each point's
/// bytes_per_s), rates, source; from_json reads back every field that to_json writes (`formula` and
/// bytes_per_s are for the reader).
void to_json(json& j, const latency_model& m);
void from_json(const json& j, latency_model& m);

}  // namespace roofline
