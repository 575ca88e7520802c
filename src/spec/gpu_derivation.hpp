// GPU peak derivation from factors (shared by the table path and the live path). Private to src/spec.
// Formulas (docs/formulas-spec.md §1-2):
//   tensor  = SMs × tensor cores/SM × dense FMA/TC/clock [× GeForce fp32-accumulate factor] × 2 × clock
//   vector  = SMs × lanes/SM × 2 × clock            (fp32, fp64; fp16 counts half2 FMA per SM)
//   memory  = bus width / 8 × per-pin data rate
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "roofline/results.hpp"
#include "spec/device_table.hpp"

namespace roofline::spec_detail {

/// The per-device factors a derivation needs, each a roofline::factor (value, unit, source).
struct gpu_factors {
  factor sms;                    ///< SMs
  factor boost_clock_mhz;        ///< the clock of the vector peaks
  std::optional<factor> tensor_clock_mhz;  ///< the clock the datasheet's tensor peaks assume
  std::string tensor_clock_note;
  bool geforce = false;
  std::optional<factor> tensor_rate_factor;  ///< per-SKU scale of every tensor rate (L40: 0.5)
  std::optional<factor> fp32_accumulate_factor;  ///< per-SKU scale of the fp32-accumulate tensor rates (A10G: 0.5)
};

/// Dense peaks of every tensor rate of `chip`, then vector fp64, fp32, fp16 (half2).
std::vector<nominal_peak> derive_peaks(const chip_rates& chip, const gpu_factors& g, const std::string& source_prefix);

/// Applies a SKU's printed caps: each matching peak becomes min(derived, cap), the cap a factor and
/// the formula "min(…, cap)"; the sparse figure, when there is one, is twice the capped dense one.
void apply_peak_caps(std::vector<nominal_peak>& peaks, const std::vector<peak_cap>& caps, const std::string& source_prefix);

/// bus_bits / 8 × rate_gbps × 1e9 B/s, with the formula text "6144 bit / 8 × 6.402 Gbit/s".
double derive_bandwidth(double bus_bits, double rate_gbps, std::string& formula);

/// Nominal roofs of a table row (source "table").
nominal_roofs derive_table_row(const device_table& t, const sku_row& s);

/// "1.59" for 1590 MHz given in GHz; "{:g}" for the rest.
std::string num(double v);

}  // namespace roofline::spec_detail
