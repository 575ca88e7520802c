// read_torch_trace on the real H200 trace (tests/data/h200-2026-12-03/README.md) and on small
// synthetic traces. Every expected number below was derived from the file with python3 (gzip + json
// of the standard library); the derivation is in the comment above it. `d`, `ev`, `ops`, `k` are:
//   d = json.load(gzip.open('torch-trace-tinyllama-eager.json.gz')); ev = d['traceEvents']
//   ops = {e['args']['External id']: e for e in ev if e.get('cat') == 'cpu_op'}
//   k = [e for e in ev if e.get('cat') == 'kernel']
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <string>

#include <fmt/format.h>

#include "roofline/error.hpp"
#include "roofline/ingest.hpp"

namespace fs = std::filesystem;
using roofline::input_error;
using roofline::ingest::count_source;
using roofline::ingest::ingest_result;
using roofline::ingest::kernel_record;
using roofline::ingest::read_torch_trace;

namespace {

const std::string trace_path = ROOFLINE_TEST_DATA "/h200-2026-12-03/torch-trace-tinyllama-eager.json.gz";

const ingest_result& real() {
  static const ingest_result r = read_torch_trace(trace_path);
  return r;
}

std::vector<const kernel_record*> where(const std::function<bool(const kernel_record&)>& f) {
  std::vector<const kernel_record*> v;
  for (const auto& k : real().kernels)
    if (f(k)) v.push_back(&k);
  return v;
}

bool starts(const std::string& s, const std::string& p) { return s.rfind(p, 0) == 0; }

double total_bytes(const kernel_record& k) { return k.bytes.empty() ? 0 : k.bytes[0].bytes; }
double total_flops(const kernel_record& k) { return k.model_flops.empty() ? 0 : k.model_flops[0].flops; }

fs::path temp(const std::string& name) {
  const fs::path d = fs::temp_directory_path() / ("roofline_trace_" + std::to_string(::getpid()));
  fs::create_directories(d);
  return d / name;
}

fs::path write(const std::string& name, const std::string& text) {
  const auto p = temp(name);
  std::ofstream(p, std::ios::binary) << text;
  return p;
}

std::string error_of(const fs::path& p) {
  try {
    read_torch_trace(p.string());
  } catch (const input_error& e) {
    return e.what();
  }
  return "(no error)";
}

}  // namespace

// 3,743 kernels: len(k). 11.13219 ms: sum(e['dur'] for e in k) / 1e3.
TEST(TorchTrace, RealTraceKernelsAndTime) {
  const auto& r = real();
  EXPECT_EQ(r.format, "torch-trace");
  ASSERT_EQ(r.kernels.size(), 3743u);
  double t = 0;
  for (const auto& k : r.kernels) {
    t += k.duration_s;
    EXPECT_GT(k.duration_s, 0);
    ASSERT_TRUE(k.start_s && k.stream && k.device && k.grid_blocks && k.block_threads);
    EXPECT_FALSE(k.framework_op.empty()) << k.name;  // every kernel links to its aten op
    EXPECT_FALSE(k.graph_replay);
  }
  EXPECT_NEAR(t * 1e3, 11.13219, 0.005);
  // The first kernel (correlation 20) is the embedding gather, grid [512,1,1], block [256,1,1].
  EXPECT_EQ(r.kernels[0].id, "20");
  EXPECT_EQ(r.kernels[0].framework_op, "aten::gather");
  EXPECT_EQ(*r.kernels[0].grid_blocks, 512);
  EXPECT_EQ(*r.kernels[0].block_threads, 256);
  EXPECT_NE(r.tool_version.find("NVIDIA H200"), std::string::npos) << r.tool_version;
  EXPECT_NE(r.tool_version.find("CUDA runtime 13.0"), std::string::npos) << r.tool_version;
}

