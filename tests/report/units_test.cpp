// Number formatting: SI decimal for rates, binary for capacities, fixed significant digits.
#include <gtest/gtest.h>

#include <cstdint>

#include "report/units.hpp"

namespace roofline::report {

TEST(ReportUnits, SiRates) {
  EXPECT_EQ(rate_bytes(3.35e12), "3.35 TB/s");       // H100 SXM HBM3 datasheet
  EXPECT_EQ(rate_flops(989.4e12), "989 TFLOP/s");    // H100 SXM dense fp16
  EXPECT_EQ(rate_flops(1978.9e12), "1.98 PFLOP/s");
  EXPECT_EQ(rate_bytes(999.7e9), "1.00 TB/s");       // rounding moves to the next prefix
  EXPECT_EQ(rate_bytes(320e9), "320 GB/s");          // T4
  EXPECT_EQ(flop_count(2.0 * 4096 * 4096 * 4096), "137 GFLOP");
}

TEST(ReportUnits, BinaryCapacities) {
  EXPECT_EQ(bytes_binary(8 * 1048576.0), "8.00 MiB");
  EXPECT_EQ(bytes_binary(50 * 1048576.0), "50.0 MiB");  // H100 L2
  EXPECT_EQ(bytes_binary(32768), "32.0 KiB");
  EXPECT_EQ(bytes_binary(512), "512 B");
  EXPECT_EQ(bytes_binary(80.0 * (1ull << 30)), "80.0 GiB");
}

TEST(ReportUnits, TimesPercentsIntensity) {
  EXPECT_EQ(seconds(0.0123), "12.3 ms");
  EXPECT_EQ(seconds(2e-6), "2.00 µs");
  EXPECT_EQ(percent(0.725), "72.5%");
  EXPECT_EQ(percent(0.0022), "0.22%");
  EXPECT_EQ(intensity(4096.0 / 3.0), "1365 FLOP/B");  // 4096³ fp16 GEMM
  EXPECT_EQ(intensity(1.0 / 6.0), "0.167 FLOP/B");    // fp16 elementwise add
  EXPECT_EQ(si_range(0.75 * 4.8e12, 0.9 * 4.8e12, "B/s"), "3.60–4.32 TB/s");
  EXPECT_EQ(plain(132), "132");
  EXPECT_EQ(plain(7.5), "7.5");
  EXPECT_EQ(sig(0), "0");
}

}  // namespace roofline::report

namespace roofline {
TEST(Units, CountsHaveThousandsSeparatorsAndValuesTheirUnit) {
  EXPECT_EQ(units::count(1'100'048'384), "1,100,048,384");  // TinyLlama-1.1B parameters
  EXPECT_EQ(units::count(999), "999");
  EXPECT_EQ(units::count(-46'702'792'704), "-46,702,792,704");
  EXPECT_EQ(units::count(INT64_MIN), "-9,223,372,036,854,775,808");
  EXPECT_EQ(units::value(4.8e12, "B/s"), "4.80 TB/s");
  EXPECT_EQ(units::value(1.98e15, "OP/s"), "1.98 POP/s");    // int8 is operations, not FLOPs
  EXPECT_EQ(units::value(206.125, "FLOP/B"), "206 FLOP/B");
  EXPECT_EQ(units::value(1755, "MHz"), "1755 MHz");
  EXPECT_EQ(units::value(1.74e-6, "s"), "1.74 µs");          // not "1.74e-06 s"
  EXPECT_EQ(units::compute_rate(1.98e15, "int8"), "1.98 POP/s");
}
}  // namespace roofline

// fixed and general are printf's "%.*f" and "%.*g" (C11 7.21.6.1): the notes whose wording fixes a
// precision print through them, so src/app holds no format spec (tests/app/app_layer_test.cpp).
TEST(Units, FixedAndGeneralArePrintfsF_AndG) {
  EXPECT_EQ(roofline::units::fixed(12.345, 1), "12.3");
  EXPECT_EQ(roofline::units::fixed(2993.7, 0), "2994");
  EXPECT_EQ(roofline::units::fixed(0.5, 2), "0.50");
  EXPECT_EQ(roofline::units::general(0.0123, 3), "0.0123");
  EXPECT_EQ(roofline::units::general(1.5e-5, 3), "1.5e-05");
  EXPECT_EQ(roofline::units::general(20.0, 3), "20");
  EXPECT_EQ(roofline::units::general(1234.5, 3), "1.23e+03");
}
