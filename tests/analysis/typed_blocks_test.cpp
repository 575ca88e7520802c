// The typed blocks of results.analysis (roofline/waterfall.hpp, ridge_analysis.hpp, decode_mfu.hpp,
// fusion_analysis.hpp, accuracy.hpp, batch_sweep.hpp, latency.hpp, record_table.hpp), members of
// analysis_results: values pinned from the fixtures, every block read back from its JSON unchanged, a
// block of another shape kept as read and named unreadable, and a schema 1.0 file re-analysed.
#include <gtest/gtest.h>

#include "roofline/analysis.hpp"
#include "roofline/json.hpp"
#include "roofline/model_record.hpp"
#include "roofline/io.hpp"
#include "roofline/latency.hpp"
#include "roofline/report.hpp"

using namespace roofline;

namespace {

/// What `roofline report` gives: the file as it loads it (an older file's model rebuilt from its
/// shipped config), analysed today.
results analysed(const std::string& fixture) {
  results r = load_results_with_model(std::string(ROOFLINE_TEST_DATA) + "/" + fixture);
  analyse(r);
  return r;
}

/// from_json ∘ to_json is the identity on the block analyse() wrote, and the struct read back
/// writes the same JSON again.
template <class T>
void expect_round_trip(const results& r, const char* key) {
  const json all = r.analysis;
  const json& written = all.at(key);
  const T back = written.get<T>();
  EXPECT_EQ(json(back), written) << key;
}

}  // namespace

TEST(TypedBlocks, EveryBlockReadsBackWhatAnalyseWrote) {
  for (const char* fixture : {"results-gpu.json", "results-cpu.json"}) {
    SCOPED_TRACE(fixture);
    const results r = analysed(fixture);
    expect_round_trip<compute_waterfall>(r, "compute_waterfall");
    expect_round_trip<bandwidth_waterfall>(r, "bandwidth_waterfall");
    expect_round_trip<ridge_analysis>(r, "ridge");
    expect_round_trip<decode_mfu>(r, "mfu");
    expect_round_trip<fusion_analysis>(r, "fusion");
    expect_round_trip<prediction_accuracy>(r, "accuracy");
    expect_round_trip<std::vector<record_row>>(r, "record_table");
    expect_round_trip<std::vector<std::string>>(r, "roofline_gaps");
  }
}

TEST(TypedBlocks, TheLatencyModelReadsBackWhatItWrote) {
  // the small-work model of each fixture's measurements (floor, latency, GEMM rates by size; the
  // fixtures measured no ramp or rows: EveryFieldOfTheLatencyModelReadsBack covers every field)
  for (const char* fixture : {"results-gpu.json", "results-cpu.json"}) {
    SCOPED_TRACE(fixture);
    const results r = load_results(std::string(ROOFLINE_TEST_DATA) + "/" + fixture);
    const latency_model m = latency_model_from(r.measured, r.device.kind, r.roofline.precision);
    const json written = m;
    ASSERT_TRUE(written.contains("floor_s"));
    const latency_model back = written.get<latency_model>();
    EXPECT_EQ(json(back), written);
    EXPECT_EQ(back.floor_s, m.floor_s);
    EXPECT_EQ(back.ramp.size(), m.ramp.size());
    EXPECT_EQ(back.gemm_rows.size(), m.gemm_rows.size());  // one curve per weight, as measured
  }
}

