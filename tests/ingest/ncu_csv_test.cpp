// Nsight Compute CSV reader on the real H200 exports of tests/data/h200-2026-12-03 (README there) and
// the older synthetic fixtures. Every expected number is read off the file (python csv / grep); the
// comment beside it says which cell.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "roofline/error.hpp"
#include "roofline/ingest.hpp"
#include "roofline/io.hpp"

namespace fs = std::filesystem;
using namespace roofline;
using namespace roofline::ingest;

namespace {

std::string data(const std::string& f) { return std::string(ROOFLINE_TEST_DATA) + "/" + f; }
std::string h200(const std::string& f) { return data("h200-2026-12-03/" + f); }

const flop_count* find_flops(const kernel_record& k, const std::string& precision, const std::string& engine) {
  for (const auto& f : k.flops)
    if (f.precision == precision && f.engine == engine) return &f;
  return nullptr;
}
const byte_count* find_bytes(const kernel_record& k, const std::string& level) {
  for (const auto& b : k.bytes)
    if (b.level == level) return &b;
  return nullptr;
}
const kernel_record& by_id(const ingest_result& r, const std::string& id) {
  for (const auto& k : r.kernels)
    if (k.id == id) return k;
  throw std::runtime_error("no kernel ID " + id);
}
bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

/// A small file in the temp dir, removed at the end of the test.
struct temp_file {
  fs::path path;
  temp_file(const std::string& name, const std::string& content)
      : path(fs::temp_directory_path() / ("roofline_ncu_" + std::to_string(::getpid()) + "_" + name)) {
    write_file_atomic(path.string(), content);
  }
  ~temp_file() { fs::remove(path); }
};

std::string error_of(const std::string& path) {
  try {
    read_ncu_csv(path);
  } catch (const input_error& e) {
    return e.what();
  }
  return "(no error)";
}

const char* long_header =
    "\"ID\",\"Process ID\",\"Process Name\",\"Host Name\",\"Kernel Name\",\"Context\",\"Stream\",\"Block Size\",\"Grid Size\",\"Device\","
    "\"CC\",\"Section Name\",\"Metric Name\",\"Metric Unit\",\"Metric Value\"\n";
std::string long_row(const std::string& id, const std::string& device, const std::string& metric, const std::string& unit, const std::string& value) {
  return "\"" + id + "\",\"1\",\"p\",\"h\",\"k" + id + "\",\"1\",\"7\",\"(128, 1, 1)\",\"(4, 2, 1)\",\"" + device + "\",\"9.0\",\"s\",\"" + metric +
         "\",\"" + unit + "\",\"" + value + "\"\n";
}

// ---- ncu-readme-metrics.csv: long form, SASS counters and DRAM bytes only ----

TEST(NcuCsv, ReadmeMetricsLongForm) {
  const auto r = read_ncu_csv(h200("ncu-readme-metrics.csv"));
  EXPECT_EQ(r.format, "ncu-long");
  ASSERT_EQ(r.kernels.size(), 9u);  // IDs 0..8
  ASSERT_EQ(r.skipped.size(), 2u);  // the ==PROF== Connected / Disconnected lines (file lines 1, 2)
  EXPECT_TRUE(has(r.skipped[0], "line 1: ==PROF== Connected")) << r.skipped[0];

  // ID 1, the 4096³ fp16 GEMM: every SASS add/mul/fma counter is 0: its tensor work is invisible
  const auto& gemm = by_id(r, "1");
  EXPECT_EQ(gemm.name, "nvjet_sm90_hsh_256x128_64x4_1x2_h_bz_coopA_NNT");
  EXPECT_TRUE(gemm.flops.empty());
  EXPECT_TRUE(has(gemm.note, "tensor work is invisible to the SASS counters")) << gemm.note;
  EXPECT_DOUBLE_EQ(gemm.duration_s, 220032e-9);  // gpu__time_duration.sum "ns" "220,032"
  const auto* dram = find_bytes(gemm, "dram");
  ASSERT_NE(dram, nullptr);
  EXPECT_DOUBLE_EQ(dram->bytes, 84584960.0 + 24721920.0);  // dram__bytes_read.sum + dram__bytes_write.sum, "byte"
  EXPECT_EQ(dram->metric, "dram__bytes_read.sum + dram__bytes_write.sum");
  EXPECT_FALSE(gemm.sm_clock_hz.has_value());  // sm__cycles_elapsed was not exported
  EXPECT_EQ(gemm.grid_blocks, 2 * 66);         // "(2, 66, 1)"
  EXPECT_EQ(gemm.block_threads, 384);          // "(384, 1, 1)"
  EXPECT_EQ(gemm.device, 0);
  EXPECT_EQ(gemm.stream, 7);
  EXPECT_EQ(find_bytes(gemm, "l2"), nullptr);  // not exported: unknown, not 0

  // ID 3, the fp32 softmax: fadd 89,063,994 + fmul 16,777,216 + 2 × ffma 238,011,085; fp16: 2 × hfma 37,620,606
  const auto& softmax = by_id(r, "3");
  EXPECT_TRUE(has(softmax.name, "cunn_SoftMaxForwardReg"));
  const auto* fp32 = find_flops(softmax, "fp32", "vector");
  ASSERT_NE(fp32, nullptr);
  EXPECT_DOUBLE_EQ(fp32->flops, 89063994.0 + 16777216.0 + 2 * 238011085.0);
  EXPECT_EQ(fp32->source, count_source::counter);
  EXPECT_TRUE(fp32->exact);
  EXPECT_TRUE(has(fp32->metric, "2 × smsp__sass_thread_inst_executed_op_ffma_pred_on.sum")) << fp32->metric;
  const auto* fp16 = find_flops(softmax, "fp16", "vector");
  ASSERT_NE(fp16, nullptr);
  EXPECT_DOUBLE_EQ(fp16->flops, 2 * 37620606.0);
  // ID 8, the fp32 add a + b: ffma 67,108,864 (nothing else) → 2 FLOP each
  EXPECT_DOUBLE_EQ(find_flops(by_id(r, "8"), "fp32", "vector")->flops, 2 * 67108864.0);
}

// ---- ncu-roofline-sections-raw.csv: raw page, ~1000 columns, units byte/cycle, hz, byte/s, ... ----

TEST(NcuCsv, RooflineSectionsRawPage) {
  const auto r = read_ncu_csv(h200("ncu-roofline-sections-raw.csv"));  // was refused: "unknown unit 'byte/cycle'"
  EXPECT_EQ(r.format, "ncu-raw");
  ASSERT_EQ(r.kernels.size(), 9u);
  const auto& gemm = by_id(r, "1");
  EXPECT_EQ(gemm.name, "nvjet_sm90_hsh_256x128_64x4_1x2_h_bz_coopA_NNT");
  // sm__ops_path_tensor_op_hgmma_src_fp16_sparsity_off.sum = 137,438,953,472 = 2·4096³: one op is one
  // FLOP. sm__ops_path_tensor_src_fp16.sum holds the same count (all paths) and is not added again.
  ASSERT_EQ(gemm.flops.size(), 1u);
  EXPECT_EQ(gemm.flops[0].precision, "fp16");
  EXPECT_EQ(gemm.flops[0].engine, "tensor");
  EXPECT_DOUBLE_EQ(gemm.flops[0].flops, 137438953472.0);
  EXPECT_TRUE(has(gemm.flops[0].metric, "hgmma_src_fp16_sparsity_off")) << gemm.flops[0].metric;
  EXPECT_FALSE(has(gemm.flops[0].metric, "sm__ops_path_tensor_src_fp16.sum")) << gemm.flops[0].metric;
  EXPECT_DOUBLE_EQ(gemm.duration_s, 217536e-9);     // gpu__time_duration.sum "ns" "217,536"
  EXPECT_DOUBLE_EQ(*gemm.sm_clock_hz, 1290033708.11);  // sm__cycles_elapsed.avg.per_second "hz": ncu locked the clocks
  // bytes = rate × duration, whole numbers: dram__bytes.sum.per_second 498,126,507,796.41 byte/s × 217,536 ns
  EXPECT_DOUBLE_EQ(find_bytes(gemm, "dram")->bytes, 108360448.0);
  EXPECT_TRUE(has(find_bytes(gemm, "dram")->metric, "dram__bytes.sum.per_second × gpu__time_duration.sum"));
  // derived__lts__lts2xbar_bytes.sum.per_second 3,999,512,209,473.37 × 217,536 ns
  EXPECT_DOUBLE_EQ(find_bytes(gemm, "l2")->bytes, 870037888.0);
  // derived__l1tex__lsu_writeback_bytes_mem_lgds.sum.per_second 1,043,836,422.48 × 217,536 ns
  EXPECT_DOUBLE_EQ(find_bytes(gemm, "l1")->bytes, 227072.0);
  EXPECT_EQ(gemm.grid_blocks, 132);

  // ID 4, x * 2.0 over 16,777,216 fp32: fmul .sum.per_cycle_elapsed 342.87 × smsp clock 1,497,675,240.41 Hz
  // × 32,672 ns = 16,777,330 ≈ one FMUL per element (16,777,216 in the long-form run); not exact
  const auto* mul = find_flops(by_id(r, "4"), "fp32", "vector");
  ASSERT_NE(mul, nullptr);
  EXPECT_FALSE(mul->exact);
  EXPECT_NEAR(mul->flops, 342.87 * 1497675240.41 * 32672e-9, 1e-3);
  EXPECT_NEAR(mul->flops, 16777216.0, 0.005 * 1497675240.41 * 32672e-9);  // within the rate's rounding
  // ID 3, softmax: (fadd 497.78 + fmul 93.76 + 2 × ffma 1,330.50) × 1,497,498,417.49 Hz × 119,488 ns
  const auto* sm = find_flops(by_id(r, "3"), "fp32", "vector");
  ASSERT_NE(sm, nullptr);
  EXPECT_NEAR(sm->flops, (497.78 + 93.76 + 2 * 1330.50) * 1497498417.49 * 119488e-9, 1e-3);
  EXPECT_TRUE(has(by_id(r, "3").note, "not exact")) << by_id(r, "3").note;
  // the derived__*_x2 columns are per-cycle rates and peaks (33,792 on every kernel), never counts
  for (const auto& k : r.kernels)
    for (const auto& f : k.flops) EXPECT_FALSE(has(f.metric, "derived__")) << f.metric;
}

// ---- ncu-tinyllama-decode-tensor-counters.csv: 60 kernels of one decode step, tensor counters ----

TEST(NcuCsv, TinyLlamaDecodeTensorCounters) {
  const auto r = read_ncu_csv(h200("ncu-tinyllama-decode-tensor-counters.csv"));
  ASSERT_EQ(r.kernels.size(), 60u);  // --launch-count 60, IDs 0..59
  ASSERT_EQ(r.skipped.size(), 3u);   // ==WARNING== (unmodified clocks), ==PROF== Connected / Disconnected
  EXPECT_TRUE(has(r.skipped[0], "==WARNING=="));
  // the first GEMM of the step is ID 21 (grep -n nvjet: IDs 21, 22, 23, 38, 48, 50, 52): q_proj,
  // 2048×2048 fp16 weights, one token padded to 8 rows: 2·8·2048² = 67,108,864
  std::size_t first = 0;
  while (first < r.kernels.size() && r.kernels[first].name.rfind("nvjet_sm90_hsh_64x8", 0) != 0) ++first;
  ASSERT_LT(first, r.kernels.size());
  const auto& q = r.kernels[first];
  EXPECT_EQ(q.id, "21");
  EXPECT_EQ(q.name, "nvjet_sm90_hsh_64x8_64x16_4x1_v_bz_TNT");
  ASSERT_EQ(q.flops.size(), 1u);
  EXPECT_EQ(q.flops[0].precision, "fp16");
  EXPECT_EQ(q.flops[0].engine, "tensor");
  EXPECT_DOUBLE_EQ(q.flops[0].flops, 67108864.0);  // sm__ops_path_tensor_op_hgmma_src_fp16_sparsity_off.sum "67,108,864"
  // the sum of the fp16 per-path counters exported (the two hmma ones are 0 here)
  EXPECT_EQ(q.flops[0].metric,
            "sm__ops_path_tensor_op_hgmma_src_fp16_sparsity_off.sum + sm__ops_path_tensor_op_hmma_src_fp16_dst_fp16.sum + "
            "sm__ops_path_tensor_op_hmma_src_fp16_dst_fp32.sum");
  EXPECT_DOUBLE_EQ(*q.sm_clock_hz, 1819843657.16);  // sm__cycles_elapsed.avg.per_second "hz" (clocks not locked)
  EXPECT_DOUBLE_EQ(q.duration_s, 6528e-9);          // "6,528" ns
  EXPECT_DOUBLE_EQ(find_bytes(q, "dram")->bytes, 8409088.0 + 0.0);  // read "8,409,088" + write "0"
  // ID 0, indexSelectSmallIndex: hfma 2,048 → 4,096 fp16 vector FLOPs; zero tensor ops recorded as none
  const auto& k0 = r.kernels[0];
  ASSERT_EQ(k0.flops.size(), 1u);
  EXPECT_DOUBLE_EQ(find_flops(k0, "fp16", "vector")->flops, 4096.0);
}

// ---- the older synthetic fixtures ----

TEST(NcuCsv, OldFixtures) {
  const auto d = read_ncu_csv(data("ncu-details.csv"));
  ASSERT_EQ(d.kernels.size(), 3u);
  EXPECT_DOUBLE_EQ(d.kernels[0].flops[0].flops, 2 * 68719476736.0);  // 2 × ffma "68,719,476,736"
  EXPECT_DOUBLE_EQ(d.kernels[0].bytes[0].bytes, 201.33e6 + 67.11e6);  // "Mbyte" 201.33 + 67.11
  EXPECT_DOUBLE_EQ(d.kernels[2].duration_s, 1.05e-3);                 // "msecond" 1.05
  // flash_fwd: sm__inst_executed_pipe_tensor.sum 2,097,152 instructions, no ops_path counter
  EXPECT_TRUE(has(d.kernels[2].note, "tensor-core instructions present and not counted")) << d.kernels[2].note;
  const auto raw = read_ncu_csv(data("ncu-raw.csv"));
  ASSERT_EQ(raw.kernels.size(), 2u);
  EXPECT_DOUBLE_EQ(raw.kernels[0].flops[0].flops, 2 * 16777216.0);
  EXPECT_DOUBLE_EQ(raw.kernels[0].duration_s, 29120e-9);  // "nsecond" 29,120
  EXPECT_TRUE(raw.kernels[1].flops.empty());             // copy: 0 fadd/ffma/fmul
}

// ---- units ----

TEST(NcuCsv, UnitsScaleAndUnknownOnlyMattersWhenUsed) {
  const temp_file f("units.csv", std::string(long_header) + long_row("0", "0", "gpu__time_duration.sum", "usecond", "1.5") +
                                     long_row("0", "0", "dram__bytes.sum", "Gbyte", "2.5") +
                                     long_row("0", "0", "lts__t_bytes.sum", "Kbyte", "3") +
                                     long_row("0", "0", "sm__cycles_elapsed.avg.per_second", "cycle/nsecond", "1.98") +
                                     long_row("0", "0", "some__metric.sum", "furlong/fortnight", "7"));
  const auto r = read_ncu_csv(f.path.string());
  ASSERT_EQ(r.kernels.size(), 1u);
  const auto& k = r.kernels[0];
  EXPECT_DOUBLE_EQ(k.duration_s, 1.5e-6);
  EXPECT_DOUBLE_EQ(find_bytes(k, "dram")->bytes, 2.5e9);
  EXPECT_DOUBLE_EQ(find_bytes(k, "l2")->bytes, 3e3);
  EXPECT_DOUBLE_EQ(*k.sm_clock_hz, 1.98e9);
  EXPECT_EQ(k.grid_blocks, 8);
  EXPECT_EQ(k.block_threads, 128);

  const temp_file g("badunit.csv", std::string(long_header) + long_row("0", "0", "gpu__time_duration.sum", "ns", "100") +
                                       long_row("0", "0", "dram__bytes.sum", "furlong", "7"));
  EXPECT_EQ(error_of(g.path.string()), g.path.string() + ": dram__bytes.sum: kernel ID 0: unknown unit 'furlong'");
  const temp_file h("ghz.csv", std::string(long_header) + long_row("0", "0", "gpu__time_duration.sum", "msecond", "2") +
                                   long_row("0", "0", "gpc__cycles_elapsed.avg.per_second", "Ghz", "1.5"));
  EXPECT_DOUBLE_EQ(*read_ncu_csv(h.path.string()).kernels[0].sm_clock_hz, 1.5e9);
}

// ---- bad input ----

TEST(NcuCsv, ErrorLineNamesTheFileAndQuotesIt) {
  const temp_file f("error.csv", "==PROF== Connected to process 1\n==ERROR== The application returned an error code (1).\n");
  EXPECT_EQ(error_of(f.path.string()),
            f.path.string() + ": line 2: Nsight Compute reported an error: \"==ERROR== The application returned an error code (1).\"");
}

// A cut export keeps the launches before the cut and says where it stopped; a short record in the
// middle is still not one table.
TEST(NcuCsv, TruncatedExport) {
  const std::string full = std::string(long_header) + long_row("0", "0", "gpu__time_duration.sum", "ns", "100");
  const temp_file f("trunc.csv", full + full.substr(full.find('\n') + 1, 60));  // the second row cut mid-field
  const auto a = read_ncu_csv(f.path.string());
  EXPECT_EQ(a.kernels.size(), 1u);
  EXPECT_TRUE(has(a.incomplete, "ends inside a quoted field")) << a.incomplete;
  const temp_file g("trunc2.csv", full + "\"1\",\"1\",\"p\"\n");
  const auto b = read_ncu_csv(g.path.string());
  EXPECT_EQ(b.kernels.size(), 1u);
  EXPECT_TRUE(has(b.incomplete, "CSV record 3 has 3 fields, the header 15: the export is cut short there")) << b.incomplete;
  const temp_file m("middle.csv", full + "\"1\",\"1\",\"p\"\n" + full.substr(full.find('\n') + 1));
  EXPECT_EQ(error_of(m.path.string()),
            m.path.string() + ": CSV record 3 has 3 fields, the header 15: the export is truncated or not one table");
}

// Nsight Compute failed half-way (tests/data/h100-2026-12-05/ncu-fail.csv: a program whose 6th kernel
// writes to an unmapped address, its 7th kernel): the 6 kernels profiled before are placed (and the nan launch is named),
// the ==ERROR== lines are the failures, and the export says it is incomplete.
TEST(NcuCsv, AFailedExportPlacesWhatItProfiled) {
  const auto r = read_ncu_csv(ROOFLINE_TEST_DATA "/h100-2026-12-05/ncu-fail.csv");
  ASSERT_EQ(r.kernels.size(), 6u);  // IDs 0–5: the random fill, the GEMM, a cast, a softmax, a mul, an add
  EXPECT_EQ(r.kernels[1].name.rfind("nvjet_sm90_hsh_256x128", 0), 0u);
  ASSERT_EQ(r.failures.size(), 3u);
  EXPECT_TRUE(has(r.failures[0], "==ERROR== LaunchFailed")) << r.failures[0];
  EXPECT_TRUE(has(r.failures[2], "'write_unmapped': every metric is nan")) << r.failures[2];
  EXPECT_TRUE(has(r.incomplete, "the export holds the 6 kernel(s) profiled before")) << r.incomplete;
}

TEST(NcuCsv, NotAvailableValuesAreMissingCounts) {
  const temp_file f("na.csv", std::string(long_header) + long_row("0", "0", "gpu__time_duration.sum", "ns", "1,000") +
                                  long_row("0", "0", "dram__bytes_read.sum", "byte", "n/a") +
                                  long_row("0", "0", "dram__bytes_write.sum", "byte", "64") +
                                  long_row("0", "0", "smsp__sass_thread_inst_executed_op_ffma_pred_on.sum", "inst", "") +
                                  long_row("1", "0", "gpu__time_duration.sum", "ns", "n/a") +
                                  long_row("2", "0", "gpu__time_duration.sum", "ns", "2,000"));
  const auto r = read_ncu_csv(f.path.string());
  ASSERT_EQ(r.kernels.size(), 2u);  // ID 1 has no duration: skipped with a line, the file still read
  EXPECT_EQ(r.kernels[0].id, "0");
  EXPECT_EQ(r.kernels[1].id, "2");
  ASSERT_EQ(r.skipped.size(), 1u);
  EXPECT_EQ(r.skipped[0], "kernel ID 1 'k1': no gpu__time_duration.sum (n/a or 0); not read");
  const auto& k = r.kernels[0];
  EXPECT_TRUE(k.bytes.empty());
  EXPECT_TRUE(k.flops.empty());
  EXPECT_TRUE(has(k.note, "dram__bytes_read.sum is n/a")) << k.note;
  EXPECT_TRUE(has(k.note, "smsp__sass_thread_inst_executed_op_ffma_pred_on.sum is empty")) << k.note;
  EXPECT_TRUE(has(k.note, "fp32 vector FLOPs unknown")) << k.note;

  const temp_file g("noduration.csv", std::string(long_header) + long_row("0", "0", "dram__bytes.sum", "byte", "64"));
  EXPECT_EQ(error_of(g.path.string()), g.path.string() +
                                           ": gpu__time_duration.sum: no kernel of the 1 has a duration: profile with --metrics "
                                           "gpu__time_duration.sum,... (or --section SpeedOfLight)");
}

TEST(NcuCsv, TwoDevicesInOneExport) {
  const temp_file f("twodev.csv", std::string(long_header) + long_row("0", "0", "gpu__time_duration.sum", "ns", "100") +
                                      long_row("1", "1", "gpu__time_duration.sum", "ns", "100"));
  EXPECT_EQ(error_of(f.path.string()),
            f.path.string() + ": Device: two GPUs in one export: device 0 (kernel ID 0) and device 1 (kernel ID 1); split it with --devices");
}

TEST(NcuCsv, EmptyAndNonCsvFiles) {
  const temp_file e("empty.csv", "  \n");
  EXPECT_EQ(error_of(e.path.string()), e.path.string() + ": empty file (expected an Nsight Compute CSV export)");
  const temp_file t("text.csv", "hello world\nthis is not ncu\n");
  EXPECT_TRUE(has(error_of(t.path.string()), "not an Nsight Compute CSV export")) << error_of(t.path.string());
  EXPECT_TRUE(has(error_of("/nonexistent/x.csv"), "cannot open"));
}

// ---- read_any and roofline's own CSV ----

TEST(IngestReadAny, DetectsByContent) {
  EXPECT_EQ(read_any(h200("ncu-readme-metrics.csv")).format, "ncu-long");
  EXPECT_EQ(read_any(h200("ncu-roofline-sections-raw.csv")).format, "ncu-raw");
  const auto own = read_any(data("kernels.csv"));
  EXPECT_EQ(own.format, "roofline-csv");
  ASSERT_EQ(own.kernels.size(), 2u);
  EXPECT_EQ(own.kernels[1].name, "my_norm, fused");
  EXPECT_DOUBLE_EQ(own.kernels[0].flops[0].flops, 137438953472.0);  // kernels.csv row 2
  EXPECT_DOUBLE_EQ(own.kernels[0].bytes[0].bytes, 201326592.0);
  EXPECT_DOUBLE_EQ(own.kernels[1].duration_s, 19.5e-6);
  EXPECT_EQ(own.kernels[0].flops[0].source, count_source::counter);
  const temp_file t("other.txt", "just text\n");
  EXPECT_TRUE(has([&] {
    try {
      read_any(t.path.string());
    } catch (const input_error& e) {
      return std::string(e.what());
    }
    return std::string();
  }(), "not a format roofline reads"));
  EXPECT_EQ(to_string(count_source::counter), "counter");
  EXPECT_EQ(to_string(count_source::shape_model), "shape_model");
  EXPECT_EQ(to_string(count_source::none), "none");
}

}  // namespace

