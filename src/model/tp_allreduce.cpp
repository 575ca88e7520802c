// Tensor-parallel all-reduce traffic of a transformer step, predicted from the measured all-reduce
// bus bandwidth. Megatron-LM (Shoeybi et al., arXiv:1909.08053, §3, Fig. 4): the attention block and
// the MLP are each split column-parallel then row-parallel, so each needs ONE all-reduce of its
// [tokens × hidden] output in the forward pass ("g"), and its conjugate ("f") one in the backward
// pass: 2 all-reduces per layer forward, 4 per layer for a training step.
#include <fmt/format.h>

#include "roofline/error.hpp"
#include "roofline/fleet.hpp"  // predict_collective_s: the nccl-tests bus-bandwidth convention
#include "roofline/model.hpp"

namespace roofline {

tp_allreduce_plan tp_allreduce_ops(const model_config& cfg, phase ph, std::int64_t batch, std::int64_t seq,
                                   int tp, double bus_bandwidth, const std::string& dtype, double latency_s) {
  if (tp < 1) throw input_error("", "--tp", fmt::format("must be ≥ 1 (got {})", tp));
  if (batch < 1) throw input_error("", "--batch", fmt::format("must be ≥ 1 (got {})", batch));
  if (seq < 1) throw input_error("", "--seq", fmt::format("must be ≥ 1 (got {})", seq));
  if (cfg.hidden < 1 || cfg.layers < 1) throw input_error(cfg.source, "hidden_size", "model has no hidden size or layers");
  if (tp > 1 && !(bus_bandwidth > 0))
    throw input_error("", "bus bandwidth", "unknown or ≤ 0: measure it with a fleet run on ≥ 2 GPUs");
  tp_allreduce_plan plan;
  plan.tp = tp;
  plan.tokens = batch * (ph == phase::decode ? 1 : seq);
  if (tp == 1) {
    plan.note = "tp = 1: no all-reduce";
    return plan;
  }
  const double bytes = static_cast<double>(plan.tokens) * static_cast<double>(cfg.hidden) * dtype_bytes(dtype);
  const double t = fleet::predict_collective_s(fleet::collective::all_reduce, bytes, tp, bus_bandwidth, latency_s);
  std::vector<std::string> names = {"attention_allreduce", "mlp_allreduce"};
  if (ph == phase::train) {
    names.push_back("attention_allreduce_backward");
    names.push_back("mlp_allreduce_backward");
  }
  for (const auto& n : names) {
    plan.ops.push_back({n, bytes, cfg.layers, t});
    plan.bytes_per_layer += bytes;
    plan.seconds_per_layer += t;
  }
  plan.seconds_per_step = plan.seconds_per_layer * static_cast<double>(cfg.layers);
  return plan;
}

}  // namespace roofline
