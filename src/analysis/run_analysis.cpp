// A run: steps, the model join, MFU/HFU/MBU and the attainable step per step, time per model op,
// fusion patterns (roofline/run_analysis.hpp; rules in docs/ingest.md, "Steps and the run").
#include "roofline/run_analysis.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>
#include <set>

#include "roofline/decode_utilization.hpp"
#include "roofline/kernel_costs.hpp"
#include "roofline/mfu.hpp"
#include "roofline/ops_step.hpp"
#include "roofline/text.hpp"
#include "roofline/vocabulary.hpp"

namespace roofline {

std::string to_string(step_kind k) {
  switch (k) {
    case step_kind::train: return "train";
    case step_kind::prefill: return "prefill";
    case step_kind::decode: return "decode";
    case step_kind::unknown: return "unknown";
  }
  return "unknown";
}

std::string to_string(step_rule r) {
  switch (r) {
    case step_rule::profiler_step: return "ProfilerStep annotations";
    case step_rule::optimizer: return "optimizer updates";
    case step_rule::forward: return "model forwards";
    case step_rule::whole: return "the whole trace";
  }
  return "?";
}

namespace {

using ingest::kernel_record;

std::string lower(std::string s) {
  for (auto& c : s) c = char(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

std::string strip_aten(const std::string& op) { return op.rfind("aten::", 0) == 0 ? op.substr(6) : op; }

bool is_optimizer(const kernel_record& k) {
  const std::string op = k.framework_op;
  return k.cost_model == "optimizer_op" || contains(op, "aten::_foreach_") || contains(op, "aten::_fused_adam") ||
         contains(op, "aten::_fused_sgd") || contains(op, "Optimizer.step");
}

/// The first kernel Inductor generated for a compiled graph: a Triton kernel whose name ends in "_0"
/// (Inductor appends the kernel's index in the graph to the fused ops' names).
bool is_inductor_first(const std::string& name) {
  return name.rfind("triton_", 0) == 0 && name.size() > 2 && name.compare(name.size() - 2, 2, "_0") == 0;
}

bool is_backward(const kernel_record& k) { return k.dims->backward || contains(k.framework_op, "backward"); }

/// A kernel that only finishes another one's work (split-K reduction, cuDNN's lean reduction).
bool is_auxiliary(const std::string& name) {
  const std::string n = lower(name);
  return contains(n, "splitkreduce") || contains(n, "lean_reduction") || (contains(n, "reduce_kernel<") && contains(n, "cublas"));
}

bool is_attention_kernel(const kernel_record& k) {
  if (contains(k.cost_model, "attention")) return true;
  const std::string n = lower(k.name);
  if (contains(n, "triton_")) return false;  // Inductor's pointwise kernels name the ops they fuse ("…_attention_…")
  return contains(n, "flash") || contains(n, "fmha") || contains(n, "sdpa") || contains(n, "attention");
}

bool is_gemm_kernel(const kernel_record& k) {
  if (k.cost_model == "gemm_op") return true;
  const std::string n = lower(k.name);
  // an fp32 SIMT GEMM (cuBLAS/CUTLASS sgemm) in a half-precision step: RoPE's frequency product (HF's
  // rotary embedding, inv_freq × positions), not a linear layer
  if (contains(n, "sgemm") || contains(n, "simt")) return false;
  if (contains(n, "triton_tem_fused") && contains(n, "mm")) return true;  // an Inductor GEMM template
  if (contains(n, "triton_")) return false;
  for (const char* w : {"gemm", "nvjet", "cutlass", "xmma", "gemv", "matmul", "cublas", "wgmma", "hgmma"})
    if (contains(n, w)) return true;
  return false;
}

double union_time(const std::vector<kernel_record>& ks, const std::vector<std::size_t>& idx, double& first,
                  double& last, std::vector<std::pair<double, double>>* gaps = nullptr) {
  std::vector<std::pair<double, double>> iv;
  for (auto i : idx)
    if (ks[i].start_s) iv.emplace_back(*ks[i].start_s, *ks[i].start_s + ks[i].duration_s);
  std::sort(iv.begin(), iv.end());
  double busy = 0;
  first = iv.empty() ? 0 : iv.front().first, last = first;
  double cs = first, ce = first;
  for (std::size_t j = 0; j < iv.size(); ++j) {
    if (j == 0 || iv[j].first > ce) {
      if (j > 0) {
        busy += ce - cs;
        if (gaps) gaps->emplace_back(ce, iv[j].first);
      }
      cs = iv[j].first, ce = iv[j].second;
    } else {
      ce = std::max(ce, iv[j].second);
    }
    last = std::max(last, iv[j].second);
  }
  if (!iv.empty()) busy += ce - cs;
  return busy;
}

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

// ---- steps ----

std::vector<run_step> split_steps(const ingest::ingest_result& in, step_rule& rule) {
  const auto& ks = in.kernels;
  std::vector<run_step> steps;
  auto host_t = [&](std::size_t i) { return ks[i].launch_s.value_or(ks[i].start_s.value_or(0)); };
  // A step's wall time is the GPU's period: its first kernel's start to the next step's (the host runs
  // ahead of the GPU when the GPU is the bottleneck, so a host window can be shorter than the step; when
  // the host is the bottleneck the GPU waits for it and the period holds the wait). The last step: its
  // kernels' span, or its host window when longer.
  auto close_walls = [&] {
    std::vector<double> first(steps.size()), last(steps.size());
    for (std::size_t j = 0; j < steps.size(); ++j) union_time(ks, steps[j].kernels, first[j], last[j]);
    for (std::size_t j = 0; j < steps.size(); ++j) {
      auto& s = steps[j];
      s.start_s = first[j];
      s.wall_s = j + 1 < steps.size() ? first[j + 1] - first[j] : std::max(last[j] - first[j], s.host_s);
    }
  };
  if (!in.step_marks.empty()) {
    rule = step_rule::profiler_step;
    for (const auto& m : in.step_marks) {
      run_step s;
      s.name = m.name, s.host_s = m.duration_s;
      for (std::size_t i = 0; i < ks.size(); ++i)
        if (ks[i].launch_s && *ks[i].launch_s >= m.start_s && *ks[i].launch_s <= m.start_s + m.duration_s) s.kernels.push_back(i);
      if (!s.kernels.empty()) steps.push_back(std::move(s));
    }
    close_walls();
    return steps;
  }
  std::vector<std::size_t> order(ks.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return host_t(a) < host_t(b); });
  const bool training = std::any_of(ks.begin(), ks.end(), [](const kernel_record& k) { return is_optimizer(k); });
  if (training) {
    rule = step_rule::optimizer;
    run_step cur;
    bool in_optimizer = false;
    for (auto i : order) {
      const bool opt = is_optimizer(ks[i]);
      if (in_optimizer && !opt) {
        steps.push_back(std::move(cur));
        cur = run_step{};
      }
      in_optimizer = opt;
      cur.kernels.push_back(i);
    }
    if (!cur.kernels.empty()) steps.push_back(std::move(cur));
    for (std::size_t j = 0; j < steps.size(); ++j) steps[j].name = fmt::format("step {}", j + 1);
    close_walls();
    return steps;
  }
  // Inference: each CUDA-graph replay is a step; the other kernels start a forward at each embedding.
  std::map<std::int64_t, std::size_t> replay_step;
  run_step cur;
  std::size_t forwards = 0, replays = 0;
  auto flush = [&] {
    if (!cur.kernels.empty()) steps.push_back(std::move(cur));
    cur = run_step{};
  };
  bool after_replay = false;
  for (auto i : order) {
    const auto& k = ks[i];
    if (k.replay) {
      auto [it, fresh] = replay_step.try_emplace(*k.replay, 0);
      if (fresh) {
        flush();
        it->second = steps.size();
        run_step r;
        r.name = fmt::format("replay {}", ++replays);
        r.graphed = true;
        steps.push_back(std::move(r));
      }
      steps[it->second].kernels.push_back(i);
      after_replay = true;
      continue;
    }
    // a forward starts at an eager embedding op, or at a compiled graph whose first kernel is Inductor's
    // fused embedding: Inductor numbers a graph's kernels from 0 (triton_red_fused_…_embedding_…_0); its
    // later kernels name "embedding" too (the residual stream's provenance) and do not start one
    const bool embedding = !is_backward(k) && (k.cost_model == "embedding_op" || k.framework_op == "aten::embedding" ||
                                               (is_inductor_first(k.name) && contains(lower(k.name), "embedding")));
    // a forward has begun once it ran a GEMM or attention kernel: an embedding after that starts the next one
    // (GPT-2's position embedding right after the token embedding does not)
    if (embedding && (after_replay || std::any_of(cur.kernels.begin(), cur.kernels.end(), [&](std::size_t j) {
                        return is_gemm_kernel(ks[j]) || is_attention_kernel(ks[j]);
                      }))) {
      flush();
      after_replay = false;
    }
    // what the host runs between two replays (sampling, stopping checks) belongs to the decode step before
    if (after_replay && cur.kernels.empty() && !steps.empty()) {
      steps.back().kernels.push_back(i);
      continue;
    }
    if (cur.kernels.empty()) cur.name = fmt::format("forward {}", ++forwards);
    cur.kernels.push_back(i);
  }
  flush();
  if (steps.size() <= 1 && replays == 0) {
    rule = step_rule::whole;
    if (!steps.empty()) steps.front().name = "the whole trace";
  } else {
    rule = step_rule::forward;
  }
  close_walls();
  return steps;
}

void classify(run_step& s, const std::vector<kernel_record>& ks) {
  bool replay = false;
  for (auto i : s.kernels) {
    const auto& k = ks[i];
    if (is_backward(k) || is_optimizer(k)) {
      s.kind = step_kind::train, s.kind_from = "backward and optimizer kernels";
      return;
    }
    replay = replay || k.graph_replay;
  }
  for (auto i : s.kernels) {
    const auto& d = *ks[i].dims;
    if (d.q_len > 0 && !d.backward) {
      s.kind = d.q_len == 1 ? step_kind::decode : step_kind::prefill;
      s.kind_from = fmt::format("attention with {} quer{} per sequence", d.q_len, d.q_len == 1 ? "y" : "ies");
      return;
    }
  }
  if (replay) s.kind = step_kind::decode, s.kind_from = "a CUDA-graph replay (serving engines graph decode steps)";
}

// ---- the model join ----

/// Catalogue ops expanded in execution order (per-layer ops repeated per layer); empty when the
/// counts do not fit one layer pattern (mixed layer kinds).
std::vector<const op_desc*> expand(const std::vector<op_desc>& ops, std::int64_t layers) {
  std::vector<const op_desc*> before, per_layer, after;
  bool seen_layer = false;
  for (const auto& op : ops) {
    if (op.backward || op.recompute) return {};
    if (op.count == layers && layers > 1) {
      per_layer.push_back(&op), seen_layer = true;
    } else if (op.count == 1) {
      (seen_layer ? after : before).push_back(&op);
    } else {
      return {};
    }
  }
  std::vector<const op_desc*> out = before;
  for (std::int64_t l = 0; l < layers; ++l) out.insert(out.end(), per_layer.begin(), per_layer.end());
  out.insert(out.end(), after.begin(), after.end());
  return out;
}

bool is_attention_op(const op_desc& op) {
  return op.kind == op_kind::attention_decode || op.kind == op_kind::attention_fused || op.kind == op_kind::attention_naive;
}

/// Costs the kernels of one step that have none from the model's step, in order: GEMM kernels against
/// the catalogue's GEMMs (one for one, or against the fused forms q+k+v and gate+up when the counts say
/// the GEMMs are fused), attention kernels against its attention ops, and each run of other kernels
/// between two of those against the catalogue ops between the matching two, as one fused op (the
/// run's outside inputs read once, its outputs written once), shared over the run's kernels by time.
/// Returns the model op each kernel (index into ks) was matched to; a reason in `why` when the step
/// does not match.
std::map<std::size_t, std::string> join_by_order(std::vector<kernel_record>& ks, const run_step& s,
                                                 const std::vector<op_desc>& cat, std::int64_t layers, bool prefix,
                                                 std::string& why) {
  std::map<std::size_t, std::string> out;
  const auto seq = expand(cat, layers);
  if (seq.empty()) return why = "the model's layers are not all alike (the order join needs one layer pattern)", out;
  std::vector<std::size_t> order = s.kernels;
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return ks[a].start_s.value_or(0) < ks[b].start_s.value_or(0);
  });
  // anchors: main GEMM and attention kernels
  std::vector<std::size_t> gk, ak;  // positions in `order`
  // an fp32 SIMT GEMM in a 16-bit step is none of the model's GEMMs (HF's rotary embedding multiplies
  // inv_freq by the positions in fp32): it joins the ops around it
  const bool half_step = seq.front()->dtype != "fp32";
  for (std::size_t j = 0; j < order.size(); ++j) {
    const auto& k = ks[order[j]];
    if (is_auxiliary(k.name)) continue;
    if (is_attention_kernel(k)) ak.push_back(j);
    else if (is_gemm_kernel(k) && !(half_step && contains(lower(k.name), "sgemm"))) gk.push_back(j);
  }
  std::vector<std::size_t> ge, ae;  // positions in `seq`
  for (std::size_t j = 0; j < seq.size(); ++j) {
    if (seq[j]->kind == op_kind::gemm) ge.push_back(j);
    else if (is_attention_op(*seq[j])) ae.push_back(j);
  }
  // GEMM groups: one op each, or consecutive GEMMs of one input (same m and k) fused
  std::vector<std::vector<std::size_t>> groups;
  for (auto j : ge) groups.push_back({j});
  if (gk.size() != groups.size()) {
    std::vector<std::vector<std::size_t>> fused;
    for (auto j : ge) {
      if (!fused.empty()) {
        const auto& prev = *seq[fused.back().back()];
        if (fused.back().back() + 1 == j && prev.m == seq[j]->m && prev.k == seq[j]->k) {
          fused.back().push_back(j);
          continue;
        }
      }
      fused.push_back({j});
    }
    groups = std::move(fused);
  }
  if (prefix && gk.size() < ge.size() && ak.size() <= ae.size()) {
    // a partial step (an Nsight Compute export of its first N launches): the GEMMs one for one, as far as they go
    groups.clear();
    for (std::size_t g = 0; g < gk.size(); ++g) groups.push_back({ge[g]});
    ae.resize(ak.size());
  }
  if (gk.size() != groups.size())
    return why = fmt::format("{} GEMM kernels where the model's step has {} GEMMs ({} when q/k/v and gate/up are fused)",
                             gk.size(), ge.size(), groups.size()),
           out;
  if (ak.size() != ae.size())
    return why = fmt::format("{} attention kernels where the model's step has {}", ak.size(), ae.size()), out;
  // anchors in kernel order, each with its catalogue positions
  struct anchor {
    std::size_t kpos;
    std::vector<std::size_t> ops;
  };
  std::vector<anchor> anchors;
  for (std::size_t g = 0; g < gk.size(); ++g) anchors.push_back({gk[g], groups[g]});
  for (std::size_t a = 0; a < ak.size(); ++a) anchors.push_back({ak[a], {ae[a]}});
  std::sort(anchors.begin(), anchors.end(), [](const anchor& a, const anchor& b) { return a.kpos < b.kpos; });
  for (std::size_t a = 1; a < anchors.size(); ++a)
    if (anchors[a].ops.front() < anchors[a - 1].ops.back())
      return why = "the GEMM and attention kernels come in another order than the model's ops", out;

