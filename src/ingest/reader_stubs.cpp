// TEMPORARY BRIDGE — delete on merge, when src/ingest/ncu_csv.cpp and src/ingest/torch_trace.cpp land.
// It keeps `roofline place` linking and its CSV cases working before the real readers exist:
// read_any / read_ncu_csv / read_kernel_csv wrap the old app::read_kernel_csv (roofline's CSV and
// Nsight Compute exports, FLOPs summed over precisions, no precision or engine recorded); the trace
// reader throws.
#include <fmt/format.h>

#include <regex>

#include "app/place_csv.hpp"
#include "roofline/error.hpp"
#include "roofline/ingest.hpp"
#include "roofline/io.hpp"

namespace roofline::ingest {

std::string to_string(count_source s) {
  switch (s) {
    case count_source::counter: return "counter";
    case count_source::shape_model: return "shape_model";
    case count_source::none: return "none";
  }
  return "none";
}

namespace {
ingest_result bridge(const std::string& path) {
  ingest_result out;
  out.file = path;
  out.format = "roofline-csv";
  static const std::regex id_suffix(R"(^(.*) \(ID ([^)]*)\)$)");
  std::size_t row = 0;
  for (const auto& k : app::read_kernel_csv(path)) {
    ++row;
    kernel_record r;
    std::smatch m;
    if (std::regex_match(k.name, m, id_suffix)) {
      r.name = m[1].str();
      r.id = m[2].str();
    } else {
      r.name = k.name;
      r.id = std::to_string(row);
    }
    const bool ncu = k.note.rfind("Nsight Compute", 0) == 0;
    if (ncu) out.format = "ncu";
    r.duration_s = k.seconds;
    if (k.flops > 0) r.flops.push_back({"", "", k.flops, count_source::counter, ncu ? "sass add + mul + 2 × fma" : "flops column"});
    if (k.bytes > 0) r.bytes.push_back({"dram", k.bytes, count_source::counter, ncu ? "dram__bytes" : "bytes column"});
    r.note = k.note;
    out.kernels.push_back(std::move(r));
  }
  return out;
}
}  // namespace

ingest_result read_ncu_csv(const std::string& path) { return bridge(path); }
ingest_result read_kernel_csv(const std::string& path) { return bridge(path); }

ingest_result read_torch_trace(const std::string& path) {
  throw input_error(path, "", "PyTorch traces are not readable in this build yet (src/ingest/torch_trace.cpp not merged)");
}

ingest_result read_any(const std::string& path) {
  const std::string text = read_file(path);
  const auto first = text.find_first_not_of(" \t\r\n");
  const bool gz = text.size() >= 2 && static_cast<unsigned char>(text[0]) == 0x1f && static_cast<unsigned char>(text[1]) == 0x8b;
  if (gz || (first != std::string::npos && (text[first] == '{' || text[first] == '['))) return read_torch_trace(path);
  return bridge(path);
}

}  // namespace roofline::ingest
