// The CPU backend: detection (cpu_detect), nominal roofs (spec: cpu_nominal), probes (cpu_probes),
// model ops (op_runner). Methodology: docs/methodology-cpu.md.
#include <memory>

#include "backends/cpu/cpu_detect.hpp"
#include "backends/cpu/cpu_probes.hpp"
#include "backends/cpu/op_runner.hpp"
#include "backends/cpu/probe_latency.hpp"
#include "roofline/backend.hpp"
#include "roofline/spec.hpp"

namespace roofline {

namespace {

class cpu_backend final : public backend {
 public:
  device_info describe() override {
    const auto& d = cpu::detect_cpu();
    device_info info;
    info.kind = "cpu";
    info.name = d.desc.model;
    info.id = "cpu";
    info.properties = d.properties;
    return info;
  }
  nominal_roofs nominal() override { return cpu_nominal(cpu::detect_cpu().desc); }
  std::vector<probe> probes(const probe_options& opt) override {
    auto p = cpu::cpu_probes(opt);
    p.push_back(cpu::small_work_probe(opt));  // measured.small_work: floor and cold-read ramp
    return p;
  }
  op_timing run_op(const op_desc& op, const timing_options& timing) override { return cpu::run_cpu_op(op, timing); }
  op_timing run_step(const std::vector<op_desc>& step, const timing_options& timing) override {
    return cpu::run_cpu_step(step, timing);
  }
};

}  // namespace

std::unique_ptr<backend> make_cpu_backend() { return std::make_unique<cpu_backend>(); }

}  // namespace roofline
