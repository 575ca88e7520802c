// Nominal peaks: derived from their factors, never typed in. GPUs from the device table
// (data/devices/*.json, a source cited per factor); CPUs from detected factors.
// Formulas: docs/formulas.md §1 (compute) and §2 (memory).
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "roofline/json_fwd.hpp"
#include "roofline/results.hpp"

namespace roofline {

/// The device-table directory: $ROOFLINE_DATA_DIR/devices, else <source>/data/devices.
std::string device_table_dir();

/// Names of every GPU in the table (canonical spelling, e.g. "NVIDIA H200").
std::vector<std::string> gpu_names();

/// Loads and validates every *.json table file in `dir`; returns the canonical GPU names in file
/// order. Throws input_error "<file>: <field>: <problem>" (missing field, wrong type, a number that
/// is negative, zero or NaN, an unknown chip, a duplicate name).
std::vector<std::string> load_device_table_names(const std::string& dir);

/// The canonical table name for a forgiving user spelling ("t4", "Tesla T4", "h100-sxm", "H200").
/// Throws input_error naming the closest table names when nothing matches.
std::string match_gpu_name(const std::string& name);

/// Nominal roofs of a table GPU, every peak with its formula and factors (dense peaks; sparse ones
/// only as nominal_peak::sparse_flops_per_s). Throws input_error as match_gpu_name, naming `field`
/// (the command-line argument the name came from).
nominal_roofs gpu_nominal(const std::string& name, const std::string& field = "NAME");

/// The roofs of ONE device as the runtime counts devices: a multi-die module whose dies the runtime
/// shows separately (MI250X: ROCm shows 2 GCDs) gives one GCD ('AMD Instinct MI250X GCD', half the
/// CUs, bus, capacity and L2); every other name as gpu_nominal. ops, place and mfu use this, so
/// `mfu --gpus 8` on MI250X counts 8 GCDs (4 modules).
nominal_roofs gpu_device_nominal(const std::string& name, const std::string& field = "NAME");

/// What ECC costs on a GDDR part whose table row states it: the nominal stays the datasheet's; this
/// is the derived ceiling with ECC on. T4: bandwidth × 0.8 (CUDA C++ Best Practices Guide) and
/// capacity × 15/16; A10, A10G, L4, L40, L40S, A40, L20: capacity × 15/16 (nvidia-smi), bandwidth
/// cost not documented (bandwidth_factor null: the nominal is what is known).
struct ecc_ceiling {
  std::string when;                        ///< "ECC on (... default on cloud T4s, e.g. Colab)"
  bool default_on = false;                 ///< the part ships with ECC on (nvidia-smi on public hosts)
  std::optional<double> bandwidth_factor;  ///< null: the bandwidth cost is not documented for the part
  double capacity_factor = 1;
  std::string bandwidth_source, capacity_source;  ///< bandwidth_source "not documented: …" when null
  std::optional<double> bandwidth_bytes_per_s;    ///< nominal × bandwidth_factor (T4: 256e9); null with it
  double memory_gb = 0;                    ///< table size × capacity_factor (T4: 15)
};
/// nullopt when the table states no ECC cost for the part (HBM; GeForce; RTX A6000 and RTX 6000
/// Ada, whose costs are not documented). Throws input_error as match_gpu_name.
std::optional<ecc_ceiling> gpu_ecc_ceiling(const std::string& name);

/// The nominal ridge of one peak: peak ÷ nominal memory bandwidth (FLOP/B; OP/B for int8;
/// Williams et al. 2009, "Roofline", §2). nullopt when the bandwidth is unknown or not > 0.
std::optional<double> nominal_ridge(const nominal_roofs& n, const nominal_peak& p);

/// A factor detected on the live device beside the table row's factor it is checked against.
struct live_vs_table_factor {
  std::string name;  ///< the live factor's name without " (live)": "SMs", "max SM clock", …
  double live = 0, table = 0;
  std::string unit;
};
/// The live factors of `n` (gpu_nominal_live: "SMs (live)", "max SM clock (live)", memory bus width,
/// data rate per pin, size, L2, power limit) each beside its table counterpart ("SMs", "boost
/// clock", …; a factor whose source starts "table: "), once per name, in factor order; empty when
/// `n` has no live factors or no table row.
std::vector<live_vs_table_factor> live_vs_table(const nominal_roofs& n);

/// One row of `roofline spec --list`.
struct spec_list_row {
  std::string key;   ///< the shortest alias (else the name), lower case, spaces as '-': "t4", "h100-sxm"
  std::string name;  ///< canonical
  std::string vendor, architecture;  ///< "NVIDIA", "Hopper"; AMD: the chip generation ("CDNA3 (Aqua Vanjaram)")
  std::vector<std::string> aliases;
  std::optional<double> fp16_dense;         ///< FLOP/s: the highest dense fp16 peak (peak_for, highest)
  std::optional<double> fp32_vector;        ///< FLOP/s: the fp32 vector-engine peak (peak_for, vector)
  std::optional<double> memory_bandwidth;   ///< B/s, nominal
};
/// Every GPU of the device table, sorted by vendor (AMD, NVIDIA), then by generation (compute
/// capability, gfx target), oldest first. Throws input_error as the table loader.
std::vector<spec_list_row> spec_list();

/// What a table GPU's datasheet prints (dense figures), to check the derivation against. These
/// numbers are never used as peaks. `notes` are the table's (field, text) notes on datasheet
/// inconsistencies, field "tensor" or "bandwidth".
struct datasheet_values {
  std::string source;
  struct tensor_peak {
    std::string precision, accumulate;
    double flops_per_s = 0;
  };
  std::vector<tensor_peak> tensor;
  double fp32_flops_per_s = 0;
  double bandwidth_bytes_per_s = 0;
  std::vector<std::pair<std::string, std::string>> notes;
};
/// The printed values of a table GPU. Throws input_error as match_gpu_name.
datasheet_values gpu_datasheet(const std::string& name);

/// A table GPU's interconnects, as NVIDIA prints them (both directions together).
struct gpu_link_info {
  int pcie_generation = 0, pcie_lanes = 0;
  double pcie_bytes_per_s = 0;
  std::string pcie_source;
  std::optional<int> nvlink_links;                  ///< null: no NVLink on this product
  std::optional<double> nvlink_bytes_per_s_per_link;
  std::string nvlink_source;
  /// links × per-link bandwidth, or null without NVLink.
  std::optional<double> nvlink_bytes_per_s() const {
    if (!nvlink_links || !nvlink_bytes_per_s_per_link) return std::nullopt;
    return *nvlink_links * *nvlink_bytes_per_s_per_link;
  }
};
/// PCIe and NVLink of a table GPU. Throws input_error as match_gpu_name.
gpu_link_info gpu_links(const std::string& name);

/// What the CUDA runtime and NVML report about a GPU (filled by the CUDA backend's detection,
/// src/backends/cuda/cuda_detect.hpp).
struct live_gpu {
  std::string name;            ///< cudaDeviceProp::name, e.g. "NVIDIA H200"
  int cc_major = 0, cc_minor = 0;
  int sms = 0;
  std::optional<double> max_sm_clock_mhz;   ///< NVML max SM clock (or cudaDevAttrClockRate)
  std::optional<double> max_mem_clock_mhz;  ///< NVML max memory clock
  std::optional<int> bus_width_bits;
  std::optional<double> memory_bytes;
  std::optional<bool> ecc_enabled;
  std::optional<double> power_limit_w;
  std::optional<double> l2_bytes;
};

/// Nominal roofs for the GPU in the machine: its table row when the name matches (factors marked
/// "table", the live values added beside them), else derived from the live factors and the
/// architecture's per-clock rates (source "derived"); an unknown architecture gives no peaks and a
/// note "unknown (why)".
nominal_roofs gpu_nominal_live(const live_gpu& g);

/// A DRAM configuration stated by the user (`--memory "12 x DDR5-4800"`): what a VM or a machine
/// without readable SMBIOS cannot tell.
struct memory_config {
  int channels = 0;        ///< 64-bit DDR channels (a DDR5 DIMM channel is two 32-bit subchannels: one channel here)
  double mt_per_s = 0;     ///< transfers per second per pin, in millions (DDR5-4800: 4800)
  std::string type;        ///< "DDR3", "DDR4" or "DDR5"
  std::string text;        ///< as the user wrote it
};

/// Parses "12 x DDR5-4800" (also "12x DDR5-4800", "12 × DDR4-3200", "12*DDR5-5600"). Throws
/// input_error naming `flag` on anything else: a channel count outside 1..64, a type other than
/// DDR3/DDR4/DDR5, a rate outside 200..20000 MT/s.
memory_config parse_memory_config(const std::string& text, const std::string& flag = "--memory");

/// What roofline knows about a CPU (filled by the CPU backend's detection).
struct cpu_description {
  std::string model;
  std::string vendor;
  int cores = 0;    ///< physical cores used by the probes
  int threads = 0;  ///< logical processors
  std::string isa;  ///< widest SIMD ISA used: "avx512f", "avx2+fma", "sse2", "neon", ...
  int simd_bits = 0;
  std::string uarch;         ///< microarchitecture ("zen4", "sky_lake", ...), "" when unknown
  std::string uarch_source;  ///< "CPUID family 0x19 model 0x11: ...", "cpuinfo", "given by the user (--uarch)"
  int fma_units = 0;  ///< FMA pipes per core
  std::string fma_units_source;
  double clock_hz = 0;
  std::string clock_source;  ///< "cpufreq max", "measured: dependent-add chain", ...
  std::int64_t l1d_bytes = 0, l2_bytes = 0, l3_bytes = 0;  ///< per core (L1, L2) and total (L3)
  std::optional<int> memory_channels;
  std::optional<double> memory_mt_per_s;
  std::string memory_source;  ///< "detected: SMBIOS", "given by the user (--memory 12 x DDR5-4800)"
  std::string memory_reason;  ///< why bandwidth is unknown, when it is
};

/// FP32 and FP64 peaks = cores × FMA units × SIMD lanes × 2 × clock; DRAM = channels × MT/s × 8 B,
/// or null with the reason.
nominal_roofs cpu_nominal(const cpu_description& cpu);

/// Completes `n` where the FMA table does not know the part (no vector peak): each precision's
/// nominal is derived from the measured FMA rate of the vector probe (measured.compute[] entries
/// with engine "vector"), its FMA/clock/core inferred as rate ÷ (cores × lanes × 2 × clock) and
/// rounded to 0.5, 1, 2, 3 or 4 when within 15 % of one (else the measured rate itself), every
/// factor marked "measured, no datasheet". Returns the number of peaks added (0 when `n` already
/// had peaks or nothing was measured).
int cpu_nominal_from_measured(nominal_roofs& n, const cpu_description& cpu, const std::vector<compute_result>& measured);

}  // namespace roofline