TEST(NcuCsv, TheRecommendedMetricsMakeACompleteAnswer) {
  // An export with exactly the metrics `roofline place --ncu-metrics` prints (the README's command):
  // a 4096³ fp16 GEMM (2·4096³ tensor FLOPs) gets its tensor FLOPs, bytes at all three levels and its
  // SM clock; every recommended metric is one the reader uses (a value changes what it reads).
  const auto& metrics = recommended_ncu_metrics();
  std::string csv = long_header;
  for (const auto& m : metrics) {
    std::string unit = "inst", value = "0";
    if (m == "gpu__time_duration.sum") unit = "ns", value = "220,032";
    else if (m.find("bytes") != std::string::npos) unit = "byte", value = "108,360,448";
    else if (m == "sm__ops_path_tensor_src_fp16.sum") unit = "", value = "137,438,953,472";
    else if (m == "sm__cycles_elapsed.avg.per_second") unit = "cycle/nsecond", value = "1.29";
    csv += long_row("0", "0", m, unit, value);
  }
  const temp_file f("recommended.csv", csv);
  const auto r = read_ncu_csv(f.path.string());
  ASSERT_EQ(r.kernels.size(), 1u);
  const auto& k = r.kernels[0];
  const flop_count* t = find_flops(k, "fp16", "tensor");
  ASSERT_NE(t, nullptr);
  EXPECT_DOUBLE_EQ(t->flops, 137438953472.0);
  EXPECT_FALSE(k.tensor_flops_not_counted);
  for (const char* level : {"dram", "l2", "l1"}) EXPECT_NE(find_bytes(k, level), nullptr) << level;
  EXPECT_DOUBLE_EQ(find_bytes(k, "dram")->bytes, 2 * 108360448.0);  // read + write
  ASSERT_TRUE(k.sm_clock_hz.has_value());
  EXPECT_DOUBLE_EQ(*k.sm_clock_hz, 1.29e9);
  EXPECT_DOUBLE_EQ(k.duration_s, 220032e-9);
  EXPECT_EQ(metrics.size(), 21u);  // 1 time + 4 bytes + 9 SASS + 6 tensor + 1 clock
}

TEST(NcuCsv, AnExportWithoutTensorCountersSaysItCannotCountTheGemm) {
  const auto r = read_ncu_csv(h200("ncu-readme-metrics.csv"));
  const auto& gemm = by_id(r, "1");
  EXPECT_TRUE(gemm.tensor_flops_not_counted);
  EXPECT_TRUE(gemm.flops.empty());
}
