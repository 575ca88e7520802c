// Number formatting for every printer (terminal, Markdown, HTML, SVG, fleet, compare): each number
// with its unit, SI decimal prefixes for rates and counts (GB/s = 1e9 B/s, TFLOP/s = 1e12 FLOP/s),
// binary prefixes for capacities (KiB = 1024 B), thousands separators for integer counts.
// Deterministic: fixed notation, no locale. int8 rates are OP/s and its intensities OP/B.
#pragma once
#include <cstdint>
#include <string>

namespace roofline::units {

/// `x` with `digits` significant digits in fixed notation ("1365", "0.167", "3.35"); "0" for 0.
std::string sig(double x, int digits = 3);
/// `x` scaled by an SI prefix (k M G T P E; m µ n p below 1) followed by `unit`: si(3.35e12, "B/s")
/// = "3.35 TB/s", si(1.74e-6, "s") = "1.74 µs".
std::string si(double x, const std::string& unit, int digits = 3);
std::string rate_bytes(double bytes_per_s);  ///< "3.35 TB/s"
std::string rate_flops(double flops_per_s);  ///< "989 TFLOP/s"
std::string rate_ops(double ops_per_s);      ///< "1.98 POP/s" (integer operations: int8)
/// The compute rate of `precision`: rate_ops for int8, else rate_flops.
std::string compute_rate(double per_s, const std::string& precision);
/// The unit of work of `precision`: "OP" for int8 (integer operations), else "FLOP". Axis titles,
/// tick labels and table units build theirs on it ("OP/s", "OP/B").
std::string work_unit(const std::string& precision);
/// The arithmetic intensity of `precision`: intensity_ops for int8, else intensity.
std::string compute_intensity(double per_byte, const std::string& precision);
std::string flop_count(double flops);        ///< "4.19 GFLOP"
std::string bytes_binary(double bytes);      ///< "8.00 MiB", "32.0 KiB", "512 B"
std::string seconds(double s);               ///< "12.3 ms", "850 µs"
std::string percent(double fraction);        ///< 0.725 -> "72.5%"
std::string intensity(double flop_per_byte); ///< "1365 FLOP/B"
std::string intensity_ops(double op_per_byte);  ///< "412 OP/B" (int8)
std::string ratio(double x);                 ///< "1.07×"
std::string si_range(double lo, double hi, const std::string& unit);  ///< "3.60–4.32 TB/s" (prefix of hi)
std::string plain(double x);                 ///< up to 6 significant digits, no trailing zeros: "132", "7.5"
std::string count(std::int64_t n);           ///< thousands separators: 1100048384 -> "1,100,048,384"
/// `x` with exactly `decimals` decimals, no unit (printf "%.*f"): fixed(12.345, 1) = "12.3",
/// fixed(2993.7, 0) = "2994". For notes whose wording fixes the precision ("spread 3.2 %").
std::string fixed(double x, int decimals);
/// `x` with `digits` significant digits in the shorter of fixed and exponent notation, trailing
/// zeros dropped (printf "%.*g"): general(0.0123, 3) = "0.0123", general(1.5e-5, 3) = "1.5e-05".
std::string general(double x, int digits = 3);
/// A value in the record table's units: "B/s", "FLOP/s", "OP/s" (SI), "FLOP/B", "OP/B", "s", "B"
/// (binary), "MHz" (4 digits), "W", "%" (the value is already a percentage), else sig + unit.
std::string value(double x, const std::string& unit);

}  // namespace roofline::units