// The span is the GPU activity's: kernels and memsets, first start to last end,
//   g = [e for e in ev if e.get('cat') in ('kernel','gpu_memset','gpu_memcpy')]
//   (max(e['ts']+e['dur'] for e in g) - min(e['ts'] for e in g)) / 1e3 = 263.786 ms.
// (All X events give 267.378 ms: the profiler's own "Trace" span event; without it 267.023 ms, the
// host's first op to its last. The README's 263.8 ms and "GPU busy 4.2 %" are the GPU's.)
TEST(TorchTrace, RealTraceSpanIsTheGpuActivity) {
  ASSERT_TRUE(real().span_s);
  EXPECT_NEAR(*real().span_s * 1e3, 263.786, 0.05);
  // 22 memsets: [e for e in ev if e.get('cat') == 'gpu_memset'], 4 bytes each.
  ASSERT_EQ(real().gpu_memory_ops.size(), 22u);
  EXPECT_EQ(real().gpu_memory_ops[0].bytes.at(0).bytes, 4);
  EXPECT_EQ(real().gpu_memory_ops[0].bytes.at(0).source, count_source::counter);
}

// GEMM kernels by name (nvjet_*, *gemm*, cutlass*, sm90_xmma*): 620 nvjet + 4 cutlass simt sgemm = 624,
// 5.130987 ms: sum(e['dur'] for e in k if re.search('nvjet|gemm|cutlass|sm90_xmma', e['name'], re.I)).
// By op: every one is an aten::mm (620) or aten::bmm (4, the fp32 RoPE inv_freq·positions); the
// aten::mm ops also launch 66 cublasLt::splitKreduce_kernel (690 mm/bmm kernels), which are not GEMMs.
TEST(TorchTrace, RealTraceGemmKernels) {
  const std::regex gemm("nvjet|gemm|cutlass|sm90_xmma", std::regex::icase);
  const auto g = where([&](const kernel_record& k) { return std::regex_search(k.name.str(), gemm); });
  ASSERT_EQ(g.size(), 624u);
  double t = 0;
  for (const auto* k : g) {
    t += k->duration_s;
    EXPECT_TRUE(k->framework_op == "aten::mm" || k->framework_op == "aten::bmm") << k->framework_op;
    EXPECT_EQ(k->cost_model, "gemm_op");
  }
  EXPECT_NEAR(t * 1e3, 5.130987, 0.0005);
  const auto by_op = where([](const kernel_record& k) { return k.framework_op == "aten::mm" || k.framework_op == "aten::bmm"; });
  EXPECT_EQ(by_op.size(), 690u);
  const auto split_k = where([](const kernel_record& k) { return k.name.find("splitKreduce") != std::string::npos; });
  ASSERT_EQ(split_k.size(), 66u);
  for (const auto* k : split_k) {  // the op's cost is on its GEMM kernel, not on the reduce
    EXPECT_TRUE(k->model_flops.empty() && k->bytes.empty());
    EXPECT_NE(k->note.find("longest kernel"), std::string::npos) << k->note;
  }
}

// Prefill q_proj (and o_proj): aten::mm [512,2048]·[2048,2048] fp16, 44 kernels (22 layers × q, o):
// FLOPs 2·512·2048·2048 = 4,294,967,296; bytes (512·2048 + 2048·2048 + 512·2048)·2 = 12,582,912.
// Decode q_proj/o_proj: [1,2048]·[2048,2048], 132 kernels (3 steps × 22 × 2): 2·1·2048·2048 = 8,388,608.
TEST(TorchTrace, RealTraceQProjGemms) {
  const auto prefill = where([](const kernel_record& k) {
    return k.framework_op == "aten::mm" && starts(k.shapes, "[[512,2048],[2048,2048]]");
  });
  ASSERT_EQ(prefill.size(), 44u);
  for (const auto* k : prefill) {
    ASSERT_EQ(k->model_flops.size(), 1u);
    EXPECT_EQ(k->model_flops[0].flops, 4294967296.0);
    EXPECT_EQ(k->model_flops[0].precision, "fp16");
    EXPECT_EQ(k->model_flops[0].engine, "tensor");
    EXPECT_EQ(k->model_flops[0].source, count_source::shape_model);
    EXPECT_EQ(k->model_flops[0].metric, "gemm_op");
    ASSERT_EQ(k->bytes.size(), 1u);
    EXPECT_EQ(k->bytes[0].level, "dram");
    EXPECT_EQ(k->bytes[0].bytes, 12582912.0);
    EXPECT_EQ(k->shapes, "[[512,2048],[2048,2048]] fp16");
  }
  const auto decode = where([](const kernel_record& k) {
    return k.framework_op == "aten::mm" && starts(k.shapes, "[[1,2048],[2048,2048]]");
  });
  ASSERT_EQ(decode.size(), 132u);
  for (const auto* k : decode) EXPECT_EQ(total_flops(*k), 8388608.0);
}

