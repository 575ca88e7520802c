// `roofline place --csv FILE`: roofline's own kernel CSV and Nsight Compute exports (long form and
// raw page), each number worked by hand from the fixture.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

#include "roofline/ingest.hpp"
#include "roofline/error.hpp"
#include "common/run_binary.hpp"
#include "roofline/io.hpp"
#include "roofline/json.hpp"

namespace fs = std::filesystem;
using namespace roofline;
using roofline::test::run_roofline;

namespace {

std::string data(const std::string& f) { return std::string(ROOFLINE_TEST_DATA) + "/" + f; }

/// One kernel as `place` places it: its name, every FLOP counted (all precisions and engines), its
/// DRAM bytes and time; read through the one reader entry, ingest::read_any.
struct kernel_row {
  std::string name, id;
  double flops = 0, bytes = 0, seconds = 0;
  std::string note;
};
std::vector<kernel_row> read_kernels(const std::string& path) {
  std::vector<kernel_row> out;
  for (const auto& k : ingest::read_any(path).kernels) {
    kernel_row r{k.name, k.id, 0, 0, k.duration_s, k.note};
    for (const auto& f : k.flops) r.flops += f.flops;
    for (const auto& b : k.bytes)
      if (b.level == "dram") r.bytes += b.bytes;
    out.push_back(r);
  }
  return out;
}

TEST(PlaceCsv, NsightComputeLongForm) {
  const auto k = read_kernels(data("ncu-details.csv"));
  ASSERT_EQ(k.size(), 3u);
  // sgemm: 4096³ = 68,719,476,736 FFMA → 2 FLOP each; 201.33 + 67.11 MB; 812.45 µs
  EXPECT_EQ(k[0].name, "ampere_sgemm_128x64_nn");  // the launch ID apart, in id
  EXPECT_EQ(k[0].id, "0");
  EXPECT_DOUBLE_EQ(k[0].flops, 137438953472.0);
  EXPECT_DOUBLE_EQ(k[0].bytes, 268.44e6);
  EXPECT_DOUBLE_EQ(k[0].seconds, 812.45e-6);
  // the elementwise add: a kernel name with commas inside its quotes; 16,777,216 FADD = 1 FLOP each
  EXPECT_EQ(k[1].name.rfind("void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>", 0), 0u);
  EXPECT_DOUBLE_EQ(k[1].flops, 16777216.0);
  EXPECT_DOUBLE_EQ(k[1].bytes, 201.33e6);
  EXPECT_DOUBLE_EQ(k[1].seconds, 42.3e-6);
  // half precision: 2 × 1e9 HFMA + 1e7 HADD + 5e6 HMUL; 1.05 ms; tensor instructions noted, not counted
  EXPECT_DOUBLE_EQ(k[2].flops, 2.015e9);
  EXPECT_DOUBLE_EQ(k[2].seconds, 1.05e-3);
  EXPECT_NE(k[2].note.find("tensor-core instructions present and not counted"), std::string::npos);
}

TEST(PlaceCsv, NsightComputeRawPage) {
  const auto k = read_kernels(data("ncu-raw.csv"));
  ASSERT_EQ(k.size(), 2u);
  EXPECT_DOUBLE_EQ(k[0].flops, 2 * 16777216.0);  // triad: one FFMA per element
  EXPECT_DOUBLE_EQ(k[0].bytes, 134217728.0 + 67108864.0);
  EXPECT_DOUBLE_EQ(k[0].seconds, 29120e-9);
  EXPECT_DOUBLE_EQ(k[1].flops, 0.0);
}

TEST(PlaceCsv, RealRawPageWithTensorCounters) {
  // the H200 raw page (~1000 columns, units such as byte/cycle) was refused before: "unknown unit 'byte/cycle'"
  const auto k = read_kernels(data("h200-2026-12-03/ncu-roofline-sections-raw.csv"));
  ASSERT_EQ(k.size(), 9u);
  EXPECT_EQ(k[1].name, "nvjet_sm90_hsh_256x128_64x4_1x2_h_bz_coopA_NNT");
  EXPECT_EQ(k[1].id, "1");
  EXPECT_DOUBLE_EQ(k[1].flops, 137438953472.0);  // sm__ops_path_tensor_op_hgmma_src_fp16_sparsity_off.sum
  EXPECT_DOUBLE_EQ(k[1].bytes, 108360448.0);     // dram__bytes.sum.per_second × gpu__time_duration.sum
  EXPECT_DOUBLE_EQ(k[1].seconds, 217536e-9);
}

TEST(PlaceCsv, OwnFormat) {
  const auto k = read_kernels(data("kernels.csv"));
  ASSERT_EQ(k.size(), 2u);
  EXPECT_EQ(k[1].name, "my_norm, fused");
  EXPECT_DOUBLE_EQ(k[0].flops, 137438953472.0);
  EXPECT_DOUBLE_EQ(k[1].seconds, 19.5e-6);
}

TEST(PlaceCsv, AMissingColumnNamesIt) {
  const fs::path f = fs::temp_directory_path() / ("roofline_bad_kernels_" + std::to_string(::getpid()) + ".csv");
  write_file_atomic(f.string(), "name,flops,time_s\na,1,2\n");
  try {
    read_kernels(f.string());
    ADD_FAILURE() << "no throw";
  } catch (const input_error& e) {
    EXPECT_NE(std::string(e.what()).find("bytes"), std::string::npos) << e.what();
  }
  // and from the CLI: exit 2, the field named
  const auto r = run_roofline("place --csv " + f.string() + " --results " + data("h200-2026-12-03/results.json"));
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("bytes"), std::string::npos) << r.err;
  fs::remove(f);
}

TEST(PlaceCsv, CliPlacesEveryKernelAndDrawsThem) {
  const fs::path dir = fs::temp_directory_path() / ("roofline_place_out_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  const auto r = run_roofline("place --csv " + data("ncu-details.csv") + " --results " + data("results-gpu.json") + " --out " + dir.string());
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("3 kernel(s)"), std::string::npos) << r.out;
  // the sgemm: 137.4 GFLOP in 812.45 µs = 169 TFLOP/s
  EXPECT_NE(r.out.find("169 TFLOP/s"), std::string::npos) << r.out;
  const std::string svg = read_file((dir / "place.svg").string());
  EXPECT_EQ(std::count(svg.begin(), svg.end(), '\n') > 10, true);
  std::size_t kernels = 0;
  for (auto p = svg.find("class=\"kernel\""); p != std::string::npos; p = svg.find("class=\"kernel\"", p + 1)) ++kernels;
  EXPECT_EQ(kernels, 3u);
  EXPECT_TRUE(fs::exists(dir / "place.csv"));
  fs::remove_all(dir);
}

TEST(PlaceCsv, CliJsonAndConflictingFlags) {
  const auto j = run_roofline("place --csv " + data("kernels.csv") + " --device h100-sxm --json");
  ASSERT_EQ(j.code, 0) << j.err;
  EXPECT_EQ(json::parse(j.out)["kernels"].size(), 2u);
  EXPECT_EQ(run_roofline("place --csv " + data("kernels.csv") + " --flops 1 --device h100-sxm").code, 2);
}

}  // namespace
