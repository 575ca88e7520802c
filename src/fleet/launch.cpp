// How a rank learns it is part of a fleet, and which device it measures.
#include <cstdlib>
#include <fmt/format.h>

#include "roofline/error.hpp"
#include "roofline/fleet.hpp"

namespace roofline::fleet {

bool launched_by_mpi() {
  for (const char* v : {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_SIZE"})
    if (std::getenv(v)) return true;
  return false;
}

bool built_with_mpi() {
#ifdef ROOFLINE_HAVE_MPI
  return true;
#else
  return false;
#endif
}

namespace {
std::string g_progress_label;  // set once per process, before any measuring thread starts
}  // namespace

std::string progress_label() { return g_progress_label; }

void set_progress_label(int rank, int ranks) { g_progress_label = fmt::format("[rank {}/{}] ", rank, ranks); }

std::string resolve_device(const std::string& arg, int local_rank, int gpu_count) {
  if (arg != "auto") return arg;
  if (gpu_count <= 0) return "cpu";
  if (local_rank < gpu_count) return fmt::format("cuda:{}", local_rank);
  if (gpu_count == 1) return "cuda:0";  // one GPU visible per rank: the launcher pinned it
  throw input_error("", "--device",
                    fmt::format("auto: local rank {} but only {} GPUs are visible on this host; launch at most "
                                "{} ranks per host (two ranks on one GPU would measure each other)",
                                local_rank, gpu_count, gpu_count));
}

}  // namespace roofline::fleet