  auto cost_kernel = [&](std::size_t kpos, double flops, double bytes, const std::string& precision, const std::string& from,
                         const std::string& op_name) {
    auto& k = ks[order[kpos]];
    out[order[kpos]] = op_name;
    if (has_cost(k)) {
      // counted by hardware counters: the model's FLOPs beside them (model ÷ hardware FLOPs)
      if (!k.flops.empty() && k.model_flops.empty() && flops > 0 && !precision.empty())
        k.model_flops.push_back({precision, "", flops, ingest::count_source::catalogue, "build_catalogue: " + op_name});
      return;
    }
    k.model_flops.clear(), k.bytes.clear();
    if (flops > 0 && !precision.empty())
      k.model_flops.push_back({precision, "", flops, ingest::count_source::catalogue, "build_catalogue"});
    k.bytes.push_back({"dram", bytes, ingest::count_source::catalogue, "build_catalogue"});
    k.cost_model = "catalogue";
    k.cost_from = from;
  };
  auto op_names = [&](const std::vector<std::size_t>& js) {
    std::string n;
    for (auto j : js) n += (n.empty() ? "" : " + ") + seq[j]->name;
    return n;
  };
  // anchors: the op's cost (fused GEMMs: one input read once)
  for (const auto& a : anchors) {
    double flops = 0, bytes = 0;
    for (std::size_t i = 0; i < a.ops.size(); ++i) {
      flops += seq[a.ops[i]]->flops;
      bytes += seq[a.ops[i]]->bytes() - (i > 0 ? double(seq[a.ops[i]]->m) * double(seq[a.ops[i]]->k) * seq[a.ops[i]]->dtype_bytes : 0);
    }
    const std::string name = op_names(a.ops);
    cost_kernel(a.kpos, flops, bytes, seq[a.ops.front()]->dtype, "catalogue: " + name, name);
    // its auxiliary kernels right after it (split-K reduce, lean reduction) belong to it
    for (std::size_t j = a.kpos + 1; j < order.size() && is_auxiliary(ks[order[j]].name); ++j) {
      out[order[j]] = name;
      auto& k = ks[order[j]];
      if (!has_cost(k)) {
        k.cost_model = "catalogue", k.cost_from = "catalogue: " + name + " (its reduction kernel)";
        k.counted_with = order[a.kpos];
      }
    }
  }
  // the runs between anchors (and before the first / after the last); a run between two anchors with no
  // catalogue op between them (a compiler moved RoPE of q next to q_proj) joins the next run that has ops
  std::vector<std::size_t> carried;
  for (std::size_t a = 0; a <= anchors.size(); ++a) {
    if (prefix && a == anchors.size() && gk.size() < ge.size()) break;  // a cut step: its tail has no known end
    const std::size_t k0 = a == 0 ? 0 : anchors[a - 1].kpos + 1, k1 = a == anchors.size() ? order.size() : anchors[a].kpos;
    const std::size_t o0 = a == 0 ? 0 : anchors[a - 1].ops.back() + 1, o1 = a == anchors.size() ? seq.size() : anchors[a].ops.front();
    std::vector<std::size_t> run = carried, ops;
    for (std::size_t j = k0; j < k1; ++j)
      if (!is_auxiliary(ks[order[j]].name) && !out.count(order[j])) run.push_back(j);
    for (std::size_t j = o0; j < o1; ++j) ops.push_back(j);
    if (ops.empty()) {
      carried = run;
      if (a == anchors.size())  // after the model's last op: nothing of the step's model is left to cost them with
        for (auto j : run)
          ks[order[j]].note = fmt::format("after the model's last op ({}): a copy the framework adds (cache or output update), "
                                          "not an op of the model's step",
                                          seq.back()->name);
      continue;
    }
    carried.clear();
    if (run.empty()) continue;
    // one fused op: the first op's reads, each later op's reads less its predecessor's output, the
    // last op's writes and every residual sum (read again by the next residual add)
    double flops = 0, read = 0, written = 0;
    for (std::size_t i = 0; i < ops.size(); ++i) {
      const op_desc& op = *seq[ops[i]];
      flops += op.flops;
      read += i == 0 ? op.bytes_read : std::max(0.0, op.bytes_read - seq[ops[i - 1]]->bytes_written);
      if (i + 1 == ops.size() || op.kind == op_kind::add) written += op.bytes_written;
    }
    double total = 0;
    for (auto j : run) total += ks[order[j]].duration_s;
    const std::string name = op_names(ops);
    for (auto j : run) {
      const double share = total > 0 ? ks[order[j]].duration_s / total : 1.0 / double(run.size());
      cost_kernel(j, flops * share, (read + written) * share, seq[ops.front()]->dtype,
                  run.size() == 1 ? fmt::format("catalogue: {} as one fused op", name)
                                  : fmt::format("catalogue: {} as one fused op, shared over {} kernels by time", name, run.size()),
                  name);
    }
  }
  return out;
}

/// The model op group of an eager kernel from its costed op's shape and framework op.
std::string group_of(const kernel_record& k, const model_config& cfg, const std::vector<op_desc>& cat, bool training) {
  const std::string op = strip_aten(k.framework_op);
  if (is_optimizer(k)) return "optimizer";
  if (contains(op, "log_softmax") || contains(op, "nll_loss") || contains(op, "cross_entropy")) return "loss";
  if (contains(k.cost_model, "attention")) return "attention";
  if (contains(k.cost_model, "embedding")) return "embedding";
  if (k.cost_model == "gemm_op" && k.dims->m > 0) {
    for (const auto& c : cat)
      if (c.kind == op_kind::gemm && ((c.m == k.dims->m && c.n == k.dims->n && c.k == k.dims->k) ||
                                     (c.m == k.dims->n && c.n == k.dims->m && c.k == k.dims->k)))
        return model_op_group(c.name);
    return "other";
  }
  const std::int64_t last = k.dims->last;
  if (last == 0) return "other";
  if (last == cfg.vocab) return training ? "loss" : "logits";
  if (last == cfg.intermediate || last == 2 * cfg.intermediate || (cfg.expert_intermediate && last == cfg.expert_intermediate))
    return "MLP";
  if (last == cfg.head_dim || last * 2 == cfg.head_dim) return "RoPE";
  if (last == cfg.hidden) return (op == "add" || op == "add_") ? "residual adds" : "norms";
  if (last == 1) return "norms";
  return "other";
}

}  // namespace

