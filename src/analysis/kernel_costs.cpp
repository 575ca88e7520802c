// Costs for kernels the reader could not cost: graph replays from their captured launches, and the
// same kernel elsewhere in the trace (docs/ingest.md, "Where a kernel's cost comes from").
#include "roofline/kernel_costs.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <tuple>
#include <unordered_map>

namespace roofline {

using ingest::count_source;
using ingest::kernel_record;

bool has_cost(const kernel_record& k) {
  return !k.cost_model.empty() || !k.flops.empty() || !k.bytes.empty() || !k.model_flops.empty();
}

namespace {

/// Copies `from`'s counts (× share) onto `to`, marked with `src`; `why` goes to cost_from.
void copy_cost(kernel_record& to, const kernel_record& from, count_source src, double share, std::string why) {
  to.model_flops.clear();
  to.bytes.clear();
  for (auto f : from.model_flops) {
    f.flops *= share, f.source = src;
    to.model_flops.push_back(f);
  }
  for (auto b : from.bytes) {
    b.bytes *= share, b.source = src;
    to.bytes.push_back(b);
  }
  to.cost_model = from.cost_model;
  to.dims = from.dims;
  to.counted_with.reset();
  if (to.shapes.empty()) to.shapes = from.shapes;
  if (to.framework_op.empty() || to.graph_replay) to.framework_op = from.framework_op;
  to.cost_from = std::move(why);
  to.note = from.note;
}

std::vector<std::size_t> by_start(const std::vector<kernel_record>& ks, std::vector<std::size_t> idx) {
  std::stable_sort(idx.begin(), idx.end(), [&](std::size_t a, std::size_t b) {
    return ks[a].start_s.value_or(0) < ks[b].start_s.value_or(0);
  });
  return idx;
}

// ---- 1. capture ----
void from_capture(ingest::ingest_result& in, cost_fill& out) {
  auto& ks = in.kernels;
  const auto& cap = in.captured;
  std::map<std::int64_t, std::vector<std::size_t>> replays;
  for (std::size_t i = 0; i < ks.size(); ++i)
    if (ks[i].replay && !has_cost(ks[i])) replays[*ks[i].replay].push_back(i);
  if (replays.empty()) return;
  if (cap.empty()) {
    std::size_t n = 0;
    for (const auto& [id, list] : replays) n += list.size();
    out.notes.push_back(fmt::format("{} replayed kernels in {} CUDA-graph replays: the graphs were captured before the "
                                    "profiler started (no captured launches in the trace)",
                                    n, replays.size()));
    return;
  }
  // Segments of consecutive captured launches: a kernel launched (and run) between two of them ends one.
  std::vector<double> eager_launch;
  for (const auto& k : ks)
    if (!k.graph_replay && k.launch_s) eager_launch.push_back(*k.launch_s);
  std::sort(eager_launch.begin(), eager_launch.end());
  std::vector<std::pair<std::size_t, std::size_t>> seg;  // [first, last]
  for (std::size_t i = 0; i < cap.size(); ++i) {
    const bool split = i == 0 || [&] {
      const double a = cap[i - 1].launch_s.value_or(0), b = cap[i].launch_s.value_or(0);
      auto it = std::upper_bound(eager_launch.begin(), eager_launch.end(), a);
      return it != eager_launch.end() && *it < b;
    }();
    if (split) seg.emplace_back(i, i);
    else seg.back().second = i;
  }
  std::size_t unmatched = 0, unmatched_replays = 0;
  for (auto& [id, list] : replays) {
    const auto order = by_start(ks, list);
    const double t = ks[order.front()].launch_s.value_or(ks[order.front()].start_s.value_or(0));
    const std::pair<std::size_t, std::size_t>* best = nullptr;
    for (const auto& s : seg)
      if (s.second - s.first + 1 == order.size() && cap[s.first].launch_s.value_or(0) < t) best = &s;
    if (!best) {
      unmatched += order.size(), ++unmatched_replays;
      continue;
    }
    // the kernels of one captured op call share its cost, as eager kernels of one op do
    std::map<std::int64_t, std::vector<std::size_t>> by_call;
    for (std::size_t j = 0; j < order.size(); ++j) {
      const auto& c = cap[best->first + j];
      if (has_cost(c) && c.op_call >= 0) by_call[c.op_call].push_back(j);
    }
    for (const auto& [call, js] : by_call) {
      double total = 0;
      std::size_t longest = js.front();
      for (auto j : js) {
        total += ks[order[j]].duration_s;
        if (ks[order[j]].duration_s > ks[order[longest]].duration_s) longest = j;
      }
      const bool chunks = js.size() > 1 && std::all_of(js.begin(), js.end(), [&](std::size_t j) {
        return ks[order[j]].name == ks[order[longest]].name;
      });
      for (auto j : js) {
        auto& k = ks[order[j]];
        const auto& c = cap[best->first + j];
        const std::string why = fmt::format("capture: launch {} of the graph's {} captured launches ({}, correlation {})",
                                            j + 1, order.size(), c.framework_op, c.id);
        if (!chunks && j != longest) {
          copy_cost(k, c, count_source::capture, 0, why);
          k.model_flops.clear(), k.bytes.clear();
          k.counted_with = order[longest];
          k.note = fmt::format("one of {} kernels of this captured {}: its counts are on the longest", js.size(), c.framework_op);
          ++out.capture;
          continue;
        }
        const double share = chunks && total > 0 ? k.duration_s / total : 1.0;
        copy_cost(k, c, count_source::capture, share, why);
        ++out.capture;
      }
    }
  }
  if (unmatched)
    out.notes.push_back(fmt::format("{} replayed kernels in {} CUDA-graph replays: no captured graph in the trace has as "
                                    "many launches",
                                    unmatched, unmatched_replays));
}

// ---- 2. same launch of a repeated step: the warm-up step's tail ----
void from_previous_step(ingest::ingest_result& in, cost_fill& out) {
  if (in.step_marks.empty()) return;
  auto& ks = in.kernels;
  const auto& first = in.step_marks.front();
  std::vector<std::size_t> orphans, step;
  std::optional<double> first_linked;
  for (std::size_t i = 0; i < ks.size(); ++i) {
    if (ks[i].launch_s) {
      if (!first_linked || ks[i].start_s.value_or(0) < *first_linked) first_linked = ks[i].start_s.value_or(0);
      if (*ks[i].launch_s >= first.start_s && *ks[i].launch_s <= first.start_s + first.duration_s) step.push_back(i);
    }
  }
  for (std::size_t i = 0; i < ks.size(); ++i)
    if (!ks[i].launch_s && !ks[i].graph_replay && (!first_linked || ks[i].start_s.value_or(0) < *first_linked))
      orphans.push_back(i);
  if (orphans.empty() || step.empty()) return;
  orphans = by_start(ks, orphans), step = by_start(ks, step);
  std::size_t matched = 0;
  std::map<std::size_t, std::size_t> twin;  // a step kernel -> the orphan copied from it
  for (std::size_t j = 0; j < orphans.size() && j < step.size(); ++j) {
    auto& k = ks[orphans[orphans.size() - 1 - j]];
    const auto& s = ks[step[step.size() - 1 - j]];
    if (k.name != s.name) break;
    ++matched;
    if (has_cost(k) || !has_cost(s)) continue;
    copy_cost(k, s, count_source::same_kernel, 1.0,
              fmt::format("same kernel: the same launch of the next step ({}, kernel {} from its end)", first.name, j + 1));
    twin[step[step.size() - 1 - j]] = orphans[orphans.size() - 1 - j];
    ++out.same_kernel;
  }
  // a launch whose op is counted on a sibling (cuDNN's reductions beside its attention kernel) is counted
  // with the sibling's twin, as in the step
  for (const auto& [s, o] : twin) {
    const auto c = ks[s].counted_with;
    if (!c) continue;
    const auto t = twin.find(*c);
    if (t == twin.end()) {
      ks[o].note = "its op's counts are on a kernel that is not in the trace (it ran before the first recorded kernel)";
      continue;
    }
    ks[o].counted_with = t->second;
    ks[o].note = fmt::format("one kernel of its op: the op's counts are on kernel id {}, as in {}", ks[t->second].id, first.name);
  }
  if (matched < orphans.size())
    out.notes.push_back(fmt::format("{} kernels before {} have no recorded launch and do not repeat its last kernels",
                                    orphans.size() - matched, first.name));
}

// ---- 3. the same kernel (name, grid, block) costed identically elsewhere ----
void from_same_kernel(ingest::ingest_result& in, cost_fill& out) {
  auto& ks = in.kernels;
  using key = std::tuple<std::string, std::int64_t, std::int64_t>;
  auto key_of = [](const kernel_record& k) { return key{k.name, k.grid_blocks.value_or(-1), k.block_threads.value_or(-1)}; };
  auto total_bytes = [](const kernel_record& k) {
    double b = 0;
    for (const auto& x : k.bytes) b += x.bytes;
    return b;
  };
  struct seen {
    std::size_t index = 0, count = 0;
    bool agree = true;
  };
  std::map<key, seen> costed;
  for (std::size_t i = 0; i < ks.size(); ++i) {
    const auto& k = ks[i];
    if (k.bytes.empty() || k.cost_from.rfind("same kernel", 0) == 0) continue;
    auto [it, fresh] = costed.try_emplace(key_of(k), seen{i, 0, true});
    ++it->second.count;
    if (!fresh) {
      const auto& f = ks[it->second.index];
      const double a = total_bytes(f), b = total_bytes(k);
      if (std::abs(a - b) > 1e-9 * std::max(a, b)) it->second.agree = false;
    }
  }
  std::size_t ambiguous = 0;
  for (auto& k : ks) {
    if (has_cost(k)) continue;
    const auto it = costed.find(key_of(k));
    if (it == costed.end()) continue;
    if (!it->second.agree) {
      ++ambiguous;
      continue;
    }
    const auto& from = ks[it->second.index];
    copy_cost(k, from, count_source::same_kernel, 1.0,
              fmt::format("same kernel: the same name, grid and block ran {} time(s) elsewhere with this cost (id {})",
                          it->second.count, from.id));
    ++out.same_kernel;
  }
  if (ambiguous)
    out.notes.push_back(fmt::format("{} kernels ran elsewhere in the trace at different costs (same name, grid and block): "
                                    "left unattributed",
                                    ambiguous));
}

}  // namespace

cost_fill fill_costs(ingest::ingest_result& in) {
  cost_fill out;
  from_capture(in, out);
  from_previous_step(in, out);
  from_same_kernel(in, out);
  std::map<std::string, std::pair<std::int64_t, double>> no_cost;  // reason -> kernels, seconds
  for (const auto& k : in.kernels)
    if (!has_cost(k)) {
      auto& e = no_cost[k.note];
      ++e.first, e.second += k.duration_s;
    }
  for (const auto& [why, e] : no_cost)
    out.notes.push_back(fmt::format("{} kernels ({:.3f} ms) without FLOPs or bytes: {}", e.first, e.second * 1e3, why));
  return out;
}

}  // namespace roofline