// SDPA through cuDNN: aten::_cudnn_attention_forward, q [1,32,512,64], k/v [1,4,512,64], Concrete
// Inputs[10] is_causal 'True' (22 prefill kernels). attention_op fused, causal-halved:
// pairs 512·513/2 = 131,328; FLOPs 32·131,328·(4·64 + 5) = 1,096,851,456;
// bytes q + out 2·512·32·64·2 = 4,194,304 + k, v 2·512·4·64·2 = 524,288 → 4,718,592.
// Decode (q [1,32,1,64], k [1,4,516,64], is_causal 'False'): two kernels per op (the flash kernel,
// then cudnn::fusion::lean_reduction_kernel); FLOPs 32·516·261 = 4,309,632 on the longer one only.
TEST(TorchTrace, RealTraceAttention) {
  const auto prefill = where([](const kernel_record& k) {
    return k.framework_op == "aten::_cudnn_attention_forward" && starts(k.shapes, "[[1,32,512,64],[1,4,512,64]");
  });
  ASSERT_EQ(prefill.size(), 22u);
  for (const auto* k : prefill) {
    EXPECT_EQ(k->cost_model, "attention_op");
    EXPECT_EQ(total_flops(*k), 1096851456.0);
    EXPECT_EQ(total_bytes(*k), 4718592.0);
    EXPECT_NE(k->note.find("is_causal=True"), std::string::npos) << k->note;
  }
  const auto decode516 = where([](const kernel_record& k) {
    return k.framework_op == "aten::_cudnn_attention_forward" && starts(k.shapes, "[[1,32,1,64],[1,4,516,64]");
  });
  ASSERT_EQ(decode516.size(), 44u);  // 22 layers × 2 kernels
  int counted = 0;
  for (const auto* k : decode516)
    if (!k->model_flops.empty()) {
      ++counted;
      EXPECT_EQ(total_flops(*k), 4309632.0);
      EXPECT_NE(k->name.find("flash_fprop"), std::string::npos);
    }
  EXPECT_EQ(counted, 22);
}

// Elementwise, prefill MLP: aten::silu [1,512,5632] fp16 → elementwise_op silu: bytes 2·512·5632·2 =
// 11,534,336, FLOPs 4·512·5632 = 11,534,336; aten::mul of two [1,512,5632] → 3·512·5632·2 = 17,301,504;
// residual aten::add of two [1,512,2048] → 3·512·2048·2 = 6,291,456 bytes, 1,048,576 FLOPs.
// RMSNorm's weight multiply aten::mul [2048]·[1,512,2048] broadcasts → tensor_op: read 2048·2 +
// 1,048,576·2, write 1,048,576·2 = 4,198,400 bytes, 1,048,576 FLOPs.
// The decode KV append aten::cat [[1,4,515,64],[1,4,1,64]] (kernel OpaqueType<2u>) → tensor_op:
// (515 + 1)·4·64·2 read + the same written = 528,384 bytes, 0 FLOPs.
TEST(TorchTrace, RealTraceElementwiseBytes) {
  auto one = [](const std::string& op, const std::string& shapes) {
    const auto v = where([&](const kernel_record& k) { return k.framework_op == op && k.shapes == shapes; });
    EXPECT_FALSE(v.empty()) << op << " " << shapes;
    return v.empty() ? kernel_record{} : *v[0];
  };
  auto silu = one("aten::silu", "[[1,512,5632]] fp16");
  EXPECT_EQ(silu.cost_model, "elementwise_op");
  EXPECT_EQ(total_bytes(silu), 11534336.0);
  EXPECT_EQ(total_flops(silu), 11534336.0);
  EXPECT_EQ(total_bytes(one("aten::mul", "[[1,512,5632],[1,512,5632]] fp16")), 17301504.0);
  auto add = one("aten::add", "[[1,512,2048],[1,512,2048],[]] fp16");
  EXPECT_EQ(total_bytes(add), 6291456.0);
  EXPECT_EQ(total_flops(add), 1048576.0);
  auto wmul = one("aten::mul", "[[2048],[1,512,2048]] fp16");
  EXPECT_EQ(wmul.cost_model, "tensor_op");
  EXPECT_EQ(total_bytes(wmul), 4198400.0);
  EXPECT_EQ(total_flops(wmul), 1048576.0);
  auto cat = one("aten::cat", "[[[1,4,515,64],[1,4,1,64]],[]]");
  EXPECT_EQ(cat.cost_model, "tensor_op");
  EXPECT_EQ(total_bytes(cat), 528384.0);
  EXPECT_TRUE(cat.model_flops.empty());  // 0 FLOPs: bytes only
}

