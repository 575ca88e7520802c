// The `roofline mfu` and `roofline place` commands, run as a user would.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>

#include "common/run_binary.hpp"
#include "fixtures.hpp"
#include "roofline/json.hpp"

using namespace roofline;
using roofline::test::run_roofline;

namespace {

std::string write_h200_results() {
  const auto path = std::filesystem::temp_directory_path() / "roofline_analysis_h200_results.json";
  results r = test::h200_results();
  r.roofline.precision = "fp16";
  json j = r;
  std::ofstream(path) << j.dump(2);
  return path.string();
}

}  // namespace

TEST(CliMfu, TinyLlamaDecodeAt25msOnAT4) {
  // Matmul-only headline at the default context C = 2048 (as `ops`): 2 × 1,034,420,224 +
  // 4·22·32·64·2048 = 2,437,939,200 FLOP ÷ 0.025 s ÷ 65.1 TFLOP/s (T4 fp16 tensor, dense, from the
  // spec table) ≈ 0.150%; every parameter (2 × 1,100,048,384 + the same attention) is the labelled
  // alternative.
  const auto r = run_roofline("mfu --model tinyllama-1.1b --phase decode --tpot 0.025 --device T4 --json");
  ASSERT_EQ(r.code, 0) << r.all();
  const json j = json::parse(r.out);
  EXPECT_EQ(j["seq"].get<int>(), 2048);
  EXPECT_DOUBLE_EQ(j["flops_per_token"].get<double>(), 2.0 * 1034420224.0 + 4.0 * 22 * 32 * 64 * 2048);
  EXPECT_DOUBLE_EQ(j["all_parameters_flops_per_token"].get<double>(), 2.0 * 1100048384.0 + 4.0 * 22 * 32 * 64 * 2048);
  EXPECT_NEAR(100 * j["mfu"].get<double>(), 0.150, 0.001);
  EXPECT_EQ(j["hfu"], j["mfu"]);
  // Decode intensity is the catalogue step's (the FLOPs and bytes `ops` prints: weights once, the
  // KV cache, the activations): 1.15 FLOP/B, so MFU can be at most intensity ÷ ridge.
  EXPECT_NEAR(j["decode_intensity"].get<double>(), j["decode"]["step_flops"].get<double>() / j["decode"]["step_bytes"].get<double>(), 1e-12);
  EXPECT_NEAR(j["decode_intensity"].get<double>(), 1.15, 0.005);
}

