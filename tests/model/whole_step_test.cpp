// Whole-step launch order and the runner chain.
#include <gtest/gtest.h>

#include "roofline/error.hpp"
#include "roofline/model.hpp"
#include "roofline/whole_step.hpp"

using namespace roofline;

namespace {
/// The shipped TinyLlama-1.1B config (models/tinyllama-1.1b.json), through the loader users get.
model_config tinyllama() { return load_model_config(resolve_model_path("tinyllama-1.1b")); }
/// TinyLlama's decode step (batch 1) cut to `layers` layers.
std::vector<op_desc> tinyllama_decode(std::int64_t layers) {
  model_config cfg = tinyllama();
  cfg.layers = layers;
  catalogue_options o;
  o.ph = phase::decode;
  return build_catalogue(cfg, o);
}
}  // namespace

TEST(WholeStep, TinyLlamaDecodeLaunchesEmbeddingThenLayersThenHead) {
  catalogue_options o;
  o.ph = phase::decode;
  const auto step = build_catalogue(tinyllama(), o);
  const auto order = step_order(step);
  // 1 embedding + 22 layers × 15 ops + final norm + lm_head
  ASSERT_EQ(order.size(), 1u + 22u * 15u + 2u);
  EXPECT_EQ(step[order.front().op].name, "embed_tokens");
  EXPECT_EQ(step[order[1].op].name, "input_norm");
  EXPECT_EQ(order[1].instance, 0);
  EXPECT_EQ(step[order[16].op].name, "input_norm");  // layer 1 starts after layer 0's 15 ops
  EXPECT_EQ(order[16].instance, 1);
  EXPECT_EQ(step[order[15].op].name, "mlp_residual");
  EXPECT_EQ(order[15].instance, 0);
  EXPECT_EQ(step[order.back().op].name, "lm_head");
  EXPECT_EQ(step[order[order.size() - 2].op].name, "final_norm");
}

TEST(WholeStep, AnOpOutsideTheLayerBlockWithACountIsRejected) {
  catalogue_options o;
  auto step = build_catalogue(tinyllama(), o);
  step.back().count = 2;
  EXPECT_THROW(step_order(step), probe_error);
}

TEST(WholeStep, ChainHandsEveryLaunchToTheTimerAtOnce) {
  const auto step = tinyllama_decode(3);
  int verified = 0;
  std::vector<std::pair<std::string, int>> launched;
  const run_with_hook run = [&](const op_desc& op, const step_hook& hook) {
    ++verified;
    const int sets = op.kind == op_kind::gemm ? 2 : 1;
    const step_launch_fn launch = [&launched, name = op.name](int set) { launched.emplace_back(name, set); };
    // the launch function lives on this frame while the hook runs
    return hook(sets, launch, op.kind == op_kind::gemm ? "gemv kernel; verified" : "");
  };
  const time_step_fn time = [&](const std::vector<captured_op>& ops) {
    EXPECT_EQ(verified, static_cast<int>(step.size()));  // every op verified before the step is timed
    // what each op ran, named once per op (the part before "; "); ops that named none left out
    const std::string impl = step_implementations(step, ops);
    EXPECT_EQ(impl.rfind("ops as run: q_proj — gemv kernel | k_proj — gemv kernel", 0), 0u) << impl;
    EXPECT_EQ(impl.find("verified"), std::string::npos) << impl;
    EXPECT_NE(impl.find("lm_head — gemv kernel"), std::string::npos) << impl;
    for (const auto& l : step_order(step)) (*ops[l.op].launch)(static_cast<int>(l.instance % ops[l.op].n_sets));
    op_timing t;
    t.seconds = 1e-3;
    return t;
  };
  const op_timing t = chain_step(step, run, time);
  EXPECT_DOUBLE_EQ(t.seconds, 1e-3);
  ASSERT_EQ(launched.size(), 1u + 3u * 15u + 2u);
  // q_proj of layer 0, 1, 2 on buffer sets 0, 1, 0 (two sets)
  std::vector<int> q_sets;
  for (const auto& [name, set] : launched)
    if (name == "q_proj") q_sets.push_back(set);
  EXPECT_EQ(q_sets, (std::vector<int>{0, 1, 0}));
}

// What the step executes, by engine: the linear layers of a batch-1 decode as our GEMV (their model
// FLOPs on the CUDA cores) and the LM head as cuBLASLt with a 64×64 tile (batch 1 padded to the tile's
// N = 64: 64 × its model FLOPs on the tensor cores); the other ops say nothing and count their model
// FLOPs as tensor. Summed over ops × count.
TEST(WholeStep, TheStepSumsWhatEachOpExecutesByEngine) {
  const auto step = tinyllama_decode(3);
  const run_with_hook run = [&](const op_desc& op, const step_hook& hook) {
    if (op.kind != op_kind::gemm) return hook(1, [](int) {}, "our kernel");
    if (op.name == "lm_head") return hook(1, [](int) {}, {"cuBLASLt tile 64x64", executed_flops{64 * op.flops, 0}});
    return hook(1, [](int) {}, {"our GEMV", executed_flops{0, op.flops}});
  };
  const op_timing t = chain_step(step, run, [](const std::vector<captured_op>&) { return op_timing{}; });
  double gemv = 0, head = 0, other = 0;
  for (const auto& op : step) {
    const double f = op.flops * static_cast<double>(op.count);
    (op.name == "lm_head" ? head : op.kind == op_kind::gemm ? gemv : other) += f;
  }
  // TinyLlama's seven linear layers at batch 1: 2 × (2048·2048·2 + 256·2048·2 + 5632·2048·3) per layer
  EXPECT_DOUBLE_EQ(gemv, 3 * 2.0 * (2048.0 * 2048 * 2 + 256.0 * 2048 * 2 + 5632.0 * 2048 * 3));
  EXPECT_DOUBLE_EQ(head, 2.0 * 32000 * 2048);
  ASSERT_TRUE(t.executed);
  EXPECT_DOUBLE_EQ(t.executed->cuda_cores, gemv);
  EXPECT_DOUBLE_EQ(t.executed->tensor, 64 * head + other);
  // no runner says: nothing is known, and the step's energy is charged by its model FLOPs
  const run_with_hook silent = [](const op_desc&, const step_hook& hook) { return hook(1, [](int) {}, "kernel"); };
  EXPECT_FALSE(chain_step(step, silent, [](const std::vector<captured_op>&) { return op_timing{}; }).executed);
}