// Coverage: every kernel's op has a cost model. aten::arange (4 kernels, 2.751 µs:
//   sum(e['dur'] for e in k if ops[e['args']['External id']]['name'] == 'aten::arange')) records its bounds
//   in Concrete Inputs (the kernel's op, arange(start, end, step, out), is ['0', '512', '1', ''] in the prefill:
//   512 int64 elements = 4,096 B written; ['0', '1', '1', ''] in each decode step: 1 element, 8 B). Counted once
//   per op:
//   3,743 − 66 split-K reduces − 66 cuDNN lean reductions = 3,611 kernels carry bytes.
TEST(TorchTrace, RealTraceCostCoverage) {
  double all = 0, modelled = 0, arange_bytes = 0;
  std::size_t with_bytes = 0;
  for (const auto& k : real().kernels) {
    all += k.duration_s;
    if (!k.cost_model.empty()) modelled += k.duration_s;
    with_bytes += !k.bytes.empty();
    if (k.framework_op == "aten::arange") {
      EXPECT_TRUE(total_bytes(k) == 512.0 * 8 || total_bytes(k) == 8.0) << total_bytes(k);
      arange_bytes += total_bytes(k);
    }
  }
  std::printf("kernel time with a cost model: %.5f of %.5f ms (%.4f %%)\n", modelled * 1e3, all * 1e3,
              100 * modelled / all);
  EXPECT_DOUBLE_EQ(modelled / all, 1.0);
  EXPECT_EQ(with_bytes, 3611u);
  EXPECT_EQ(arange_bytes, 4096.0 + 3 * 8.0);
}

// Host: the outermost intervals per thread; this trace has 5,050 outermost cpu_ops on its one thread,
// so the 4,096 longest are kept (and the line in `skipped` says so).
TEST(TorchTrace, RealTraceHostIntervals) {
  const auto& h = real().host;
  ASSERT_EQ(h.size(), roofline::ingest::max_host_intervals);
  for (std::size_t i = 0; i < h.size(); ++i) {
    EXPECT_GE(h[i].duration_s, 0);
    if (i) EXPECT_LE(h[i - 1].start_s, h[i].start_s);
  }
  bool said = false;
  for (const auto& s : real().skipped) said = said || s.find("4096 of 5050") != std::string::npos;
  EXPECT_TRUE(said);
}

// ---- synthetic traces: linking rules, out-of-order events, bad input ----

