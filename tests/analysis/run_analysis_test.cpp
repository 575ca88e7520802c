// The run of a real trace: steps, the costs every kernel gets, MFU/HFU of a training step, the model
// join of CUDA-graph replays. The files are tests/data/h100-2026-12-05 (README.md there says how each
// was made on an H100 with torch.profiler and what is true of it); each expected number is derived in
// the comment above it.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <string>

#include "roofline/command_roofs.hpp"
#include "roofline/ingest.hpp"
#include "roofline/kernel_analysis.hpp"
#include "roofline/kernel_costs.hpp"
#include "roofline/model.hpp"
#include "roofline/run_analysis.hpp"
#include "roofline/run_report.hpp"

using namespace roofline;

namespace {

const std::string dir = ROOFLINE_TEST_DATA "/h100-2026-12-05/";

struct placed {
  ingest::ingest_result in;
  std::vector<kernel_verdict> v;
  trace_summary summary;
  run_answer run;
};

/// What `roofline place --trace FILE --results results.json [--model M]` computes.
placed place(const std::string& file, const std::string& model = "", const std::string& dir = ::dir) {
  placed p;
  p.in = ingest::read_torch_trace(dir + file);
  fill_costs(p.in);
  const auto roofs = resolve_roofs({"", dir + "results.json", ""});
  step_rule rule = step_rule::whole;
  auto steps = find_steps(p.in, rule);
  std::optional<run_model> m;
  if (!model.empty()) {
    m.emplace();
    m->cfg = load_model_config(resolve_model_path(model));
    m->source = model;
    m->roofs = resolve_placement_roofs({"", dir + "results.json", "", "--precision", true});
    join_model(p.in, steps, *m);
  }
  p.v = judge_kernels(p.in.kernels, *roofs->file, roofs->precision);
  p.summary = summarize_trace(p.in, p.v, *roofs->file);
  p.run = analyse_run(p.in, p.v, *roofs, p.summary, std::move(steps), rule, m ? &*m : nullptr);
  return p;
}

double unattributed_share(const placed& p) {
  double all = 0, none = 0;
  for (const auto& v : p.v) {
    all += v.seconds;
    if (v.cls == verdict_class::unattributed) none += v.seconds;
  }
  return none / all;
}

}  // namespace

// A Qwen2 training step (Qwen2.5-0.5B's config with 2 layers, bf16, 4 × 512 tokens, SDPA, fused
// AdamW; torch.profiler schedule(wait=1, warmup=1, active=2)): two ProfilerStep annotations, 305
// kernels launched inside each (python: kernels whose cuda_runtime launch lies in the annotation's
// window); 802 kernels in the file, so 192 ran before the first step, the tail of the profiler's
// warm-up step whose host events torch.profiler dropped. Every kernel is costed: the GEMMs and
// attention by their shapes, the loss, its backward, the optimizer and the casts by their cost models,
// and the warm-up tail as the same launches of the next step.
TEST(RunAnalysis, TrainingStepsAreFoundAndEveryKernelCosted) {
  const auto p = place("train-qwen2-2l.json.gz", dir + "qwen2-2l.json");
  EXPECT_EQ(p.run.rule, step_rule::profiler_step);
  ASSERT_EQ(p.run.steps.size(), 2u);
  EXPECT_EQ(p.run.steps[0].name, "ProfilerStep#2");
  EXPECT_EQ(p.run.steps[0].kernels.size(), 305u);
  EXPECT_EQ(p.run.steps[1].kernels.size(), 305u);
  EXPECT_EQ(p.run.outside_steps, 192u);
  EXPECT_EQ(p.run.steps[0].kind, step_kind::train);
  EXPECT_EQ(*p.run.steps[0].batch, 4);
  EXPECT_EQ(*p.run.steps[0].seq, 512);
  const double share = unattributed_share(p);
  std::printf("unattributed: %.3f %% of the kernel time\n", 100 * share);
  EXPECT_LE(share, 0.03);
  // the warm-up tail's cuDNN attention backward: its reduction kernels are counted with the tail's own
  // attention kernel (as in the step), so none of the tail is left unattributed
  std::size_t tail_reductions = 0;
  for (std::size_t i = 0; i < p.in.kernels.size(); ++i) {
    const auto& k = p.in.kernels[i];
    if (k.launch_s || k.name.find("cudnn::fusion::") == std::string::npos) continue;
    ++tail_reductions;
    ASSERT_TRUE(k.counted_with) << k.name << ": " << k.note;
    EXPECT_FALSE(p.in.kernels[*k.counted_with].launch_s);
    EXPECT_NE(p.v[i].cls, verdict_class::unattributed) << k.name;
  }
  EXPECT_GT(tail_reductions, 0u);
  EXPECT_EQ(share, 0.0);
}

