// CPU detection: model, vendor, cores, SIMD ISA usable at run time, FMA units (table), caches and
// clock (cpufreq max when the OS exposes it, else measured with a dependent-add chain). Uses
// cpuinfo (libcpuinfo) when built with it, else /proc/cpuinfo and /sys.
#pragma once
#include <cstdint>
#include <string>

#include <optional>

#include "backends/cpu/cpu_uarch.hpp"
#include "roofline/json.hpp"
#include "roofline/measure.hpp"
#include "roofline/spec.hpp"

namespace roofline::cpu {

struct cpu_detection {
  cpu_description desc;
  std::string uarch;  ///< decided microarchitecture ("zen4", ...), "" when unknown
  json properties = json::object();  ///< for device_info.properties
};

/// The widest SIMD ISA this binary has kernels for and the CPU supports at run time:
/// "avx512f" (512), "avx2+fma" (256), "sse2" (128, no FMA) on x86-64; "generic" (128) elsewhere.
struct simd_isa {
  std::string name;
  int bits = 0;
  bool fma = false;
};
simd_isa detect_simd_isa();

/// What detection reads from the machine: identity (CPUID), cpuinfo's uarch name, ISA, and the
/// description's counted or measured factors (cores, threads, caches, clock, SMBIOS memory).
struct cpu_facts {
  cpu_identity id;
  std::string cpuinfo_uarch;  ///< "" when cpuinfo is absent or does not know the part
  simd_isa isa;
  cpu_description desc;
  json properties = json::object();
};

/// What the user states that the machine cannot tell (--uarch, --memory).
struct cpu_overrides {
  std::string uarch;                   ///< a name of known_uarch_names(); "" = detect
  std::optional<memory_config> memory;
};

/// Decides the microarchitecture (user > CPUID table > cpuinfo > unknown), the FMA units per core
/// (fma_units_for at the ISA's width) and the memory configuration (user > SMBIOS), each with its
/// source, and fills the device properties. Pure: tests inject facts for any CPU. Throws
/// input_error naming --uarch for a name the table does not know.
cpu_detection resolve_cpu(const cpu_facts& facts, const cpu_overrides& overrides = {});

/// This machine's facts, read once (the clock measurement takes ~0.1 s) and cached.
const cpu_facts& cpu_facts_cached();

/// resolve_cpu(cpu_facts_cached()), cached.
const cpu_detection& detect_cpu();

/// Clock of one core in Hz, measured as dependent integer adds per second: each add needs the
/// previous result, so one add retires per cycle (latency 1 cycle on every x86-64 and AArch64 core:
/// Agner Fog, instruction tables). Best of repeated samples through time_repeated().
/// Throws probe_error where no add-chain kernel exists for the architecture or the chain's result
/// is wrong.
double measure_clock_hz(const timing_options& timing);

/// /sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq in Hz, 0 when absent.
double cpufreq_max_hz();

/// "cpu MHz" of the first processor in /proc/cpuinfo in Hz, 0 when absent.
double proc_cpuinfo_mhz_hz();

}  // namespace roofline::cpu