TEST(TypedBlocks, EveryFieldOfTheLatencyModelReadsBack) {
  // each field set, two rows curves of the model's weights and the fixed one: the JSON read back is
  // the model, field for field, and a block with a null floor is not read (kept as it was)
  latency_model m;
  m.floor_s = 0.82e-6, m.latency_s = 0.8e-6, m.switch_s = 0.03e-6;
  m.ramp = {{4096, 1.1e-6}, {1 << 20, 2.5e-6}};
  m.gemm_rate = {{512, 40e12}, {4096, 700e12}};
  m.gemm_rows = {{5632, 2048, "gate_proj, up_proj", {{1, 2e12}, {256, 300e12}}},
                 {256, 2048, "k_proj, v_proj", {{1, 0.4e12}}},
                 {2048, 2048, "", {{1, 1e9}, {8, 8e9}}}};
  m.serial_below_elements = 4096, m.serial_floor_s = 0.3e-6, m.serial_ramp = {{4096, 0.5e-6}};
  m.attention_rates = {{64, 1e11, 2e11, 3e10, 16}};
  m.fused_rates = {{64, 2048, 300e12}};
  m.decode_rates = {{32, 4, 64, 2048, 1, 5e12}};
  m.write_cost = 2.0, m.write_in_place = {"rmsnorm", "rope"};
  m.source = "measured: test";
  const json written = m;
  const latency_model back = written.get<latency_model>();
  EXPECT_EQ(json(back), written);
  ASSERT_EQ(back.gemm_rows.size(), 3u);
  EXPECT_EQ(back.gemm_rows[0].linears, "gate_proj, up_proj");
  EXPECT_EQ(back.gemm_rows[0].points.size(), 2u);
  EXPECT_EQ(back.gemm_rows[2].linears, "");
  EXPECT_EQ(back.serial_below_elements, 4096);
  EXPECT_DOUBLE_EQ(back.ramp.at(1).seconds, 2.5e-6);
  EXPECT_DOUBLE_EQ(*back.write_cost, 2.0);
  EXPECT_DOUBLE_EQ(back.decode_rates.at(0).keys, 2048);
  json null_floor = written;
  null_floor["floor_s"] = nullptr;
  EXPECT_THROW(null_floor.get<latency_model>(), json::exception);
  const analysis_results a = json{{"latency_model", null_floor}}.get<analysis_results>();
  EXPECT_FALSE(a.latency_model);
  EXPECT_TRUE(a.unreadable.count("latency_model"));
  EXPECT_EQ(json(a)["latency_model"], null_floor);  // kept as it was read
}

TEST(TypedBlocks, AWholeResultsFileKeepsItsAnalysisThroughItsJson) {
  results r = analysed("results-gpu.json");
  r.analysis.tpot_input = user_step_time{3.31e-3, 1, "--tpot"};
  const json written = r.analysis;
  const results back = parse_results(render_json(r), "back.json");
  EXPECT_EQ(json(back.analysis), written);
  ASSERT_TRUE(back.analysis.tpot_input);
  EXPECT_DOUBLE_EQ(back.analysis.tpot_input->tpot_s, 3.31e-3);
  EXPECT_TRUE(back.analysis.unreadable.empty());
  EXPECT_TRUE(back.analysis.other->empty());
}

TEST(TypedBlocks, RidgeOfTheGpuFixture) {
  // fp16: measured 712 TFLOP/s ÷ 4.21 TB/s = 169.12 FLOP/B against nominal 989.4 ÷ 4.8 = 206.125:
  // moved −17.95%, within 20% but not 10%.
  const ridge_analysis a = analysed("results-gpu.json").analysis.ridge.value();
  EXPECT_EQ(a.default_precision, "fp16");
  EXPECT_TRUE(a.gaps.empty());
  ASSERT_EQ(a.per_precision.size(), 3u);
  const ridge_row& fp16 = a.per_precision[0];
  EXPECT_EQ(fp16.precision, "fp16");
  EXPECT_NEAR(*fp16.ridge_measured, 712e12 / 4.21e12, 1e-9);
  EXPECT_DOUBLE_EQ(*fp16.ridge_nominal, 206.125);
  EXPECT_NEAR(*fp16.relative_move, (712e12 / 4.21e12) / 206.125 - 1, 1e-12);
  EXPECT_EQ(fp16.within_20_percent, true);
  EXPECT_EQ(fp16.within_10_percent, false);
  EXPECT_EQ(fp16.verdict, "holds: the ridge moved -18%");
  // The CPU fixture has no nominal bandwidth: the ridge cannot move, and the gap says why.
  const ridge_analysis c = analyse_ridge(analysed("results-cpu.json"));
  EXPECT_FALSE(c.per_precision.at(0).relative_move);
  EXPECT_EQ(c.gaps, (std::vector<std::string>{"bandwidth_nominal: unknown (see nominal.memory_bandwidth_reason)",
                                              "ridge_nominal: needs both nominal roofs"}));
}

