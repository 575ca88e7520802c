// model.config of results.json (roofline/model_record.hpp): the parsed model config stored typed, so
// that analyse() rebuilds the model from the file alone and `roofline report` of a results.json made
// on another machine renders the same sections as on the machine that made it.
#include "roofline/json.hpp"
#include "roofline/model_record.hpp"

#include <gtest/gtest.h>

#include <filesystem>

#include "roofline/analysis.hpp"
#include "roofline/error.hpp"
#include "roofline/fusion_analysis.hpp"
#include "roofline/decode_mfu.hpp"
#include "roofline/report.hpp"
#include "roofline/results.hpp"

namespace fs = std::filesystem;

namespace roofline {
namespace {

/// Σ FLOPs and bytes of a decode step at batch 4, context 512 or the model's positions less one (fp16):
/// the catalogue a config gives.
std::pair<double, double> decode_totals(const model_config& c) {
  catalogue_options o;
  o.ph = phase::decode, o.batch = 4, o.dtype = "fp16";
  o.context = c.max_positions > 1 ? std::min<std::int64_t>(512, c.max_positions - 1) : 512;
  double f = 0, b = 0;
  for (const auto& op : build_catalogue(c, o)) f += op.flops * op.count, b += op.bytes() * op.count;
  return {f, b};
}

std::vector<std::string> config_files() {
  std::vector<std::string> v;
  for (const auto& n : shipped_models()) v.push_back(resolve_model_path(n));
  for (const char* dir : {"/model", "/model/walk", "/model/quant"})
    for (const auto& e : fs::directory_iterator(std::string(ROOFLINE_TEST_DATA) + dir))
      if (e.path().extension() == ".json") v.push_back(e.path().string());
  return v;
}

/// The H200 run of 2026-12-03 (written before model.config stored the parsed config: its config is
/// the 8-key summary), with its model.source as given.
results h200_with_source(const std::string& source) {
  results r = load_results(std::string(ROOFLINE_TEST_DATA) + "/h200-2026-12-03/results.json");
  r.model->source = source;
  return r;
}

}  // namespace

TEST(ModelRecord, EveryConfigReadsBackToTheSameModel) {
  int checked = 0;
  for (const auto& path : config_files()) {
    model_config c;
    try {
      c = load_model_config(path);
    } catch (const input_error&) {
      continue;  // the malformed configs among the test data
    }
    const json j = model_config_json(c);
    ASSERT_TRUE(is_stored_model_config(j)) << path;
    const model_config back = model_config_from_json(json::parse(j.dump()), "results.json");
    EXPECT_EQ(model_config_json(back), j) << path << ": a field written is not read back";
    EXPECT_EQ(back.parameters(), c.parameters()) << path;
    EXPECT_EQ(decode_totals(back), decode_totals(c)) << path;
    ++checked;
  }
  EXPECT_GE(checked, 30);  // 8 shipped models, the walk and quantized configs
}

TEST(ModelRecord, AMalformedConfigNamesTheFieldAndTheFile) {
  json j = model_config_json(load_model_config(resolve_model_path("tinyllama-1.1b")));
  auto error = [](const json& x) {
    try {
      model_config_from_json(x, "run.json");
    } catch (const input_error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  json a = j;
  a["hidden"] = "wide";
  EXPECT_EQ(error(a), "run.json: model.config.hidden: expected an integer, got string");
  a = j;
  a["layers"] = 22.5;
  EXPECT_EQ(error(a), "run.json: model.config.layers: 22.5 is not a whole number");
  a = j;
  a["vocab"] = 2e48;  // the fuzzer's number: a double out of an int64's range is never cast
  EXPECT_EQ(error(a), "run.json: model.config.vocab: 2e+48 does not fit in an integer field");
  a = j;
  a["weights"]["linear"]["layout"] = "diagonal";
  EXPECT_EQ(error(a), "run.json: model.config.weights.linear.layout: 'diagonal' is not a scale layout");
  // The older 8-key summary (HuggingFace names) is not a stored config.
  EXPECT_FALSE(is_stored_model_config(json{{"hidden_size", 2048}, {"num_hidden_layers", 22}}));
  EXPECT_FALSE(is_stored_model_config(json::object()));
}

// `roofline report` of a results.json made on another machine (its model.source a path of that
// machine) renders the same sections as on the machine that made it: the rule of thumb and the fusion
// savings come from the stored config, never from model.source.
TEST(ModelRecord, AReportOfAFileFromAnotherMachineRendersEverySection) {
  // The machine that made it: model.source readable (a shipped model, found from any directory).
  results here = h200_with_source("models/tinyllama-1.1b.json");
  ASSERT_FALSE(is_stored_model_config(here.model->config));
  ASSERT_TRUE(attach_model_config(here, "results.json"));  // an older file: rebuilt where readable
  ASSERT_TRUE(is_stored_model_config(here.model->config));
  // Another machine: the same file, as a run writes it now (the config stored), its source path not here.
  results there = here;
  there.model->source = "/home/someone/hf/TinyLlama-1.1B/config.json";
  ASSERT_FALSE(fs::exists(there.model->source));
  ASSERT_TRUE(attach_model_config(there, "results.json"));  // stored: nothing to read
  analyse(here);
  analyse(there);
  ASSERT_TRUE(here.analysis.mfu && there.analysis.mfu && here.analysis.fusion && there.analysis.fusion);
  // TinyLlama's 1,034,420,224 matmul weights: 2N = 2,068,840,448 FLOPs per token (PaLM app. B).
  ASSERT_TRUE(there.analysis.mfu->rule_of_thumb_flops_per_token.has_value()) << there.analysis.mfu->rule_of_thumb;
  EXPECT_DOUBLE_EQ(*there.analysis.mfu->rule_of_thumb_flops_per_token, 2.0 * 1034420224);
  EXPECT_EQ(json(*there.analysis.mfu), json(*here.analysis.mfu));
  EXPECT_FALSE(there.analysis.fusion->predicted.savings.empty());
  EXPECT_EQ(json(*there.analysis.fusion), json(*here.analysis.fusion));
  const std::string md = render_markdown(there);
  EXPECT_NE(md.find("rule of thumb: 2N FLOPs per generated token"), std::string::npos);
  // The stored config survives the round trip through results.json.
  const results reread = parse_results(render_json(there), "results.json");
  EXPECT_EQ(*reread.model->config, *there.model->config);
}

TEST(ModelRecord, AnOlderFileWhoseModelCannotBeRebuiltSaysSoInTheSectionsItAffects) {
  results r = h200_with_source("/home/someone/hf/TinyLlama-1.1B/config.json");
  std::string why;
  EXPECT_FALSE(attach_model_config(r, "results.json", &why));
  EXPECT_NE(why.find("not readable here"), std::string::npos) << why;
  analyse(r);
  ASSERT_TRUE(r.analysis.mfu && r.analysis.fusion);
  EXPECT_FALSE(r.analysis.mfu->rule_of_thumb_flops_per_token.has_value());
  EXPECT_EQ(r.analysis.mfu->rule_of_thumb.rfind("none (the model cannot be rebuilt: this results.json does not store its parsed "
                                               "config",
                                               0),
            0u)
      << r.analysis.mfu->rule_of_thumb;
  EXPECT_NE(r.analysis.fusion->predicted.note.find("/home/someone/hf/TinyLlama-1.1B/config.json"), std::string::npos)
      << r.analysis.fusion->predicted.note;
  // Said where it matters: the MFU section carries the rule of thumb's reason, not only an appendix.
  const std::string md = render_markdown(r);
  EXPECT_NE(md.find("rule of thumb: none (the model cannot be rebuilt"), std::string::npos);
}

}  // namespace roofline
