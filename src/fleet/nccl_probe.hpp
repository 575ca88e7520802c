// The interconnect roofs: NCCL all-reduce / all-gather / reduce-scatter / all-to-all / broadcast
// over the MPI world, and send/recv per GPU pair, one GPU per rank (private to src/fleet).
#pragma once
#include <cstdint>
#include <vector>

#include "fleet/mpi_session.hpp"
#include "roofline/fleet.hpp"

namespace roofline::fleet {

/// The requested message sizes (bytes): 8 B … 1 GiB in powers of 2; quick: 8 B … 512 MiB in powers
/// of 4 (14 sizes; 512 MiB is the size nccl-tests' busbw is compared at in bench/fleet-2gpu.sh).
std::vector<std::int64_t> nccl_message_sizes(bool quick);

/// The element count one NCCL call takes for a requested size S and the bytes it then moves (S
/// rounded down to whole elements): all-reduce, broadcast, send/recv: S / elem; all-gather,
/// reduce-scatter: S / (elem·n) per rank; all-to-all: S / (elem·n) per peer. count 0 = too small.
struct message_shape {
  std::size_t count = 0;
  std::int64_t bytes = 0;
};
message_shape shape_of(collective c, std::int64_t requested, int n, int elem_bytes);

/// Collective over all ranks (every rank must call it, in the same order as the others).
/// `cuda_device` is this rank's GPU index, or -1 when the rank measures a CPU. Returns status
/// "not run" (needs ≥ 2 GPUs / NCCL not found), "failed" (reason) or "measured" with the points:
/// fp16 messages of nccl_message_sizes(quick), each the slowest rank's median of a fixed number of
/// timed batches (CUDA events around a batch of calls on one stream). Patterns whose symbols this
/// NCCL lacks are skipped and listed in `not_available`. The result is meaningful on every rank
/// (times are MPI_Allreduce-MAXed). `nccl_path`: the --nccl file, "" to search.
interconnect_result run_nccl_probe(const mpi_session& mpi, int cuda_device, bool quick, const std::string& nccl_path = "");

}  // namespace roofline::fleet
