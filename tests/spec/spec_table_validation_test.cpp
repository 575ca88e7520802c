// A malformed table file -> input_error naming the file and the field.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include <unistd.h>

#include "roofline/error.hpp"
#include "roofline/json.hpp"
#include "roofline/spec.hpp"

using namespace roofline;
namespace fs = std::filesystem;

namespace {

json turing() {
  std::ifstream in(std::string(ROOFLINE_SOURCE_DIR) + "/data/devices/nvidia-turing.json");
  return json::parse(in);
}

/// Writes `j` as the only table file of a fresh directory; returns (dir, file).
std::pair<std::string, std::string> write_table(const json& j, const std::string& tag) {
  const fs::path dir = fs::temp_directory_path() / ("roofline_spec_" + tag + "_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  const fs::path file = dir / "nvidia-test.json";
  std::ofstream(file) << j.dump(2);
  return {dir.string(), file.string()};
}

void expect_error(const json& j, const std::string& tag, const std::string& field, const std::string& problem) {
  const auto [dir, file] = write_table(j, tag);
  try {
    load_device_table_names(dir);
    FAIL() << "expected input_error for " << field;
  } catch (const input_error& e) {
    EXPECT_EQ(e.file(), file);
    EXPECT_EQ(e.field(), field);
    EXPECT_NE(std::string(e.what()).find(problem), std::string::npos) << e.what();
  }
  fs::remove_all(dir);
}

}  // namespace

TEST(SpecTableValidation, TheShippedTableLoads) {
  EXPECT_GE(load_device_table_names(device_table_dir()).size(), 18u);
}

TEST(SpecTableValidation, MissingField) {
  json j = turing();
  j["skus"][0].erase("sms");
  expect_error(j, "missing", "skus[0].sms", "missing required field");
}

TEST(SpecTableValidation, WrongType) {
  json j = turing();
  j["skus"][0]["memory"]["bus_width_bits"]["value"] = "256";
  expect_error(j, "type", "skus[0].memory.bus_width_bits.value", "expected number");
}

TEST(SpecTableValidation, NegativeNumber) {
  json j = turing();
  j["chips"][0]["tensor_rates"][1]["dense_fma_per_tc_per_clock"] = -64;
  expect_error(j, "negative", "chips[0].tensor_rates[1].dense_fma_per_tc_per_clock", "finite number > 0");
}

TEST(SpecTableValidation, MissingSource) {
  json j = turing();
  j["skus"][0]["boost_clock_mhz"].erase("source");
  expect_error(j, "source", "skus[0].boost_clock_mhz.source", "missing required field");
}

TEST(SpecTableValidation, UnknownChip) {
  json j = turing();
  j["skus"][0]["chip"] = "TU999";
  expect_error(j, "chip", "skus[0].chip", "not one of this file's chips");
}

// A row may leave out its PCIe link or its datasheet only by saying why, and withhold a peak only with
// a reason and a known engine (the Jetson, A10G/L20 and L20/B300 rows use each).
TEST(SpecTableValidation, NullPcieNeedsAReason) {
  json j = turing();
  j["skus"][0]["links"]["pcie"] = nullptr;
  expect_error(j, "pcie", "skus[0].links.pcie_reason", "missing required field");
}

TEST(SpecTableValidation, NullDatasheetNeedsAReason) {
  json j = turing();
  j["skus"][0]["datasheet"] = nullptr;
  expect_error(j, "datasheet", "skus[0].datasheet_reason", "missing required field");
}

TEST(SpecTableValidation, UnknownPeakNeedsAKnownEngine) {
  json j = turing();
  j["skus"][0]["unknown_peaks"] = json::array({json{{"precision", "fp16"}, {"engine", "matrix"}, {"reason", "x"}}});
  expect_error(j, "unknown", "skus[0].unknown_peaks[0].engine", "must be");
  j["skus"][0]["unknown_peaks"] = json::array({json{{"precision", "fp16"}, {"engine", "tensor"}}});
  expect_error(j, "unknown2", "skus[0].unknown_peaks[0].reason", "missing required field");
}

TEST(SpecTableValidation, NotJson) {
  const fs::path dir = fs::temp_directory_path() / ("roofline_spec_nan_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  std::ofstream(dir / "bad.json") << R"({"vendor": "NVIDIA", "value": NaN})";
  try {
    load_device_table_names(dir.string());
    FAIL();
  } catch (const input_error& e) {
    EXPECT_EQ(e.file(), (dir / "bad.json").string());
    EXPECT_NE(std::string(e.what()).find("not valid JSON"), std::string::npos);
  }
  fs::remove_all(dir);
}
