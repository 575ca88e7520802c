// The list of CPU probes, in the order the driver runs them (bandwidth, compute, gemm, attention
// tiles); each family lives in its own probe_*.cpp, which says what it measures and how it is checked.
#include "backends/cpu/probes.hpp"

#include <iterator>

#include "backends/cpu/probe_common.hpp"

namespace roofline::cpu {

std::vector<probe> cpu_probes(const probe_options& opt) {
  std::vector<probe> ps;
  for (auto family : {bandwidth_probes, compute_probes, gemm_probes, attention_probes}) {
    auto more = family(opt, static_cast<int>(ps.size()));
    ps.insert(ps.end(), std::make_move_iterator(more.begin()), std::make_move_iterator(more.end()));
  }
  return ps;
}

}  // namespace roofline::cpu
