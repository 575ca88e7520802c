// The op table: every op of the model placed on the roofline (predicted) and, where run, measured.
#include <fmt/format.h>

#include "roofline/vocabulary.hpp"
#include "report/sections.hpp"
#include "report/units.hpp"

namespace roofline::report {

namespace {

std::string scenario_text(const op_result& op) {
  return op.phase == "decode" ? fmt::format("decode b{} ctx {}", op.batch, op.context)
                              : fmt::format("{} b{} seq {}", op.phase, op.batch, op.seq);
}

std::string op_name(const op_result& op) {
  return op.alternative_to.empty() ? op.name : op.name + " (beside " + op.alternative_to + ")";
}

/// The measured cell: the time, or why not (the reason stated once under the table).
cell measured_cell(table& t, const op_result& op) {
  if (op.measured_s) return cell(seconds(*op.measured_s), *op.measured_s);
  const std::string& n = op.measured_note;
  if (op.disturbed_s) {  // timed while the machine was busy: shown, struck from every sum, the window said once
    const auto busy = n.find("while the machine was busy");
    return cell(seconds(*op.disturbed_s) + " kept out " + t.note(busy == std::string::npos ? n : "timed " + n.substr(busy)));
  }
  const bool failed = n.rfind("failed", 0) == 0;
  std::string why = n;
  if (n.rfind("not run (", 0) == 0 && n.back() == ')') why = n.substr(9, n.size() - 10);
  else if (n.rfind("failed: ", 0) == 0) why = n.substr(8);
  return cell((failed ? "failed " : "not run ") + t.note(why.empty() ? "no reason recorded" : why));
}

}  // namespace

std::string choice_text(const kernel_choice& c) {
  const std::string times = c.chosen_s && c.over_s ? fmt::format("{} vs {}", seconds(*c.chosen_s), seconds(*c.over_s)) : "";
  std::string why = times;
  if (!c.over_detail.empty()) why += (why.empty() ? "" : "; ") + c.over_detail;
  if (c.kept)
    return fmt::format("chosen over {} when this shape first ran in this run{}", c.over, why.empty() ? "" : " (" + why + ")");
  return fmt::format("faster than {}{}", c.over, why.empty() ? "" : " (" + why + ")");
}

std::string measured_note_text(const op_result& op) {
  if (!op.choice) return op.measured_note;
  const std::string why = choice_text(*op.choice);
  return op.measured_note.empty() ? why : op.measured_note + "; " + why;
}

section ops_section(const results& r) {
  section s{"Ops on the roofline", "ops", {}};
  if (r.ops.empty()) {
    s.para("No ops in the results (no model was placed).");
    return s;
  }
  s.para("Per instance (× count per step). Predicted = max(FLOPs ÷ peak, bytes ÷ bandwidth) against the measured " +
         main_precision(r) + " roofs (plus the launch floor where modelled); # is the point number in the figure. "
         "An op shown \"beside\" others is measured for comparison and not part of the step. Each advice is stated "
         "once, under the table, and referred to by its number.");
  table t;
  t.header = {"#", "op", "scenario", "intensity", "predicted", "measured", "measured ÷ predicted", "bound", "advice"};
  for (std::size_t i = 0; i < r.ops.size(); ++i) {
    const op_result& op = r.ops[i];
    cell ratio_cell = op.measured_s && op.predicted_s > 0 ? cell(ratio(*op.measured_s / op.predicted_s), *op.measured_s / op.predicted_s)
                                                          : cell("—");
    cell intensity_cell = op.bytes > 0 ? cell(op.dtype == "int8" ? intensity_ops(op.intensity) : intensity(op.intensity), op.intensity)
                                       : cell("—");
    cell measured = measured_cell(t, op);
    t.rows.push_back({cell(std::to_string(i + 1), static_cast<double>(i + 1)), cell(op_name(op)), cell(scenario_text(op)),
                      intensity_cell, cell(seconds(op.predicted_s), op.predicted_s), measured, ratio_cell,
                      cell(op.bound.empty() ? "—" : op.bound), cell(op.advice.empty() ? "—" : "advice " + t.note(op.advice))});
  }
  s.add(std::move(t));
  return s;
}

section op_detail_section(const results& r) {
  section s{"Op shapes, FLOPs and bytes", "op-detail", {}};
  s.detail = true;
  if (r.ops.empty()) {
    s.para("No ops in the results.");
    return s;
  }
  table t;
  t.header = {"#", "op", "scenario", "shape", "dtype", "count", "FLOPs", "bytes", "intensity", "achieved", "notes"};
  for (std::size_t i = 0; i < r.ops.size(); ++i) {
    const op_result& op = r.ops[i];
    const double secs = op.measured_s ? *op.measured_s : op.predicted_s;
    cell achieved_cell = secs > 0 && op.flops > 0
                             ? cell(rate_flops(op.flops / secs) + (op.measured_s ? "" : " (predicted)"), op.flops / secs)
                             : cell("—");
    t.rows.push_back({cell(std::to_string(i + 1), static_cast<double>(i + 1)), cell(op.name), cell(scenario_text(op)),
                      cell(op.shape.empty() ? "—" : op.shape), cell(op.dtype.empty() ? "—" : op.dtype),
                      cell(std::to_string(op.count), static_cast<double>(op.count)), cell(flop_count(op.flops), op.flops),
                      cell(bytes_binary(op.bytes), op.bytes), cell(intensity(op.intensity), op.intensity), achieved_cell,
                      cell(op.measured_s && !measured_note_text(op).empty() ? t.note(measured_note_text(op)) : "—")});
  }
  s.add(std::move(t));
  accuracy_block(s, r);
  return s;
}

}  // namespace roofline::report