// MFU by hand (PaLM appendix B): N = the matmul weights = 2 layers × (q 896·896 + k, v 896·128 + o
// 896·896 + gate, up, down 3·896·4864) + lm_head 151,936·896 = 165,953,536; per token 6N + 3 × the forward
// attention 4·(14·64)·2 layers·512/2 (causal: T/2 keys per query) = 1,001,226,240 FLOP; × 2,048 tokens =
// 2,050,511,339,520 per step. The step's time is the GPU's period (python over the trace: the first
// kernel launched in ProfilerStep#3 starts 11.4077 ms after the first of #2; #3's own kernels span
// 11.3938 ms): 2.0505e12 / 0.0114077 s / 989.43 TFLOP/s (the H100 SXM's bf16 dense peak) = 18.17 % and
// 18.19 %. Measured outside the profiler, one step at a time with a synchronize (bench/real_runs.py),
// the step takes 12.554 ms: 16.5 %, the GPU then also waits for the host to start each step.
TEST(RunAnalysis, TrainingMfuMatchesTheHandCount) {
  const auto p = place("train-qwen2-2l.json.gz", dir + "qwen2-2l.json");
  const double flops = 2048 * 1001226240.0;
  const double by_hand[] = {flops / 0.0114077353515625 / 989.42976e12, flops / 0.0113937841796875 / 989.42976e12};
  ASSERT_EQ(p.run.steps.size(), 2u);
  for (std::size_t i = 0; i < 2; ++i) {
    const auto& s = p.run.steps[i];
    ASSERT_TRUE(s.mfu) << s.name << ": " << s.model_why;
    ASSERT_TRUE(s.model_flops);
    EXPECT_DOUBLE_EQ(*s.model_flops, flops);
    EXPECT_NEAR(*s.mfu / by_hand[i], 1.0, 0.03) << s.name << " wall " << s.wall_s;
    EXPECT_NEAR(*s.mfu, 0.1817, 0.002);
    ASSERT_TRUE(s.hfu);
    EXPECT_GT(*s.hfu, *s.mfu);  // the flash backward recomputes QKᵀ; the optimizer and the loss add FLOPs
    ASSERT_TRUE(s.attainable_s);
    EXPECT_LT(*s.attainable_s, s.wall_s);
  }
  const auto sentences = run_sentences(p.run);
  ASSERT_FALSE(sentences.empty());
  EXPECT_EQ(sentences[0].rfind("One training step (4 × 512 tokens) takes", 0), 0u) << sentences[0];
}