// Decode's honest measure is bandwidth (MBU: Databricks, "LLM Inference Performance Engineering:
// Best Practices", 2023). TinyLlama-1.1B fp16 on a T4 at 25 ms/token, batch 1, context 2048, ECC off:
// the catalogue's step moves 2.12 GB (2 B × 1,034,420,224 matmul weights, 2048 × 22,528 B of KV cache,
// the activations) = 84.8 GB/s = 26.5% of the T4's 320 GB/s (NVIDIA T4 datasheet); the attainable
// TPOT `ops --device t4 --ecc off` predicts is 7.09 ms, so 25 ms is 3.53× it. As the T4 ships (ECC on,
// 256 GB/s, CUDA C++ Best Practices Guide): 33.1%, attainable 8.75 ms, 2.86×.
TEST(CliMfu, TinyLlamaDecodeMbuBesideMfu) {
  const auto on = run_roofline("mfu --model tinyllama-1.1b --phase decode --tpot 25ms --device T4 --json");
  ASSERT_EQ(on.code, 0) << on.all();
  const json jo = json::parse(on.out);
  EXPECT_NEAR(100 * jo["mbu"].get<double>(), 33.1, 0.05);
  EXPECT_NEAR(jo["decode"]["attainable_tpot_s"].get<double>() * 1e3, 8.75, 0.005);
  EXPECT_EQ(jo["decode"]["verdict"], "25.0 ms/token is 2.86× the attainable 8.75 ms; 33.1% of the bandwidth roof");
  const auto r = run_roofline("mfu --model tinyllama-1.1b --phase decode --tpot 25ms --device T4 --ecc off --json");
  ASSERT_EQ(r.code, 0) << r.all();
  const json j = json::parse(r.out);
  const json& d = j["decode"];
  EXPECT_NEAR(d["step_bytes"].get<double>() / 1e9, 2.12, 0.005);
  EXPECT_NEAR(d["achieved_bytes_per_s"].get<double>() / 1e9, 84.8, 0.1);
  EXPECT_NEAR(100 * j["mbu"].get<double>(), 26.5, 0.05);
  EXPECT_NEAR(d["attainable_tpot_s"].get<double>() * 1e3, 7.09, 0.005);
  EXPECT_NEAR(d["times_attainable"].get<double>(), 3.53, 0.005);
  EXPECT_EQ(d["verdict"], "25.0 ms/token is 3.53× the attainable 7.09 ms; 26.5% of the bandwidth roof");
  const auto t = run_roofline("mfu --model tinyllama-1.1b --phase decode --tpot 25ms --device T4 --ecc off");
  EXPECT_NE(t.all().find("MBU (vs nominal)    26.5%"), std::string::npos) << t.all();
  EXPECT_NE(t.all().find("25.0 ms/token is 3.53× the attainable 7.09 ms; 26.5% of the bandwidth roof"), std::string::npos) << t.all();
  // the same TPOT in every unit; a bare number is seconds
  for (const char* tpot : {"0.025", "0.025s", "25ms", "25 ms", "25000us", "25000µs"}) {
    const auto u = run_roofline(std::string("mfu --model tinyllama-1.1b --phase decode --device T4 --json --tpot \"") + tpot + "\"");
    ASSERT_EQ(u.code, 0) << tpot << ": " << u.all();
    EXPECT_DOUBLE_EQ(json::parse(u.out)["decode"]["tpot_s"].get<double>(), 0.025) << tpot;
  }
  for (const char* bad : {"25 parsecs", "fast", "0ms", "-3ms", "nan"}) {
    const auto u = run_roofline(std::string("mfu --model tinyllama-1.1b --phase decode --device T4 --tpot \"") + bad + "\"");
    EXPECT_EQ(u.code, 2) << bad;
    EXPECT_NE(u.all().find("--tpot"), std::string::npos) << bad << ": " << u.all();
  }
}

// A bare --tpot of 1 s or more is probably milliseconds: answered (as seconds) with a one-line warning.
TEST(CliMfu, BareTpotOfSecondsWarns) {
  const auto r = run_roofline("mfu --model tinyllama-1.1b --phase decode --tpot 25 --device T4");
  const std::string& err = r.err;
  EXPECT_EQ(r.code, 0);
  EXPECT_NE(err.find("did you mean ms? write units"), std::string::npos) << err;
  EXPECT_EQ(std::count(err.begin(), err.end(), '\n'), 1) << err;
}

TEST(CliMfu, TextOutputShowsBothRoofsAndTheConvention) {
  const std::string file = write_h200_results();
  const auto r = run_roofline("mfu --model tinyllama-1.1b --phase decode --tpot 0.01 --results " + file);
  ASSERT_EQ(r.code, 0) << r.all();
  EXPECT_NE(r.all().find("MFU (vs nominal)"), std::string::npos);
  EXPECT_NE(r.all().find("fraction of measured roof: "), std::string::npos);
  EXPECT_EQ(r.all().find("unknown (no measured roof"), std::string::npos);  // the results carry a measured roof
  EXPECT_NE(r.all().find("convention"), std::string::npos);
  EXPECT_NE(r.all().find("MFU ≈ intensity ÷ ridge"), std::string::npos);
}

TEST(CliMfu, RefusesASparsePeakAndMisusedFlags) {
  // 1979 TFLOP/s is the H200's sparse fp16 number; the dense peak is half of it.
  auto r = run_roofline("mfu --model tinyllama-1.1b --phase train --step-time 1 --seq 2048 --device H200 --precision fp16 --peak 1978.85952e12");
  EXPECT_EQ(r.code, 2) << r.all();
  EXPECT_NE(r.all().find("sparse"), std::string::npos) << r.all();
  r = run_roofline("mfu --model tinyllama-1.1b --phase train --tpot 0.02 --device H200");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.all().find("--tpot"), std::string::npos) << r.all();
  r = run_roofline("mfu --model tinyllama-1.1b --phase decode --tpot 0.02 --tokens-per-s 5 --device H200");
  EXPECT_EQ(r.code, 2);
}

