#include "backends/cpu/fma_table.hpp"

#include <array>
#include <string>

#include "roofline/text.hpp"

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
// pub. 57647 §2.11; Family 1Ah (Zen 5): pub. 58455 §2.11), Intel 64 and IA-32 Architectures
// Optimization Reference Manual (pub. 248966: Haswell, Skylake, Ice Lake, Golden Cove, Crestmont
// chapters), Intel ARK ("# of AVX-512 FMA Units" per Xeon SKU), Arm Neoverse Software
// Optimization Guides (N1: 106434 §3.14, N2: PJDOC-466751330-18256 §3.15, V1: 109897 §3.15,
// V2: PJDOC-466751330-593177 §3.15), Agner Fog, "The microarchitecture of Intel, AMD and VIA
// CPUs" (Zen 1 splits 256-bit ops into two 128-bit halves), A. J. Yee, "Zen5's AVX512 Teardown"
// (numberworld.org, 2024: desktop/server Zen 5 has a native 512-bit datapath, Strix Point 256-bit).
constexpr std::array<row, 30> rows{{
    {"zen", 256, 1, "AMD SOG Family 17h (55723) §2.11: two 128-bit FMA pipes; a 256-bit FMA takes both"},
    {"zen2", 256, 2, "AMD SOG Family 17h models 30h+ (56305) §2.11: two 256-bit FMA pipes (FP0, FP1)"},
    {"zen3", 256, 2, "AMD SOG Family 19h (56665) §2.11: two 256-bit FMA pipes (FP0, FP1)"},
    {"zen4", 256, 2, "AMD SOG Family 19h models 10h+ (57647) §2.11: two 256-bit FMA pipes"},
    {"zen4", 512, 1, "AMD SOG Family 19h models 10h+ (57647) §2.11: 512-bit ops double-pumped on 256-bit pipes"},
    {"zen5", 256, 2, "AMD SOG Family 1Ah (58455) §2.11: two FMA pipes (FP0, FP1) of four FP pipes"},
    {"zen5", 512, 2, "AMD SOG Family 1Ah (58455) §2.11: two 512-bit FMA pipes (native 512-bit datapath on desktop and server parts; Yee 2024)"},
    {"zen5_mobile", 256, 2, "AMD SOG Family 1Ah (58455) §2.11: two 256-bit FMA pipes (mobile parts' 256-bit datapath; Yee 2024)"},
    {"zen5_mobile", 512, 1, "AMD SOG Family 1Ah (58455) §2.11: mobile parts double-pump 512-bit ops on 256-bit pipes (Yee 2024)"},
    {"haswell", 256, 2, "Intel Opt. Ref. Manual (248966), Haswell: FMA on ports 0 and 1"},
    {"broadwell", 256, 2, "Intel Opt. Ref. Manual (248966), Broadwell: FMA on ports 0 and 1"},
    {"sky_lake", 256, 2, "Intel Opt. Ref. Manual (248966), Skylake: FMA on ports 0 and 1"},
    {"palm_cove", 256, 2, "Intel Opt. Ref. Manual (248966), Cannon Lake: FMA on ports 0 and 1"},
    {"palm_cove", 512, 1, "Intel Opt. Ref. Manual (248966), Cannon Lake client: ports 0+1 fused for 512-bit"},
    {"sunny_cove", 256, 2, "Intel Opt. Ref. Manual (248966), Ice Lake: FMA on ports 0 and 1"},
    {"cypress_cove", 256, 2, "Intel Opt. Ref. Manual (248966), Rocket Lake (Sunny Cove back-port): FMA on ports 0 and 1"},
    {"cypress_cove", 512, 1, "Intel Opt. Ref. Manual (248966), Rocket Lake client: one AVX-512 FMA unit (ports 0+1 fused)"},
    {"willow_cove", 256, 2, "Intel Opt. Ref. Manual (248966), Tiger Lake: FMA on ports 0 and 1"},
    {"willow_cove", 512, 1, "Intel Opt. Ref. Manual (248966), Tiger Lake client: one AVX-512 FMA unit (ports 0+1 fused)"},
    {"golden_cove", 256, 2, "Intel Opt. Ref. Manual (248966), Golden Cove: FMA on ports 0 and 1"},
    {"raptor_cove", 256, 2, "Intel Opt. Ref. Manual (248966), Raptor Cove (Golden Cove core): FMA on ports 0 and 1"},
    {"raptor_cove", 512, 2, "Intel Opt. Ref. Manual (248966) and ARK: Xeon (Emerald Rapids) two AVX-512 FMA units (ports 0+1 and 5)"},
    {"redwood_cove", 256, 2, "Intel Opt. Ref. Manual (248966), Redwood Cove: FMA on ports 0 and 1"},
    {"redwood_cove", 512, 2, "Intel ARK: Xeon 6 P-core (Granite Rapids) two AVX-512 FMA units (ports 0+1 and 5)"},
    {"crestmont", 256, 1, "Intel Opt. Ref. Manual (248966), Crestmont: two 128-bit FMA pipes; a 256-bit FMA takes both"},
    {"neoverse_n1", 128, 2, "Arm Neoverse N1 SOG (106434) §3.14: two 128-bit FP/ASIMD pipes with FMA (V0, V1)"},
    {"neoverse_n2", 128, 2, "Arm Neoverse N2 SOG §3.15: two 128-bit FP/ASIMD/SVE pipes with FMA (V0, V1)"},
    {"neoverse_v1", 128, 4, "Arm Neoverse V1 SOG (109897) §3.15: four 128-bit FP/ASIMD pipes with FMA (V0–V3)"},
    {"neoverse_v1", 256, 2, "Arm Neoverse V1 SOG (109897) §3.15: two 256-bit SVE FMA pipes (V0–V3 paired)"},
    {"neoverse_v2", 128, 4, "Arm Neoverse V2 SOG §3.15: four 128-bit FP/ASIMD/SVE2 pipes with FMA (V0–V3)"},
}};

}  // namespace

