#include "roofline/json.hpp"
#include "roofline/sanity.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>

#include "roofline/vocabulary.hpp"

namespace roofline {

namespace {

std::string human_bytes(double b) {
  const char* unit[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int i = 0;
  while (b >= 1024 && i < 4) { b /= 1024; ++i; }
  return fmt::format("{:.3g} {}", b, unit[i]);
}

void add_flag(std::vector<std::string>& flags, std::string f, int& count) {
  if (std::find(flags.begin(), flags.end(), f) != flags.end()) return;
  flags.push_back(std::move(f));
  ++count;
}

double llc_bytes(const results& r) {
  const json& p = r.device.properties;
  for (const char* k : {"l3_bytes", "llc_bytes", "l2_bytes"})
    if (p.contains(k) && p[k].is_number() && p[k].get<double>() > 0) {
      if (r.device.kind == "cpu" && std::string(k) == "l2_bytes") continue;  // per-core on CPUs
      return p[k].get<double>();
    }
  return 0;
}

void flag_telemetry(const std::optional<telemetry_summary>& t, std::vector<std::string>& flags, int& count) {
  if (!t || t->throttled_fraction <= 0) return;
  std::string reasons;
  for (const auto& s : t->throttle_reasons) reasons += (reasons.empty() ? "" : ", ") + s;
  add_flag(flags, fmt::format("throttled in {:.0f}% of samples ({})", 100 * t->throttled_fraction,
                              reasons.empty() ? "reason not reported" : reasons), count);
}

/// Rank of a memory level, nearest the core first: l1 1, l2 2, l3/llc 3, device memory 4; 0 = unknown.
int level_rank(const std::string& level) {
  switch (memory_tier_of(level)) {
    case memory_tier::l1: return 1;
    case memory_tier::l2: return 2;
    case memory_tier::l3:
    case memory_tier::llc: return 3;
    case memory_tier::device: return 4;
    case memory_tier::unknown: break;
  }
  return 0;
}
std::string rank_name(int rank) {
  static const char* keys[] = {"?", "l1", "l2", "llc", "device"};
  return rank >= 1 && rank <= 4 ? memory_level_label(keys[rank]) : "?";
}

std::string gbs(double bytes_per_s) { return fmt::format("{:.1f} GB/s", bytes_per_s / 1e9); }

void reject(bandwidth_result& b, std::string reason, int& count) {
  if (b.rejected) return;
  b.rejected = true;
  b.rejected_reason = reason;
  b.flags.push_back("rejected: " + std::move(reason));
  ++count;
}

/// Slowest rate of each rank over the pattern's points not rejected (0 = none).
std::array<double, 5> worst_by_rank(const std::vector<bandwidth_result*>& pts) {
  std::array<double, 5> worst{};
  for (const auto* b : pts)
    if (!b->rejected) {
      const int k = level_rank(b->level);
      if (k > 0 && b->bytes_per_s > 0 && (worst[k] == 0 || b->bytes_per_s < worst[k])) worst[k] = b->bytes_per_s;
    }
  return worst;
}

/// Best rate of each rank over the pattern's points not rejected (index 0 unused).
std::array<double, 5> best_by_rank(const std::vector<bandwidth_result*>& pts) {
  std::array<double, 5> best{};
  for (const auto* b : pts)
    if (!b->rejected) {
      const int k = level_rank(b->level);
      if (k > 0) best[k] = std::max(best[k], b->bytes_per_s);
    }
  return best;
}

/// The nearest rank above `rank` with a measured best, or 0.
int measured_above(const std::array<double, 5>& best, int rank) {
  for (int u = rank - 1; u >= 1; --u)
    if (best[u] > 0) return u;
  return 0;
}

void apply_level_rules(std::vector<bandwidth_result*>& pts, const sanity_thresholds& t, int& count) {
  // Cache levels, nearest the core first, so that each compares against an upper level already cleaned.
  for (int rank = 2; rank <= 3; ++rank) {
    const auto best = best_by_rank(pts);
    const int u = measured_above(best, rank);
    if (u == 0) continue;
    for (auto* b : pts) {
      if (b->rejected || level_rank(b->level) != rank) continue;
      if (b->bytes_per_s > best[u] * (1 + t.level_tolerance))
        reject(*b, fmt::format("{} {} is faster than the {} best of {}: a level cannot exceed the level above it",
                               rank_name(rank), gbs(b->bytes_per_s), rank_name(u), gbs(best[u])),
               count);
      else if (b->pattern == "read" && b->bytes_per_s >= best[u] * (1 - t.level_margin))
        reject(*b, fmt::format("{} {} is within {:.0f}% of the {} best of {}: served by the {}, not the {}",
                               rank_name(rank), gbs(b->bytes_per_s), 100 * t.level_margin, rank_name(u),
                               gbs(best[u]), rank_name(u), rank_name(rank)),
               count);
    }
  }
  // Device memory faster than the cache above it: that cache was not measured at its rate.
  {
    const auto best = best_by_rank(pts);
    const int u = measured_above(best, 4);
    if (u > 0 && best[4] > best[u] * (1 + t.level_tolerance))
      for (auto* b : pts)
        if (!b->rejected && level_rank(b->level) == u && b->bytes_per_s < best[4])
          reject(*b, fmt::format("{} {} is slower than device memory ({}), whose every byte passes through the {}: "
                                 "not measured at the {}'s rate",
                                 rank_name(u), gbs(b->bytes_per_s), gbs(best[4]), rank_name(u), rank_name(u)),
                 count);
  }
  // Transitions "a+b" lie between their two neighbours: not above the best of a, not below every point of b.
  const auto best = best_by_rank(pts);
  const auto worst = worst_by_rank(pts);
  for (auto* b : pts) {
    const auto plus = b->level.find('+');
    if (b->rejected || plus == std::string::npos) continue;
    const int a = level_rank(b->level.substr(0, plus)), c = level_rank(b->level.substr(plus + 1));
    if (a == 0 || c == 0) continue;
    const double tol = std::max(t.level_tolerance, b->spread);
    const int upper = best[a] > 0 ? a : measured_above(best, a);
    if (upper > 0 && b->bytes_per_s > best[upper] * (1 + tol))
      reject(*b, fmt::format("transition {} at {} is faster than the {} best of {}: it must lie between its neighbours",
                             b->level, gbs(b->bytes_per_s), rank_name(upper), gbs(best[upper])),
             count);
    else if (worst[c] > 0 && b->bytes_per_s < worst[c] * (1 - tol))
      reject(*b, fmt::format("transition {} at {} is slower than every {} point (slowest {}): it must lie between its "
                             "neighbours",
                             b->level, gbs(b->bytes_per_s), rank_name(c), gbs(worst[c])),
             count);
  }
}

}  // namespace

int reject_impossible(results& r, const sanity_thresholds& t) {
  int count = 0;
  const double llc = llc_bytes(r);
  const auto nominal_bw = r.nominal.memory_bandwidth_bytes_per_s;
  std::vector<std::string> patterns;
  for (auto& b : r.measured.bandwidth) {
    if (std::find(patterns.begin(), patterns.end(), b.pattern) == patterns.end()) patterns.push_back(b.pattern);
    if (level_rank(b.level) != 4) continue;
    if (llc > 0 && b.working_set_bytes <= llc)
      reject(b, fmt::format("working set ({}) fits in the last-level cache ({}): not a device-memory number",
                            human_bytes(b.working_set_bytes), human_bytes(llc)),
             count);
    else if (nominal_bw && b.bytes_per_s > *nominal_bw * (1 + t.above_nominal))
      reject(b, fmt::format("{} is {:.1f}% above the nominal memory bandwidth {}", gbs(b.bytes_per_s),
                            100 * (b.bytes_per_s / *nominal_bw - 1), gbs(*nominal_bw)),
             count);
  }
  for (const auto& p : patterns) {
    std::vector<bandwidth_result*> pts;
    for (auto& b : r.measured.bandwidth)
      if (b.pattern == p) pts.push_back(&b);
    apply_level_rules(pts, t, count);
  }
  return count;
}

int flag_results(results& r, const sanity_thresholds& t) {
  int count = reject_impossible(r, t);
  const double llc = llc_bytes(r);
  const auto nominal_bw = r.nominal.memory_bandwidth_bytes_per_s;
  for (auto& b : r.measured.bandwidth) {
    if (is_device_memory(b.level) && llc > 0 && b.working_set_bytes <= llc)
      add_flag(b.flags, fmt::format("working set ({}) fits in the last-level cache ({}): not a DRAM number",
                                    human_bytes(b.working_set_bytes), human_bytes(llc)), count);
    if (is_device_memory(b.level) && nominal_bw && b.bytes_per_s > *nominal_bw * (1 + t.above_nominal))
      add_flag(b.flags, fmt::format("{:.1f}% above the nominal memory bandwidth: check the byte count and the working set",
                                    100 * (b.bytes_per_s / *nominal_bw - 1)), count);
    if (b.spread > t.spread && !b.rejected)
      add_flag(b.flags, fmt::format("repeats disagree: IQR {:.0f}% of the median time", 100 * b.spread), count);
    flag_telemetry(b.telemetry, b.flags, count);
  }
  for (auto& c : r.measured.compute) {
    const nominal_peak* highest = peak_for(r.nominal, c.precision, peak_engine::highest);
    const double nom = highest ? highest->flops_per_s : 0;
    if (nom > 0 && c.flops_per_s > nom * (1 + t.above_nominal))
      add_flag(c.flags, fmt::format("{:.1f}% above the nominal {} peak: check synchronisation and the FLOP count",
                                    100 * (c.flops_per_s / nom - 1), c.precision), count);
    if (c.spread > t.spread && !c.rejected)
      add_flag(c.flags, fmt::format("repeats disagree: IQR {:.0f}% of the median time", 100 * c.spread), count);
    flag_telemetry(c.telemetry, c.flags, count);
  }
  return count;
}

}  // namespace roofline