TEST(CliPlace, ABandwidthBoundKernelAgainstMeasuredRoofs) {
  const std::string file = write_h200_results();
  const auto r = run_roofline("place --flops 1e9 --bytes 1e10 --time 5e-3 --results " + file + " --json");
  ASSERT_EQ(r.code, 0) << r.all();
  const json j = json::parse(r.out);
  EXPECT_DOUBLE_EQ(j["intensity"].get<double>(), 0.1);
  EXPECT_EQ(j["bound"], "bandwidth");
  EXPECT_NEAR(j["fraction_of_measured_roof"].get<double>(), (1e10 / 4.3e12) / 5e-3, 1e-9);
  EXPECT_NEAR(j["fraction_of_nominal_roof"].get<double>(), (1e10 / 4.8e12) / 5e-3, 1e-9);
  EXPECT_EQ(j["advice"].get<std::string>().rfind("bandwidth-bound", 0), 0u);
}

TEST(CliPlace, BadValuesExit2NamingTheFlag) {
  for (const auto& [args, flag] : std::vector<std::pair<std::string, std::string>>{
           {"--flops nan --bytes 1 --time 1", "--flops"},
           {"--flops 1 --bytes 0 --time 1", "--bytes"},
           {"--flops 1 --bytes 1 --time 0", "--time"},
           {"--flops 1 --bytes 1 --time -2", "--time"}}) {
    const auto r = run_roofline("place " + args + " --device H200");
    EXPECT_EQ(r.code, 2) << args << ": " << r.all();
    EXPECT_NE(r.all().find(flag), std::string::npos) << r.all();
  }
  EXPECT_EQ(run_roofline("place --flops 1 --bytes 1 --time 1").code, 2);  // no roofs to place against
}

// A kernel faster than the roof is impossible: flagged in text and JSON, its causes named, and no
// advice built on it. RTX 4090 fp32: 82.6 TFLOP/s, 1008 GB/s; 0.76 GB in 30 µs is 25 TB/s = 2513%.
TEST(CliPlace, AboveTheRoofIsImpossibleNotAtTheRoof) {
  const std::string args = "place --flops 29e9 --bytes 0.76e9 --time 3e-5 --device \"rtx 4090\" --precision fp32";
  auto r = run_roofline(args + " --json");
  ASSERT_EQ(r.code, 0) << r.all();
  const auto j = json::parse(r.out);
  EXPECT_NEAR(j["fraction_of_nominal_roof"].get<double>(), (0.76e9 / 1008e9) / 3e-5, 1e-6);  // 25.13
  EXPECT_FALSE(j["plausible"].get<bool>());
  ASSERT_GE(j["causes"].size(), 3u);
  EXPECT_NE(j["causes"][0].get<std::string>().find("synchronisation"), std::string::npos);
  EXPECT_EQ(j["advice"].get<std::string>().find("stop"), std::string::npos);
  r = run_roofline(args);
  EXPECT_NE(r.all().find("IMPOSSIBLE"), std::string::npos) << r.all();
  EXPECT_EQ(r.all().find("stop: at the roof"), std::string::npos) << r.all();
  // 4% above the roof is within the noise: plausible, "at the roof".
  r = run_roofline("place --flops 1 --bytes 1.008e9 --time 0.96e-3 --device \"rtx 4090\" --precision fp32 --json");
  const auto k = json::parse(r.out);
  EXPECT_TRUE(k["plausible"].get<bool>());
  EXPECT_TRUE(k["causes"].empty());
  EXPECT_EQ(k["advice"].get<std::string>().rfind("stop", 0), 0u);
}