/// The group of a joined kernel's model op ("attn_residual + post_attention_norm"): a norm, RoPE or the
/// MLP among its parts names it (the fused kernel's main work), else its first part.
std::string joined_group(const std::string& joined) {
  std::vector<std::string> groups;
  for (std::size_t p = 0; p <= joined.size();) {
    const std::size_t q = joined.find(" + ", p);
    groups.push_back(model_op_group(joined.substr(p, q == std::string::npos ? std::string::npos : q - p)));
    if (q == std::string::npos) break;
    p = q + 3;
  }
  for (const char* g : {"norms", "RoPE", "MLP", "attention", "attention projections", "LM head", "embedding"})
    if (std::find(groups.begin(), groups.end(), g) != groups.end()) return g;
  return groups.empty() ? "other" : groups.front();
}

std::string model_op_group(const std::string& catalogue_op) {
  std::string n = catalogue_op;
  for (const char* suffix : {".grad_input", ".grad_weight", ".bwd", ".recompute"})
    if (const auto p = n.find(suffix); p != std::string::npos) n = n.substr(0, p);
  if (n == "loss") return "loss";
  if (n == "lm_head") return "LM head";
  if (contains(n, "embed") || n == "wte" || n == "wpe") return "embedding";
  if (n == "rope") return "RoPE";
  if (contains(n, "attention") && !contains(n, "norm") && !contains(n, "residual")) return "attention";
  if (contains(n, "norm") || n == "ln_1" || n == "ln_2" || n == "ln_f") return "norms";
  if (contains(n, "residual")) return "residual adds";
  for (const char* p : {"q_proj", "k_proj", "v_proj", "o_proj", "c_attn", "attn_c_proj", "qkv", "kv_a", "kv_b", "q_a", "q_b"})
    if (contains(n, p)) return "attention projections";
  for (const char* p : {"gate", "up_proj", "down_proj", "silu", "gelu", "mul", "c_fc", "mlp", "expert", "router", "moe"})
    if (contains(n, p)) return "MLP";
  return "other";
}

