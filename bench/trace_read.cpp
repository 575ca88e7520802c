// The trace reader's speed and memory on a trace of any size (bench/trace-read.sh makes a multi-GB one):
//   roofline_trace_read FILE
// Reads FILE with ingest::read_torch_trace (the reader `roofline place --trace` uses) and prints one
// JSON line: the file's bytes (and, for a gzip file, the uncompressed JSON bytes the reader consumed
// are not known here: bench/trace-read.sh passes plain JSON for the MB/s of JSON), kernels, seconds,
// MB/s of the file, and the peak resident memory (VmHWM from /proc/self/status, Linux).
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "roofline/error.hpp"
#include "roofline/ingest.hpp"

namespace {
long peak_rss_kib() {
  std::ifstream s("/proc/self/status");
  std::string line;
  while (std::getline(s, line))
    if (line.rfind("VmHWM:", 0) == 0) return std::stol(line.substr(6));
  return -1;
}
}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: roofline_trace_read FILE\n");
    return 2;
  }
  try {
    const double bytes = double(std::filesystem::file_size(argv[1]));
    const auto t0 = std::chrono::steady_clock::now();
    const auto r = roofline::ingest::read_torch_trace(argv[1]);
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::printf(
        "{\"file\": \"%s\", \"bytes\": %.0f, \"kernels\": %zu, \"host_intervals\": %zu, \"seconds\": %.3f, \"mb_per_s\": %.1f, "
        "\"peak_rss_mib\": %.1f, \"incomplete\": \"%s\"}\n",
        argv[1], bytes, r.kernels.size(), r.host.size(), s, bytes / 1e6 / s, double(peak_rss_kib()) / 1024.0,
        r.incomplete.c_str());
  } catch (const roofline::input_error& e) {
    std::fprintf(stderr, "roofline_trace_read: %s\n", e.what());
    return 2;
  }
  return 0;
}