// MFU above 100% is impossible: flagged with its causes, never printed as a plain number.
// Llama-2-7B, 9600 tokens/s, seq 4096 on one A100 80GB SXM (312 TFLOP/s fp16), full attention:
// (6 × 6,607,077,376 + 12 × 32 × 4096 × 4096) × 9600 ÷ 311.87e12 = 141.9%.
TEST(CliMfu, AboveOneHundredPercentIsImpossible) {
  auto r = run_roofline("mfu --model llama-2-7b --phase train --tokens-per-s 9600 --seq 4096 --device a100-80gb-sxm --causal full --json");
  ASSERT_EQ(r.code, 1) << r.all();  // impossible: exit 1, the whole answer still printed
  auto j = json::parse(r.out);
  const double fpt = 6.0 * 6'607'077'376 + 12.0 * 32 * 4096 * 4096;
  EXPECT_DOUBLE_EQ(j["flops_per_token"].get<double>(), fpt);
  EXPECT_NEAR(j["mfu"].get<double>(), fpt * 9600 / (108.0 * 4 * 256 * 2 * 1.41e9), 1e-9);
  EXPECT_FALSE(j["plausible"].get<bool>());
  EXPECT_FALSE(j["causes"].empty());
  r = run_roofline("mfu --model tinyllama-1.1b --phase decode --tpot 0.00001 --device t4 --json");
  EXPECT_EQ(r.code, 1);
  j = json::parse(r.out);
  EXPECT_GT(j["mfu"].get<double>(), 1.0);
  EXPECT_FALSE(j["plausible"].get<bool>());
  r = run_roofline("mfu --model tinyllama-1.1b --phase decode --tpot 0.00001 --device t4");
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.all().find("IMPOSSIBLE"), std::string::npos) << r.all();
  // 0.1 ms/token: MFU 37% is below the dense peak, but the step's 2.12 GB in 0.1 ms is 21.2 TB/s,
  // 66× the T4's 320 GB/s (ECC off): impossible, exit 1, the bandwidth named among the causes
  r = run_roofline("mfu --model tinyllama-1.1b --phase decode --tpot 0.0001 --device t4 --ecc off --json");
  EXPECT_EQ(r.code, 1) << r.all();
  j = json::parse(r.out);
  EXPECT_NEAR(100 * j["mfu"].get<double>(), 37.4, 0.05);
  EXPECT_NEAR(j["mbu"].get<double>(), 66.2, 0.05);
  EXPECT_FALSE(j["plausible"].get<bool>());
  EXPECT_NE(j["causes"][0].get<std::string>().find("bandwidth roof"), std::string::npos) << j["causes"];
  r = run_roofline("mfu --model tinyllama-1.1b --phase decode --tpot 0.025 --device t4 --json");
  EXPECT_TRUE(json::parse(r.out)["plausible"].get<bool>());
  EXPECT_TRUE(json::parse(r.out)["causes"].empty());
}

// Prefill/train need --seq: the config's maximum is not the length that ran (Llama-3.1-8B's
// 131072 would turn 18.5% into 77%).
TEST(CliMfu, SeqIsRequiredForPrefillAndTrain) {
  for (const char* ph : {"train", "prefill"}) {
    const auto r = run_roofline(std::string("mfu --model llama-3-8b --phase ") + ph + " --tokens-per-s 3000 --device h100-sxm");
    EXPECT_EQ(r.code, 2) << r.all();
    EXPECT_NE(r.all().find("--seq"), std::string::npos) << r.all();
  }
  EXPECT_EQ(run_roofline("mfu --model llama-3-8b --phase train --tokens-per-s 3000 --seq 16384 --device h100-sxm").code, 2);  // > 8192
}