// Kernels before their ops and launches; a kernel with no External id linked through its
// cudaLaunchKernel's correlation; addmm with bias; a Triton kernel under "## Call CompiledFxGraph";
// a CUDA-graph replay.
TEST(TorchTrace, SyntheticLinksOutOfOrder) {
  const auto p = write("linked.json", R"({"schemaVersion": 1, "traceEvents": [
    {"ph":"X","cat":"kernel","name":"sm90_xmma_gemm_f16","pid":0,"tid":7,"ts":120,"dur":10,
     "args":{"device":0,"stream":7,"correlation":5,"grid":[4,2,1],"block":[128,1,1]}},
    {"ph":"X","cat":"kernel","name":"triton_poi_fused_add_0","pid":0,"tid":7,"ts":140,"dur":2,
     "args":{"device":0,"stream":7,"correlation":6}},
    {"ph":"X","cat":"kernel","name":"graphed_kernel","pid":0,"tid":7,"ts":150,"dur":3,
     "args":{"device":0,"stream":7,"correlation":7}},
    {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":105,"dur":2,
     "args":{"correlation":5}},
    {"ph":"X","cat":"cuda_driver","name":"cuLaunchKernel","pid":1,"tid":1,"ts":131,"dur":1,
     "args":{"correlation":6}},
    {"ph":"X","cat":"cuda_runtime","name":"cudaGraphLaunch","pid":1,"tid":1,"ts":135,"dur":1,
     "args":{"correlation":7,"External id":3}},
    {"ph":"X","cat":"cpu_op","name":"aten::linear","pid":1,"tid":1,"ts":100,"dur":20,
     "args":{"External id":1,"Input Dims":[[8,64],[32,64],[32]],"Input type":["c10::BFloat16","c10::BFloat16","c10::BFloat16"]}},
    {"ph":"X","cat":"cpu_op","name":"aten::addmm","pid":1,"tid":1,"ts":102,"dur":10,
     "args":{"External id":2,"Input Dims":[[32],[8,64],[64,32],[],[]],
             "Input type":["c10::BFloat16","c10::BFloat16","c10::BFloat16","Scalar","Scalar"],
             "Concrete Inputs":["","","","1","1"]}},
    {"ph":"X","cat":"user_annotation","name":"## Call CompiledFxGraph fabc ##","pid":1,"tid":1,"ts":130,"dur":4,
     "args":{"External id":3}},
    {"ph":"s","cat":"ac2g","name":"ac2g","id":5,"pid":1,"tid":1,"ts":105},
    {"ph":"f","cat":"ac2g","name":"ac2g","id":5,"pid":0,"tid":7,"ts":120,"bp":"e"}
  ]})");
  const auto r = read_torch_trace(p.string());
  ASSERT_EQ(r.kernels.size(), 3u);
  const auto& g = r.kernels[0];  // correlation 5: innermost op enclosing the launch at 105 = addmm
  EXPECT_EQ(g.framework_op, "aten::addmm");
  EXPECT_EQ(g.cost_model, "gemm_op");
  // 2·8·32·64 + 8·32 (bias) = 33,024 bf16 FLOPs; (8·64 + 64·32 + 32 + 8·32)·2 = 5,696 bytes
  EXPECT_EQ(total_flops(g), 33024.0);
  EXPECT_EQ(g.model_flops[0].precision, "bf16");
  EXPECT_EQ(total_bytes(g), 5696.0);
  EXPECT_EQ(*g.grid_blocks, 8);
  EXPECT_NEAR(*g.start_s, 20e-6, 1e-12);  // from the first event, aten::linear at ts 100 µs
  const auto& t = r.kernels[1];
  EXPECT_EQ(t.framework_op, "## Call CompiledFxGraph fabc ##");
  EXPECT_EQ(t.note, "Triton kernel: no shapes in the trace");
  EXPECT_TRUE(t.bytes.empty());
  const auto& c = r.kernels[2];
  EXPECT_TRUE(c.graph_replay);
  EXPECT_EQ(c.note, "CUDA-graph replay: kernels not linked to ops");
  EXPECT_NEAR(*r.span_s, 33e-6, 1e-12);  // 120 → 153 µs
  ASSERT_EQ(r.host.size(), 2u);          // aten::linear and the compiled graph's scope
  EXPECT_EQ(r.host[0].name, "aten::linear");
}

// The JSON Array Format (a bare array of events), bmm and SDPA flash in [B, H, L, D].
TEST(TorchTrace, SyntheticArrayFormatBmmAndFlash) {
  const auto p = write("array.json", R"([
    {"ph":"X","cat":"cpu_op","name":"aten::bmm","pid":1,"tid":1,"ts":0,"dur":10,
     "args":{"External id":1,"Input Dims":[[4,16,32],[4,32,8]],"Input type":["float","float"]}},
    {"ph":"X","cat":"kernel","name":"cutlass_80_simt_sgemm","pid":0,"tid":7,"ts":5,"dur":1,
     "args":{"External id":1,"correlation":1}},
    {"ph":"X","cat":"cpu_op","name":"aten::_scaled_dot_product_flash_attention","pid":1,"tid":1,"ts":20,"dur":10,
     "args":{"External id":2,"Input Dims":[[2,8,128,64],[2,8,128,64],[2,8,128,64],[],[],[],[]],
             "Input type":["c10::Half","c10::Half","c10::Half","Scalar","Scalar","Scalar",""],
             "Concrete Inputs":["","","","0.","True","False",""]}},
    {"ph":"X","cat":"kernel","name":"pytorch_flash::flash_fwd_kernel","pid":0,"tid":7,"ts":25,"dur":4,
     "args":{"External id":2,"correlation":2}}
  ])");
  const auto r = read_torch_trace(p.string());
  ASSERT_EQ(r.kernels.size(), 2u);
  // 4 × 2·16·8·32 = 32,768 fp32 FLOPs on no tensor engine; 4 × (16·32 + 32·8 + 16·8)·4 = 14,336 bytes
  EXPECT_EQ(total_flops(r.kernels[0]), 32768.0);
  EXPECT_EQ(r.kernels[0].model_flops[0].engine, "");
  EXPECT_EQ(total_bytes(r.kernels[0]), 14336.0);
  // 2·8·(128·129/2)·(4·64 + 5) = 34,477,056 FLOPs; bytes 2·2·128·8·64·2 + 2·2·128·8·64·2 = 1,048,576
  EXPECT_EQ(total_flops(r.kernels[1]), 34477056.0);
  EXPECT_EQ(total_bytes(r.kernels[1]), 1048576.0);
}

