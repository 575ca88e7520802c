// The nccl-tests bus-bandwidth convention and the communication roofline built on it.
// Source: NVIDIA/nccl-tests, doc/PERFORMANCE.md, "Bandwidth" (algbw = S / t) and "Bus bandwidth"
// (busbw = algbw × 2(n−1)/n for AllReduce, × (n−1)/n for ReduceScatter and AllGather), where S is
// the size of the full buffer: the all-reduce vector, the all-gather output, the reduce-scatter input.
#include <algorithm>
#include <map>
#include <stdexcept>

#include "roofline/fleet.hpp"

namespace roofline::fleet {

std::string to_string(collective c) {
  switch (c) {
    case collective::all_reduce: return "all_reduce";
    case collective::all_gather: return "all_gather";
    case collective::reduce_scatter: return "reduce_scatter";
  }
  return "?";
}

double bus_factor(collective c, int n) {
  if (n < 1) throw std::invalid_argument("bus_factor: n must be ≥ 1");
  const double frac = static_cast<double>(n - 1) / n;
  return c == collective::all_reduce ? 2.0 * frac : frac;
}

double algbw(double bytes, double seconds) {
  if (!(seconds > 0)) throw std::invalid_argument("algbw: seconds must be > 0");
  return bytes / seconds;
}

double busbw(collective c, double bytes, double seconds, int n) { return algbw(bytes, seconds) * bus_factor(c, n); }

double predict_collective_s(collective c, double bytes, int n, double bus_bandwidth, double latency_s) {
  if (!(bus_bandwidth > 0)) throw std::invalid_argument("predict_collective_s: bus bandwidth must be > 0");
  return latency_s + bytes * bus_factor(c, n) / bus_bandwidth;
}

std::vector<interconnect_result::roof> communication_roofs(const std::vector<collective_point>& points) {
  std::map<collective, interconnect_result::roof> by_op;
  std::map<collective, std::int64_t> smallest;
  for (const auto& p : points) {
    auto [it, fresh] = by_op.try_emplace(p.op);
    auto& r = it->second;
    r.op = p.op;
    if (fresh || p.bytes < smallest[p.op]) {
      smallest[p.op] = p.bytes;
      r.latency_s = p.seconds;
    }
    if (p.best_busbw > r.busbw) {
      r.busbw = p.best_busbw;
      r.at_bytes = p.bytes;
    }
  }
  std::vector<interconnect_result::roof> out;
  for (const auto& [op, r] : by_op) out.push_back(r);
  return out;
}

}  // namespace roofline::fleet