// Sliding window: Mistral-7B trains at 32768 tokens attending to 4096: 6N + 12·L·H·Q·4096 (full), and the
// headline counts matmul weights (N = 7,110,393,856), the all-parameter count is the alternative.
TEST(CliMfu, SlidingWindowAndMatmulOnlyHeadline) {
  const auto r = run_roofline("mfu --model mistral-7b --phase train --seq 32768 --tokens-per-s 3000 --device h100-sxm --causal full --json");
  ASSERT_EQ(r.code, 0) << r.all();
  const auto j = json::parse(r.out);
  const double attn = 12.0 * 32 * 4096 * 4096;
  EXPECT_DOUBLE_EQ(j["flops_per_token"].get<double>(), 6.0 * 7'110'393'856 + attn);  // 4.91e10, not 9.50e10
  EXPECT_DOUBLE_EQ(j["all_parameters_flops_per_token"].get<double>(), 6.0 * 7'241'732'096 + attn);  // 4.99e10
  EXPECT_NEAR(j["mfu"].get<double>(), (6.0 * 7'110'393'856 + attn) * 3000 / 989.4e12, 1e-3);
  EXPECT_NEAR(100 * j["all_parameters_mfu"].get<double>(), 15.1, 0.05);
}

// Recompute re-runs each layer's forward, not the embedding or the logits (Megatron): GPT-2 at
// 1024 tokens, full convention: HFU/MFU = (6N + 12LHQT + 2(N − V·h) + 4LHQT) ÷ (6N + 12LHQT).
TEST(CliMfu, RecomputeLeavesTheLogitsAlone) {
  const auto r = run_roofline("mfu --model gpt2 --phase train --seq 1024 --tokens-per-s 1000 --device h100-sxm --recompute --causal full --json");
  ASSERT_EQ(r.code, 0) << r.all();
  const auto j = json::parse(r.out);
  const double N = 12.0 * (768 * 3 * 768 + 768 * 768 + 2 * 768 * 3072) + 50257.0 * 768;
  const double a = 4.0 * 12 * 12 * 64 * 1024;
  EXPECT_NEAR(j["hfu"].get<double>() / j["mfu"].get<double>(), (6 * N + 3 * a + 2 * (N - 50257.0 * 768) + a) / (6 * N + 3 * a), 1e-12);
  EXPECT_LT(j["hfu"].get<double>() / j["mfu"].get<double>(), 1.3);  // 1.333 when the logits were recomputed too
  // `ops --recompute` re-runs the same per-layer ops: its step FLOPs rise by the same ratio (within
  // the elementwise and loss FLOPs the formula leaves out: 1.238 vs 1.243)
  auto flops = [](const std::string& extra) {
    const auto o = run_roofline("ops --model gpt2 --phase train --seq 1024 --causal full --json" + extra);
    return json::parse(o.out)["totals"]["flops"].get<double>();
  };
  EXPECT_NEAR(flops(" --recompute") / flops(""), j["hfu"].get<double>() / j["mfu"].get<double>(), 0.01);
}

// A framework's TPOT placed on the measured step curve: the H200 run of 2026-12-03
// (tests/data/h200-2026-12-03/results.json, `roofline run --device cuda:0`) measured TinyLlama's whole
// decode step at context 2048 in 1.229 ms at batch 1 and 1.951 ms at batch 32 (one CUDA graph each).
TEST(CliMfu, PlacesAFrameworkTpotOnTheMeasuredStepCurve) {
  results r = load_results(std::string(ROOFLINE_TEST_DATA) + "/h200-2026-12-03/results.json");
  step_sweep_plan plan;
  plan.context = 2048;
  plan.batches = {1, 32};
  r.step_sweep = plan;
  const auto path = std::filesystem::temp_directory_path() / "roofline_analysis_h200_step_sweep.json";
  std::ofstream(path) << json(r).dump(2);
  const std::string base = "mfu --model tinyllama-1.1b --phase decode --context 2048 --results " + path.string();
  const auto b1 = run_roofline(base + " --tpot 3.31ms --batch 1");
  ASSERT_EQ(b1.code, 0) << b1.out;
  EXPECT_NE(b1.out.find("your 3.31 ms at batch 1 is 2.69× roofline's attainable 1.23 ms (measured at batch 1"), std::string::npos)
      << b1.out;
  // batch 8, between the measured 1 and 32: log-log interpolation, said
  const auto b8 = run_roofline(base + " --tpot 3.31ms --batch 8 --json");
  ASSERT_EQ(b8.code, 0) << b8.out;
  const json j = json::parse(b8.out)["step_curve"];
  const double t1 = 1.2291839718818664e-3, t32 = 1.9512959718704225e-3;
  EXPECT_NEAR(j["measured_step_s"].get<double>(), t1 * std::pow(t32 / t1, std::log(8.0) / std::log(32.0)), 1e-15);
  EXPECT_NE(j["how"].get<std::string>().find("interpolated (log-log) between the measured steps at batch 1"), std::string::npos);
  const auto b64 = run_roofline(base + " --tpot 3.31ms --batch 64");
  EXPECT_NE(b64.out.find("on the step curve   unknown (batch 64 is outside the measured step sweep)"), std::string::npos) << b64.out;
  std::filesystem::remove(path);
}
