// CPU detection: model, vendor, cores, SIMD ISA usable at run time, FMA units (table), caches and
// clock (cpufreq max when the OS exposes it, else measured with a dependent-add chain). Uses
// cpuinfo (libcpuinfo) when built with it, else /proc/cpuinfo and /sys.
#pragma once
#include <cstdint>
#include <string>

#include "roofline/json.hpp"
#include "roofline/measure.hpp"
#include "roofline/spec.hpp"

namespace roofline::cpu {

struct cpu_detection {
  cpu_description desc;
  std::string uarch;  ///< cpuinfo microarchitecture name ("zen3", ...), "" when unknown
  json properties = json::object();  ///< for device_info.properties
};

/// Detects this CPU once (the clock measurement takes ~0.1 s) and caches the answer.
const cpu_detection& detect_cpu();

/// The widest SIMD ISA this binary has kernels for and the CPU supports at run time:
/// "avx512f" (512), "avx2+fma" (256), "sse2" (128, no FMA) on x86-64; "generic" (128) elsewhere.
struct simd_isa {
  std::string name;
  int bits = 0;
  bool fma = false;
};
simd_isa detect_simd_isa();

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