// HF generate with a static cache (torch.compile + CUDA graphs) on the H100: every decode step one
// cudaGraphLaunch of its kernels, captured before the profiler started (no captured launches in the
// trace, no shapes). With the model named, each replay is matched to TinyLlama's decode step: its 155
// GEMM kernels (q, k, v, o, gate, up, down × 22 layers + lm_head) and 22 attention kernels one for one,
// the Triton kernels between them as the fused ops between the matching GEMMs.
TEST(RunAnalysis, GraphReplaysAreCostedFromTheModel) {
  const auto without = place("trace-tinyllama-graphs-h100.json.gz");
  const auto with = place("trace-tinyllama-graphs-h100.json.gz", "tinyllama-1.1b");
  std::size_t replays = 0;
  for (const auto& s : with.run.steps)
    if (s.kind == step_kind::decode) {
      ++replays;
      EXPECT_TRUE(s.model_why.empty()) << s.name << ": " << s.model_why;
    }
  EXPECT_EQ(replays, 8u);
  std::printf("unattributed: %.1f %% without the model, %.1f %% with\n", 100 * unattributed_share(without),
              100 * unattributed_share(with));
  EXPECT_GT(unattributed_share(without), 0.3);
  EXPECT_LE(unattributed_share(with), 0.10);
}

// A CUDA-graph capture inside the profiled region (what vLLM and a hand-written torch.cuda.graph do when
// the capture is profiled): capture records each launch (a cudaLaunchKernel with its aten op and shapes)
// and runs nothing; each later cudaGraphLaunch runs the captured kernels. The replays' kernels are costed
// from the captured launches, in order: aten::mm [8×64]·[64×32] fp32 = 2·8·32·64 = 32,768 FLOP and
// (8·64 + 64·32 + 8·32)·4 = 11,264 B; aten::add of two [8, 32] fp32 = 3·256·4 = 3,072 B.
TEST(RunAnalysis, ReplaysAreCostedFromTheirCapture) {
  const std::string path = testing::TempDir() + "roofline_capture.json";
  {
    std::FILE* f = std::fopen(path.c_str(), "w");
    ASSERT_TRUE(f);
    std::fputs(R"({"traceEvents": [
    {"ph":"X","cat":"cpu_op","name":"aten::mm","pid":1,"tid":1,"ts":100,"dur":10,
     "args":{"External id":1,"Input Dims":[[8,64],[64,32]],"Input type":["float","float"]}},
    {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":102,"dur":2,"args":{"correlation":10,"External id":1}},
    {"ph":"X","cat":"cpu_op","name":"aten::add","pid":1,"tid":1,"ts":120,"dur":10,
     "args":{"External id":2,"Input Dims":[[8,32],[8,32],[]],"Input type":["float","float","Scalar"]}},
    {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":122,"dur":2,"args":{"correlation":11,"External id":2}},
    {"ph":"X","cat":"cuda_runtime","name":"cudaGraphLaunch","pid":1,"tid":1,"ts":200,"dur":5,"args":{"correlation":20}},
    {"ph":"X","cat":"kernel","name":"gemm_kernel","pid":0,"tid":7,"ts":210,"dur":5,"args":{"stream":7,"correlation":20}},
    {"ph":"X","cat":"kernel","name":"add_kernel","pid":0,"tid":7,"ts":216,"dur":1,"args":{"stream":7,"correlation":20}},
    {"ph":"X","cat":"cuda_runtime","name":"cudaGraphLaunch","pid":1,"tid":1,"ts":300,"dur":5,"args":{"correlation":21}},
    {"ph":"X","cat":"kernel","name":"gemm_kernel","pid":0,"tid":7,"ts":310,"dur":5,"args":{"stream":7,"correlation":21}},
    {"ph":"X","cat":"kernel","name":"add_kernel","pid":0,"tid":7,"ts":316,"dur":1,"args":{"stream":7,"correlation":21}}
  ]})", f);
    std::fclose(f);
  }
  auto in = ingest::read_torch_trace(path);
  ASSERT_EQ(in.captured.size(), 2u);
  ASSERT_EQ(in.kernels.size(), 4u);
  const auto fill = fill_costs(in);
  EXPECT_EQ(fill.capture, 4u);
  for (const auto& k : in.kernels) {
    ASSERT_FALSE(k.bytes.empty()) << k.name;
    EXPECT_EQ(k.bytes[0].source, ingest::count_source::capture);
    if (k.name == "gemm_kernel") {
      EXPECT_DOUBLE_EQ(k.model_flops.at(0).flops, 32768.0);
      EXPECT_DOUBLE_EQ(k.bytes[0].bytes, 11264.0);
      EXPECT_EQ(k.framework_op, "aten::mm");
    } else {
      EXPECT_DOUBLE_EQ(k.bytes[0].bytes, 3072.0);
    }
    EXPECT_EQ(k.cost_from.rfind("capture: launch ", 0), 0u) << k.cost_from;
  }
  std::remove(path.c_str());
}

