// Which microarchitecture a CPU is, decided from what the processor says of itself (x86 CPUID
// vendor/family/model; on AArch64 the MIDR implementer/part in /proc/cpuinfo), independent of the
// cpuinfo library's age: Debian 12's libcpuinfo (2022) names every AMD family-19h core "zen3" and
// knows no family-1Ah core at all. A table, one row a part family, each with its source.
#pragma once
#include <optional>
#include <string>
#include <vector>

namespace roofline::cpu {

/// What the processor reports about itself. x86: vendor "AMD"/"Intel", family and model as CPUID
/// leaf 1 composes them (family = base + extended when base is 0xF; model = base + (extended << 4)
/// when family is 6 or ≥ 0xF). AArch64: vendor "ARM", family = MIDR implementer (0x41 = Arm),
/// model = MIDR part number (e.g. 0xd0c = Neoverse N1).
struct cpu_identity {
  std::string vendor;
  int family = -1;
  int model = -1;
  std::string model_name;  ///< brand string ("AMD EPYC 9654 96-Core Processor"); may be bare in a VM
  /// CPUID leaf 7 sub-leaf 0 EDX bit 24 (AMX-TILE; Intel SDM vol. 2A, CPUID, table 3-8). Only
  /// Sapphire Rapids and later Xeon P-cores implement it, which is what makes it a check on a
  /// signature a hypervisor may have replaced (uarch_from_features).
  bool amx_tile = false;
};

/// A decided microarchitecture: cpuinfo-style name ("zen4", "sky_lake", "neoverse_v1") and why.
struct uarch_answer {
  std::string name;
  std::string source;
};

/// The identity of this processor (CPUID on x86-64, /proc/cpuinfo on AArch64); fields stay at
/// their defaults (-1, "") where nothing can be read.
cpu_identity read_cpu_identity();

/// The microarchitecture for `id` from the family/model table, or nullopt when the part is not
/// in it (the caller then falls back to cpuinfo, then to a measured nominal).
std::optional<uarch_answer> uarch_from_identity(const cpu_identity& id);

/// The microarchitecture class that the ISA extensions in `id` prove when they contradict
/// `decided` (the answer from the signature table or cpuinfo; "" if none), else nullopt.
/// Hypervisors commonly present an older CPUID family/model than the host's while passing its
/// newer extensions through (seen: a Granite-Rapids-class guest reporting 06_A7H, Rocket Lake,
/// with AMX, whose FMA table row gives half the measured FMA rate). The rule: AMX-TILE exists only
/// on Xeon P-cores of Sapphire Rapids (golden_cove), Emerald Rapids (raptor_cove) and Granite
/// Rapids (redwood_cove) — Intel Opt. Ref. Manual (248966) ch. 20 "Intel AMX" — and every one of
/// them has two 512-bit FMA units (ports 0+1 fused and 5), so a signature naming any other core
/// is replaced by golden_cove, whose FMA row is the same for all three.
std::optional<uarch_answer> uarch_from_features(const cpu_identity& id, const std::string& decided);

/// Every microarchitecture name the FMA table knows (for --uarch and its error message).
const std::vector<std::string>& known_uarch_names();

/// Throws input_error naming --uarch, with the known names, when `name` is not one of them.
void require_known_uarch(const std::string& name);

}  // namespace roofline::cpu