TEST(TorchTrace, OnlyCpuEventsGiveNoKernelsAndSaySo) {
  const auto p = write("cpu_only.json", R"({"traceEvents":[
    {"ph":"X","cat":"cpu_op","name":"aten::mm","pid":1,"tid":1,"ts":10,"dur":5,"args":{"External id":1}}]})");
  const auto r = read_torch_trace(p.string());
  EXPECT_TRUE(r.kernels.empty());
  ASSERT_FALSE(r.skipped.empty());
  EXPECT_NE(r.skipped[0].find("no CUDA activity"), std::string::npos) << r.skipped[0];
  EXPECT_NE(r.skipped[0].find("ProfilerActivity.CUDA"), std::string::npos);
  EXPECT_EQ(r.host.size(), 1u);
}

TEST(TorchTrace, BadInputNamesTheFileAndTheProblem) {
  const auto not_trace = write("foo.json", R"({"foo": 1})");
  EXPECT_NE(error_of(not_trace).find("foo.json: traceEvents: not a Chrome/Kineto trace"), std::string::npos)
      << error_of(not_trace);
  const auto scalar = write("scalar.json", "42");
  EXPECT_NE(error_of(scalar).find("not a Chrome/Kineto trace"), std::string::npos) << error_of(scalar);
  const auto garbage = write("garbage.json", "this is not json");
  EXPECT_NE(error_of(garbage).find("garbage.json: not JSON at byte"), std::string::npos) << error_of(garbage);
  const auto empty = write("empty.json", "");
  EXPECT_NE(error_of(empty).find("the file is empty"), std::string::npos) << error_of(empty);
  const auto truncated = write("truncated.json", R"({"traceEvents":[{"ph":"X","cat":"kernel","name":"k","ts":1)");
  EXPECT_NE(error_of(truncated).find("truncated.json: truncated at byte"), std::string::npos) << error_of(truncated);
  EXPECT_NE(error_of(temp("absent.json")).find("cannot open"), std::string::npos);
#ifdef ROOFLINE_HAVE_ZLIB
  // The real .gz cut to its first 200 bytes: a gzip stream that ends before its first whole event.
  std::ifstream in(trace_path, std::ios::binary);
  std::string head(200, '\0');
  in.read(head.data(), std::streamsize(head.size()));
  const auto gz = write("cut.json.gz", head);
  const auto e = error_of(gz);
  EXPECT_NE(e.find("cut.json.gz: gzip: gzip stream truncated or corrupt after"), std::string::npos) << e;
#endif
}

