// Inputs the fuzzers found (tests/fuzz): each must be an input_error, never a crash.
#include <gtest/gtest.h>

#include "roofline/error.hpp"
#include "roofline/io.hpp"
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
