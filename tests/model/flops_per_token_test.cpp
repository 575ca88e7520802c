// The one FLOPs-per-token model (`ops` and `mfu` both print it), pinned to numbers computed by hand.
#include <gtest/gtest.h>

#include "roofline/error.hpp"
#include "roofline/model.hpp"

using namespace roofline;

namespace {
model_config llama_3_8b() { return load_model_config(resolve_model_path("llama-3-8b")); }
constexpr flops_convention full_attention{flops_convention::params::matmul, false};
constexpr flops_convention all_parameters{flops_convention::params::all, true};
}  // namespace

// Llama-3-8B (32 layers, hidden 4096, 32 query heads and 8 KV heads of 128, MLP 14336, vocab 128256),
// training at T = 4096, the default convention:
//   N = 32·(4096·4096 + 2·4096·1024 + 4096·4096) + 32·3·4096·14336 + 128256·4096
//     = 1,342,177,280 + 5,637,144,576 + 525,336,576 = 7,504,658,432 matmul weights
//   6N                = 45,027,950,592
//   6·L·H·Q·T (halved) = 6·32·32·128·4096 = 3,221,225,472
//   total             = 48,249,176,064 FLOP per token (48.2 GFLOP)
// Full attention (PaLM appendix B, 12·L·H·Q·T) adds another 3,221,225,472: 51,470,401,536.
// Every parameter (8,030,261,248, the embedding table too): 6·8,030,261,248 + 3,221,225,472 = 51,402,792,960.
TEST(FlopsPerToken, Llama3_8BTrainAt4096) {
  const model_config c = llama_3_8b();
  const token_flops f = model_flops_per_token(c, phase::train, 4096);
  EXPECT_EQ(f.n, 7'504'658'432.0);
  EXPECT_EQ(f.weights, 45'027'950'592.0);
  EXPECT_EQ(f.attention, 3'221'225'472.0);
  EXPECT_EQ(f.total, 48'249'176'064.0);
  EXPECT_EQ(f.formula, "6N + 6·L·H·Q·T");
  EXPECT_NE(f.description.find("causal-halved"), std::string::npos) << f.description;
  EXPECT_NE(f.description.find("7504658432 matmul weights"), std::string::npos) << f.description;
  EXPECT_EQ(model_flops_per_token(c, phase::train, 4096, full_attention).total, 51'470'401'536.0);
  EXPECT_EQ(model_flops_per_token(c, phase::train, 4096, full_attention).formula, "6N + 12·L·H·Q·T");
  EXPECT_EQ(model_flops_per_token(c, phase::train, 4096, all_parameters).total, 51'402'792'960.0);
}

// Decode has no mask: one query against C cached keys, 2N + 4·L·H·Q·C whatever the convention.
// Llama-3-8B, C = 2048: 2·7,504,658,432 + 4·32·32·128·2048 = 15,009,316,864 + 1,073,741,824 = 16,083,058,688.
TEST(FlopsPerToken, DecodeCountsTheWholeCache) {
  const model_config c = llama_3_8b();
  EXPECT_EQ(model_flops_per_token(c, phase::decode, 2048).total, 16'083'058'688.0);
  EXPECT_EQ(model_flops_per_token(c, phase::decode, 2048, full_attention).total, 16'083'058'688.0);
  EXPECT_EQ(model_flops_per_token(c, phase::decode, 2048).formula, "2N + 4·L·H·Q·C");
  EXPECT_EQ(model_flops_per_token(c, phase::decode, 2048).recompute, 0.0);
  EXPECT_THROW(model_flops_per_token(c, phase::decode, 0), input_error);
}
