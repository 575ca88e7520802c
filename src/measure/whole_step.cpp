// Whole-step launch order and the runner chain (whole_step.hpp): the harness both backends time a step with.
#include "roofline/whole_step.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "roofline/error.hpp"

namespace roofline {

std::vector<step_launch> step_order(const std::vector<op_desc>& step) {
  std::int64_t layers = 1;
  for (const auto& op : step) layers = std::max(layers, op.count);
  std::size_t first = step.size(), last = 0;
  for (std::size_t i = 0; i < step.size(); ++i)
    if (layers > 1 && step[i].count == layers) {
      first = std::min(first, i);
      last = i;
    }
  std::vector<step_launch> order;
  for (std::size_t i = 0; i < step.size(); ++i) {
    const bool in_block = first <= last && i >= first && i <= last;
    if (in_block && step[i].count != layers)
      throw probe_error(fmt::format("whole step: op {} has count {} inside the per-layer block of count {}",
                                    step[i].name, step[i].count, layers));
    if (!in_block && step[i].count != 1)
      throw probe_error(fmt::format("whole step: op {} has count {} outside the per-layer block", step[i].name,
                                    step[i].count));
  }
  for (std::size_t i = 0; i < std::min(first, step.size()); ++i) order.push_back({i, 0});
  if (first <= last)
    for (std::int64_t l = 0; l < layers; ++l)
      for (std::size_t i = first; i <= last; ++i) order.push_back({i, l});
  for (std::size_t i = (first <= last ? last + 1 : step.size()); i < step.size(); ++i) order.push_back({i, 0});
  return order;
}

namespace {

op_timing chain_from(const std::vector<op_desc>& step, std::size_t i, std::vector<captured_op>& got,
                     const run_with_hook& run, const time_step_fn& time_step, bool& reached) {
  if (i == step.size()) {
    reached = true;
    op_timing t = time_step(got);
    t.executed = step_executed(step, got);
    return t;
  }
  const step_hook hook = [&, i](int n_sets, const step_launch_fn& launch, const step_kernel& kernel) {
    got[i] = {std::max(1, n_sets), &launch, kernel.implementation, kernel.executed};
    return chain_from(step, i + 1, got, run, time_step, reached);
  };
  op_timing t = run(step[i], hook);
  if (!reached)
    throw probe_error(fmt::format("whole step: the runner of {} ({}) returned without handing over its launch "
                                  "(it cannot be part of a whole step)",
                                  step[i].name, to_string(step[i].kind)));
  return t;
}

}  // namespace

op_timing chain_step(const std::vector<op_desc>& step, const run_with_hook& run, const time_step_fn& time_step) {
  if (step.empty()) throw probe_error("whole step: no ops");
  std::vector<captured_op> got(step.size());
  bool reached = false;
  return chain_from(step, 0, got, run, time_step, reached);
}

std::optional<executed_flops> step_executed(const std::vector<op_desc>& step, const std::vector<captured_op>& ops) {
  executed_flops sum;
  bool said = false;
  for (std::size_t i = 0; i < step.size(); ++i) {
    const double count = static_cast<double>(step[i].count);
    const captured_op* c = i < ops.size() ? &ops[i] : nullptr;
    if (c && c->executed) {
      said = true;
      sum.tensor += count * c->executed->tensor, sum.cuda_cores += count * c->executed->cuda_cores;
    } else {
      sum.tensor += count * step[i].flops;
    }
  }
  if (!said) return std::nullopt;
  return sum;
}

std::string step_implementations(const std::vector<op_desc>& step, const std::vector<captured_op>& ops) {
  std::string out;
  for (std::size_t i = 0; i < step.size() && i < ops.size(); ++i) {
    const std::string& impl = ops[i].implementation;
    if (impl.empty()) continue;
    out += fmt::format("{}{} — {}", out.empty() ? "ops as run: " : " | ", step[i].name, impl.substr(0, impl.find("; ")));
  }
  return out;
}

step_replay_plan plan_step_replays(bool gpu, bool quick, bool decode, double predicted_s, double energy_window_s) {
  step_replay_plan p;
  if (quick) p.timing = quick_timing();
  else if (!gpu) p.timing = {1, 3, 10, 0.2, 2.0};
  else if (decode) p.timing = {1, 10, 100000, 1.05 * energy_window_s, 4.0}, p.energy = true;
  else p.timing = {1, 10, 200, 0.2, 2.0};
  const double step = std::max(predicted_s, 0.0);
  // a GPU's replays run until min_time_s (host clock); a CPU's are few and long: its repeats dominate
  const double replays = gpu && !quick ? std::max(p.timing.min_repeats * step, p.timing.min_time_s) : p.timing.min_repeats * step;
  p.cost_s = p.timing.warmups * step + replays;
  return p;
}

double sum_predicted(const std::vector<op_result>& placed) {
  double s = 0;
  for (const auto& op : placed) s += op.predicted_s * static_cast<double>(op.count);
  return s;
}

double predict_step(const std::vector<op_result>& placed, std::int64_t kernels, double switch_s) {
  return sum_predicted(placed) + static_cast<double>(std::max<std::int64_t>(kernels, 0)) * std::max(0.0, switch_s);
}

}  // namespace roofline