// The full model's fused AdamW: torch.profiler writes `[]` for each of its long TensorLists (the
// Qwen2.5-0.5B training trace on the H100 recorded none of its 290 tensors' shapes), so the op's kernels
// carry no cost from the trace. With the model named, one AdamW update of the model's parameters is
// the call's cost: Qwen2-2-layer's 165,960,320 parameters (the same count the 2-layer trace's lists
// sum to), bf16 from the kernels' FusedAdamMathFunctor<c10::BFloat16, …>: 7 × 2 B and 14 FLOPs per
// element = 2,323,444,480 B and FLOP, shared over the launches by grid blocks (320 + 63 = 383 per step:
// 320 × 2,323,444,480 / 383 = 1,941,259,095.6 B for the 320-block launch). The warm-up tail's launch
// (no host events: outside every step) gets the same cost per block.
TEST(RunAnalysis, FusedOptimizerWithoutShapesIsCostedFromTheModel) {
  const std::string path = testing::TempDir() + "roofline_fused_adamw.json";
  const std::string adamw =
      "void at::native::(anonymous namespace)::multi_tensor_apply_kernel<at::native::(anonymous "
      "namespace)::FusedOptimizerTensorListMetadata<4>, at::native::(anonymous namespace)::FusedAdamMathFunctor<c10::BFloat16, 4, "
      "(at::native::ADAM_MODE)1, false>, float const*, double>";
  {
    std::string j = R"({"traceEvents": [
    {"ph":"X","cat":"kernel","name":"ADAMW","pid":0,"tid":7,"ts":900,"dur":90,"args":{"stream":7,"correlation":40,"grid":[320,1,1],"block":[512,1,1]}})";
    for (int s = 0; s < 2; ++s) {
      const int t0 = 1000 + 1000 * s, c = 50 + 10 * s, e = 5 + s;
      auto n = [&](int x) { return std::to_string(x); };
      j += R"(,
    {"ph":"X","cat":"user_annotation","name":"ProfilerStep#)" + n(2 + s) + R"(","pid":1,"tid":1,"ts":)" + n(t0) + R"(,"dur":1000,"args":{"External id":)" + n(100 + s) + R"(}},
    {"ph":"X","cat":"cpu_op","name":"aten::_fused_adamw_","pid":1,"tid":1,"ts":)" + n(t0 + 100) + R"(,"dur":50,
     "args":{"External id":)" + n(e) + R"(,"Input Dims":[[],[],[],[],[],[]],"Input type":["TensorList","TensorList","TensorList","TensorList","TensorList","TensorList"]}},
    {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":)" + n(t0 + 110) + R"(,"dur":2,"args":{"correlation":)" + n(c) + R"(,"External id":)" + n(e) + R"(}},
    {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":)" + n(t0 + 120) + R"(,"dur":2,"args":{"correlation":)" + n(c + 1) + R"(,"External id":)" + n(e) + R"(}},
    {"ph":"X","cat":"kernel","name":"ADAMW","pid":0,"tid":7,"ts":)" + n(t0 + 200) + R"(,"dur":100,"args":{"stream":7,"correlation":)" + n(c) + R"(,"grid":[320,1,1],"block":[512,1,1]}},
    {"ph":"X","cat":"kernel","name":"ADAMW","pid":0,"tid":7,"ts":)" + n(t0 + 310) + R"(,"dur":20,"args":{"stream":7,"correlation":)" + n(c + 1) + R"(,"grid":[63,1,1],"block":[512,1,1]}})";
    }
    j += "\n  ]}";
    for (std::size_t p; (p = j.find("ADAMW")) != std::string::npos;) j.replace(p, 5, adamw);
    std::FILE* f = std::fopen(path.c_str(), "w");
    ASSERT_TRUE(f);
    std::fputs(j.c_str(), f);
    std::fclose(f);
  }
  auto in = ingest::read_torch_trace(path);
  ASSERT_EQ(in.kernels.size(), 5u);
  fill_costs(in);
  for (const auto& k : in.kernels) EXPECT_FALSE(has_cost(k)) << k.note;  // the trace alone: no cost
  step_rule rule = step_rule::whole;
  auto steps = find_steps(in, rule);
  ASSERT_EQ(steps.size(), 2u);
  EXPECT_EQ(steps[0].kind, step_kind::train);
  run_model m;
  m.cfg = load_model_config(dir + "qwen2-2l.json");
  ASSERT_EQ(m.cfg.parameters(), 165960320);
  join_model(in, steps, m);
  const double update = 165960320.0 * 14;
  for (const auto& k : in.kernels) {
    ASSERT_EQ(k.bytes.size(), 1u) << k.id << " " << k.note;
    ASSERT_EQ(k.model_flops.size(), 1u);
    EXPECT_EQ(k.model_flops[0].precision, "bf16");
    const double share = double(*k.grid_blocks) / 383;
    EXPECT_NEAR(k.bytes[0].bytes, update * share, 1e-6 * update) << k.id;
    EXPECT_NEAR(k.model_flops[0].flops, update * share, 1e-6 * update) << k.id;
    EXPECT_EQ(k.bytes[0].source, ingest::count_source::catalogue);
    EXPECT_EQ(k.cost_from.rfind("catalogue: ", 0), 0u) << k.cost_from;
  }
  EXPECT_NEAR(in.kernels[0].bytes[0].bytes, 1941259095.6, 1.0);  // the warm-up tail's 320 blocks
  EXPECT_NE(in.kernels[0].cost_from.find("per grid block in ProfilerStep#2"), std::string::npos) << in.kernels[0].cost_from;
  std::remove(path.c_str());
}

