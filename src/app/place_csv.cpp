#include "app/place_csv.hpp"

#include "roofline/ingest.hpp"

namespace roofline::app {

std::vector<kernel_row> read_kernel_csv(const std::string& path) {
  const ingest::ingest_result r = ingest::read_any(path);
  const bool ncu = r.format.rfind("ncu", 0) == 0;
  std::vector<kernel_row> out;
  for (const auto& k : r.kernels) {
    kernel_row row;
    row.name = ncu ? k.name + " (ID " + k.id + ")" : k.name;
    for (const auto& f : k.flops) row.flops += f.flops;
    for (const auto& b : k.bytes)
      if (b.level == "dram") row.bytes = b.bytes;
    row.seconds = k.duration_s;
    row.note = k.note;
    out.push_back(std::move(row));
  }
  return out;
}

}  // namespace roofline::app
