// Fleet runs: many devices, many machines. `mpirun -np N roofline run --out DIR` runs the whole job on
// every rank (each on its own device), gathers every rank's results on rank 0, and writes one fleet
// report (DIR/fleet.json, DIR/fleet.md, DIR/fleet.html) beside each rank's own outputs (DIR/rank-<r>/):
// every device's roofs, their spread over the fleet, the stragglers, and the interconnect roofs (NCCL
// all-reduce / all-gather / reduce-scatter / all-to-all / broadcast bus bandwidth, and send/recv per
// GPU pair) when the ranks hold ≥ 2 GPUs.
//
// The pure parts (roof extraction, spread, stragglers, bus-bandwidth convention, rendering) are here
// so they test without MPI, NCCL or a GPU; the tensor-parallel all-reduce model is in model.hpp.
// docs/fleet.md documents the run, the conventions and their sources.
#pragma once
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "roofline/json_fwd.hpp"
#include "roofline/model.hpp"
#include "roofline/results.hpp"

namespace roofline {
struct gpu_link_info;  // roofline/spec.hpp
}  // namespace roofline

namespace roofline::fleet {

// ---------------------------------------------------------------- launch ----

/// True when this process was started by an MPI launcher (OpenMPI sets OMPI_COMM_WORLD_SIZE; PMIx
/// and Hydra set PMIX_RANK / PMI_SIZE). A plain `roofline run` returns false and never touches MPI.
bool launched_by_mpi();

/// True when this binary was built with MPI (ROOFLINE_HAVE_MPI).
bool built_with_mpi();

/// The device a rank measures. `arg` is the --device value; "auto" picks cuda:<local_rank> when
/// `gpu_count` > local_rank, cuda:0 when exactly one GPU is visible (the launcher pinned one GPU per
/// rank, e.g. through CUDA_VISIBLE_DEVICES), and the CPU when there is no GPU. Any other value is
/// returned as given. Throws input_error (field "--device") when GPUs are visible but fewer than the
/// ranks on this host (two ranks on one GPU would measure each other).
std::string resolve_device(const std::string& arg, int local_rank, int gpu_count);

struct fleet_options {
  double straggler_threshold = 0.05;  ///< a roof more than this fraction below the fleet median
  bool quick = false;                 ///< fewer NCCL sizes and repeats
  std::string nccl_path;              ///< --nccl: the libnccl.so.2 to load ("" = search, see nccl_search_paths)
};

/// "[rank r/n] " once fleet::run has started on this process (r = MPI rank, n = ranks), else "":
/// the prefix of every progress line a fleet rank prints, so interleaved lines say whose they are.
std::string progress_label();
/// Sets the label progress_label() returns (fleet::run does; tests may).
void set_progress_label(int rank, int ranks);

/// Runs `run_one(device)` on every rank (device resolved by resolve_device), gathers the results on
/// rank 0, which writes out_dir/rank-<r>/ (the four outputs of each rank), out_dir/fleet.json and
/// out_dir/fleet.md; other ranks write nothing. Input is validated on every rank before anything is
/// measured. Returns the exit code every rank agrees on: 0 ok, 1 a rank had a failed or missing
/// measurement, 2 bad input on any rank (nothing written). Throws input_error when launched by
/// mpirun but built without MPI.
using run_one_fn = std::function<results(const std::string& device)>;
int run(const fleet_options& opt, const std::string& device_arg, const std::string& out_dir,
        const model_config& cfg, const run_one_fn& run_one);

// ----------------------------------------------------------------- roofs ----

/// The roofs of one device, taken from its results.json.
struct device_roofs {
  int rank = 0;
  std::string host;
  std::string kind;  ///< cpu | cuda
  std::string id;    ///< "cpu", "cuda:0"
  std::string name;  ///< "NVIDIA H200", CPU model
  std::string uuid;  ///< GPU UUID or PCI bus id when the backend reports one, else ""
  std::string status;  ///< the rank's results.status (complete | partial | interrupted)
  /// Best DRAM/HBM bandwidth over the patterns (B/s) and the pattern that reached it.
  std::optional<double> dram_bytes_per_s;
  std::string dram_pattern;
  /// Best GEMM FLOP/s of the default precision (fp32 on CPU, fp16 on GPU).
  std::optional<double> gemm_flops_per_s;
  std::string gemm_precision;
  /// Best FMA-chain FLOP/s per "<engine> <precision>" (engine vector or tensor).
  std::map<std::string, double> fma_flops_per_s;
  /// Telemetry beside the roofs (median over the probes that carry it; GPU: NVML).
  std::optional<double> sustained_clock_mhz;
  std::optional<double> power_w;
  std::vector<std::string> throttle_reasons;
  std::string telemetry_note;  ///< why clock / power are unknown, when they are
};

/// Extracts a device's roofs from `r`. Missing roofs stay nullopt (the probe did not run).
device_roofs extract_roofs(const results& r, int rank);

/// The comparable roofs of a device as (roof name, value, unit): "dram bandwidth" (B/s),
/// "gemm <precision>" (FLOP/s), "fma <engine> <precision>" (FLOP/s). Unknown roofs are left out.
struct roof_value {
  std::string roof;
  double value = 0;
  std::string unit;
};
std::vector<roof_value> named_roofs(const device_roofs& d);

/// The spread of one roof over the fleet: n, min, median, max and range = (max − min) / median
/// (summarize() in measure.hpp; fleet.md's "spread" column is this range: with a few devices the
/// interquartile range says little). Only devices that measured the roof count.
struct roof_spread {
  std::string roof;
  std::string unit;
  stats_summary stats;
};
std::vector<roof_spread> fleet_spread(const std::vector<device_roofs>& devices);

/// A device whose roof is below the fleet median by more than the threshold:
/// shortfall = (median − value) / median > threshold.
struct straggler {
  int rank = 0;
  std::string host, id, roof, unit;
  double value = 0, median = 0, shortfall = 0;
};
/// True when (median − value) / median > threshold (median > 0). (0.94, 1.0, 0.05) → true;
/// (0.96, 1.0, 0.05) → false.
bool below_median(double value, double median, double threshold);
/// Every (device, roof) that is below the fleet median of that roof by more than `threshold`, in
/// rank order. A roof measured by fewer than 2 devices has no stragglers.
std::vector<straggler> find_stragglers(const std::vector<device_roofs>& devices, double threshold);

// ---------------------------------------------------------- interconnect ----

/// The measured communication patterns. send_recv: one GPU sends to one other (one direction of a
/// pair); send_recv_bidir: both GPUs of a pair send to each other at once.
enum class collective { all_reduce, all_gather, reduce_scatter, all_to_all, broadcast, send_recv, send_recv_bidir };
std::string to_string(collective c);
/// True for the pair-wise patterns (send_recv, send_recv_bidir), measured per GPU pair.
bool is_point_to_point(collective c);

/// nccl-tests' bus-bandwidth factor for n ranks (NVIDIA/nccl-tests doc/PERFORMANCE.md, "Bus
/// bandwidth" and its "Summary": all-reduce 2(n−1)/n, reduce-scatter and all-gather (n−1)/n,
/// broadcast 1; all-to-all (n−1)/n and send/recv 1 as nccl-tests computes them in src/alltoall.cu
/// and src/sendrecv.cu). n = 8: all-reduce 1.75, all-gather 0.875, all-to-all 0.875, broadcast 1.
/// Throws std::invalid_argument for n < 1.
double bus_factor(collective c, int n);
/// algbw = bytes / seconds (B/s), bytes = the size of the full (largest) buffer, as nccl-tests.
double algbw(double bytes, double seconds);
/// busbw = algbw × bus_factor(c, n): comparable to the hardware's per-GPU link bandwidth whatever n.
double busbw(collective c, double bytes, double seconds, int n);

/// One collective at one message size, timed across the ranks (slowest rank's median).
struct collective_point {
  collective op = collective::all_reduce;
  std::int64_t bytes = 0;   ///< full buffer (nccl-tests "size"); all-to-all: one rank's send buffer; send/recv: one message
  double seconds = 0;       ///< median over the repeats, max over the ranks
  double best_seconds = 0;  ///< min over the repeats, max over the ranks
  double algbw = 0, busbw = 0;  ///< from `seconds` (median)
  double best_busbw = 0;        ///< from `best_seconds`
  int src = -1, dst = -1;       ///< send_recv: sender → receiver rank; send_recv_bidir: the pair; −1 for collectives
};

/// "all_reduce", or for a pair "send_recv 0→1" / "send_recv_bidir 0↔1".
std::string series_name(collective c, int src, int dst);

/// The nominal per-GPU link bandwidth in ONE direction (what busbw measures), links × per-link rate.
struct link_nominal {
  std::optional<double> bytes_per_s;
  std::string formula;  ///< e.g. "18 NVLink links × 25 GB/s per link per direction"
  std::string source;
  std::string reason;   ///< "unknown (why)" when bytes_per_s is null
};
/// From the GPU's nominal factors (the spec module's "NVLink links", "NVLink bandwidth per link
/// (both directions)", "PCIe bandwidth (… both directions)"); rates "both directions" are halved.
/// NVLink wins over PCIe. H100 SXM: 18 × 50 / 2 = 450 GB/s.
link_nominal nominal_link_from_factors(const nominal_roofs& nominal);
/// From the device table through the spec module (gpu_links: its typed table and its name matcher,
/// so `device_name` is spelled as `roofline spec` accepts it): NVLink links × per-link rate, else the
/// PCIe rate, both directions in the table, halved here. Unknown (with the matcher's reason) when
/// the name is not in the table.
link_nominal nominal_link(const std::string& device_name);
/// The same from the table's links already in hand (tests).
link_nominal nominal_link_from_links(const gpu_link_info& links);

struct interconnect_result {
  std::string status = "not run";  ///< measured | not run | failed
  std::string reason;              ///< why not run / failed
  int ranks = 0;
  std::string library;             ///< "NCCL 2.x.y (libnccl.so.2)"
  std::vector<collective_point> points;
  link_nominal nominal;
  /// The communication roofline per collective: t(S) ≈ latency + S·factor / busbw_roof, with
  /// latency = the median time of the smallest message and busbw_roof = the best busbw seen.
  struct roof {
    collective op = collective::all_reduce;
    double latency_s = 0;
    double busbw = 0;
    std::int64_t at_bytes = 0;
    int src = -1, dst = -1;  ///< the pair of a send_recv / send_recv_bidir roof
  };
  std::vector<roof> roofs;
  std::string dtype = "fp16";  ///< element type of every measured message (nccl-tests' -d half)
  /// Patterns not measured, each "<pattern>: not available in this NCCL (lacks ncclX)".
  std::vector<std::string> not_available;
};

/// measured ÷ nominal of a roof's busbw against the per-direction link figure; nullopt when unknown.
std::optional<double> vs_nominal(const interconnect_result::roof& r, const link_nominal& nominal);

/// The communication roofs (latency floor and best busbw) of each collective in `points`, one per
/// (collective, pair), in the order collectives first appear.
std::vector<interconnect_result::roof> communication_roofs(const std::vector<collective_point>& points);

/// Predicted time of a collective of `bytes` on `n` ranks: latency + bytes × bus_factor / busbw.
double predict_collective_s(collective c, double bytes, int n, double bus_bandwidth, double latency_s = 0);

/// The measured all-reduce roof read back from a fleet results file (`fleet.json`, written by
/// to_json(fleet_report)): the first interconnect.roofs[] entry whose collective names all_reduce,
/// with latency_s (s, the median time of the smallest message) and busbw_bytes_per_s (B/s, > 0).
struct allreduce_roof {
  double latency_s = 0;
  double busbw_bytes_per_s = 0;
};
/// Reads `file` (docs/fleet.md: interconnect.roofs[] {collective, latency_s, busbw_bytes_per_s}).
/// Throws input_error naming the file: not valid JSON, or field "interconnect.roofs" when no
/// all_reduce roof with a numeric latency and a positive busbw is there.
allreduce_roof read_allreduce_roof(const std::string& file);

// ---------------------------------------------------------------- report ----

/// Everything rank 0 knows at the end of a fleet run.
struct fleet_report {
  int ranks = 0;
  double straggler_threshold = 0.05;
  std::vector<device_roofs> devices;
  std::vector<roof_spread> spread;
  std::vector<straggler> stragglers;
  std::vector<std::string> notes;   ///< e.g. ranks sharing a host
  std::vector<error_entry> errors;  ///< per-rank failures ("rank 1" → message)
  interconnect_result interconnect;
  std::optional<tp_allreduce_plan> tp_decode, tp_prefill;  ///< the run's model at tp = ranks (model.hpp)
  std::string model_name;
};

/// Builds the report from the gathered results (rank r = index r); adds spread, stragglers and the
/// shared-host notes.
fleet_report build_report(const std::vector<results>& per_rank, double straggler_threshold);

/// Hosts that run more than one rank: "host X runs ranks 0, 1: …interfere…". Empty when none.
std::vector<std::string> shared_host_notes(const std::vector<device_roofs>& devices);

json to_json(const fleet_report& f);
/// fleet.md: the report's tables (the same document fleet.html renders).
std::string render_fleet_markdown(const fleet_report& f);

/// The fleet roofline as SVG: every rank's roofs on one figure, one colour per rank ("rank r: "
/// labels, class tokens dev<r>-…), nominal dashed, measured solid (add_device_roofs of
/// src/report/plot_results.hpp, the figure code of report.html). `per_rank[r]` is rank r's results.
std::string render_fleet_roofline_svg(const fleet_report& f, const std::vector<results>& per_rank);
/// Collective time against message bytes as SVG (log-log): each pattern's measured medians (filled
/// points) and its communication roof t(S) = latency + S × bus_factor / busbw (communication_roofs,
/// predict_collective_s) as a dashed line. Every send/recv pair is drawn when the series number 12 or
/// fewer, else the collectives and the slowest pair of each send/recv pattern. "" when the
/// interconnect was not measured.
std::string render_collectives_svg(const fleet_report& f);
/// fleet.html: a self-contained page (the page code of report.html) with both figures and the
/// tables of fleet.md.
std::string render_fleet_html(const fleet_report& f, const std::vector<results>& per_rank);

}  // namespace roofline::fleet