// Above the peak is impossible, and said: one 10 µs kernel called a TinyLlama decode step of batch 64
// at context 512 (--phase decode --batch 64 --context 512) would be 64 × ~2.2 GFLOP in 10 µs, about
// 14 PFLOP/s, 14× the H100's 989 TFLOP/s fp16 peak. No MFU or MBU is shown; the step says why.
TEST(RunAnalysis, AboveThePeakIsCalledImpossible) {
  const std::string path = testing::TempDir() + "roofline_one_kernel.json";
  {
    std::FILE* f = std::fopen(path.c_str(), "w");
    ASSERT_TRUE(f);
    std::fputs(R"({"traceEvents": [
    {"ph":"X","cat":"kernel","name":"some_kernel","pid":0,"tid":7,"ts":100,"dur":10,"args":{"stream":7,"correlation":1}}
  ]})", f);
    std::fclose(f);
  }
  auto in = ingest::read_torch_trace(path);
  fill_costs(in);
  step_rule rule = step_rule::whole;
  auto steps = find_steps(in, rule);
  ASSERT_EQ(steps.size(), 1u);
  run_model m;
  m.cfg = load_model_config(resolve_model_path("tinyllama-1.1b"));
  m.source = "tinyllama-1.1b";
  m.kind = step_kind::decode, m.batch = 64, m.context = 512;
  join_model(in, steps, m);
  const auto roofs = resolve_roofs({"", dir + "results.json", ""});
  const auto v = judge_kernels(in.kernels, *roofs->file, roofs->precision);
  const auto summary = summarize_trace(in, v, *roofs->file);
  const auto run = analyse_run(in, v, *roofs, summary, std::move(steps), rule, &m);
  ASSERT_EQ(run.steps.size(), 1u);
  const auto& s = run.steps[0];
  EXPECT_FALSE(s.mfu);
  EXPECT_FALSE(s.mbu);
  EXPECT_NE(s.model_why.find("impossible: MFU"), std::string::npos) << s.model_why;
  EXPECT_NE(s.model_why.find("impossible: MBU"), std::string::npos) << s.model_why;
  std::remove(path.c_str());
}

