// The nccl-tests bus-bandwidth convention and the communication roofline built on it.
// Source: NVIDIA/nccl-tests, doc/PERFORMANCE.md, "Bandwidth" (algbw = S / t) and "Bus bandwidth"
// (busbw = algbw × 2(n−1)/n for AllReduce, × (n−1)/n for ReduceScatter and AllGather, × 1 for
// Broadcast), where S is the size of the full buffer: the all-reduce vector, the all-gather output,
// the reduce-scatter input, the broadcast buffer. The two patterns that page does not list follow
// nccl-tests' own computation: all-to-all (src/alltoall.cu) S = one rank's send buffer (n chunks),
// busbw = algbw × (n−1)/n (the chunk a rank keeps crosses no link); send/recv (src/sendrecv.cu) S = one
// message, busbw = algbw.
#include <algorithm>
#include <fmt/format.h>
#include <stdexcept>
#include <tuple>

#include "roofline/fleet.hpp"

namespace roofline::fleet {

std::string to_string(collective c) {
  switch (c) {
    case collective::all_reduce: return "all_reduce";
    case collective::all_gather: return "all_gather";
    case collective::reduce_scatter: return "reduce_scatter";
    case collective::all_to_all: return "all_to_all";
    case collective::broadcast: return "broadcast";
    case collective::send_recv: return "send_recv";
    case collective::send_recv_bidir: return "send_recv_bidir";
  }
  return "?";
}

bool is_point_to_point(collective c) { return c == collective::send_recv || c == collective::send_recv_bidir; }

std::string series_name(collective c, int src, int dst) {
  if (!is_point_to_point(c) || src < 0 || dst < 0) return to_string(c);
  return fmt::format("{} {}{}{}", to_string(c), src, c == collective::send_recv ? "→" : "↔", dst);
}

double bus_factor(collective c, int n) {
  if (n < 1) throw std::invalid_argument("bus_factor: n must be ≥ 1");
  const double frac = static_cast<double>(n - 1) / n;
  switch (c) {
    case collective::all_reduce: return 2.0 * frac;
    case collective::all_gather:
    case collective::reduce_scatter:
    case collective::all_to_all: return frac;
    case collective::broadcast:
    case collective::send_recv:
    case collective::send_recv_bidir: return 1.0;
  }
  return 1.0;
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
  std::vector<interconnect_result::roof> out;
  std::vector<std::int64_t> smallest;
  for (const auto& p : points) {
    auto it = std::find_if(out.begin(), out.end(), [&](const interconnect_result::roof& r) {
      return std::tie(r.op, r.src, r.dst) == std::tie(p.op, p.src, p.dst);
    });
    const bool fresh = it == out.end();
    if (fresh) {
      out.push_back({p.op, 0, 0, 0, p.src, p.dst});
      smallest.push_back(p.bytes);
      it = out.end() - 1;
    }
    const auto i = static_cast<std::size_t>(it - out.begin());
    if (fresh || p.bytes < smallest[i]) {
      smallest[i] = p.bytes;
      it->latency_s = p.seconds;
    }
    if (p.best_busbw > it->busbw) {
      it->busbw = p.best_busbw;
      it->at_bytes = p.bytes;
    }
  }
  return out;
}

std::optional<double> vs_nominal(const interconnect_result::roof& r, const link_nominal& nominal) {
  if (!nominal.bytes_per_s || !(*nominal.bytes_per_s > 0)) return std::nullopt;
  return r.busbw / *nominal.bytes_per_s;
}

}  // namespace roofline::fleet
