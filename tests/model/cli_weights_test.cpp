// --weights and quantization_config end to end: what follows from the weight bytes moves in `ops`
// and `mfu` (decode bytes, attainable TPOT, MBU, the knee, the capacity); `run` refuses formats it
// has no kernel for with exit 2, before anything is written.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "common/run_binary.hpp"
#include "roofline/json.hpp"

namespace {

using roofline::test::run_roofline;

roofline::json ops(const std::string& args, const std::string& model = "llama-3-8b") {
  const auto r = run_roofline("ops --model " + model + " --device h100-sxm --json " + args);
  EXPECT_EQ(r.code, 0) << args << ": " << r.out;
  return roofline::json::parse(r.out);
}

std::string quant(const std::string& f) { return std::string(ROOFLINE_TEST_DATA) + "/model/quant/" + f; }

}  // namespace

// Llama-3-8B decode, batch 1, context 2048, on an H100 SXM (3.35 TB/s, the spec table's nominal
// bandwidth): the weight bytes of weight_format_test.cpp (fp16 15,009,316,864 B with lm_head; int4
// g128 4,676,648,960; nvfp4 4,976,542,592; mxfp4 4,758,437,888) plus what every format shares (the
// KV cache 2·32·8·128·2 B·2048 = 268,435,456 B and ~15 MB of activations). Bandwidth-bound: the
// attainable TPOT = bytes ÷ 3.35 TB/s + the same per-kernel floor and latency in every format (483
// kernels × ~1.4 µs = 0.67 ms with the default CUDA small-work model, docs/formulas-analysis.md §7.3):
//   fp16  15.29 GB → 4.565 ms + 0.67 = 5.24 ms;   int4 g128  4.96 GB → 1.481 ms + 0.67 = 2.16 ms
//   nvfp4  5.26 GB → 1.570 ms + 0.67 = 2.25 ms;   mxfp4      5.04 GB → 1.505 ms + 0.67 = 2.18 ms
// int4 is 2.4× faster, not 4×: lm_head stays fp16, and the KV cache and the floors do not shrink.
TEST(CliWeights, DecodeTpotFollowsTheWeightBytes) {
  const auto f16 = ops(""), i4 = ops("--weights int4"), nv = ops("--weights nvfp4"), mx = ops("--weights mxfp4");
  // what every format shares: the KV cache read (268,435,456 B) and ~15 MB of activations
  const double shared = f16["totals"]["bytes"].get<double>() - 15'009'316'864.0;
  EXPECT_GT(shared, 268'435'456.0);
  EXPECT_LT(shared, 268'435'456.0 + 20e6);
  EXPECT_DOUBLE_EQ(i4["totals"]["bytes"].get<double>(), shared + 4'676'648'960.0);
  EXPECT_DOUBLE_EQ(nv["totals"]["bytes"].get<double>(), shared + 4'976'542'592.0);
  EXPECT_DOUBLE_EQ(mx["totals"]["bytes"].get<double>(), shared + 4'758'437'888.0);
  EXPECT_DOUBLE_EQ(i4["totals"]["flops"].get<double>(), f16["totals"]["flops"].get<double>());
  const double t16 = f16["totals"]["tpot_s"].get<double>(), t4 = i4["totals"]["tpot_s"].get<double>();
  const double b16 = f16["totals"]["bytes"].get<double>(), b4 = i4["totals"]["bytes"].get<double>();
  EXPECT_NEAR(t16 * 1e3, b16 / 3.35e12 * 1e3 + 0.67, 0.01);  // 5.24 ms
  EXPECT_NEAR(t4 * 1e3, b4 / 3.35e12 * 1e3 + 0.67, 0.01);    // 2.16 ms
  EXPECT_NEAR((t16 - t4) * 1e3, (b16 - b4) / 3.35e12 * 1e3, 0.005);  // the weight bytes alone
  EXPECT_LT(nv["totals"]["tpot_s"].get<double>(), t16);
  EXPECT_GT(nv["totals"]["tpot_s"].get<double>(), mx["totals"]["tpot_s"].get<double>());  // 4.5 > 4.25 bits
  // said, never silent: the format, the lm_head kept in fp16, the embedding table
  EXPECT_EQ(i4["weights"]["format"], "int4");
  for (const auto& op : i4["ops"]) {
    if (op["name"] == "lm_head") EXPECT_NE(op["note"].get<std::string>().find("lm_head in fp16"), std::string::npos);
    if (op["name"] == "q_proj") EXPECT_EQ(op["gemm"]["weights"], "int4 g128 (16-bit scale + 4-bit zero)");
    if (op["name"] == "embed_tokens") EXPECT_NE(op["note"].get<std::string>().find("not quantized"), std::string::npos);
  }
  // the capacity moves: more sequences fit beside 5.7 GB of weights than beside 16.1 GB
  EXPECT_LT(i4["totals"]["memory"]["weights_bytes"].get<double>(),
            f16["totals"]["memory"]["weights_bytes"].get<double>());
  EXPECT_GT(i4["totals"]["memory"]["sequences_that_fit"].get<std::int64_t>(),
            f16["totals"]["memory"]["sequences_that_fit"].get<std::int64_t>());
  // the KV cache keeps its own dtype
  const auto kv8 = ops("--weights int4 --kv-dtype fp8");
  EXPECT_NEAR(i4["totals"]["bytes"].get<double>() - kv8["totals"]["bytes"].get<double>(), 268'435'456.0 / 2, 1e6);
}

// The config's quantization_config is read; --weights overrides it and says so.
TEST(CliWeights, ConfigAndOverride) {
  const auto cfg = ops("", quant("llama-3-8b-w4a16-compressed-tensors.json"));
  EXPECT_EQ(cfg["weights"]["format"], "int4");
  EXPECT_EQ(cfg["weights"]["method"], "compressed-tensors");
  const auto over = ops("--weights fp16", quant("llama-3-8b-w4a16-compressed-tensors.json"));
  EXPECT_FALSE(over["weights"]["quantized"].get<bool>());
  EXPECT_NE(over["weights"]["note"].get<std::string>().find("overrides"), std::string::npos);
  EXPECT_DOUBLE_EQ(over["totals"]["bytes"].get<double>(), ops("")["totals"]["bytes"].get<double>());
  const auto text = run_roofline("ops --model " + quant("llama-3-8b-bnb-4bit.json") + " --device h100-sxm");
  EXPECT_EQ(text.code, 0);
  EXPECT_NE(text.out.find("weights: nf4 g64"), std::string::npos) << text.out;
}

// The sweep's knee uses each linear's own weight bytes: q_proj (4096×4096) on an H100 SXM reaches
// the fp16 ridge (989.4 TFLOP/s ÷ 3.35 TB/s = 295.3) at a smaller batch with int4 weights.
TEST(CliWeights, KneeMovesWithTheWeights) {
  auto knee = [](const roofline::json& j) {
    for (const auto& k : j["knees"])
      if (k["name"] == "q_proj") return k["knee_batch"].get<std::int64_t>();
    return std::int64_t(-1);
  };
  const auto f16 = roofline::json::parse(run_roofline("ops --model llama-3-8b --batch 1:512 --device h100-sxm --json").out);
  const auto i4 =
      roofline::json::parse(run_roofline("ops --model llama-3-8b --batch 1:512 --device h100-sxm --weights int4 --json").out);
  EXPECT_GT(knee(f16), 3 * knee(i4));
}

// mfu: MBU and the attainable TPOT use the same step as ops.
TEST(CliWeights, MfuSharesTheStep) {
  const auto o = ops("--weights mxfp4");
  const auto m = roofline::json::parse(
      run_roofline("mfu --model llama-3-8b --phase decode --tpot 3ms --device h100-sxm --weights mxfp4 --json").out);
  EXPECT_DOUBLE_EQ(o["totals"]["bytes"].get<double>(), m["decode"]["step_bytes"].get<double>());
  EXPECT_DOUBLE_EQ(o["totals"]["tpot_s"].get<double>(), m["decode"]["attainable_tpot_s"].get<double>());
  // MBU = the step's bytes ÷ TPOT ÷ the nominal bandwidth (derived: 3.352 TB/s)
  EXPECT_NEAR(m["mbu"].get<double>(), o["totals"]["bytes"].get<double>() / 3e-3 / o["roofs"]["bandwidth_bytes_per_s"].get<double>(), 1e-12);
  EXPECT_EQ(run_roofline("mfu --model llama-3-8b --phase train --seq 128 --step-time 1s --device h100-sxm --weights int4").code,
            2);
}

TEST(CliWeights, BadValuesAndRunRefusalsExitTwo) {
  EXPECT_EQ(run_roofline("ops --weights int3").code, 2);
  EXPECT_EQ(run_roofline("ops --weights nvfp4 --group-size 32").code, 2);
  EXPECT_EQ(run_roofline("ops --group-size 64").code, 2);
  EXPECT_EQ(run_roofline("ops --phase train --seq 128 --weights int4").code, 2);
  EXPECT_EQ(run_roofline("ops --model " + quant("tinyllama-hqq.json")).code, 2);
  const std::string out = (std::filesystem::temp_directory_path() / "roofline-weights-run-refused").string();
  std::filesystem::remove_all(out);
  const auto r = run_roofline("run --device cpu --quick --weights int4 --out " + out);
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.all().find("no kernel for int4"), std::string::npos) << r.all();
  const auto q = run_roofline("run --device cpu --quick --model " + quant("tinyllama-1.1b-chat-gptq.json") + " --out " + out);
  EXPECT_EQ(q.code, 2);
  EXPECT_NE(q.all().find("quantization_config"), std::string::npos) << q.all();
  EXPECT_FALSE(std::filesystem::exists(out));
}