// HF generate under torch.compile without CUDA graphs (tests/data/h200-2026-12-03/trace-tinyllama-compiled,
// made on an H200): Inductor's Triton kernels carry no shapes. Each compiled graph's first kernel is
// triton_red_fused__to_copy_add_embedding_mean_mul_pow_rsqrt_0 (Inductor numbers a graph's kernels from
// 0; the later norms name "embedding" too): 4 forwards, a prefill of 357 kernels and 3 decode steps. With
// the model named, each is matched to TinyLlama's step: 155 GEMMs (HF's fp32 rotary sgemm, once per
// forward, is none of them) and 22 attention kernels, the Triton kernels as the fused ops between them.
TEST(RunAnalysis, CompiledForwardsAreFoundAndCostedFromTheModel) {
  const std::string h200 = ROOFLINE_TEST_DATA "/h200-2026-12-03/";
  const auto p = place("trace-tinyllama-compiled.json.gz", "tinyllama-1.1b", h200);
  ASSERT_EQ(p.run.steps.size(), 4u);
  EXPECT_EQ(p.run.steps[0].kind, step_kind::prefill);
  EXPECT_EQ(p.run.steps[0].kernels.size(), 357u);
  for (std::size_t i = 1; i < 4; ++i) {
    EXPECT_EQ(p.run.steps[i].kind, step_kind::decode);
    EXPECT_TRUE(p.run.steps[i].model_why.empty()) << p.run.steps[i].name << ": " << p.run.steps[i].model_why;
  }
  const auto without = place("trace-tinyllama-compiled.json.gz", "", h200);
  std::printf("unattributed: %.1f %% without the model, %.1f %% with\n", 100 * unattributed_share(without), 100 * unattributed_share(p));
  EXPECT_GT(unattributed_share(without), 0.15);
  EXPECT_LE(unattributed_share(p), 0.03);
}

// The attainable training step holds the optimizer update at one pass over parameters, gradients and
// states. Qwen2 (fused AdamW): its kernels are that pass, 165,960,320 × 14 B = 2,323,444,480 B. The
// TinyLlama layer (foreach Adam: _foreach_lerp_/addcmul_/sqrt_/div_ … each a pass over lists): not that
// pass, so Adam's one-pass update over the model's 175,118,336 parameters (tinyllama-1l.json), bf16 from
// the kernels' functor: 175,118,336 × 7 × 2 B = 2,451,656,704 B. Each at the measured DRAM roof (plus
// the latency model's floor), and the step's attainable time is the catalogue's plus that.
TEST(RunAnalysis, TheAttainableTrainingStepHoldsTheOptimizerUpdate) {
  const auto roofs = resolve_placement_roofs({"", dir + "results.json", "", "--precision", true});
  const struct {
    std::string file, model;
    double bytes;
  } cases[] = {{"train-qwen2-2l.json.gz", dir + "qwen2-2l.json", 165960320.0 * 14},
               {"train-llama-1l-flash.json.gz", dir + "tinyllama-1l.json", 175118336.0 * 14}};
  for (const auto& c : cases) {
    const auto p = place(c.file, c.model);
    ASSERT_FALSE(p.run.steps.empty());
    const auto& s = p.run.steps[0];
    const auto it = std::find_if(s.ops.begin(), s.ops.end(), [](const model_op_time& m) { return m.group == "optimizer"; });
    ASSERT_NE(it, s.ops.end()) << c.file;
    ASSERT_TRUE(it->predicted_s) << c.file;
    ASSERT_TRUE(roofs);
    const double at_roof = c.bytes / roofs->bandwidth;
    EXPECT_GE(*it->predicted_s, at_roof * 0.999) << c.file;
    EXPECT_LE(*it->predicted_s, at_roof * 1.1) << c.file;
  }
}