std::string fusion_pattern_name(const std::vector<std::string>& ops) {
  std::set<std::string> s(ops.begin(), ops.end());
  auto has = [&](const char* o) { return s.count(o) > 0; };
  if (has("_log_softmax") || has("log_softmax") || has("nll_loss_forward") || has("_log_softmax_backward_data"))
    return "unfused cross-entropy loss";
  if (has("pow") && has("mean") && has("rsqrt")) return "unfused RMSNorm";
  if (has("var_mean") || (has("mean") && has("sub") && has("rsqrt"))) return "unfused LayerNorm";
  if (has("silu") && has("mul")) return "SwiGLU activation";
  if ((has("tanh") || has("erf")) && has("mul")) return "GELU activation";
  if (has("cos") || has("sin") || (has("neg") && has("cat"))) return "RoPE";
  return "elementwise chain";
}

std::vector<run_step> find_steps(const ingest::ingest_result& in, step_rule& rule) {
  auto steps = split_steps(in, rule);
  for (auto& s : steps) classify(s, in.kernels);
  return steps;
}

namespace {

/// A fused optimizer's kernels (aten::_fused_adam_, _fused_adamw_) that carry no cost because the
/// profiler did not record the parameter lists' shapes (it writes `[]` for a long TensorList): with the
/// model named, one optimizer update of all the model's parameters (optimizer_op, model.hpp) is that
/// call's cost, the element type from the kernels' functor (ingest::functor_precision). multi_tensor_apply
/// gives each block one chunk of 65,536 elements (ATen's MultiTensorApply.cuh, kChunkSize), so the cost
/// is shared over the launches by grid blocks, work and not time: each launch is judged at its own rate.
/// Returns the cost per grid block by kernel name, for the launches outside every step (the warm-up
/// tail), which hold the same chunks.
std::map<std::string, std::pair<double, double>> cost_optimizer_from_model(std::vector<kernel_record>& ks, const run_step& s,
                                                                           const model_config& cfg) {
  std::map<std::string, std::pair<double, double>> per_block;  // name -> (FLOPs, bytes) per block
  std::vector<std::size_t> opt;
  for (auto i : s.kernels) {
    const std::string op = strip_aten(ks[i].framework_op);
    if (op == "_fused_adam_" || op == "_fused_adamw_") opt.push_back(i);
    else if (is_optimizer(ks[i]) && op.rfind("_fused_", 0) == 0) return per_block;  // another fused optimizer in the step
  }
  if (opt.empty()) return per_block;
  double blocks = 0;
  std::string precision;
  for (auto i : opt) {
    const auto& k = ks[i];
    if (has_cost(k) || !k.grid_blocks || *k.grid_blocks <= 0) return per_block;  // recorded shapes, or no grid: nothing to add
    const std::string p = ingest::functor_precision(k.name);
    if (p.empty() || (!precision.empty() && p != precision)) return per_block;  // no element type, or lists of two types
    precision = p;
    if (strip_aten(k.framework_op) != strip_aten(ks[opt.front()].framework_op)) return per_block;
    blocks += double(*k.grid_blocks);
  }
  const optimizer_kind kind = strip_aten(ks[opt.front()].framework_op) == "_fused_adamw_" ? optimizer_kind::adamw : optimizer_kind::adam;
  const int b = dtype_bytes(precision);
  const op_desc op = optimizer_op(kind, "optimizer", double(cfg.parameters()), b, b, b);
  for (auto i : opt) {
    auto& k = ks[i];
    const double share = double(*k.grid_blocks) / blocks;
    k.model_flops = {{precision, "", op.flops * share, ingest::count_source::catalogue, "optimizer_op"}};
    k.bytes = {{"dram", op.bytes() * share, ingest::count_source::catalogue, "optimizer_op"}};
    k.cost_model = "optimizer_op";
    k.cost_from = fmt::format("catalogue: {} update of the model's {} parameters ({}, from the kernel's functor), "
                              "{} of {} grid blocks of the step's {} launches",
                              to_string(kind), cfg.parameters(), precision, *k.grid_blocks, blocks, opt.size());
    per_block[k.name] = {op.flops / blocks, op.bytes() / blocks};
  }
  return per_block;
}

}  // namespace

