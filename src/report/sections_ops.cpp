// The op table: every op of the model placed on the roofline (predicted) and, where run, measured.
#include <fmt/format.h>

#include "report/query.hpp"
#include "report/sections.hpp"
#include "report/units.hpp"

namespace roofline::report {

section ops_section(const results& r) {
  section s{"Ops on the roofline", "ops", {}};
  if (r.ops.empty()) {
    s.para("No ops in the results (no model was placed).");
    return s;
  }
  s.para("Per instance (× count per step). Predicted = max(FLOPs ÷ peak, bytes ÷ bandwidth) against the " +
         main_precision(r) + " roofs (plus the launch floor where modelled); # is the point number in the figure.");
  table t;
  t.header = {"#", "op", "phase", "batch", "seq / context", "shape", "dtype", "count", "FLOPs", "bytes", "intensity", "bound",
              "predicted", "measured", "measured ÷ predicted", "achieved", "advice"};
  for (std::size_t i = 0; i < r.ops.size(); ++i) {
    const op_result& op = r.ops[i];
    cell measured = op.measured_s ? cell(seconds(*op.measured_s), *op.measured_s)
                                  : cell(op.measured_note.empty() ? "not run" : (op.measured_note.rfind("not run", 0) == 0 ||
                                                                                         op.measured_note.rfind("failed", 0) == 0
                                                                                     ? op.measured_note
                                                                                     : "not run (" + op.measured_note + ")"));
    cell ratio_cell = op.measured_s && op.predicted_s > 0 ? cell(ratio(*op.measured_s / op.predicted_s), *op.measured_s / op.predicted_s)
                                                          : cell("—");
    const double secs = op.measured_s ? *op.measured_s : op.predicted_s;
    cell achieved_cell = secs > 0 && op.flops > 0
                             ? cell(rate_flops(op.flops / secs) + (op.measured_s ? "" : " (predicted)"), op.flops / secs)
                             : cell("—");
    t.rows.push_back({cell(std::to_string(i + 1), static_cast<double>(i + 1)), cell(op.name), cell(op.phase),
                      cell(std::to_string(op.batch), static_cast<double>(op.batch)),
                      cell(op.phase == "decode" ? fmt::format("context {}", op.context) : fmt::format("seq {}", op.seq),
                           static_cast<double>(op.phase == "decode" ? op.context : op.seq)),
                      cell(op.shape.empty() ? "—" : op.shape), cell(op.dtype.empty() ? "—" : op.dtype),
                      cell(std::to_string(op.count), static_cast<double>(op.count)), cell(flop_count(op.flops), op.flops),
                      cell(bytes_binary(op.bytes), op.bytes), cell(intensity(op.intensity), op.intensity),
                      cell(op.bound.empty() ? "—" : op.bound), cell(seconds(op.predicted_s), op.predicted_s), measured, ratio_cell,
                      achieved_cell, cell(op.advice.empty() ? "—" : op.advice)});
  }
  s.add(std::move(t));
  if (r.analysis.is_object()) {
    auto it = r.analysis.find("accuracy");
    if (it != r.analysis.end() && !it->is_null()) {
      s.heading("Prediction accuracy");
      add_json(s, *it, "accuracy", 0);
    }
  }
  return s;
}

}  // namespace roofline::report
