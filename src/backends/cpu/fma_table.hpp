// FMA pipes per core by microarchitecture and SIMD width: a table with a citation per row. A
// microarchitecture that is not in the table gives "unknown" — never a guessed default.
#pragma once
#include <optional>
#include <string>

namespace roofline::cpu {

struct fma_units_answer {
  std::optional<int> units;  ///< FMA instructions of `simd_bits` width issued per cycle per core
  std::string source;        ///< "table: <citation>" or "unknown (<why>)"
};

/// FMA units per core for `uarch` (cpuinfo's name: "zen", "zen2", "zen3", "zen4", "haswell",
/// "broadwell", "sky_lake", "sunny_cove", ...) at vector width `simd_bits` (256 or 512).
/// `model_name` decides the server SKUs whose unit count varies (Skylake-SP: Platinum/Gold 6xxx
/// have two AVX-512 FMA units, Silver/Bronze one).
fma_units_answer fma_units_for(const std::string& uarch, int simd_bits, const std::string& model_name);

}  // namespace roofline::cpu
