// A trace's time split: GPU busy (the union of kernel intervals over streams), the host gaps and what
// the host did in them, time by verdict class, the top kernels by name, the GEMM share and the fusion
// candidates (docs/formulas-analysis.md, "Kernel verdicts: the time split").
#include <algorithm>
#include <map>

#include "roofline/kernel_analysis.hpp"
#include "roofline/units.hpp"
#include "roofline/vocabulary.hpp"

namespace roofline {

namespace {

/// A kernel's DRAM bytes read and written. A reader that recorded them apart (byte_count metrics
/// naming "read" and "write") gives them; otherwise half of the DRAM bytes each (an elementwise
/// kernel's split; the approximation is stated in fusion_candidate::how).
struct read_write {
  double read = 0, write = 0;
  bool split = false;
};

std::optional<read_write> dram_rw(const ingest::kernel_record& k) {
  read_write rw;
  double total = 0;
  bool any = false;
  for (const auto& b : k.bytes) {
    if (!is_device_memory(b.level) || !(b.bytes > 0)) continue;
    any = true;
    if (b.metric.find("read") != std::string::npos) {
      rw.read += b.bytes;
      rw.split = true;
    } else if (b.metric.find("write") != std::string::npos) {
      rw.write += b.bytes;
      rw.split = true;
    } else {
      total += b.bytes;
    }
  }
  if (!any) return std::nullopt;
  rw.read += total / 2;
  rw.write += total / 2;
  return rw;
}

/// A kernel a fused neighbour could absorb: not a GEMM/attention, and memory-bound by intensity (any
/// fraction, at the DRAM roof included), below both roofs, or launch-bound (a fused kernel also pays
/// one launch instead of several).
bool fusable(const kernel_verdict& v) {
  if (v.gemm_like) return false;
  // an optimizer update or an embedding gather/scatter is not an elementwise neighbour to fuse into: it
  // breaks the run (the run between a step's last GEMM and the next step's first holds the update)
  for (const char* op : {"aten::_foreach_", "aten::_fused_adam", "aten::_fused_sgd", "aten::embedding", "Optimizer.step"})
    if (v.framework_op.rfind(op, 0) == 0) return false;
  const bool memory_bound = !v.binding.empty() && v.binding != "compute";
  return memory_bound || v.cls == verdict_class::below_both || v.cls == verdict_class::launch_bound;
}

}  // namespace

trace_summary summarize_trace(const ingest::ingest_result& in, const std::vector<kernel_verdict>& v, const results& r, std::size_t top_n,
                              std::size_t max_gaps) {
  trace_summary s;
  s.kernels = in.kernels.size();
  s.floors = floors_of(r);
  if (s.floors.launch_s) s.launch_floor_total_s = *s.floors.launch_s * static_cast<double>(s.kernels);
  for (std::size_t i = 0; i < v.size() && i < in.kernels.size(); ++i) {
    s.kernel_time_s += v[i].seconds;
    s.time_by_class[static_cast<std::size_t>(v[i].cls)] += v[i].seconds;
    if (v[i].gemm_like) s.gemm_s += v[i].seconds;
  }
  if (s.kernel_time_s > 0) s.gemm_share = s.gemm_s / s.kernel_time_s;

  // Busy time: the union of [start, start + duration) over every stream; gaps between the merged intervals.
  std::vector<std::size_t> timed;
  for (std::size_t i = 0; i < in.kernels.size(); ++i)
    if (in.kernels[i].start_s) timed.push_back(i);
  std::sort(timed.begin(), timed.end(), [&](std::size_t a, std::size_t b) { return *in.kernels[a].start_s < *in.kernels[b].start_s; });
  if (!timed.empty()) {
    double cur_start = *in.kernels[timed[0]].start_s, cur_end = cur_start + in.kernels[timed[0]].duration_s;
    std::size_t last_end_kernel = timed[0];
    const double first = cur_start;
    double last = cur_end;
    for (std::size_t j = 1; j < timed.size(); ++j) {
      const auto& k = in.kernels[timed[j]];
      const double a = *k.start_s, b = a + k.duration_s;
      if (a > cur_end) {
        s.busy_s += cur_end - cur_start;
        s.gaps.push_back({cur_end, a - cur_end, last_end_kernel + 1, timed[j] + 1, {}});
        cur_start = a;
        cur_end = b;
        last_end_kernel = timed[j];
      } else if (b > cur_end) {
        cur_end = b;
        last_end_kernel = timed[j];
      }
      last = std::max(last, b);
    }
    s.busy_s += cur_end - cur_start;
    s.span_s = in.span_s ? *in.span_s : last - first;
    if (*s.span_s > 0) s.busy_fraction = s.busy_s / *s.span_s;
  } else if (in.span_s) {
    s.span_s = in.span_s;
  }
  std::stable_sort(s.gaps.begin(), s.gaps.end(), [](const host_gap& a, const host_gap& b) { return a.duration_s > b.duration_s; });
  if (s.gaps.size() > max_gaps) s.gaps.resize(max_gaps);
  for (auto& g : s.gaps) {
    for (const auto& h : in.host) {
      const double a = std::max(g.start_s, h.start_s), b = std::min(g.start_s + g.duration_s, h.start_s + h.duration_s);
      if (b > a) g.host.emplace_back(h.name, b - a);
    }
    std::stable_sort(g.host.begin(), g.host.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
    if (g.host.size() > 3) g.host.resize(3);
  }

  // The top kernels by total time, grouped by name; each group's class = the class of most of its time.
  std::map<std::string, std::size_t> index;
  std::vector<std::array<double, verdict_class_count>> by_class;
  for (const auto& k : v) {
    auto it = index.find(k.name);
    if (it == index.end()) {
      it = index.emplace(k.name, s.top.size()).first;
      s.top.push_back({k.name, 0, 0, verdict_class::unattributed, k.gemm_like});
      by_class.push_back({});
    }
    auto& g = s.top[it->second];
    ++g.count;
    g.total_s += k.seconds;
    by_class[it->second][static_cast<std::size_t>(k.cls)] += k.seconds;
  }
  for (std::size_t i = 0; i < s.top.size(); ++i)
    s.top[i].cls = static_cast<verdict_class>(std::max_element(by_class[i].begin(), by_class[i].end()) - by_class[i].begin());
  std::stable_sort(s.top.begin(), s.top.end(), [](const kernel_group& a, const kernel_group& b) { return a.total_s > b.total_s; });
  if (s.top.size() > top_n) s.top.resize(top_n);

  // Fusion candidates: per stream in start order, a run of ≥ 2 fusable kernels between two GEMM/attention kernels.
  if (const bandwidth_result* b = best_device_bandwidth(r.measured)) {
    s.dram_roof = b->bytes_per_s;
    s.dram_roof_source = "measured " + b->pattern + " " + b->level;
  } else if (r.nominal.memory_bandwidth_bytes_per_s && *r.nominal.memory_bandwidth_bytes_per_s > 0) {
    s.dram_roof = *r.nominal.memory_bandwidth_bytes_per_s;
    s.dram_roof_source = "nominal (not measured)";
  }
  std::map<std::int64_t, std::vector<std::size_t>> streams;
  for (std::size_t i : timed) streams[in.kernels[i].stream.value_or(-1)].push_back(i);
  for (const auto& [stream, ks] : streams) {
    std::optional<std::size_t> open_gemm;
    std::vector<std::size_t> run;
    for (std::size_t i : ks) {
      if (i >= v.size()) continue;
      if (v[i].gemm_like) {
        if (open_gemm && run.size() >= 2) {
          fusion_candidate f;
          if (stream >= 0 || in.kernels[i].stream) f.stream = stream;
          f.after = *open_gemm + 1;
          f.before = i + 1;
          double sum = 0;
          bool all = true, split = true;
          for (std::size_t j : run) {
            f.kernels.push_back(j + 1);
            f.seconds += v[j].seconds;
            const auto rw = dram_rw(in.kernels[j]);
            if (!rw) all = false;
            else {
              sum += rw->read + rw->write;
              split = split && rw->split;
            }
          }
          if (all) {
            const auto first = dram_rw(in.kernels[run.front()]), last = dram_rw(in.kernels[run.back()]);
            f.bytes_saved = std::max(0.0, sum - first->read - last->write);
            if (s.dram_roof) f.time_saved_s = *f.bytes_saved / *s.dram_roof;
            f.how = std::string("Σ DRAM bytes of the run − the first kernel's reads − the last kernel's writes") +
                    (split ? "" : " (read/write split not recorded: half of each kernel's DRAM bytes taken as reads)") +
                    "; bytes a middle kernel reads from outside the run (weights) are counted as saved";
          } else {
            f.how = "DRAM bytes not known for every kernel of the run: saving not computed";
          }
          s.fusion.push_back(std::move(f));
        }
        open_gemm = i;
        run.clear();
      } else if (fusable(v[i])) {
        run.push_back(i);
      } else {
        open_gemm.reset();  // a kernel that is neither breaks the run
        run.clear();
      }
    }
  }
  std::stable_sort(s.fusion.begin(), s.fusion.end(),
                   [](const fusion_candidate& a, const fusion_candidate& b) { return a.time_saved_s.value_or(0) > b.time_saved_s.value_or(0); });
  for (const auto& f : s.fusion) {
    s.fusion_bytes_saved += f.bytes_saved.value_or(0);
    s.fusion_time_saved_s += f.time_saved_s.value_or(0);
  }
  return s;
}

baseline_diff diff_baseline(const std::vector<kernel_verdict>& old_run, const std::vector<kernel_verdict>& new_run) {
  baseline_diff d;
  // key: name, shapes (only when both runs record shapes for that name), occurrence index
  auto key = [](const kernel_verdict& k, bool with_shapes) { return k.name + (with_shapes ? "\x1f" + k.shapes : ""); };
  std::map<std::string, bool> shapes_everywhere;  // per name: every kernel of both runs has shapes
  for (const auto* run : {&old_run, &new_run})
    for (const auto& k : *run) {
      auto it = shapes_everywhere.emplace(k.name, true).first;
      it->second = it->second && !k.shapes.empty();
    }
  std::map<std::string, std::vector<std::size_t>> old_by_key;
  for (std::size_t i = 0; i < old_run.size(); ++i) old_by_key[key(old_run[i], shapes_everywhere[old_run[i].name])].push_back(i);
  std::map<std::string, std::size_t> seen;
  std::vector<bool> old_used(old_run.size(), false);
  for (std::size_t i = 0; i < new_run.size(); ++i) {
    const auto& n = new_run[i];
    const std::string k = key(n, shapes_everywhere[n.name]);
    const std::size_t occ = seen[k]++;
    const auto it = old_by_key.find(k);
    if (it == old_by_key.end() || occ >= it->second.size()) {
      d.only_new.push_back(n.number);
      continue;
    }
    const auto& o = old_run[it->second[occ]];
    old_used[it->second[occ]] = true;
    baseline_match m;
    m.name = n.name;
    m.shapes = n.shapes;
    m.occurrence = occ;
    m.old_number = o.number;
    m.new_number = n.number;
    m.old_s = o.seconds;
    m.new_s = n.seconds;
    m.old_intensity = o.intensity;
    m.new_intensity = n.intensity;
    m.old_flops_per_s = o.achieved_flops_per_s;
    m.new_flops_per_s = n.achieved_flops_per_s;
    m.saved_s = o.seconds - n.seconds;
    d.old_total_s += o.seconds;
    d.new_total_s += n.seconds;
    d.saved_s += m.saved_s;
    d.matched.push_back(std::move(m));
  }
  for (std::size_t i = 0; i < old_run.size(); ++i)
    if (!old_used[i]) d.only_old.push_back(old_run[i].number);
  for (const auto& k : old_run) d.old_run_s += k.seconds;
  for (const auto& k : new_run) d.new_run_s += k.seconds;
  d.old_kernels = old_run.size();
  d.new_kernels = new_run.size();
  return d;
}

}  // namespace roofline
