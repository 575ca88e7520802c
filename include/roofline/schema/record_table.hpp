// The block results.analysis.record_table: one row per number people fill in by hand (bandwidth,
// GEMM, clock, power, ridge, ECC, TPOT → MFU), beside its nominal value and the field's usual range.
// Computed by roofline/record_table.hpp (record_table, in src/analysis); rows and sources:
// docs/formulas-analysis.md §6.
#pragma once
#include <optional>
#include <string>

#include "roofline/json_fwd.hpp"

namespace roofline {

/// One row. Values are in `unit`; ratio = measured ÷ nominal (for tpot_mfu: MFU).
struct record_row {
  /// bandwidth_read|_write|_copy, gemm_<precision>_<n>, gemm_at_clock, gemm_sustained_random|_zeros, sm_clock,
  /// power, ridge, ecc, tpot_mfu
  std::string key;
  std::string label;  ///< "device memory read bandwidth (4.00 GiB)"
  std::string unit;   ///< "B/s", "FLOP/s", "OP/s", "MHz", "W", "FLOP/B", "OP/B"; "" for ECC
  std::optional<double> nominal, measured;
  std::optional<double> expected_low, expected_high;  ///< the usual range, same unit (null when none)
  std::string expected_note;  ///< the usual range in words ("75–90% of nominal", "at or below the boost clock")
  std::string measured_text;  ///< a measured value that is a word (ECC "on"); empty otherwise
  std::string nominal_note;   ///< why nominal is unknown, or where it came from
  std::string measured_note;  ///< why not measured, or what the measurement is (TPOT source, throttling)
  bool rejected = false;      ///< measured, then kept out of the roofs (measured_note: "rejected: <why>")
  /// Measured above the usual range (measured > expected_high): that it is, by how much, and the reason
  /// where the row's own record shows one (above_usual_reason); empty otherwise.
  std::string above_usual;
  std::optional<double> seconds;  ///< tpot_mfu: the TPOT the measured rate comes from
  /// measured ÷ nominal; nullopt without both or with nominal ≤ 0
  std::optional<double> ratio() const {
    if (nominal && measured && *nominal > 0) return *measured / *nominal;
    return std::nullopt;
  }
};

/// results.analysis.record_table: one object per row with the fields above plus `ratio` (written for the
/// reader, not read back); `measured` holds measured_text when that is set. src/common/analysis_json.cpp.
void to_json(json& j, const record_row& v);
void from_json(const json& j, record_row& v);

}  // namespace roofline
