#include "backends/cuda/memory_level.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace roofline::cuda {

namespace {
constexpr std::int64_t KiB = 1024, MiB = 1024 * KiB;

std::string mib(std::int64_t b) { return fmt::format("{:.4g} MiB", static_cast<double>(b) / MiB); }
}  // namespace

memory_level label_memory_level(std::int64_t bytes, std::int64_t l2_bytes, bool hbm) {
  const std::string device = hbm ? "hbm" : "device memory";
  if (l2_bytes <= 0) return {"dram", fmt::format("{}: L2 size unknown", device)};
  const double ratio = static_cast<double>(bytes) / static_cast<double>(l2_bytes);
  if (2 * bytes <= l2_bytes)
    return {"l2", fmt::format("L2 near: working set {} <= L2/2 ({}), fits once in each L2 partition; loads bypass L1 (.cg)",
                              mib(bytes), mib(l2_bytes / 2))};
  if (4 * bytes <= 3 * l2_bytes)
    return {"l2", fmt::format("L2 far: working set {} is {:.2f}× L2, over L2/2, so part of it is served by the other "
                              "L2 partition; loads bypass L1 (.cg)",
                              mib(bytes), ratio)};
  if (bytes >= 4 * l2_bytes)
    return {"dram", fmt::format("{}: working set is {:.2f}× L2 (>= 4×, at most a quarter can hit in L2)", device, ratio)};
  return {"l2+dram", fmt::format("transition: working set is {:.2f}× L2", ratio)};
}

memory_level label_l1_level(std::int64_t per_sm_bytes, std::int64_t l1_bytes) {
  if (l1_bytes > 0 && 2 * per_sm_bytes <= l1_bytes)
    return {"l1", fmt::format("L1: {} KiB per SM re-read by the blocks of that SM (<= half the {} KiB L1), loads .ca",
                              per_sm_bytes / KiB, l1_bytes / KiB)};
  return {"l1+l2", fmt::format("transition: {} KiB per SM against a {} KiB L1", per_sm_bytes / KiB, l1_bytes / KiB)};
}

std::int64_t l1_bytes_per_sm(std::int64_t shared_mem_per_sm_bytes) {
  return shared_mem_per_sm_bytes > 0 ? shared_mem_per_sm_bytes + 28 * KiB : 0;
}

std::vector<std::int64_t> l1_sweep_sizes(std::int64_t l1_bytes, bool quick) {
  std::vector<std::int64_t> all;
  for (std::int64_t s = 16 * KiB; 2 * s <= l1_bytes; s *= 2) all.push_back(s);
  if (!quick || all.size() <= 2) return all;
  return {all.front(), all.back()};
}

std::vector<std::int64_t> sweep_sizes(std::int64_t l2_bytes, std::int64_t max_bytes, bool quick) {
  std::vector<std::int64_t> out;
  auto add = [&](std::int64_t num, std::int64_t den) {
    const std::int64_t s = l2_bytes * num / den / (64 * KiB) * (64 * KiB);
    if (s > 0 && s <= max_bytes && (out.empty() || s > out.back())) out.push_back(s);
  };
  if (l2_bytes > 0) {
    if (quick) {
      add(1, 4), add(1, 2), add(2, 1), add(4, 1);
    } else {
      for (const auto& [n, d] : {std::pair{1, 8}, {3, 16}, {1, 4}, {3, 8}, {1, 2}, {5, 8}, {3, 4}, {1, 1}, {3, 2},
                                 {2, 1}, {3, 1}, {4, 1}})
        add(n, d);
    }
  }
  if (!quick || l2_bytes <= 0) {
    std::int64_t top = 512 * MiB;
    while (top < 8 * l2_bytes) top *= 2;
    if (top <= max_bytes && (out.empty() || top > out.back())) out.push_back(top);
  }
  return out;
}

}  // namespace roofline::cuda
