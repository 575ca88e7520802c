#include "backends/cuda/memory_level.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace roofline::cuda {

memory_level label_memory_level(std::int64_t bytes, std::int64_t l2_bytes, bool hbm) {
  if (l2_bytes <= 0) return {"dram", hbm ? "hbm" : ""};
  if (2 * bytes <= l2_bytes) return {"l2", ""};
  if (bytes >= 4 * l2_bytes) return {"dram", hbm ? "hbm" : ""};
  return {"l2+dram", fmt::format("transition: working set is {:.2f}× L2", static_cast<double>(bytes) / l2_bytes)};
}

std::vector<std::int64_t> sweep_sizes(std::int64_t l2_bytes, std::int64_t max_bytes, bool quick) {
  std::int64_t top = std::int64_t{512} << 20;
  while (top < 8 * l2_bytes) top *= 2;
  std::vector<std::int64_t> all;
  for (std::int64_t s = std::int64_t{256} << 10; s <= top && s <= max_bytes; s *= 2) all.push_back(s);
  if (!quick || all.empty()) return all;
  std::vector<std::int64_t> q;
  for (std::size_t i = 0; i < all.size(); i += 4) q.push_back(all[i]);
  if (q.back() != all.back()) q.push_back(all.back());
  return q;
}

}  // namespace roofline::cuda
