// The CPU backend: detection (cpu_detect), nominal roofs (spec: cpu_nominal), probes (probes.cpp, one
// probe_*.cpp per roof), model ops (op_runner.cpp, one ops_*.cpp per op family). Methodology:
// docs/methodology-cpu.md.
#include <memory>

#include "roofline/error.hpp"

#include "backends/cpu/cpu_detect.hpp"
#include "backends/cpu/op_runner.hpp"
#include "backends/cpu/probe_latency.hpp"
#include "backends/cpu/probes.hpp"
#include "backends/cpu/rapl.hpp"
#include "roofline/backend.hpp"
#include "roofline/spec.hpp"

namespace roofline {

namespace {

cpu::cpu_overrides to_cpu_overrides(const device_overrides& o) {
  cpu::cpu_overrides c;
  c.uarch = o.uarch;
  if (!o.memory.empty()) c.memory = parse_memory_config(o.memory);
  return c;
}

class cpu_backend final : public backend {
 public:
  explicit cpu_backend(const device_overrides& o)
      : detection_(o.empty() ? cpu::detect_cpu() : cpu::resolve_cpu(cpu::cpu_facts_cached(), to_cpu_overrides(o))) {}
  device_info describe() override {
    const auto& d = detection_;
    device_info info;
    info.kind = "cpu";
    info.name = d.desc.model;
    info.id = "cpu";
    info.properties = d.properties;
    return info;
  }
  nominal_roofs nominal() override { return cpu_nominal(detection_.desc); }
  void complete_nominal(nominal_roofs& n, const measured_roofs& m) override {
    cpu_nominal_from_measured(n, detection_.desc, m.compute);
  }
  std::vector<probe> probes(const probe_options& opt) override {
    auto p = cpu::cpu_probes(opt);
    p.push_back(cpu::small_work_probe(opt));  // measured.small_work: floor and cold-read ramp
    return p;
  }
  op_timing run_op(const op_desc& op, const timing_options& timing) override { return cpu::run_cpu_op(op, timing); }
  op_timing run_step(const std::vector<op_desc>& step, const timing_options& timing) override {
    return cpu::run_cpu_step(step, timing);
  }
  energy_mark energy_now() override { return cpu::rapl_meter::system().mark(); }
  energy_window energy_between(const energy_mark& a, const energy_mark& b) override {
    return cpu::rapl_meter::system().between(a, b);
  }

 private:
  cpu::cpu_detection detection_;
};

}  // namespace

std::unique_ptr<backend> make_cpu_backend(const device_overrides& overrides) {
  return std::make_unique<cpu_backend>(overrides);
}

void check_overrides(const std::string& device, const device_overrides& o) {
  if (o.empty()) return;
  if (device != "cpu" && device != "auto")
    throw input_error("", o.uarch.empty() ? "--memory" : "--uarch",
                      "describes a CPU; the device is '" + device + "' (use --device cpu)");
  if (!o.memory.empty()) parse_memory_config(o.memory);
  if (!o.uarch.empty()) cpu::require_known_uarch(o.uarch);
}

}  // namespace roofline
