// Format detection by content, not by extension: the first bytes say which reader applies.
#include <fstream>

#include "ingest/text.hpp"
#include "roofline/error.hpp"
#include "roofline/ingest.hpp"

namespace roofline::ingest {

std::string to_string(count_source s) {
  switch (s) {
    case count_source::counter: return "counter";
    case count_source::shape_model: return "shape_model";
    case count_source::capture: return "capture";
    case count_source::same_kernel: return "same_kernel";
    case count_source::catalogue: return "catalogue";
    case count_source::none: return "none";
  }
  return "none";
}

ingest_result read_any(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw input_error(path, "", "cannot open for reading");
  std::string head(64 * 1024, '\0');
  in.read(head.data(), static_cast<std::streamsize>(head.size()));
  head.resize(static_cast<std::size_t>(in.gcount()));
  // gzip magic (1f 8b): a .json.gz trace; '{' after whitespace: a JSON trace
  if (head.size() >= 2 && static_cast<unsigned char>(head[0]) == 0x1f && static_cast<unsigned char>(head[1]) == 0x8b) return read_torch_trace(path);
  const std::string start = detail::trim(head);
  if (!start.empty() && start.front() == '{') return read_torch_trace(path);
  // CSV: the first line that is not an ncu "==PROF==" / "==WARNING==" / "==ERROR==" line decides
  for (std::size_t pos = 0; pos < head.size();) {
    std::size_t nl = head.find('\n', pos);
    if (nl == std::string::npos) nl = head.size();
    const std::string line = detail::trim(head.substr(pos, nl - pos));
    pos = nl + 1;
    if (line.empty()) continue;
    if (line.rfind("==", 0) == 0) {
      if (line.rfind("==ERROR==", 0) == 0) return read_ncu_csv(path);  // it says which line
      continue;
    }
    const std::string l = detail::lower(line);
    if (l.find("kernel name") != std::string::npos) return read_ncu_csv(path);
    if (l.find("name") != std::string::npos && l.find("flops") != std::string::npos) return read_kernel_csv(path);
    break;
  }
  throw input_error(path, "", "not a format roofline reads: expected an Nsight Compute CSV export (ncu --csv), a PyTorch profiler trace "
                              "(.json or .json.gz) or roofline's CSV (name,flops,bytes,time_s)");
}

}  // namespace roofline::ingest
