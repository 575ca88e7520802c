#include "backends/cpu/cpu_uarch.hpp"

#include <algorithm>
#include <array>
#include <cstring>
#include <fstream>
#include <fmt/format.h>

#include "roofline/error.hpp"

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

namespace roofline::cpu {

namespace {

struct family_row {
  const char* vendor;
  int family;
  int model_lo, model_hi;  ///< inclusive range of CPUID models
  const char* uarch;
  const char* source;
};

// Sources. AMD: Software Optimization Guides — Family 17h (pub. 55723), Family 17h models 30h+
// (56305), Family 19h (56665), Family 19h models 10h+ (57647), Family 1Ah (58455) — each §1 lists
// its CPUID models; AMD Revision Guides for the model ranges (Family 19h: 56683, Family 1Ah:
// 58251). Intel: Intel 64 and IA-32 Architectures Software Developer's Manual vol. 4 (335592),
// table 2-1 "CPUID signature values of DisplayFamily_DisplayModel". Linux
// arch/x86/include/asm/intel-family.h carries the same numbers with code names.
constexpr std::array<family_row, 44> family_rows{{
    {"AMD", 0x17, 0x00, 0x2F, "zen", "AMD family 17h models 00h–2Fh (Zen, Zen+: Naples, Summit/Pinnacle Ridge, Raven Ridge), SOG 55723 §1"},
    {"AMD", 0x17, 0x30, 0xFF, "zen2", "AMD family 17h models 30h+ (Zen 2: Rome, Matisse, Renoir), SOG 56305 §1"},
    {"AMD", 0x18, 0x00, 0xFF, "zen", "Hygon family 18h (Dhyana: Zen licence), SOG 55723 §1"},
    {"AMD", 0x19, 0x00, 0x0F, "zen3", "AMD family 19h models 00h–0Fh (Zen 3: Milan, Chagall), SOG 56665 §1"},
    {"AMD", 0x19, 0x10, 0x1F, "zen4", "AMD family 19h models 10h–1Fh (Zen 4: Genoa, Storm Peak), SOG 57647 §1"},
    {"AMD", 0x19, 0x20, 0x5F, "zen3", "AMD family 19h models 20h–5Fh (Zen 3: Vermeer, Cezanne; Zen 3+: Rembrandt), SOG 56665 §1"},
    {"AMD", 0x19, 0x60, 0x7F, "zen4", "AMD family 19h models 60h–7Fh (Zen 4: Raphael, Phoenix, Hawk Point), SOG 57647 §1"},
    {"AMD", 0x19, 0xA0, 0xAF, "zen4", "AMD family 19h models A0h–AFh (Zen 4c: Bergamo, Siena), SOG 57647 §1"},
    {"AMD", 0x1A, 0x00, 0x1F, "zen5", "AMD family 1Ah models 00h–1Fh (Zen 5 / Zen 5c server: Turin, Turin Dense), SOG 58455 §1"},
    {"AMD", 0x1A, 0x20, 0x2F, "zen5_mobile", "AMD family 1Ah models 20h–2Fh (Zen 5 mobile: Strix Point), SOG 58455 §1"},
    {"AMD", 0x1A, 0x40, 0x4F, "zen5", "AMD family 1Ah models 40h–4Fh (Zen 5: Granite Ridge desktop), SOG 58455 §1"},
    {"AMD", 0x1A, 0x60, 0x6F, "zen5_mobile", "AMD family 1Ah models 60h–6Fh (Zen 5 mobile: Krackan Point), SOG 58455 §1"},
    {"AMD", 0x1A, 0x70, 0x7F, "zen5", "AMD family 1Ah models 70h–7Fh (Zen 5: Strix Halo), SOG 58455 §1"},
    {"Intel", 6, 0x3C, 0x3C, "haswell", "Intel 06_3CH (Haswell client), SDM vol. 4 table 2-1"},
    {"Intel", 6, 0x3F, 0x3F, "haswell", "Intel 06_3FH (Haswell-E/EP), SDM vol. 4 table 2-1"},
    {"Intel", 6, 0x45, 0x46, "haswell", "Intel 06_45H/06_46H (Haswell ULT, GT3e), SDM vol. 4 table 2-1"},
    {"Intel", 6, 0x3D, 0x3D, "broadwell", "Intel 06_3DH (Broadwell client), SDM vol. 4 table 2-1"},
    {"Intel", 6, 0x47, 0x47, "broadwell", "Intel 06_47H (Broadwell GT3e), SDM vol. 4 table 2-1"},
    {"Intel", 6, 0x4F, 0x4F, "broadwell", "Intel 06_4FH (Broadwell-E/EP), SDM vol. 4 table 2-1"},
    {"Intel", 6, 0x56, 0x56, "broadwell", "Intel 06_56H (Broadwell-DE), SDM vol. 4 table 2-1"},
    {"Intel", 6, 0x4E, 0x4E, "sky_lake", "Intel 06_4EH (Skylake client), SDM vol. 4 table 2-1"},
    {"Intel", 6, 0x5E, 0x5E, "sky_lake", "Intel 06_5EH (Skylake client), SDM vol. 4 table 2-1"},
    {"Intel", 6, 0x55, 0x55, "sky_lake", "Intel 06_55H (Skylake-SP, Cascade Lake, Cooper Lake), SDM vol. 4 table 2-1"},
    {"Intel", 6, 0x8E, 0x8E, "sky_lake", "Intel 06_8EH (Kaby/Coffee/Whiskey/Amber Lake: Skylake core), SDM vol. 4 table 2-1"},
    {"Intel", 6, 0x9E, 0x9E, "sky_lake", "Intel 06_9EH (Kaby/Coffee Lake: Skylake core), SDM vol. 4 table 2-1"},
    {"Intel", 6, 0xA5, 0xA6, "sky_lake", "Intel 06_A5H/06_A6H (Comet Lake: Skylake core), SDM vol. 4 table 2-1"},
    {"Intel", 6, 0x66, 0x66, "palm_cove", "Intel 06_66H (Cannon Lake), SDM vol. 4 table 2-1"},
    {"Intel", 6, 0x7D, 0x7E, "sunny_cove", "Intel 06_7DH/06_7EH (Ice Lake client), SDM vol. 4 table 2-1"},
    {"Intel", 6, 0x6A, 0x6A, "sunny_cove", "Intel 06_6AH (Ice Lake-SP, Xeon), SDM vol. 4 table 2-1"},
    {"Intel", 6, 0x6C, 0x6C, "sunny_cove", "Intel 06_6CH (Ice Lake-D, Xeon), SDM vol. 4 table 2-1"},
    {"Intel", 6, 0xA7, 0xA7, "cypress_cove", "Intel 06_A7H (Rocket Lake), SDM vol. 4 table 2-1"},
    {"Intel", 6, 0x8C, 0x8D, "willow_cove", "Intel 06_8CH/06_8DH (Tiger Lake), SDM vol. 4 table 2-1"},
    {"Intel", 6, 0x97, 0x97, "alder_lake_hybrid", "Intel 06_97H (Alder Lake-S: Golden Cove P + Gracemont E cores), SDM vol. 4 table 2-1"},
    {"Intel", 6, 0x9A, 0x9A, "alder_lake_hybrid", "Intel 06_9AH (Alder Lake-P: hybrid), SDM vol. 4 table 2-1"},
    {"Intel", 6, 0xB7, 0xB7, "alder_lake_hybrid", "Intel 06_B7H (Raptor Lake-S: Raptor Cove P + Gracemont E cores), SDM vol. 4 table 2-1"},
    {"Intel", 6, 0xBA, 0xBA, "alder_lake_hybrid", "Intel 06_BAH (Raptor Lake-P: hybrid), SDM vol. 4 table 2-1"},
    {"Intel", 6, 0xBF, 0xBF, "alder_lake_hybrid", "Intel 06_BFH (Raptor Lake-S refresh: hybrid), SDM vol. 4 table 2-1"},
    {"Intel", 6, 0x8F, 0x8F, "golden_cove", "Intel 06_8FH (Sapphire Rapids, Xeon: Golden Cove), SDM vol. 4 table 2-1"},
    {"Intel", 6, 0xCF, 0xCF, "raptor_cove", "Intel 06_CFH (Emerald Rapids, Xeon: Raptor Cove), SDM vol. 4 table 2-1"},
    {"Intel", 6, 0xAD, 0xAE, "redwood_cove", "Intel 06_ADH/06_AEH (Granite Rapids, Xeon 6 P-cores: Redwood Cove), SDM vol. 4 table 2-1"},
    {"Intel", 6, 0xAF, 0xAF, "crestmont", "Intel 06_AFH (Sierra Forest, Xeon 6 E-cores: Crestmont), SDM vol. 4 table 2-1"},
    {"ARM", 0x41, 0xD0C, 0xD0C, "neoverse_n1", "Arm MIDR part 0xD0C (Neoverse N1), Neoverse N1 TRM (100616) §B2.4"},
    {"ARM", 0x41, 0xD40, 0xD40, "neoverse_v1", "Arm MIDR part 0xD40 (Neoverse V1), Neoverse V1 TRM (101427) §A.2"},
    {"ARM", 0x41, 0xD4F, 0xD4F, "neoverse_v2", "Arm MIDR part 0xD4F (Neoverse V2), Neoverse V2 TRM (102375) §A.2"},
}};

// Neoverse N2 (part 0xD49) would be one more row; it is in the FMA table but reached through
// cpuinfo (which knows it) until a row is added here with its source.

std::string trimmed(std::string v) {
  const auto b = v.find_first_not_of(" \t");
  const auto e = v.find_last_not_of(" \t");
  return b == std::string::npos ? "" : v.substr(b, e - b + 1);
}

std::string proc_field(const std::string& key) {
  std::ifstream f("/proc/cpuinfo");
  std::string line;
  while (std::getline(f, line))
    if (line.rfind(key, 0) == 0) {
      const auto colon = line.find(':');
      if (colon != std::string::npos && trimmed(line.substr(0, colon)) == key) return trimmed(line.substr(colon + 1));
    }
  return "";
}

[[maybe_unused]] int parse_int(const std::string& s) {
  try {
    return s.empty() ? -1 : std::stoi(s, nullptr, 0);  // base 0: "0x41" and "25" alike
  } catch (...) {
    return -1;
  }
}

}  // namespace

cpu_identity read_cpu_identity() {
  cpu_identity id;
  id.model_name = proc_field("model name");
#if defined(__x86_64__) || defined(__i386__)
  unsigned a = 0, b = 0, c = 0, d = 0;
  if (__get_cpuid(0, &a, &b, &c, &d)) {
    char v[13] = {0};
    std::memcpy(v, &b, 4), std::memcpy(v + 4, &d, 4), std::memcpy(v + 8, &c, 4);
    const std::string vendor = v;
    id.vendor = vendor == "AuthenticAMD" || vendor == "HygonGenuine" ? "AMD" : vendor == "GenuineIntel" ? "Intel" : vendor;
  }
  if (__get_cpuid(1, &a, &b, &c, &d)) {
    const int base_family = (a >> 8) & 0xF, ext_family = (a >> 20) & 0xFF;
    const int base_model = (a >> 4) & 0xF, ext_model = (a >> 16) & 0xF;
    id.family = base_family == 0xF ? base_family + ext_family : base_family;
    id.model = (base_family == 6 || base_family == 0xF) ? base_model + (ext_model << 4) : base_model;
  }
  if (__get_cpuid_count(7, 0, &a, &b, &c, &d)) id.amx_tile = (d >> 24) & 1;
#elif defined(__aarch64__)
  id.vendor = "ARM";
  id.family = parse_int(proc_field("CPU implementer"));
  id.model = parse_int(proc_field("CPU part"));
#endif
  return id;
}

std::optional<uarch_answer> uarch_from_features(const cpu_identity& id, const std::string& decided) {
  if (!id.amx_tile || id.vendor != "Intel") return std::nullopt;
  if (decided == "golden_cove" || decided == "raptor_cove" || decided == "redwood_cove") return std::nullopt;
  return uarch_answer{
      "golden_cove",
      fmt::format("CPUID leaf 7 reports AMX-TILE, which only Sapphire/Emerald/Granite Rapids Xeon P-cores implement "
                  "(Intel Opt. Ref. Manual 248966, Intel AMX chapter); the signature family {:#x} model {:#x}{} cannot "
                  "have it, so it is a virtualised signature and the extensions decide",
                  id.family, id.model, decided.empty() ? std::string() : " (" + decided + ")")};
}

std::optional<uarch_answer> uarch_from_identity(const cpu_identity& id) {
  for (const auto& r : family_rows)
    if (id.vendor == r.vendor && id.family == r.family && id.model >= r.model_lo && id.model <= r.model_hi)
      return uarch_answer{r.uarch, fmt::format("CPUID family {:#x} model {:#x}: {}", id.family, id.model, r.source)};
  return std::nullopt;
}

const std::vector<std::string>& known_uarch_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> v;
    for (const auto& r : family_rows)
      if (std::find(v.begin(), v.end(), r.uarch) == v.end()) v.push_back(r.uarch);
    for (const char* extra : {"neoverse_n2"}) v.push_back(extra);
    return v;
  }();
  return names;
}

void require_known_uarch(const std::string& name) {
  const auto& known = known_uarch_names();
  if (std::find(known.begin(), known.end(), name) != known.end()) return;
  std::string list;
  for (const auto& k : known) list += (list.empty() ? "" : ", ") + k;
  throw input_error("", "--uarch", "unknown microarchitecture '" + name + "' (known: " + list + ")");
}

}  // namespace roofline::cpu
