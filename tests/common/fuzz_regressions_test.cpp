// Inputs the fuzzers found (tests/fuzz): each must be an input_error, never a crash.
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>

#include "roofline/error.hpp"
#include "roofline/io.hpp"
#include "roofline/json.hpp"
#include "roofline/model.hpp"
#include "roofline/results.hpp"

using namespace roofline;

TEST(FuzzRegression, ResultsWithANumberThatOverflowsADouble) {
  // "268435E456" overflows a double: nlohmann throws out_of_range 406, not parse_error.
  const std::string path = std::string(ROOFLINE_TEST_DATA) + "/results-fuzz-number-overflow.json";
  EXPECT_THROW(parse_results(read_file(path), path), input_error);
}

TEST(FuzzRegression, ModelConfigWithANumberThatOverflowsADouble) {
  const std::string path = std::string(ROOFLINE_TEST_DATA) + "/model-fuzz-number-overflow.json";  // "1e706"
  EXPECT_THROW(parse_model_config(read_file(path), path), input_error);
}

// vocab_size 3,200,044,444,444,444 × hidden_size 4,096 overflows an int64 parameter count (UBSan: signed
// overflow in model_config::parameters): refused at parse time, naming the file
TEST(FuzzRegression, ModelConfigWhoseSizesOverflowTheParameterCount) {
  const std::string path = std::string(ROOFLINE_TEST_DATA) + "/model-fuzz-parameter-overflow.json";
  try {
    (void)parse_model_config(read_file(path), path);
    FAIL() << "parsed";
  } catch (const input_error& e) {
    EXPECT_NE(std::string(e.what()).find("model-fuzz-parameter-overflow.json"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("more parameters than this tool can count"), std::string::npos) << e.what();
  }
}

TEST(FuzzRegression, AnIntegerFieldOutsideItsTypeIsAnInputErrorNamingIt) {
  // fuzz_results (2026-12-01): "batch": 2e48 reached nlohmann's static_cast<long>(double), which is
  // undefined behaviour (UBSan: "2e+48 is outside the range of representable values of type 'long'").
  const std::string path = std::string(ROOFLINE_TEST_DATA) + "/results-cpu.json";
  json j = json::parse(read_file(path));
  ASSERT_FALSE(j["ops"].empty());
  const auto with = [&](const char* key, json v) {
    json k = j;
    k["ops"][0][key] = std::move(v);
    return k.dump();
  };
  for (json bad : {json(2e48), json(-2e48), json(9223372036854775808.0), json(2.5),
                   json(std::uint64_t{18446744073709551615ull})}) {
    try {
      parse_results(with("batch", bad), path);
      ADD_FAILURE() << "accepted batch = " << bad.dump();
    } catch (const input_error& e) {
      EXPECT_EQ(e.field(), "batch") << e.what();
      EXPECT_EQ(e.file(), path);
    }
  }
  // A whole number written as a float is the integer; an optional integer is checked alike.
  EXPECT_EQ(parse_results(with("batch", 4.0), path).ops[0].batch, 4);
  json w = j;
  w["whole_step"] = json::array({{{"phase", "decode"}, {"batch", 1}, {"context", 1e30}, {"measured_s", nullptr},
                                  {"predicted_s", 1e-3}, {"sum_of_ops_s", nullptr}}});
  EXPECT_THROW(parse_results(w.dump(), path), input_error);
  w["whole_step"][0]["context"] = 2048;
  EXPECT_EQ(parse_results(w.dump(), path).whole_step.at(0).context.value_or(0), 2048);
}

TEST(WrittenFiles, TheOutputListHasOneSlash) {
  EXPECT_EQ(written_files("cmp/", "compare.md,compare.svg"), "cmp/{compare.md,compare.svg}");
  EXPECT_EQ(written_files("out", "results.json"), "out/{results.json}");
  EXPECT_EQ(written_files("/tmp/x//", "a"), "/tmp/x/{a}");
}
