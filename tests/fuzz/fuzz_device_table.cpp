// libFuzzer: a device-table file (data/devices/*.json) never crashes the loader or the derivation;
// bad input is an input_error only, and every row that loads derives finite, non-negative peaks.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "roofline/error.hpp"
#include "spec/device_table.hpp"
#include "spec/gpu_derivation.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    roofline::spec_detail::device_table t;
    roofline::spec_detail::parse_table_text(text, "fuzz-devices.json", t);
    for (const auto& s : t.skus) {
      const roofline::nominal_roofs n = roofline::spec_detail::derive_table_row(t, s);
      for (const auto& p : n.peaks)
        if (!std::isfinite(p.flops_per_s) || p.flops_per_s < 0) std::abort();
      if (n.memory_bandwidth_bytes_per_s && !(*n.memory_bandwidth_bytes_per_s >= 0)) std::abort();
    }
  } catch (const roofline::input_error&) {
  }
  return 0;
}
