// `roofline ops` end to end: the JSON parses and carries the catalogue; bad flags exit 2.
#include <gtest/gtest.h>

#include <string>

#include "common/run_binary.hpp"
#include "roofline/io.hpp"
#include "roofline/json.hpp"

using roofline::test::run_roofline;

TEST(CliOps, DecodeJsonParses) {
  const auto r = run_roofline("ops --model tinyllama-1.1b --phase decode --batch 1 --json");
  ASSERT_EQ(r.code, 0);
  const auto j = roofline::json::parse(r.out);
  EXPECT_EQ(j["model"]["parameters"].get<std::int64_t>(), 1'100'048'384);
  EXPECT_EQ(j["phase"], "decode");
  EXPECT_EQ(j["ops"].size(), 18u);
  EXPECT_DOUBLE_EQ(j["totals"]["kv_cache_bytes_per_token"].get<double>(), 22528.0);
  EXPECT_TRUE(j["roofs"].is_null());
}

TEST(CliOps, SweepAndFusionJson) {
  const auto s = run_roofline("ops --model tinyllama-1.1b --batch 1:1024 --json");
  ASSERT_EQ(s.code, 0);
  // 11 batches (1, 2, 4, … 1024) × (8 distinct linears + the decode attention, listed beside them)
  EXPECT_EQ(roofline::json::parse(s.out)["points"].size(), 99u);
  const auto f = run_roofline("ops --phase prefill --attention naive --fusion --json");
  ASSERT_EQ(f.code, 0);
  EXPECT_FALSE(roofline::json::parse(f.out)["fusion"].empty());
}

TEST(CliOps, BadFlagsExitTwo) {
  EXPECT_EQ(run_roofline("ops --phase sideways").code, 2);
  EXPECT_EQ(run_roofline("ops --batch 0").code, 2);
  EXPECT_EQ(run_roofline("ops --batch 64:8").code, 2);
  EXPECT_EQ(run_roofline("ops --attention sparse").code, 2);
  EXPECT_EQ(run_roofline("ops --dtype fp13").code, 2);
  EXPECT_EQ(run_roofline("ops --model no-such-model").code, 2);
}

#include <filesystem>
#include <fstream>

#include "roofline/results.hpp"

TEST(CliOps, PlacesOpsAgainstResultsRoofs) {
  // a results.json whose roofs are 1 TFLOP/s and 100 GB/s (ridge 10 FLOP/B)
  roofline::results r;
  r.device.kind = "cpu";
  r.device.name = "test device";
  r.roofline.precision = "fp16";
  r.roofline.peak_measured = r.roofline.peak_nominal = 1e12;
  r.roofline.bandwidth_measured = 1e11;
  r.roofline.bandwidth_nominal = 1e11;
  r.roofline.ridge_measured = 10;
  r.roofline.ridge_nominal = 10.0;
  const auto path = std::filesystem::temp_directory_path() / "roofline_model_test_results.json";
  {
    std::ofstream f(path);
    f << roofline::json(r).dump();
  }
  const auto out = run_roofline("ops --model tinyllama-1.1b --phase decode --batch 1 --json --results " + path.string());
  std::filesystem::remove(path);
  ASSERT_EQ(out.code, 0);
  const auto j = roofline::json::parse(out.out);
  EXPECT_DOUBLE_EQ(j["roofs"]["ridge"].get<double>(), 10.0);
  double share = 0;
  for (const auto& op : j["ops"]) {
    share += op["share"].get<double>();  // share = time × count / step time
    if (op["name"] == "q_proj") {
      // no small_work in the file of a CPU: the documented CPU defaults, floor 2 µs + latency 0.1 µs
      EXPECT_EQ(op["bound"], "bandwidth");
      EXPECT_NEAR(op["predicted_s"].get<double>(), op["bytes"].get<double>() / 1e11 + 0.1e-6 + 2e-6, 1e-15);
    }
    if (op["name"] == "attention") EXPECT_EQ(op["bound"], "bandwidth");  // ≈ 8 < 10
    if (op["name"] == "attn_residual") EXPECT_EQ(op["bound"], "latency");  // 12 kB: 0.12 µs of bytes vs 2.2 µs
  }
  EXPECT_NEAR(share, 1.0, 1e-9);
  EXPECT_GT(j["totals"]["tokens_per_s"].get<double>(), 0);
}

TEST(CliOps, RefusesWhatItWouldAnswerWrong) {
  EXPECT_EQ(run_roofline("ops --phase prefill --batch 1:4").code, 2);             // the sweep is decode-only
  EXPECT_EQ(run_roofline("ops --model gpt2 --phase prefill --seq 2048").code, 2);  // n_positions 1024
  EXPECT_EQ(run_roofline("ops --model llama-3-8b --batch 1024 --context 8192 --device t4").code, 2);  // 1 TB KV on 16 GB
  EXPECT_EQ(run_roofline("ops --model llama-3-8b --tp 3 --device h100-sxm").code, 2);                 // 3 ∤ 8 KV heads
}

TEST(CliOps, TensorParallelShardsAndCostsLatency) {
  const auto r = run_roofline("ops --model llama-3-8b --batch 1 --tp 8 --device h100-sxm --json");
  ASSERT_EQ(r.code, 0) << r.out;
  const auto j = roofline::json::parse(r.out);
  for (const auto& op : j["ops"])
    if (op["name"] == "q_proj") EXPECT_EQ(op["gemm"]["n"].get<int>(), 512);
  const auto& a = j["tensor_parallel"]["allreduces"][0];
  // 1 token × 4096 × 2 B = 8 kB: latency 10 µs + 8192 × 2·7/8 ÷ 450 GB/s
  EXPECT_NEAR(a["predicted_s"].get<double>(), 10e-6 + 8192.0 * 2 * 7 / 8 / 450e9, 1e-12);
  const auto s = run_roofline("ops --model gpt2 --phase train --seq 1024");
  EXPECT_NE(s.out.find("6N + 6·L·H·Q·T; N = "), std::string::npos) << s.out;
  EXPECT_NE(s.out.find("attention causal-halved"), std::string::npos) << s.out;
}

// `ops` and `mfu` print one FLOPs-per-token model: for the same model, phase, length and convention
// the same number, formula and convention words, in JSON and in text. Llama-3-8B train at 4096 with
// the defaults is 48,249,176,064 FLOP (tests/model/flops_per_token_test.cpp works it by hand).
TEST(CliOps, OpsAndMfuPrintTheSameFlopsPerToken) {
  const std::string mfu_tail = " --device h100-sxm --tokens-per-s 100";  // plausible for every row (MBU < 100%)
  for (const auto& [ops, mfu] : std::vector<std::pair<std::string, std::string>>{
           {"--model llama-3-8b --phase train --seq 4096", "--model llama-3-8b --phase train --seq 4096"},
           {"--model llama-3-8b --phase prefill --seq 1024 --causal full", "--model llama-3-8b --phase prefill --seq 1024 --causal full"},
           {"--model tinyllama-1.1b --phase decode", "--model tinyllama-1.1b --phase decode"},  // both default to C = 2048
           {"--model mistral-7b --phase decode --context 8192", "--model mistral-7b --phase decode --context 8192"},
           {"--model gpt2 --phase train --seq 1024", "--model gpt2 --phase train --seq 1024"}}) {
    const auto o = run_roofline("ops " + ops + " --json"), m = run_roofline("mfu " + mfu + mfu_tail + " --json");
    ASSERT_EQ(o.code, 0) << ops;
    ASSERT_EQ(m.code, 0) << mfu;
    const auto oj = roofline::json::parse(o.out)["totals"]["model_flops_per_token"], mj = roofline::json::parse(m.out);
    EXPECT_EQ(oj, mj["model_flops_per_token"]) << ops;
    EXPECT_EQ(oj["flops"], mj["flops_per_token"]) << ops;
    const auto ot = run_roofline("ops " + ops), mt = run_roofline("mfu " + mfu + mfu_tail);
    for (const char* key : {"formula", "description"}) {
      const std::string words = oj[key].get<std::string>();
      EXPECT_NE(ot.out.find(words), std::string::npos) << ops << ": " << words;
      EXPECT_NE(mt.out.find(words), std::string::npos) << mfu << ": " << words;
    }
  }
  const auto j = roofline::json::parse(run_roofline("mfu --model llama-3-8b --phase train --seq 4096" + mfu_tail + " --json").out);
  EXPECT_EQ(j["flops_per_token"].get<double>(), 48'249'176'064.0);
  EXPECT_EQ(j["full_attention_flops_per_token"].get<double>(), 51'470'401'536.0);
}

// Gemma-2-9B decode at context 8192, batch 16, on an H100 SXM (3.35 TB/s, 989 TFLOP/s fp16): the 21
// global layers read all 8192 cached tokens, the 21 local ones 4096 (Gemma Team 2024, "Gemma 2"
// Table 1): 52.7 GB per step and 16.7 ms (41.4 GB and 13.4 ms when every layer was capped at 4096).
TEST(CliOps, Gemma2DecodeGlobalLayersAtLongContext) {
  const std::string model = std::string(ROOFLINE_TEST_DATA) + "/model/walk/gemma-2-9b.json";
  const auto r = run_roofline("ops --model " + model + " --batch 16 --context 8192 --device h100-sxm --json");
  ASSERT_EQ(r.code, 0) << r.out;
  const auto j = roofline::json::parse(r.out);
  EXPECT_NEAR(j["totals"]["bytes"].get<double>() / 1e9, 52.7, 0.1);
  EXPECT_NEAR(j["totals"]["tpot_s"].get<double>() * 1e3, 16.7, 0.1);
  EXPECT_NEAR(j["totals"]["kv_cache_bytes"].get<double>(), 16.0 * 2 * 8 * 256 * 2 * 21 * (8192 + 4096), 1);
}

// `ops` and `mfu` share the catalogue's decode step: the same intensity (Llama-3-8B, batch 64,
// context 2048, fp16: 31.1 FLOP/B; mfu's own weights + KV formula said 29.5).
TEST(CliOps, OpsAndMfuShareTheDecodeStep) {
  const auto o = roofline::json::parse(run_roofline("ops --model llama-3-8b --batch 64 --device h200 --json").out);
  const auto m = roofline::json::parse(run_roofline("mfu --model llama-3-8b --phase decode --batch 64 --tpot 30ms --device h200 --json").out);
  EXPECT_DOUBLE_EQ(o["totals"]["intensity"].get<double>(), m["decode_intensity"].get<double>());
  EXPECT_NEAR(m["decode_intensity"].get<double>(), 31.1, 0.05);
  EXPECT_DOUBLE_EQ(o["totals"]["bytes"].get<double>(), m["decode"]["step_bytes"].get<double>());
  EXPECT_DOUBLE_EQ(o["totals"]["tpot_s"].get<double>(), m["decode"]["attainable_tpot_s"].get<double>());
}

// DeepSeek-V3's published config.json is counted with its fp8 block-wise weights (said on the
// output); without quantization_config `ops` counts it in bf16, says which MLA form it counted, and
// caches 576 elements per token and layer (61·576·2 B = 70,272 B in bf16; docs/formulas-model.md §5.4).
TEST(CliOps, DeepSeekV3PublishedAndCounted) {
  const std::string published = std::string(ROOFLINE_TEST_DATA) + "/model/walk/deepseek-v3.json";
  const auto published_run = run_roofline("ops --model " + published);
  EXPECT_EQ(published_run.code, 0) << published_run.all();
  EXPECT_NE(published_run.all().find("fp8"), std::string::npos) << published_run.all();

  auto j = roofline::json::parse(roofline::read_file(published));
  j.erase("quantization_config");
  const std::string counted = ::testing::TempDir() + "deepseek-v3-unquantized.json";
  roofline::write_file_atomic(counted, j.dump());
  const auto r = run_roofline("ops --model " + counted + " --dtype bf16 --context 4096 --json");
  ASSERT_EQ(r.code, 0) << r.out;
  const auto o = roofline::json::parse(r.out);
  EXPECT_EQ(o["model"]["parameters"].get<std::int64_t>(), 671'026'419'200);
  EXPECT_EQ(o["conventions"]["mla"], "absorbed");
  EXPECT_DOUBLE_EQ(o["totals"]["kv_cache_bytes_per_token"].get<double>(), 70'272.0);
  std::int64_t v_width = 0;
  for (const auto& op : o["ops"])
    if (op["name"] == "attention") v_width = op["attention"]["v_head_dim"].get<std::int64_t>();
  EXPECT_EQ(v_width, 512);  // the absorbed form's value width: kv_lora_rank
  const auto n = roofline::json::parse(run_roofline("ops --model " + counted + " --dtype bf16 --context 4096 --mla naive --json").out);
  EXPECT_EQ(n["conventions"]["mla"], "naive");
  // model FLOPs per token: 2·36,624,596,992 + 61 × the per-layer attention term (tests/model/deepseek_test.cpp)
  EXPECT_DOUBLE_EQ(o["totals"]["model_flops_per_token"]["flops"].get<double>(), 142'841'085'952.0);
  EXPECT_DOUBLE_EQ(n["totals"]["model_flops_per_token"]["flops"].get<double>(), 8'475'446'738'944.0);
}
