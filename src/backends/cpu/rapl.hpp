// The CPU's energy counters: Linux powercap's RAPL domains (Intel "Running Average Power Limit",
// Intel SDM vol. 3B §15.10; AMD Zen registers the same interface), read from
// /sys/class/powercap/intel-rapl:N[/…]/energy_uj (µJ, wrapping to 0 after max_energy_range_uj).
// Backends return numbers; the analysis turns them into J/token and the energy roofline
// (docs/formulas-analysis.md §10).
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "roofline/energy.hpp"

namespace roofline::cpu {

/// One RAPL domain counted: its sysfs directory, its name ("package-0", "dram") and its wrap range.
struct rapl_domain {
  std::string dir;
  std::string name;
  std::uint64_t range_uj = 0;  ///< max_energy_range_uj (0 = unknown: the full 64 bits)
};

class rapl_meter {
 public:
  /// Finds the domains under `root` that together count the CPU's energy once: every top-level
  /// intel-rapl:N named package-N, and each of their subdomains named "dram" (DRAM is outside the
  /// package domain; "core"/"uncore" are inside it and "psys" covers the platform, so those are not
  /// added). Reads each energy_uj once to check it is readable. Never throws: without a readable
  /// domain available() is false and why() says "not available (<reason>)".
  explicit rapl_meter(const std::string& root = "/sys/class/powercap");
  /// The machine's meter, found once per process.
  static const rapl_meter& system();

  bool available() const { return !domains_.empty(); }
  const std::string& why() const { return why_; }
  const std::vector<rapl_domain>& domains() const { return domains_; }

  /// Every domain's energy_uj now (raw empty when one cannot be read).
  energy_mark mark() const;
  /// Σ over domains of counter_delta(a, b, max_energy_range_uj), µJ → J; note says why when missing.
  energy_window between(const energy_mark& a, const energy_mark& b) const;
  /// Σ over package domains of constraint_0_power_limit_uw (the long-term limit), W; nullopt when unreadable.
  std::optional<double> power_limit_w() const;

 private:
  std::vector<rapl_domain> domains_;
  std::string why_;
};

}  // namespace roofline::cpu