TEST(TypedBlocks, WaterfallStepsOfTheGpuFixture) {
  const results r = analysed("results-gpu.json");
  const compute_waterfall w = analyse_compute_waterfall(r);
  ASSERT_EQ(w.per_precision.size(), 3u);  // bf16, fp16, fp32
  const compute_waterfall_precision& fp16 = w.per_precision[1];
  ASSERT_EQ(fp16.precision, "fp16");
  ASSERT_EQ(fp16.steps.size(), 5u);
  EXPECT_DOUBLE_EQ(*fp16.steps[1].factor, 1755.0 / 1830.0);          // sustained ÷ datasheet clock
  EXPECT_DOUBLE_EQ(*fp16.steps[2].factor, 1024.0 / (132.0 * 8.0));   // 7.76 waves run as 8
  EXPECT_NEAR(fp16.steps[4].percent_of_nominal, 100 * 712e12 / 989.4e12, 1e-9);  // ends at the measurement
  EXPECT_EQ(fp16.remainder_trend, "remainder 2.58 at n=512 → 0.77 at n=4096");
  // The bandwidth gap: best 4.21 of 4.8 TB/s = 12.29%; the estimates span 4–31.25%.
  const bandwidth_waterfall b = analyse_bandwidth_waterfall(r);
  EXPECT_NEAR(*b.gap_percent, 100 - 100 * 4.21 / 4.8, 1e-9);
  EXPECT_DOUBLE_EQ(*b.estimated_overheads_low_percent, 4.0);
  EXPECT_DOUBLE_EQ(*b.estimated_overheads_high_percent, 31.25);
  EXPECT_DOUBLE_EQ(*b.unattributed_low_percent, 0.0);
  EXPECT_NEAR(*b.l2.ratio_to_dram, 9.8 / 4.21, 1e-12);
  EXPECT_EQ(b.ecc.state, "on");
  EXPECT_EQ(b.steps.at(1).pattern, "write");
}

TEST(TypedBlocks, MfuAccuracyAndFusionOfTheGpuFixture) {
  const results r = analysed("results-gpu.json");
  const decode_mfu m = analyse_mfu(r);
  ASSERT_EQ(m.scenarios.size(), 2u);
  EXPECT_DOUBLE_EQ(*m.scenarios[0].tpot_s, 1.112e-3);  // Σ measured op time × count at batch 1
  EXPECT_EQ(m.scenarios[0].tpot_source, "sum of isolated ops");
  EXPECT_EQ(m.scenarios[0].mfu, m.scenarios[0].hfu);
  // The 2N rule of thumb is model_flops_per_token's weights term: N = TinyLlama's 1,034,420,224
  // matmul weights (not its 1,100,048,384 parameters, which count the embedding table).
  EXPECT_DOUBLE_EQ(*m.rule_of_thumb_flops_per_token, 2.0 * 1034420224);
  EXPECT_NE(m.rule_of_thumb.find("matmul weights"), std::string::npos);
  const prediction_accuracy a = analyse_accuracy(r);
  EXPECT_EQ(a.ops_counted, 15);
  EXPECT_EQ(a.ops_long, 3);
  EXPECT_NEAR(*a.median_abs_error, 0.099, 1e-3);
  EXPECT_EQ(a.meets_target, true);
  const fusion_analysis f = analyse_fusion(r);
  EXPECT_EQ(f.note, "no scenario has silu, mul and silu_mul ops");
  ASSERT_EQ(f.predicted.savings.size(), 22u);
  EXPECT_EQ(f.predicted.savings[0].name, "silu_mul");
  EXPECT_DOUBLE_EQ(f.predicted.savings[0].bytes_saved_per_step, 22 * (56320.0 - 33792.0));
}

