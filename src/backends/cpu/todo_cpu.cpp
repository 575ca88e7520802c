// PLACEHOLDER until the CPU backend lands (delete this file when implementing src/backends/cpu/).
#include "roofline/backend.hpp"
#include "roofline/error.hpp"
namespace roofline {
namespace {
class cpu_placeholder final : public backend {
 public:
  device_info describe() override { return {"cpu", "cpu", "cpu", json::object()}; }
  nominal_roofs nominal() override { return {}; }
  std::vector<probe> probes(const probe_options&) override { return {}; }
  op_timing run_op(const op_desc&, const timing_options&) override { throw probe_error("not implemented"); }
};
}  // namespace
std::unique_ptr<backend> make_cpu_backend() { return std::make_unique<cpu_placeholder>(); }
}  // namespace roofline
