// Config parsing and exact parameter counts against the published totals (HuggingFace safetensors
// metadata of each repository, models/README.md).
#include <gtest/gtest.h>

#include "roofline/error.hpp"
#include "roofline/model.hpp"

using namespace roofline;

namespace {

model_config shipped(const std::string& name) { return load_model_config(resolve_model_path(name)); }

/// The field an input_error names, or "" when `f` does not throw one.
template <class F>
std::pair<std::string, std::string> error_of(F f) {
  try {
    f();
  } catch (const input_error& e) {
    return {e.file(), e.field()};
  }
  return {"", ""};
}

const char* tiny = R"({"model_type": "llama", "hidden_size": 2048, "intermediate_size": 5632,
  "num_hidden_layers": 22, "num_attention_heads": 32, "num_key_value_heads": 4, "vocab_size": 32000})";

std::string with(std::string text, const std::string& from, const std::string& to) {
  text.replace(text.find(from), from.size(), to);
  return text;
}

}  // namespace

TEST(ModelConfig, PublishedParameterCountsExactly) {
  EXPECT_EQ(shipped("tinyllama-1.1b").parameters(), 1'100'048'384);
  EXPECT_EQ(shipped("llama-2-7b").parameters(), 6'738'415'616);
  EXPECT_EQ(shipped("llama-3-8b").parameters(), 8'030'261'248);
  EXPECT_EQ(shipped("mistral-7b").parameters(), 7'241'732'096);
  EXPECT_EQ(shipped("qwen2.5-0.5b").parameters(), 494'032'768);
  EXPECT_EQ(shipped("qwen2.5-7b").parameters(), 7'615'616'512);
  EXPECT_EQ(shipped("gpt2").parameters(), 124'439'808);
}

TEST(ModelConfig, TinyLlamaShape) {
  const auto c = shipped("tinyllama-1.1b");
  EXPECT_EQ(c.family, "llama");
  EXPECT_EQ(c.hidden, 2048);
  EXPECT_EQ(c.intermediate, 5632);
  EXPECT_EQ(c.layers, 22);
  EXPECT_EQ(c.heads, 32);
  EXPECT_EQ(c.kv_heads, 4);
  EXPECT_EQ(c.head_dim, 64);
  EXPECT_EQ(c.vocab, 32000);
  EXPECT_FALSE(c.tied_embeddings);
  EXPECT_FALSE(c.attention_bias);
}

TEST(ModelConfig, EveryShippedModelParses) {
  const auto names = shipped_models();
  ASSERT_EQ(names.size(), 8u);
  for (const auto& n : names) {
    const auto c = shipped(n);
    EXPECT_GT(c.parameters(), 0) << n;
    EXPECT_EQ(c.heads % c.kv_heads, 0) << n;
  }
  EXPECT_EQ(shipped("llama-2-7b").kv_heads, 32);  // MHA
  EXPECT_EQ(shipped("llama-3-8b").kv_heads, 8);   // GQA
  const auto q = shipped("qwen2.5-0.5b");
  EXPECT_TRUE(q.attention_bias);
  EXPECT_FALSE(q.o_proj_bias);
  EXPECT_TRUE(q.tied_embeddings);
  const auto g = shipped("gpt2");
  EXPECT_EQ(g.family, "gpt2");
  EXPECT_EQ(g.intermediate, 3072);
  EXPECT_EQ(g.max_positions, 1024);
  EXPECT_TRUE(g.tied_embeddings);
}

TEST(ModelConfig, MqaWithoutKvKeyDefaultsToMha) {
  const auto mha = parse_model_config(with(tiny, R"("num_key_value_heads": 4)", R"("num_key_value_heads": null)"), "m.json");
  EXPECT_EQ(mha.kv_heads, 32);
  const auto mqa = parse_model_config(with(tiny, R"("num_key_value_heads": 4)", R"("num_key_value_heads": 1)"), "m.json");
  EXPECT_EQ(mqa.kv_heads, 1);
}

TEST(ModelConfig, BadConfigsNameFileAndField) {
  using P = std::pair<std::string, std::string>;
  EXPECT_EQ(error_of([] { parse_model_config(with(tiny, R"("hidden_size": 2048, )", ""), "a.json"); }),
            P("a.json", "hidden_size"));
  EXPECT_EQ(error_of([] { parse_model_config(with(tiny, R"("hidden_size": 2048)", R"("hidden_size": "2048")"), "b.json"); }),
            P("b.json", "hidden_size"));
  EXPECT_EQ(error_of([] { parse_model_config(with(tiny, R"("hidden_size": 2048)", R"("hidden_size": 2048.5)"), "b.json"); }),
            P("b.json", "hidden_size"));
  EXPECT_EQ(error_of([] { parse_model_config(with(tiny, R"("num_hidden_layers": 22)", R"("num_hidden_layers": 0)"), "c.json"); }),
            P("c.json", "num_hidden_layers"));
  EXPECT_EQ(error_of([] { parse_model_config(with(tiny, R"("num_attention_heads": 32)", R"("num_attention_heads": 30)"), "d.json"); }),
            P("d.json", "num_attention_heads"));
  EXPECT_EQ(error_of([] { parse_model_config(with(tiny, R"("num_key_value_heads": 4)", R"("num_key_value_heads": 5)"), "e.json"); }),
            P("e.json", "num_key_value_heads"));
  EXPECT_EQ(error_of([] { parse_model_config(with(tiny, R"("llama")", R"("bert")"), "f.json"); }), P("f.json", "model_type"));
  EXPECT_EQ(error_of([] { parse_model_config("{not json", "g.json"); }).first, "g.json");
  EXPECT_EQ(error_of([] { load_model_config(std::string(ROOFLINE_TEST_DATA) + "/model/bad_gpt2.json"); }).second, "n_head");
}

TEST(ModelConfig, ResolvesNamesAndPaths) {
  const std::string p = resolve_model_path("tinyllama-1.1b");
  EXPECT_NE(p.find("models/tinyllama-1.1b.json"), std::string::npos);
  EXPECT_EQ(resolve_model_path(p), p);
  EXPECT_EQ(error_of([] { resolve_model_path("no-such-model"); }).second, "--model");
}