TEST(TypedBlocks, BatchSweepRoundTripsWithItsKnees) {
  batch_sweep s;
  s.shapes.push_back({"gate", 2048, 2048, "fp16", {}, std::nullopt, std::nullopt});
  for (const auto& [b, t] : std::vector<std::pair<int, double>>{{1, 9e-6}, {8, 11e-6}, {256, 80e-6}})
    s.shapes[0].points.push_back({b, 0.5 * b, 0, 0, 1e-6, t, 1e9, "", "ours"});
  s.shapes[0].points.push_back({512, 256, 0, 0, 1e-6, std::nullopt, std::nullopt, "not run", std::nullopt});
  const batch_sweep k = analyse_batch_sweep(s, 100.0);
  EXPECT_EQ(k.shapes[0].knee_predicted, 111);
  EXPECT_DOUBLE_EQ(*k.shapes[0].knee_measured, 10e-6 / (80e-6 / 256));  // median(9, 11) µs ÷ (80 µs / 256)
  const json j = k;
  EXPECT_EQ(j["points"], j["shapes"][0]["points"]);  // the trace drawn
  EXPECT_TRUE(j["shapes"][0]["points"][3]["measured_s"].is_null());
  EXPECT_FALSE(j["shapes"][0]["points"][3].contains("implementation"));
  EXPECT_EQ(json(j.get<batch_sweep>()), j);
}

TEST(TypedBlocks, ABlockOfAnotherShapeIsNotReadAndTheReportSaysSo) {
  results r = analysed("results-gpu.json");
  json a = r.analysis;
  a["ridge"] = json::array({1, 2});
  a["compute_waterfall"] = {{"fp16", json::array()}};  // a 1.0-era shape: no per_precision
  r.analysis = a.get<analysis_results>();              // read as a results file is read: no throw
  EXPECT_FALSE(r.analysis.ridge);
  EXPECT_FALSE(r.analysis.compute_waterfall);
  EXPECT_TRUE(r.analysis.unreadable.count("ridge"));
  EXPECT_TRUE(r.analysis.unreadable.count("compute_waterfall"));
  EXPECT_TRUE(r.analysis.mfu);                            // the readable blocks are read
  EXPECT_EQ(json(r.analysis)["ridge"], json::array({1, 2}));  // kept as read: writing the file loses nothing
  EXPECT_FALSE(results{}.analysis.mfu);                   // absent: nothing, no error
  EXPECT_THROW(json::array().get<analysis_results>(), json::exception);  // not an object: the file is refused
  // the attribution is per-point detail: report.html's collapsed section says so (report.md points there)
  const std::string html = render_html(r);
  EXPECT_NE(html.find("analysis.ridge is not readable"), std::string::npos);
  EXPECT_NE(html.find("analysis.compute_waterfall is not readable"), std::string::npos);
}

TEST(SchemaVersion, A10FileIsReanalysedA11FileKeepsItsAnalysis) {
  // results-cpu.json is schema 1.0 with an empty analysis: re-analysed, every typed block appears.
  results old = load_results(std::string(ROOFLINE_TEST_DATA) + "/results-cpu.json");
  ASSERT_EQ(old.schema_version, "1.0");
  ASSERT_FALSE(old.analysis.ridge);
  EXPECT_TRUE(reanalyse_if_older(old));
  const json blocks = old.analysis;
  for (const char* k : {"compute_waterfall", "bandwidth_waterfall", "ridge", "mfu", "fusion", "accuracy", "record_table"})
    EXPECT_TRUE(blocks.contains(k)) << k;
  EXPECT_NEAR(old.analysis.ridge->per_precision.at(0).ridge_measured.value(), 15.306122448979592, 1e-12);
  // A 1.1 file is rendered from the analysis it carries.
  results now = parse_results(render_json(old), "now.json");
  now.schema_version = schema_version;
  now.analysis.other["note_kept"] = "yes";  // a key a later version wrote
  EXPECT_FALSE(reanalyse_if_older(now));
  EXPECT_EQ(json(now.analysis)["note_kept"], "yes");
  EXPECT_EQ(json(parse_results(render_json(now), "again.json").analysis)["note_kept"], "yes");
}
