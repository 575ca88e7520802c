// Clock measurement: a chain of dependent integer adds. Each `add reg1, reg` needs the previous one's
// result, so the chain retires one add per cycle (integer add latency 1 cycle: Agner Fog,
// "Instruction tables", every x86-64 core since the Pentium Pro; Arm Cortex/Neoverse software
// optimization guides for AArch64 ADD). Adds per second = cycles per second = the clock this core
// actually ran at (boost included) while the chain ran.
// The addend is a register holding 1, not an immediate: Intel's Golden Cove and later cores fold
// add-immediate chains in the renamer (several per cycle: measured 25 GHz on a Xeon
// guest), which a register operand does not allow.
#include <algorithm>
#include <cstdint>
#include <fstream>
#include <string>

#include "backends/cpu/cpu_detect.hpp"
#include "roofline/error.hpp"

namespace roofline::cpu {

namespace {

#define ROOFLINE_REP10(x) x x x x x x x x x x
#define ROOFLINE_REP100(x) ROOFLINE_REP10(ROOFLINE_REP10(x))

constexpr std::int64_t adds_per_iteration = 200;

#if defined(__x86_64__) || defined(__aarch64__)
__attribute__((noinline)) std::uint64_t add_chain(std::int64_t iterations, std::uint64_t one) {
  std::uint64_t x = 0;
  for (std::int64_t i = 0; i < iterations; ++i) {
#if defined(__x86_64__)
    asm volatile(ROOFLINE_REP100("add %1, %0\n\t") ROOFLINE_REP100("add %1, %0\n\t") : "+r"(x) : "r"(one));
#else
    asm volatile(ROOFLINE_REP100("add %0, %0, %1\n\t") ROOFLINE_REP100("add %0, %0, %1\n\t") : "+r"(x) : "r"(one));
#endif
  }
  return x;
}
#endif

}  // namespace

double measure_clock_hz(const timing_options& timing) {
#if defined(__x86_64__) || defined(__aarch64__)
  // 1e6 adds (~0.4 ms at 2.5 GHz) per sample: short enough that the best of many samples ran
  // without being preempted even on a loaded machine.
  const std::int64_t iterations = 5000;
  volatile std::uint64_t one_source = 1;  // unknown to the compiler: the addend stays a register
  const std::uint64_t one = one_source;
  timing_options t = timing;
  t.min_repeats = std::max(t.min_repeats, 50);
  t.max_repeats = std::max(t.max_repeats, 400);
  const auto samples = time_repeated(
      [&] {
        const double t0 = now_s();
        const std::uint64_t x = add_chain(iterations, one);
        const double t1 = now_s();
        if (x != static_cast<std::uint64_t>(iterations * adds_per_iteration))
          throw probe_error("clock: dependent-add chain returned a wrong count");
        return t1 - t0;
      },
      t);
  return rates(static_cast<double>(iterations * adds_per_iteration), samples).best;
#else
  (void)timing;
  throw probe_error("clock: no dependent-add kernel for this architecture");
#endif
}

double cpufreq_max_hz() {
  std::ifstream f("/sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq");
  double khz = 0;
  if (f >> khz && khz > 0) return khz * 1e3;
  return 0;
}

double proc_cpuinfo_mhz_hz() {
  std::ifstream f("/proc/cpuinfo");
  std::string line;
  while (std::getline(f, line)) {
    if (line.rfind("cpu MHz", 0) == 0) {
      const auto colon = line.find(':');
      if (colon == std::string::npos) return 0;
      try {
        return std::stod(line.substr(colon + 1)) * 1e6;
      } catch (...) {
        return 0;
      }
    }
  }
  return 0;
}

}  // namespace roofline::cpu