fma_units_answer fma_units_for(const std::string& uarch, int simd_bits, const std::string& model_name) {
  // Server SKUs whose AVX-512 unit count varies by part: decided from the model name.
  if (simd_bits == 512 && uarch == "sky_lake") {
    if (contains(model_name, "Platinum") || contains(model_name, "Gold 6") || contains(model_name, "Gold 5122") ||
        contains(model_name, "Gold 5222"))
      return {2, "table: Intel Xeon Scalable (Skylake-SP/Cascade Lake) Platinum, Gold 6xxx, Gold 5122/5222: two AVX-512 FMA units (ports 0+1 and 5), Intel ARK and Opt. Ref. Manual (248966) §2"};
    if (contains(model_name, "Gold 5") || contains(model_name, "Silver") || contains(model_name, "Bronze"))
      return {1, "table: Intel Xeon Scalable (Skylake-SP/Cascade Lake) Gold 5xxx, Silver, Bronze: one AVX-512 FMA unit (ports 0+1), Intel ARK and Opt. Ref. Manual (248966) §2"};
    return {std::nullopt, "unknown (Skylake AVX-512 part '" + model_name + "': one or two FMA units depending on SKU)"};
  }
  if (simd_bits == 512 && uarch == "sunny_cove") {
    if (contains(model_name, "Xeon"))
      return {2, "table: Intel Xeon (Ice Lake-SP): two AVX-512 FMA units, Intel Opt. Ref. Manual (248966) §2"};
    return {1, "table: Intel Ice Lake client: one AVX-512 FMA unit (ports 0+1 fused), Intel Opt. Ref. Manual (248966) §2"};
  }
  // Golden Cove with AVX-512 enabled is a Sapphire Rapids Xeon (06_8FH, or AMX-TILE proves it where
  // a VM hides the signature and the brand string): client Golden Cove (Alder Lake) ships with
  // AVX-512 fused off and is decided as alder_lake_hybrid.
  if (simd_bits == 512 && uarch == "golden_cove")
    return {2, "table: Intel Xeon (Sapphire Rapids): two AVX-512 FMA units, Intel Opt. Ref. Manual (248966) §2"};
  if (uarch == "alder_lake_hybrid")
    return {std::nullopt, "unknown (hybrid part: P-cores have two 256-bit FMA units, E-cores one; which cores the probes ran on is not known)"};
  for (const auto& r : rows)
    if (uarch == r.uarch && simd_bits == r.simd_bits) return {r.units, std::string("table: ") + r.source};
  return {std::nullopt, "unknown (microarchitecture '" + (uarch.empty() ? std::string("?") : uarch) + "' at " +
                            std::to_string(simd_bits) + "-bit is not in the FMA table)"};
}

}  // namespace roofline::cpu
