// The record table's view: renders roofline/record_table.hpp's rows (computed once, in analysis)
// with the one formatter; reasons and sources become numbered notes under the table.
#include "roofline/record_table.hpp"

#include <fmt/format.h>

#include "report/sections.hpp"
#include "report/units.hpp"

namespace roofline::report {

namespace {

cell with_note(table& t, std::string text, std::optional<double> key, const std::string& why) {
  if (!why.empty()) text += " " + t.note(why);
  return cell(std::move(text), key);
}

cell nominal_cell(table& t, const record_row& x) {
  if (!x.nominal) return with_note(t, x.unit.empty() ? "—" : "unknown", std::nullopt, x.nominal_note);
  return with_note(t, value(*x.nominal, x.unit), x.nominal, x.nominal_note);
}

cell measured_cell(table& t, const record_row& x) {
  if (!x.measured_text.empty()) return with_note(t, x.measured_text, std::nullopt, x.measured_note);
  if (!x.measured)
    return with_note(t, x.rejected ? "rejected" : x.unit.empty() ? "not reported" : "not measured", std::nullopt, x.measured_note);
  std::string text = value(*x.measured, x.unit);
  if (x.seconds) text += " in " + seconds(*x.seconds);
  return with_note(t, std::move(text), x.measured, x.measured_note);
}

cell usual_cell(table& t, const record_row& x) {
  if (x.expected_low && x.expected_high && *x.expected_low == *x.expected_high && x.nominal && *x.nominal > 0)
    return with_note(t, "≈ " + percent(*x.expected_low / *x.nominal), *x.expected_low, x.expected_note);
  if (x.expected_low && x.expected_high) {
    // a measured value above the range is said, with its cause where known, never left under it silently
    const bool si_unit = x.unit == "B/s" || x.unit == "FLOP/s" || x.unit == "OP/s";
    return with_note(t,
                     si_unit ? si_range(*x.expected_low, *x.expected_high, x.unit)
                             : fmt::format("{}–{} {}", sig(*x.expected_low), sig(*x.expected_high), x.unit),
                     *x.expected_low, x.above_usual.empty() ? "" : "measured " + x.above_usual);
  }
  return cell(x.expected_note);
}

}  // namespace

section record_section(const results& r) {
  section s{"Record table", "record", {}};
  table t;
  t.header = {"quantity", "nominal", "measured", "measured ÷ nominal", "usually"};
  // the table analyse() stored; computed here only for results that were never analysed
  const std::vector<record_row> rows = r.analysis.record_table ? *r.analysis.record_table : record_table(r);
  for (const record_row& x : rows) {
    const auto ratio_value = x.ratio();
    t.rows.push_back({cell(x.label), nominal_cell(t, x), measured_cell(t, x),
                      ratio_value ? cell(percent(*ratio_value), ratio_value) : cell("—"), usual_cell(t, x)});
  }
  s.add(std::move(t));
  s.para("Measured = best of the repeats (the roof); medians and spreads are in the appendix. \"Usually\" is the "
         "field's rule of thumb: 75–90% of nominal for bandwidth, 70–85% for large GEMMs. Bandwidth counts every "
         "byte read and written (a copy moves its bytes twice). Rates are SI decimal (1 GB/s = 1e9 B/s); capacities "
         "binary (1 MiB = 2^20 B). MFU = model FLOPs per token ÷ TPOT ÷ nominal dense peak.");
  return s;
}

}  // namespace roofline::report