TEST(WholeStep, ARunnerThatDoesNotHandOverItsLaunchIsNamed) {
  catalogue_options o;
  const auto step = build_catalogue(tinyllama(), o);
  const run_with_hook run = [&](const op_desc& op, const step_hook& hook) {
    if (op.name == "rope") return op_timing{};  // never calls the hook
    return hook(1, [](int) {}, "");
  };
  try {
    chain_step(step, run, [](const std::vector<captured_op>&) { return op_timing{}; });
    FAIL() << "expected probe_error";
  } catch (const probe_error& e) {
    EXPECT_NE(std::string(e.what()).find("rope"), std::string::npos) << e.what();
  }
}

// H200, TinyLlama decode at batch 1 (2026-12-03): the ops' predictions summed to 1.111 ms over 333
// launches; with a chain of different kernels costing 0.30 µs per kernel more than one kernel
// repeated, the step is predicted 1.111 + 333 × 0.30 µs = 1.2109 ms.
TEST(WholeStep, TheStepAddsTheSwitchCostPerKernelToItsOps) {
  op_result a, b;
  a.predicted_s = 20e-6, a.count = 22;
  b.predicted_s = 671e-6, b.count = 1;
  EXPECT_NEAR(sum_predicted({a, b}) * 1e3, 1.111, 1e-9);
  EXPECT_NEAR(predict_step({a, b}, 333, 0.30e-6) * 1e3, 1.2109, 1e-9);
  EXPECT_DOUBLE_EQ(predict_step({a, b}, 333, 0), sum_predicted({a, b}));     // not measured: the ops alone
  EXPECT_DOUBLE_EQ(predict_step({a, b}, 333, -1e-6), sum_predicted({a, b}));  // never below the ops
}

TEST(StepReplays, EveryGpuDecodeStepReplaysLongEnoughForItsEnergyReading) {
  // A 1.23 ms decode step (TinyLlama at batch 1 on the H200, bench/results/h200/2026-12-04-9a7aff7) and the
  // 1 s energy window: at least 1.05 s of replays, so every batch of the sweep gets a J/token, not only 1, 16
  // and 256; its cost is the warm-up plus that window, 1.23 ms + 1.05 s = 1.05123 s.
  for (const double step : {1.23e-3, 2.45e-3, 29e-3}) {  // every step under 0.105 s: the window decides
    const step_replay_plan p = plan_step_replays(true, false, true, step, 1.0);
    EXPECT_TRUE(p.energy);
    EXPECT_DOUBLE_EQ(p.timing.min_time_s, 1.05);
    EXPECT_EQ(p.timing.warmups, 1);
    EXPECT_EQ(p.timing.min_repeats, 10);
    EXPECT_NEAR(p.cost_s, step + 1.05, 1e-12);
  }
  // a step so long that its ten repeats outlast the window: they are the cost (0.2 s × 11)
  EXPECT_NEAR(plan_step_replays(true, false, true, 0.2, 1.0).cost_s, 0.2 + 10 * 0.2, 1e-12);
}

TEST(StepReplays, PrefillQuickAndCpuStepsAreTimedForTheirTimeAlone) {
  const step_replay_plan prefill = plan_step_replays(true, false, false, 7.29e-3, 1.0);
  EXPECT_FALSE(prefill.energy);
  EXPECT_DOUBLE_EQ(prefill.timing.min_time_s, 0.2);
  EXPECT_EQ(prefill.timing.max_repeats, 200);
  EXPECT_NEAR(prefill.cost_s, 7.29e-3 + 0.2, 1e-12);  // ten 7.29 ms repeats take 72.9 ms: the 0.2 s stands
  const step_replay_plan quick = plan_step_replays(true, true, true, 1.23e-3, 1.0);
  EXPECT_FALSE(quick.energy);
  EXPECT_EQ(quick.timing.min_repeats, quick_timing().min_repeats);
  EXPECT_NEAR(quick.cost_s, 1.23e-3 * (quick_timing().warmups + quick_timing().min_repeats), 1e-15);
  // a CPU: 1 warm-up and 3 repeats of the step (TinyLlama decode on a 2-vCPU guest: ~60 ms)
  const step_replay_plan cpu = plan_step_replays(false, false, true, 0.06, 1.0);
  EXPECT_FALSE(cpu.energy);
  EXPECT_EQ(cpu.timing.min_repeats, 3);
  EXPECT_EQ(cpu.timing.max_repeats, 10);
  EXPECT_NEAR(cpu.cost_s, 4 * 0.06, 1e-12);
}