void join_model(ingest::ingest_result& in, std::vector<run_step>& steps, const run_model& model) {
  auto& ks = in.kernels;
  auto shapes_of = [&](const std::vector<std::size_t>& idx) -> std::optional<ingest::op_dims> {
    for (auto i : idx)
      if (ks[i].dims->q_len > 0 && !ks[i].dims->backward) return *ks[i].dims;
    return std::nullopt;
  };
  std::vector<std::size_t> all(ks.size());
  std::iota(all.begin(), all.end(), 0);
  const auto trace_dims = shapes_of(all);
  std::int64_t trace_kv = 0;
  for (const auto& k : ks) trace_kv = std::max(trace_kv, k.dims->kv_len);
  // the step's dtype: its GEMMs' precision, else fp16
  auto dtype_of = [&](const run_step& s) {
    for (auto i : s.kernels)
      for (const auto& f : ks[i].model_flops)
        if (f.precision == "bf16" || f.precision == "fp16" || f.precision == "fp32") return f.precision.str();
    return std::string("fp16");
  };
  struct block_cost {
    double flops, bytes;
    std::string step;
  };
  std::map<std::string, block_cost> optimizer_per_block;  // fused optimizer kernel name -> its cost per grid block
  for (auto& s : steps) {
    if (s.kind == step_kind::unknown && model.kind != step_kind::unknown) s.kind = model.kind, s.kind_from = "--phase";
    if (s.kind == step_kind::unknown) {
      s.model_why = "the step's kind (training, prefill, decode) is not known: give --phase";
      continue;
    }
    const phase ph = s.kind == step_kind::train ? phase::train : s.kind == step_kind::prefill ? phase::prefill : phase::decode;
    if (ph == phase::train)
      for (const auto& [name, c] : cost_optimizer_from_model(ks, s, model.cfg))
        if (!optimizer_per_block.count(name)) optimizer_per_block[name] = {c.first, c.second, s.name};
    if (const auto d = shapes_of(s.kernels)) {
      s.batch = d->batch;
      if (ph == phase::decode) s.context = d->kv_len;
      else s.seq = d->q_len;
      s.shape_from = "the step's attention shapes";
    } else {
      s.batch = trace_dims ? std::optional<std::int64_t>(trace_dims->batch) : model.batch;
      s.shape_from = trace_dims ? "batch from the trace's attention shapes" : model.batch ? "--batch" : "";
      if (ph == phase::decode) {
        s.context = model.context ? model.context : trace_kv > 0 ? std::optional<std::int64_t>(trace_kv) : std::nullopt;
        s.shape_from += model.context ? ", --context" : trace_kv > 0 ? ", context the longest KV length in the trace" : "";
      } else {
        s.seq = model.seq;
        if (model.seq) s.shape_from += ", --seq";
      }
    }
    if (!s.batch || (ph == phase::decode ? !s.context : !s.seq)) {
      s.model_why = ph == phase::decode ? "batch or context unknown: give --batch and --context"
                                        : "batch or sequence length unknown: give --batch and --seq";
      continue;
    }
    try {
      catalogue_options co;
      co.ph = ph, co.batch = *s.batch;
      if (ph == phase::decode) co.context = *s.context;
      else co.seq = *s.seq;
      co.dtype = dtype_of(s);
      co.one_pass_norms = true;
      const auto cat = build_catalogue(model.cfg, co);
      std::string why;
      std::map<std::size_t, std::string> joined;
      const bool uncosted = std::any_of(s.kernels.begin(), s.kernels.end(), [&](std::size_t i) { return !has_cost(ks[i]); });
      const bool counters = std::any_of(s.kernels.begin(), s.kernels.end(), [&](std::size_t i) { return !ks[i].flops.empty(); });
      if ((uncosted || counters) && ph != phase::train)
        joined = join_by_order(ks, s, cat, model.cfg.layers, in.format.rfind("ncu", 0) == 0, why);
      if (!why.empty()) s.model_why = "not matched to the model's ops by order: " + why;
      for (const auto& [i, op] : joined) ks[i].model_op = op;
    } catch (const std::exception& e) {
      s.model_why = e.what();
    }
  }
  // the same fused optimizer's launches outside every step (the profiler's warm-up tail): the same
  // chunks of the same update, at the step's cost per grid block
  if (optimizer_per_block.empty()) return;
  std::vector<bool> in_step(ks.size());
  for (const auto& s : steps)
    for (auto i : s.kernels) in_step[i] = true;
  for (std::size_t i = 0; i < ks.size(); ++i) {
    auto& k = ks[i];
    const auto it = optimizer_per_block.find(k.name);
    if (in_step[i] || has_cost(k) || it == optimizer_per_block.end() || !k.grid_blocks || *k.grid_blocks <= 0) continue;
    const double n = double(*k.grid_blocks);
    k.model_flops = {{ingest::functor_precision(k.name), "", it->second.flops * n, ingest::count_source::catalogue, "optimizer_op"}};
    k.bytes = {{"dram", it->second.bytes * n, ingest::count_source::catalogue, "optimizer_op"}};
    k.cost_model = "optimizer_op";
    k.cost_from = fmt::format("catalogue: the optimizer update's cost per grid block in {}, × {} blocks", it->second.step, *k.grid_blocks);
  }
}