// A vLLM-style decode (tests/data/h100-2026-12-06/README.md): TinyLlama fp16 at batch 1, context 512, its
// decode step captured in a torch.cuda.graph inside the profiled region, then replayed. The replays'
// kernels are costed from the captured launches (each a cudaLaunchKernel with its aten op and shapes):
// 8,296 of the 8,298 kernels are replayed; 7,240 take their cost from the capture (7,064 carry it, the
// others are counted with their op's longest kernel). Without the model 6.8 % of the kernel time is
// unattributed: RoPE's 132 `aten::cat` a step (CatArrayBatchedCopy, 1,056 replayed kernels), whose
// TensorList input records shapes but no element type; with the model none. 9 forwards, 8 decode steps.
TEST(RunAnalysis, ARealCaptureCostsItsReplaysFromTheCapturedLaunches) {
  const std::string file = "../h100-2026-12-06/capture-tinyllama-b1.json.gz";
  const auto without = place(file);
  EXPECT_EQ(without.in.kernels.size(), 8298u);
  std::size_t from_capture = 0;
  for (const auto& k : without.in.kernels)
    if (!k.bytes.empty() && k.bytes[0].source == ingest::count_source::capture) ++from_capture;
  EXPECT_EQ(from_capture, 7064u);
  std::size_t decode = 0;
  for (const auto& s : without.run.steps) decode += s.kind == step_kind::decode;
  EXPECT_EQ(without.run.steps.size(), 9u);
  EXPECT_EQ(decode, 8u);
  const auto with = place(file, "tinyllama-1.1b");
  std::printf("unattributed: %.1f %% without the model, %.1f %% with\n", 100 * unattributed_share(without),
              100 * unattributed_share(with));
  EXPECT_NEAR(unattributed_share(without), 0.068, 0.001);
  EXPECT_LE(unattributed_share(without), 0.10);
  EXPECT_EQ(unattributed_share(with), 0.0);
}

// SDPA's memory-efficient backend in a training step (one GPT-2 layer, bf16, 2 × 256 tokens, foreach Adam;
// tests/data/h100-2026-12-06/README.md): its forward and backward kernels costed from their shapes. By hand
// (docs/formulas-model.md, attention): 12 heads, causal 256 × 257 / 2 = 32,896 scored pairs a head, each
// 4·64 + 5 (softmax) FLOPs: 2 × 12 × 32,896 × 261 = 206,060,544 forward; the backward 2.5 × that =
// 515,151,360 (the recomputed scores and the four gradient matmuls). 214 kernels, two ProfilerSteps,
// nothing unattributed.
TEST(RunAnalysis, TheMemoryEfficientBackwardIsCosted) {
  const auto p = place("../h100-2026-12-06/train-gpt2-1l-efficient.json.gz");
  EXPECT_EQ(p.in.kernels.size(), 214u);
  ASSERT_EQ(p.run.steps.size(), 2u);
  EXPECT_EQ(p.run.steps[0].kind, step_kind::train);
  std::size_t fwd = 0, bwd = 0;
  for (const auto& k : p.in.kernels) {
    if (k.framework_op == "aten::_efficient_attention_forward") {
      ++fwd;
      EXPECT_DOUBLE_EQ(k.model_flops.at(0).flops, 206060544.0) << k.name;
    }
    if (k.framework_op == "aten::_efficient_attention_backward") {
      ++bwd;
      EXPECT_DOUBLE_EQ(k.model_flops.at(0).flops, 515151360.0) << k.name;
    }
  }
  EXPECT_EQ(fwd, 2u);
  EXPECT_EQ(bwd, 2u);
  EXPECT_EQ(unattributed_share(p), 0.0);
}
