// PLACEHOLDER until the spec module lands (delete this file when implementing src/spec/).
#include "roofline/error.hpp"
#include "roofline/spec.hpp"
namespace roofline {
std::string device_table_dir() { return std::string(ROOFLINE_SOURCE_DIR) + "/data/devices"; }
std::vector<std::string> gpu_names() { return {}; }
std::string match_gpu_name(const std::string& name) { throw input_error("", "NAME", "spec table not implemented"); }
nominal_roofs gpu_nominal(const std::string& name) { throw input_error("", "NAME", "spec table not implemented"); }
nominal_roofs gpu_nominal_live(const live_gpu& g) { nominal_roofs n; n.device_name = g.name; return n; }
nominal_roofs cpu_nominal(const cpu_description& cpu) { nominal_roofs n; n.device_name = cpu.model; return n; }
const nominal_peak* find_peak(const nominal_roofs& n, const std::string& precision, const std::string& engine) {
  for (const auto& p : n.peaks) if (p.precision == precision && (engine.empty() || p.engine == engine)) return &p;
  return nullptr;
}
}  // namespace roofline