// A trace cut short after whole events is read up to the cut and says so: what was read is placed.
TEST(TorchTrace, ACutTraceKeepsWhatWasRead) {
  const auto plain = write("cut.json", R"({"schemaVersion": 1, "traceEvents": [
    {"ph":"X","cat":"cpu_op","name":"aten::mm","pid":1,"tid":1,"ts":100,"dur":20,
     "args":{"External id":1,"Input Dims":[[8,64],[64,32]],"Input type":["float","float"]}},
    {"ph":"X","cat":"kernel","name":"gemm","pid":0,"tid":7,"ts":110,"dur":5,"args":{"External id":1,"correlation":1}},
    {"ph":"X","cat":"kernel","name":"second","pid":0,"tid":7,"ts":120,"du)");
  const auto r = read_torch_trace(plain.string());
  ASSERT_EQ(r.kernels.size(), 1u);
  EXPECT_EQ(r.kernels[0].cost_model, "gemm_op");
  EXPECT_NE(r.incomplete.find("the 2 events before the cut are read"), std::string::npos) << r.incomplete;
#ifdef ROOFLINE_HAVE_ZLIB
  // The real .gz cut to its first 100,000 bytes: the gzip stream ends early, after hundreds of events.
  std::ifstream in(trace_path, std::ios::binary);
  std::string head(100000, '\0');
  in.read(head.data(), std::streamsize(head.size()));
  const auto gz = read_torch_trace(write("cut100k.json.gz", head).string());
  EXPECT_NE(gz.incomplete.find("gzip stream truncated or corrupt after"), std::string::npos) << gz.incomplete;
  EXPECT_GT(gz.kernels.size() + gz.host.size(), 0u);
#endif
}

// Read speed on a synthetic ~100 MB, 10^6-event trace (run by hand:
// test_ingest --gtest_also_run_disabled_tests --gtest_filter='*ReadSpeed*'); prints MB/s, asserts
// only the counts.
TEST(TorchTrace, DISABLED_ReadSpeed) {
  const auto p = temp("big.json");
  std::size_t kernels = 0;
  {
    std::ofstream o(p, std::ios::binary);
    o << R"({"schemaVersion":1,"traceEvents":[)";
    const int n = 250000;  // × 4 events
    for (int i = 0; i < n; ++i) {
      const double t = 10.0 * i;
      char buf[2048];
      std::snprintf(buf, sizeof buf,
                    R"(%s{"ph":"X","cat":"cpu_op","name":"aten::mm","pid":1,"tid":1,"ts":%.3f,"dur":5.5,"args":{"External id":%d,"Record function id":0,"Concrete Inputs":["",""],"Input type":["c10::Half","c10::Half"],"Input Strides":[[2048,1],[1,2048]],"Input Dims":[[512,2048],[2048,2048]],"Ev Idx":%d}},)"
                    R"({"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":%.3f,"dur":2.1,"args":{"External id":%d,"cbid":211,"correlation":%d}},)"
                    R"({"ph":"X","cat":"kernel","name":"nvjet_sm90_hsh_128x64_64x8_1x2_h_bz_TNT","pid":0,"tid":7,"ts":%.3f,"dur":9.0,"args":{"External id":%d,"queued":0,"device":0,"context":1,"stream":7,"correlation":%d,"registers per thread":168,"shared memory":0,"blocks per SM":1.0,"warps per SM":4.0,"grid":[128,1,1],"block":[384,1,1],"est. achieved occupancy %%":6}},)"
                    R"({"ph":"f","id":%d,"pid":0,"tid":7,"ts":%.3f,"cat":"ac2g","name":"ac2g","bp":"e"})",
                    i ? "," : "", t, i, i, t + 1, i, i, t + 3, i, i, i, t + 3);
      o << buf;
      ++kernels;
    }
    o << "]}";
  }
  const double mb = double(fs::file_size(p)) / 1e6;
  const auto t0 = std::chrono::steady_clock::now();
  const auto r = read_torch_trace(p.string());
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("read %.1f MB (%zu kernels, 10^6 events) in %.2f s: %.1f MB/s\n", mb, kernels, s, mb / s);
  EXPECT_EQ(r.kernels.size(), kernels);
  if (!std::getenv("ROOFLINE_KEEP_BIG")) fs::remove(p);
}

TEST(TorchTrace, RealCompiledAndGraphTracesMarkWhatCannotBeCosted) {
  // The same HF TinyLlama on the H200, 2026-12-03 (bench/hf_traces.py): torch.compile (Inductor's
  // Triton kernels: 782 of 1,629 kernels, 1,552 µs) and generate(cache_implementation="static")
  // (each decode step one CUDA-graph replay: 3,432 of 4,901 kernels, 12,669 µs, launched by 8
  // cudaGraphLaunch calls). Counted with Python's gzip + json from the files. Neither kind carries
  // shapes, so neither gets FLOPs or bytes: each is marked, none invented.
  const auto c = read_torch_trace(ROOFLINE_TEST_DATA "/h200-2026-12-03/trace-tinyllama-compiled.json.gz");
  ASSERT_EQ(c.kernels.size(), 1629u);
  std::size_t triton = 0;
  double triton_us = 0;
  for (const auto& k : c.kernels)
    if (k.name.rfind("triton_", 0) == 0) {
      ++triton, triton_us += k.duration_s * 1e6;
      EXPECT_TRUE(k.flops.empty() && k.model_flops.empty() && k.bytes.empty()) << k.name;
      EXPECT_EQ(k.note, "Triton kernel: no shapes in the trace");
    }
  EXPECT_EQ(triton, 782u);
  EXPECT_NEAR(triton_us, 1552, 1);
  const auto g = read_torch_trace(ROOFLINE_TEST_DATA "/h200-2026-12-03/trace-tinyllama-graphs.json.gz");
  ASSERT_EQ(g.kernels.size(), 4901u);
  std::size_t replayed = 0;
  double replayed_us = 0;
  for (const auto& k : g.kernels)
    if (k.graph_replay) {
      ++replayed, replayed_us += k.duration_s * 1e6;
      EXPECT_TRUE(k.model_flops.empty() && k.bytes.empty()) << k.name;
    }
  EXPECT_EQ(replayed, 3432u);
  EXPECT_NEAR(replayed_us, 12669, 1);
}

// One op call per thread on 65,537 threads: the reader numbers threads in 16 bits (an interval is 32
// bytes, a launch 24: docs/ingest.md, "Read speed") and refuses a trace with more, naming the field.
TEST(TorchTrace, MoreThreadsThanLanesAreRefusedNamingTheField) {
  auto events = [](int threads) {
    std::string s = R"({"traceEvents":[)";
    for (int t = 0; t < threads; ++t)
      s += fmt::format(R"({}{{"ph":"X","cat":"cpu_op","name":"aten::mm","pid":1,"tid":{},"ts":{},"dur":1}})", t ? "," : "", t + 1, t);
    return s + "]}";
  };
  const auto fits = write("lanes-65536.json", events(65536));
  EXPECT_EQ(read_torch_trace(fits.string()).host.size(), roofline::ingest::max_host_intervals);
  const auto over = write("lanes-65537.json", events(65537));
  const auto e = error_of(over);
  EXPECT_NE(e.find("lanes-65537.json: tid: more than 65535 threads and lanes in one trace"), std::string::npos) << e;
}

// The ops of a training step repeat their shapes (steps, layers): the reader keeps one copy of each
// distinct (op, shapes) and costs every call from it. Two calls of one shape and one of another: each
// kernel gets its own op's cost, as if every call were kept.
TEST(TorchTrace, RepeatedShapesCostEachCall) {
  const auto p = write("repeated.json", R"({"traceEvents":[
    {"ph":"X","cat":"cpu_op","name":"aten::mm","pid":1,"tid":1,"ts":100,"dur":5,
     "args":{"External id":1,"Input Dims":[[8,64],[64,32]],"Input type":["c10::BFloat16","c10::BFloat16"]}},
    {"ph":"X","cat":"cpu_op","name":"aten::mm","pid":1,"tid":1,"ts":110,"dur":5,
     "args":{"External id":2,"Input Dims":[[16,64],[64,32]],"Input type":["c10::BFloat16","c10::BFloat16"]}},
    {"ph":"X","cat":"cpu_op","name":"aten::mm","pid":1,"tid":1,"ts":120,"dur":5,
     "args":{"External id":3,"Input Dims":[[8,64],[64,32]],"Input type":["c10::BFloat16","c10::BFloat16"]}},
    {"ph":"X","cat":"kernel","name":"gemm","pid":0,"tid":7,"ts":200,"dur":2,"args":{"correlation":1,"External id":1}},
    {"ph":"X","cat":"kernel","name":"gemm","pid":0,"tid":7,"ts":210,"dur":2,"args":{"correlation":2,"External id":2}},
    {"ph":"X","cat":"kernel","name":"gemm","pid":0,"tid":7,"ts":220,"dur":2,"args":{"correlation":3,"External id":3}}
  ]})");
  const auto r = read_torch_trace(p.string());
  ASSERT_EQ(r.kernels.size(), 3u);
  // 2·m·32·64 bf16 FLOPs: m = 8, 16, 8
  EXPECT_EQ(total_flops(r.kernels[0]), 32768.0);
  EXPECT_EQ(total_flops(r.kernels[1]), 65536.0);
  EXPECT_EQ(total_flops(r.kernels[2]), 32768.0);
  EXPECT_EQ(r.kernels[2].shapes, r.kernels[0].shapes);
  EXPECT_EQ(r.kernels[0].dims->m, 8);
  EXPECT_EQ(r.kernels[1].dims->m, 16);
}
