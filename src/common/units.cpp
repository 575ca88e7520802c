#include "roofline/units.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>

namespace roofline::units {

std::string sig(double x, int digits) {
  if (x == 0 || !std::isfinite(x)) return x == 0 ? "0" : "n/a";
  const int mag = static_cast<int>(std::floor(std::log10(std::fabs(x))));
  int decimals = std::max(0, digits - 1 - mag);
  std::string s = fmt::format("{:.{}f}", x, decimals);
  // Rounding can add a digit (9.996 -> "10.00"): re-format with one decimal fewer.
  const double rounded = std::stod(s);
  if (decimals > 0 && std::fabs(rounded) >= std::pow(10.0, mag + 1)) s = fmt::format("{:.{}f}", x, decimals - 1);
  return s;
}

std::string si(double x, const std::string& unit, int digits) {
  if (x == 0 || !std::isfinite(x)) return sig(x, digits) + " " + unit;
  static const std::array<const char*, 11> prefix = {"p", "n", "µ", "m", "", "k", "M", "G", "T", "P", "E"};
  int e = static_cast<int>(std::floor(std::log10(std::fabs(x)) / 3.0));
  // 999.7e9 rounds to "1000 G": move to the next prefix instead.
  const double scaled = x / std::pow(1000.0, e);
  if (std::fabs(std::stod(sig(scaled, digits))) >= 1000.0) ++e;
  e = std::clamp(e, -4, 6);
  return sig(x / std::pow(1000.0, e), digits) + " " + prefix[e + 4] + unit;
}

std::string rate_bytes(double v) { return si(v, "B/s"); }
std::string rate_flops(double v) { return si(v, "FLOP/s"); }
std::string rate_ops(double v) { return si(v, "OP/s"); }
std::string flop_count(double v) { return si(v, "FLOP"); }

std::string bytes_binary(double b) {
  static const std::array<const char*, 6> unit = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
  int i = 0;
  double v = b;
  while (std::fabs(v) >= 1024.0 && i + 1 < static_cast<int>(unit.size())) {
    v /= 1024.0;
    ++i;
  }
  if (i == 0) return fmt::format("{:.0f} B", v);
  return sig(v, 3) + " " + unit[i];
}

std::string seconds(double s) { return si(s, "s"); }

std::string percent(double f) {
  const double p = 100.0 * f;
  if (std::fabs(p) >= 10) return fmt::format("{:.1f}%", p);
  return sig(p, 2) + "%";
}

std::string intensity(double v) { return sig(v, 3) + " FLOP/B"; }
std::string intensity_ops(double v) { return sig(v, 3) + " OP/B"; }

std::string ratio(double x) { return sig(x, 3) + "×"; }

std::string si_range(double lo, double hi, const std::string& unit) {
  const std::string h = si(hi, unit);             // "4.32 TB/s"
  const auto space = h.find(' ');
  const std::string scaled_unit = h.substr(space);  // " TB/s"
  const double scale = hi / std::stod(h.substr(0, space));
  return sig(lo / scale, 3) + "–" + h.substr(0, space) + scaled_unit;
}

std::string plain(double x) {
  std::string s = sig(x, 6);
  if (s.find('.') != std::string::npos) {
    while (!s.empty() && s.back() == '0') s.pop_back();
    if (!s.empty() && s.back() == '.') s.pop_back();
  }
  return s;
}

std::string work_unit(const std::string& precision) { return precision == "int8" ? "OP" : "FLOP"; }
std::string compute_rate(double v, const std::string& precision) { return work_unit(precision) == "OP" ? rate_ops(v) : rate_flops(v); }
std::string compute_intensity(double v, const std::string& precision) { return work_unit(precision) == "OP" ? intensity_ops(v) : intensity(v); }

std::string count(std::int64_t n) {
  // the magnitude in unsigned arithmetic: -n overflows for the smallest int64
  const std::uint64_t mag = n < 0 ? std::uint64_t{0} - static_cast<std::uint64_t>(n) : static_cast<std::uint64_t>(n);
  std::string digits = std::to_string(mag), out;
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return n < 0 ? "-" + out : out;
}

std::string fixed(double x, int decimals) { return fmt::format("{:.{}f}", x, decimals); }

std::string general(double x, int digits) { return fmt::format("{:.{}g}", x, digits); }

std::string value(double x, const std::string& unit) {
  if (unit == "B/s" || unit == "FLOP/s" || unit == "OP/s" || unit == "FLOP") return si(x, unit);
  if (unit == "FLOP/B") return intensity(x);
  if (unit == "OP/B") return intensity_ops(x);
  if (unit == "s") return seconds(x);
  if (unit == "B") return bytes_binary(x);
  if (unit == "MHz") return sig(x, 4) + " MHz";
  if (unit == "%") return (std::fabs(x) >= 10 ? fmt::format("{:.1f}", x) : sig(x, 2)) + "%";
  return unit.empty() ? sig(x, 3) : sig(x, 3) + " " + unit;
}

}  // namespace roofline::units