run_answer analyse_run(const ingest::ingest_result& in, const std::vector<kernel_verdict>& v, const command_roofs& roofs,
                       const trace_summary& summary, std::vector<run_step> steps, step_rule rule, const run_model* model) {
  run_answer a;
  const auto& ks = in.kernels;
  a.rule = rule;
  a.steps = std::move(steps);
  {
    std::vector<bool> in_step(ks.size());
    for (const auto& s : a.steps)
      for (auto i : s.kernels) in_step[i] = true;
    for (std::size_t i = 0; i < ks.size(); ++i)
      if (!in_step[i]) ++a.outside_steps, a.outside_steps_s += ks[i].duration_s;
  }
  // the run's precision: most placed FLOPs; its nominal dense peak and the device bandwidth
  {
    std::map<std::string, double> by;
    for (const auto& x : v)
      if (x.flops > 0) by[x.precision] += x.flops;
    a.precision = by.empty() ? roofs.precision
                             : std::max_element(by.begin(), by.end(), [](const auto& p, const auto& q) { return p.second < q.second; })->first;
    if (const nominal_peak* p = peak_for(roofs.nominal, a.precision)) a.peak_flops = p->flops_per_s, a.peak_engine = p->engine;
    a.bandwidth = roofs.nominal.memory_bandwidth_bytes_per_s.value_or(0);
  }
  // what the host sat in while the GPU idled: the outermost host intervals over each gap
  auto host_in = [&](double t0, double t1, std::map<std::string, double>& acc) {
    double covered = 0;
    for (const auto& h : in.host) {
      const double x = std::max(t0, h.start_s), y = std::min(t1, h.start_s + h.duration_s);
      if (y > x) acc[h.name] += y - x, covered += y - x;
    }
    if (t1 - t0 > covered + 1e-12) acc["no host op recorded"] += (t1 - t0) - covered;
  };
  for (auto& s : a.steps) {
    std::vector<std::pair<double, double>> gaps;
    double first = 0, last = 0;
    s.busy_s = union_time(ks, s.kernels, first, last, &gaps);
    s.gpu_s = last - first;
    if (s.wall_s <= 0) s.wall_s = s.gpu_s;
    s.idle_s = std::max(0.0, s.wall_s - s.busy_s);
    // the period's tail: its last kernel's end to the next step's first kernel
    if (first + s.wall_s > last) gaps.emplace_back(last, first + s.wall_s);
    std::map<std::string, double> acc;
    double in_gaps = 0;
    for (const auto& [x, y] : gaps) host_in(x, y, acc), in_gaps += y - x;
    if (s.idle_s > in_gaps + 1e-12) acc["no host op recorded"] += s.idle_s - in_gaps;
    for (const auto& [h, t] : acc) s.idle_by_host.push_back({h, t});
    std::stable_sort(s.idle_by_host.begin(), s.idle_by_host.end(), [](const host_wait& x, const host_wait& y) { return x.seconds > y.seconds; });
    for (auto i : s.kernels) {
      const auto& x = v[i];
      s.kernel_s += x.seconds;
      s.time_by_class[std::size_t(x.cls)] += x.seconds;
      s.hardware_flops += x.flops;
      s.dram_bytes += x.dram_bytes.value_or(0);
      if (x.cls == verdict_class::unattributed) s.unattributed_s += x.seconds;
    }
    if (!model || !s.batch || s.kind == step_kind::unknown || (s.kind == step_kind::decode ? !s.context : !s.seq)) continue;
    // ---- the model's numbers for this step ----
    try {
      const phase ph = s.kind == step_kind::train ? phase::train : s.kind == step_kind::prefill ? phase::prefill : phase::decode;
      catalogue_options co;
      co.ph = ph, co.batch = *s.batch;
      if (ph == phase::decode) co.context = *s.context;
      else co.seq = *s.seq;
      co.dtype = a.precision == "bf16" || a.precision == "fp16" || a.precision == "fp32" ? a.precision : "fp16";
      co.one_pass_norms = true;
      const auto cat = build_catalogue(model->cfg, co);
      const std::int64_t T = ph == phase::decode ? *s.context : *s.seq;
      const double tokens = double(*s.batch) * (ph == phase::decode ? 1.0 : double(*s.seq));
      const token_flops fpt = model_flops_per_token(model->cfg, ph, T);
      s.model_flops = fpt.total * tokens;
      if (a.peak_flops > 0 && s.wall_s > 0) {
        s.mfu = model_flops_utilization(fpt.total, tokens / s.wall_s, a.peak_flops, 1);
        s.hfu = s.hardware_flops / s.wall_s / a.peak_flops;
      }
      if (ph == phase::decode && a.bandwidth > 0 && s.wall_s > 0) s.mbu = decode_cost(cat).bytes / s.wall_s / a.bandwidth;
      // above the peak is impossible: the step is not the model's step (its boundaries, its kind or its
      // shapes are wrong); said, and no utilization shown
      for (auto [name, u] : {std::pair<const char*, std::optional<double>*>{"MFU", &s.mfu}, {"HFU", &s.hfu}, {"MBU", &s.mbu}})
        if (*u && **u > 1.0) {
          s.model_why += fmt::format("{}impossible: {} {:.1f}% is above the peak, so this step is not the model's {} step "
                                     "of batch {} × {} tokens (its boundaries or shapes are wrong)",
                                     s.model_why.empty() ? "" : "; ", name, 100 * **u, to_string(s.kind), *s.batch, T);
          u->reset();
        }
      std::optional<ops_step> predicted;
      if (model->roofs && s.wall_s > 0) {  // a file without kernel times (a partial Nsight Compute step): no step to predict
        try {
          predicted = compute_ops_step(model->cfg, co, model->roofs, false, {});
          s.attainable_s = predicted->total_s;
        } catch (const std::exception& e) {
          s.model_why = std::string("no attainable step: ") + e.what();
        }
      }
      std::map<std::string, model_op_time> groups;
      if (predicted)
        for (std::size_t i = 0; i < predicted->ops.size() && i < predicted->placed.size(); ++i) {
          const std::string g = model_op_group(predicted->ops[i].name);
          groups[g].group = g;
          groups[g].predicted_s = groups[g].predicted_s.value_or(0) + predicted->placed[i].terms.total_s * double(predicted->ops[i].count);
        }
      // the catalogue's training step is forward, backward and loss; the optimizer update is part of the
      // step too, at its attainable cost: one pass over the parameters, gradients and states. A fused
      // optimizer's kernels are that pass (their costed FLOPs and bytes); a foreach optimizer's many list
      // ops are not, so the update of its kind (optimizer_op over the model's parameters, the element type
      // from its kernels' functor) stands for it. Placed as one op on the same roofs and added.
      if (predicted && ph == phase::train) {
        double flops = 0, bytes = 0;
        bool fused = false, foreach_ops = false, adam_ops = false, mul_ops = false;
        std::string precision;
        for (auto i : s.kernels) {
          if (!is_optimizer(ks[i])) continue;
          flops += v[i].flops, bytes += v[i].dram_bytes.value_or(0);
          const std::string op = strip_aten(ks[i].framework_op);
          fused = fused || op.rfind("_fused_", 0) == 0;  // its step counters' _foreach_add_ beside it are its own
          if (op.rfind("_foreach_", 0) == 0) {
            foreach_ops = true;
            adam_ops = adam_ops || contains(op, "addcmul") || contains(op, "sqrt") || contains(op, "lerp");
            mul_ops = mul_ops || contains(op, "_foreach_mul");
          }
          if (precision.empty()) precision = ingest::functor_precision(ks[i].name);
        }
        if (foreach_ops && !fused && !precision.empty()) {
          const optimizer_kind kind = adam_ops ? optimizer_kind::adam : mul_ops ? optimizer_kind::sgd_momentum : optimizer_kind::sgd;
          const int b = dtype_bytes(precision);
          const op_desc one_pass = optimizer_op(kind, "optimizer", double(model->cfg.parameters()), b, b, b);
          flops = one_pass.flops, bytes = one_pass.bytes();
        }
        if (bytes > 0) {
          op_desc update = tensor_op("optimizer update", bytes, 0, 0, 0);
          update.flops = flops;
          const double t = model->roofs->lat.predict(update, model->roofs->peak, model->roofs->bandwidth).total_s;
          *s.attainable_s += t;
          groups["optimizer"].group = "optimizer";
          groups["optimizer"].predicted_s = t;
        }
      }
      for (auto i : s.kernels) {
        std::string g = !ks[i].model_op.empty() ? joined_group(ks[i].model_op)
                        : v[i].cls == verdict_class::unattributed ? "unattributed"
                                                                  : group_of(ks[i], model->cfg, cat, ph == phase::train);
        auto& m = groups[g];
        m.group = g;
        ++m.kernels;
        m.measured_s += v[i].seconds;
        m.flops += v[i].flops;
        m.bytes += v[i].dram_bytes.value_or(0);
        if (v[i].time_at_roof_s > 0) m.at_roof_s += v[i].time_at_roof_s, m.above_roof_s += std::max(0.0, v[i].seconds - v[i].time_at_roof_s);
      }
      for (auto& [n, m] : groups) s.ops.push_back(m);
      std::stable_sort(s.ops.begin(), s.ops.end(), [](const model_op_time& x, const model_op_time& y) { return x.measured_s > y.measured_s; });
    } catch (const std::exception& e) {
      s.model_why = e.what();
    }
  }
  if (model) a.model = model->source;

  // ---- fusion patterns: the summary's runs named by their ops and grouped ----
  {
    std::map<std::pair<std::string, std::vector<std::string>>, fusion_pattern> by;
    for (const auto& f : summary.fusion) {
      std::vector<std::string> ops;
      for (auto n : f.kernels) ops.push_back(ks[n - 1].framework_op.empty() ? "?" : strip_aten(ks[n - 1].framework_op));
      const std::string name = fusion_pattern_name(ops);
      auto& p = by[{name, ops}];
      p.name = name, p.ops = ops;
      ++p.runs, p.kernels += f.kernels.size(), p.seconds += f.seconds;
      if (f.bytes_saved) p.bytes_saved += *f.bytes_saved;
      if (f.time_saved_s) p.time_saved_s += *f.time_saved_s;
    }
    for (auto& [key, p] : by) {
      a.fusion.push_back(p);
      a.fusion_bytes_saved += p.bytes_saved, a.fusion_time_saved_s += p.time_saved_s;
    }
    std::stable_sort(a.fusion.begin(), a.fusion.end(), [](const fusion_pattern& x, const fusion_pattern& y) {
      return x.time_saved_s != y.time_saved_s ? x.time_saved_s > y.time_saved_s : x.seconds > y.seconds;
    });
  }

  // ---- the steps the answer speaks for: training when any, else the most common kind ----
  {
    std::map<step_kind, std::size_t> n;
    for (const auto& s : a.steps) ++n[s.kind];
    if (n[step_kind::train] > 0) a.main_kind = step_kind::train;
    else
      for (step_kind k : {step_kind::decode, step_kind::prefill, step_kind::unknown})
        if (n[k] > n[a.main_kind] || (a.main_kind == step_kind::unknown && n[k] > 0)) a.main_kind = k;
    std::vector<double> wall, mfu, hfu, mbu, att;
    for (std::size_t i = 0; i < a.steps.size(); ++i) {
      const auto& s = a.steps[i];
      if (s.kind != a.main_kind) continue;
      a.main_steps.push_back(i);
      wall.push_back(s.wall_s);
      if (s.mfu) mfu.push_back(*s.mfu);
      if (s.hfu) hfu.push_back(*s.hfu);
      if (s.mbu) mbu.push_back(*s.mbu);
      if (s.attainable_s) att.push_back(*s.attainable_s);
    }
    if (!wall.empty()) a.median_wall_s = median(wall);
    if (!mfu.empty()) a.median_mfu = median(mfu);
    if (!hfu.empty()) a.median_hfu = median(hfu);
    if (!mbu.empty()) a.median_mbu = median(mbu);
    if (!att.empty()) a.median_attainable_s = median(att);
  }
  return a;
}

}  // namespace roofline
