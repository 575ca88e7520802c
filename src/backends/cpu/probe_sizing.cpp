#include "backends/cpu/probe_sizing.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>

#include "backends/cpu/probe_latency.hpp"

namespace roofline::cpu {

std::int64_t sizing_cache_bytes(const cache_sizes& c, int threads, bool* assumed) {
  if (assumed) *assumed = false;
  if (c.l3_total > 0 || c.l2 > 0) return c.l3_total + std::max<std::int64_t>(0, c.l2) * std::max(1, threads);
  if (assumed) *assumed = true;
  return assumed_llc_bytes;
}

small_work_plan plan_small_work(const cache_sizes& c, int threads, bool quick) {
  small_work_plan p;
  const std::int64_t max_bytes = quick ? (64ll << 20) : (1ll << 30);
  p.ramp = ramp_sizes(max_bytes);
  p.serial_ramp = ramp_sizes(1ll << 20);
  p.copy_bytes = std::min<std::int64_t>(64ll << 20, max_bytes);
  p.llc_bytes = sizing_cache_bytes(c, threads);
  const std::int64_t pool = std::max({max_bytes, 2 * p.copy_bytes, 3 * p.llc_bytes});
  p.pool_bytes = (pool + 7) / 8 * 8;
  return p;
}

namespace {
void check_increasing(const std::vector<std::int64_t>& v, std::int64_t quantum, const char* what, std::vector<std::string>& out) {
  if (v.empty()) out.push_back(fmt::format("{}: no sizes", what));
  for (std::size_t i = 0; i < v.size(); ++i) {
    if (v[i] <= 0 || v[i] % quantum != 0) out.push_back(fmt::format("{}: {} B is not a positive multiple of {} B", what, v[i], quantum));
    if (i > 0 && v[i] <= v[i - 1]) out.push_back(fmt::format("{}: {} B does not exceed the size before it", what, v[i]));
  }
}
}  // namespace

std::vector<std::string> small_work_violations(const small_work_plan& p) {
  std::vector<std::string> out;
  check_increasing(p.ramp, 8, "ramp", out);
  check_increasing(p.serial_ramp, 8, "serial ramp", out);
  if (p.pool_bytes % 8 != 0) out.push_back(fmt::format("pool of {} B is not whole words", p.pool_bytes));
  const std::int64_t largest = std::max(p.ramp.empty() ? 0 : p.ramp.back(), p.serial_ramp.empty() ? 0 : p.serial_ramp.back());
  if (p.pool_bytes < largest) out.push_back(fmt::format("pool of {} B cannot hold the largest read of {} B", p.pool_bytes, largest));
  if (p.copy_bytes <= 0 || p.pool_bytes < 2 * p.copy_bytes)
    out.push_back(fmt::format("a copy of {} B needs a pool of two slots ({} B), the pool is {} B", p.copy_bytes, 2 * p.copy_bytes, p.pool_bytes));
  if (std::find(p.ramp.begin(), p.ramp.end(), p.copy_bytes) == p.ramp.end())
    out.push_back(fmt::format("the copy of {} B has no ramp read of the same bytes to compare with", p.copy_bytes));
  if (p.pool_bytes < 3 * p.llc_bytes)
    out.push_back(fmt::format("pool of {} B is under 3 × the {} B LLC: a rotated read may still be cached", p.pool_bytes, p.llc_bytes));
  return out;
}

std::vector<std::string> sweep_violations(const std::vector<std::int64_t>& sizes, const cache_sizes& c, int threads, int arrays) {
  std::vector<std::string> out;
  const std::int64_t quantum = 384ll * std::max(1, threads);
  check_increasing(sizes, quantum, "bandwidth sweep", out);
  if (sizes.empty()) return out;
  const std::int64_t llc = sizing_cache_bytes(c, threads);
  const std::int64_t per_array = sizes.back() / std::max(1, arrays);
  if (per_array < 4 * llc)
    out.push_back(fmt::format("device-memory point: {} B per array is under 4 × the {} B LLC", per_array, llc));
  const level_label last = memory_level(sizes.back(), threads, c);
  if (last.level != "dram") out.push_back(fmt::format("device-memory point of {} B is labelled '{}' ({}), not dram", sizes.back(), last.level, last.why));
  return out;
}

int rotation_copies(double bytes_per_copy, std::int64_t cache_bytes, int max_copies) {
  if (!(bytes_per_copy > 0) || cache_bytes <= 0) return 1;
  const double want = std::ceil(2.0 * static_cast<double>(cache_bytes) / bytes_per_copy);
  return static_cast<int>(std::clamp(want, 1.0, static_cast<double>(std::max(1, max_copies))));
}

std::string gemm_sweep_stop(const std::vector<gemm_size_point>& so_far, double min_call_s, double gain) {
  if (so_far.size() < 2) return "";
  auto best_of = [](const gemm_size_point& p) { return p.best_flops_per_s > 0 ? p.best_flops_per_s : p.median_flops_per_s; };
  const gemm_size_point& last = so_far.back();
  if (!(last.median_flops_per_s > 0)) return "";
  const double n = static_cast<double>(last.n);
  const double call_s = 2 * n * n * n / last.median_flops_per_s;
  const auto best = std::max_element(so_far.begin(), so_far.end() - 1, [&](const gemm_size_point& a, const gemm_size_point& b) {
    return best_of(a) < best_of(b);
  });
  if (call_s < min_call_s || best_of(last) > gain * best_of(*best)) return "";
  return fmt::format("larger sizes not run: n = {} ({:.3g} GFLOP/s, {:.2g} s a call) was no faster than n = {} "
                     "({:.3g} GFLOP/s); the next size is 8× the work",
                     last.n, best_of(last) / 1e9, call_s, best->n, best_of(*best) / 1e9);
}

}  // namespace roofline::cpu
