#include "backends/cpu/fma_table.hpp"

#include <array>

namespace roofline::cpu {

namespace {

struct row {
  const char* uarch;
  int simd_bits;
  int units;
  const char* source;
};

// Sources: AMD Software Optimization Guides (Family 17h: pub. 55723 §2.11; Family 17h models 30h+
// (Zen 2): pub. 56305 §2.11; Family 19h (Zen 3): pub. 56665 §2.11; Family 19h models 10h+ (Zen 4):
// pub. 57647 §2.11), Intel 64 and IA-32 Architectures Optimization Reference Manual (pub. 248966,
// Haswell §2.x "FMA on ports 0 and 1", Skylake client §2.x, Ice Lake client §2.x), Agner Fog,
// "The microarchitecture of Intel, AMD and VIA CPUs" (Zen 1: 256-bit ops split into two 128-bit
// halves).
constexpr std::array<row, 12> rows{{
    {"zen", 256, 1, "AMD SOG Family 17h (55723) §2.11: two 128-bit FMA pipes; a 256-bit FMA takes both"},
    {"zen2", 256, 2, "AMD SOG Family 17h models 30h+ (56305) §2.11: two 256-bit FMA pipes (FP0, FP1)"},
    {"zen3", 256, 2, "AMD SOG Family 19h (56665) §2.11: two 256-bit FMA pipes (FP0, FP1)"},
    {"zen4", 256, 2, "AMD SOG Family 19h models 10h+ (57647) §2.11: two 256-bit FMA pipes"},
    {"zen4", 512, 1, "AMD SOG Family 19h models 10h+ (57647) §2.11: 512-bit ops double-pumped on 256-bit pipes"},
    {"haswell", 256, 2, "Intel Opt. Ref. Manual (248966), Haswell: FMA on ports 0 and 1"},
    {"broadwell", 256, 2, "Intel Opt. Ref. Manual (248966), Broadwell: FMA on ports 0 and 1"},
    {"sky_lake", 256, 2, "Intel Opt. Ref. Manual (248966), Skylake: FMA on ports 0 and 1"},
    {"palm_cove", 256, 2, "Intel Opt. Ref. Manual (248966), Cannon Lake: FMA on ports 0 and 1"},
    {"palm_cove", 512, 1, "Intel Opt. Ref. Manual (248966), Cannon Lake client: ports 0+1 fused for 512-bit"},
    {"sunny_cove", 256, 2, "Intel Opt. Ref. Manual (248966), Ice Lake: FMA on ports 0 and 1"},
    {"golden_cove", 256, 2, "Intel Opt. Ref. Manual (248966), Golden Cove: FMA on ports 0 and 1"},
}};

bool contains(const std::string& s, const char* w) { return s.find(w) != std::string::npos; }

}  // namespace

fma_units_answer fma_units_for(const std::string& uarch, int simd_bits, const std::string& model_name) {
  // Server SKUs whose AVX-512 unit count varies by part: decided from the model name.
  if (simd_bits == 512 && uarch == "sky_lake") {
    if (contains(model_name, "Platinum") || contains(model_name, "Gold 6"))
      return {2, "table: Intel Xeon Scalable (Skylake-SP) Platinum / Gold 6xxx: two AVX-512 FMA units (ports 0+1 and 5), Intel Opt. Ref. Manual (248966) §2"};
    if (contains(model_name, "Silver") || contains(model_name, "Bronze"))
      return {1, "table: Intel Xeon Scalable (Skylake-SP) Silver / Bronze: one AVX-512 FMA unit (ports 0+1), Intel Opt. Ref. Manual (248966) §2"};
    return {std::nullopt, "unknown (Skylake AVX-512 part '" + model_name + "': one or two FMA units depending on SKU)"};
  }
  if (simd_bits == 512 && uarch == "sunny_cove") {
    if (contains(model_name, "Xeon"))
      return {2, "table: Intel Xeon (Ice Lake-SP): two AVX-512 FMA units, Intel Opt. Ref. Manual (248966) §2"};
    return {1, "table: Intel Ice Lake client: one AVX-512 FMA unit (ports 0+1 fused), Intel Opt. Ref. Manual (248966) §2"};
  }
  if (simd_bits == 512 && uarch == "golden_cove" && contains(model_name, "Xeon"))
    return {2, "table: Intel Xeon (Sapphire Rapids): two AVX-512 FMA units, Intel Opt. Ref. Manual (248966) §2"};
  for (const auto& r : rows)
    if (uarch == r.uarch && simd_bits == r.simd_bits) return {r.units, std::string("table: ") + r.source};
  return {std::nullopt, "unknown (microarchitecture '" + (uarch.empty() ? std::string("?") : uarch) + "' at " +
                            std::to_string(simd_bits) + "-bit is not in the FMA table)"};
}

}  // namespace roofline::cpu
