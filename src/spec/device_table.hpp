// The GPU device table (data/devices/*.json), parsed and validated. Private to src/spec.
// File format: docs/formulas-spec.md §4. Every number carries the citation it came from.
#pragma once
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace roofline::spec_detail {

/// A number with its citation, e.g. {132, "NVIDIA H100 whitepaper, Table 3", ""}.
struct sourced {
  double value = 0;
  std::string source;
  std::string note;  ///< why this factor differs from what one would assume (may be empty)
};

/// Dense FMA per tensor core per clock for one (precision, accumulate) pair.
struct tensor_rate {
  std::string precision, accumulate;
  double fma_per_tc_per_clock = 0;
  bool at_boost_clock = false;  ///< true: the datasheet figure assumes the boost, not the tensor clock
  std::string source;
};

/// Per-clock rates shared by every SKU of one chip (one compute capability family).
struct chip_rates {
  std::string file, architecture, vendor, chip;
  std::vector<std::string> compute_capabilities;  ///< "9.0", "8.6", ...
  sourced tensor_cores_per_sm, fp32_lanes_per_sm;
  std::optional<sourced> fp64_lanes_per_sm;  ///< null: not published (GA10B); no fp64 vector peak, fp64_reason says why
  std::string fp64_reason;
  std::optional<sourced> fp16_vector_fma_per_sm;  ///< half2 FMA per SM per clock (null: not published)
  bool structured_sparsity = false;
  std::optional<sourced> geforce_fp32_accumulate_factor;
  std::vector<tensor_rate> tensor_rates;
};

struct pcie_link {
  int generation = 0, lanes = 0;
  double gb_per_s = 0;  ///< both directions together, as NVIDIA prints it
  std::string source;
};
struct nvlink_link {
  int links = 0;
  double gb_per_s_per_link = 0;  ///< both directions together
  std::string source;
};

/// What the SKU's datasheet prints, to check the derivation against (never used as a peak).
struct printed_peak {
  std::string precision, accumulate;
  double tflops = 0;
};
struct printed_values {
  std::string source;  ///< "none: <reason>" when no datasheet prints the part's figures (tensor empty)
  std::vector<printed_peak> tensor;
  double fp32_tflops = 0;
  double bandwidth_gb_per_s = 0;
};

/// A product's printed throughput cap for one (precision, engine): the peak is min(derived, cap)
/// (export-limited parts: H800 FP64 1 TFLOPS, H20 every tensor rate).
struct peak_cap {
  std::string precision, engine;  ///< engine "tensor" | "vector"
  double tflops = 0;
  std::string source;
};

/// A peak the table leaves unknown on purpose ({"precision": "*"|"fp16"|..., "engine": "tensor"|
/// "vector", "reason"}): the chip's rate would derive one, but this product's figure is not published
/// (L20: an export-limited AD102 whose tensor rates no public NVIDIA datasheet states).
struct unknown_peak {
  std::string precision, engine, reason;
};

/// A MIG GPU-instance profile (NVIDIA Multi-Instance GPU User Guide, 'Supported MIG Profiles'): its
/// SMs and its share of the memory slices, each with memory controllers, L2 and DRAM of their own.
struct mig_profile {
  std::string name;  ///< "1g.5gb"
  int sms = 0, memory_slices = 0, memory_slices_total = 0;
  std::string source;
};

/// What ECC on GDDR memory costs (stored in-band): a share of the bandwidth and of the capacity.
/// The nominal stays the datasheet's; this is a stated, derived ceiling for when ECC is on.
struct ecc_cost {
  std::optional<sourced> bandwidth_factor;  ///< null: not documented for this part (bandwidth_reason says so)
  std::string bandwidth_reason;
  sourced capacity_factor;
  std::string when;           ///< when it applies ("ECC on (default on cloud T4s)")
  std::string default_state;  ///< "on" | "off": how the part ships (nvidia-smi on public hosts)
};

struct sku_row {
  /// product_class: "datacenter" | "workstation" (full-rate fp32 accumulate) | "geforce" (the
  /// chip's geforce_fp32_accumulate_factor applies) | "embedded" (an integrated GPU: Jetson)
  std::string file, name, chip, product_class;
  std::vector<std::string> aliases;
  sourced sms, boost_clock_mhz;
  std::optional<sourced> tensor_clock_mhz;
  /// Scales every dense tensor rate of this SKU (L40: 0.5, its datasheet prints half the AD10x rate).
  std::optional<sourced> tensor_rate_factor;
  /// Scales the dense tensor rates with fp32 accumulate only (A10G: 0.5, the class public GEMMs show).
  std::optional<sourced> fp32_accumulate_factor;
  std::vector<peak_cap> peak_caps;
  std::vector<unknown_peak> unknown_peaks;
  std::string memory_type;
  sourced bus_width_bits, data_rate_gbps, memory_size_gb;
  std::optional<sourced> l2_mib;
  std::string l2_reason;
  sourced tdp_w;
  std::optional<pcie_link> pcie;  ///< null: the GPU is not on PCIe (integrated: Jetson); pcie_reason says why
  std::string pcie_reason;
  std::optional<nvlink_link> nvlink;
  std::vector<std::pair<std::string, std::string>> notes;  ///< (field, text)
  printed_values datasheet;
  std::vector<mig_profile> mig_profiles;  ///< empty: no MIG on this product (or not in the table)
  /// Dies the runtime shows as separate devices (MI250X: 2 GCDs, each a ROCm device); null: one.
  std::optional<sourced> gcds;
  std::optional<ecc_cost> ecc;  ///< GDDR parts whose ECC costs bandwidth and capacity
};

struct device_table {
  std::vector<chip_rates> chips;
  std::vector<sku_row> skus;
  const chip_rates& chip_of(const sku_row& s) const;
  /// The rates for a compute capability ("9.0"), or nullptr.
  const chip_rates* chip_for_cc(const std::string& cc) const;
  const sku_row* find(const std::string& canonical_name) const;
};

/// Loads and validates every *.json in `dir` (sorted by file name). Throws input_error
/// "<file>: <field>: <problem>" on a missing field, a wrong type, a negative/zero/NaN number, an
/// unknown chip, a duplicate name, or a missing directory.
device_table load_table(const std::string& dir);

/// Adds one device-table file's text (`path` names it in errors) to `t`, validated as load_table.
void parse_table_text(const std::string& text, const std::string& path, device_table& t);

/// load_table(device_table_dir()).
device_table load_default_table();

}  // namespace roofline::spec_detail
