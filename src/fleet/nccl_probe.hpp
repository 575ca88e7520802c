// The interconnect roofs: NCCL all-reduce / all-gather / reduce-scatter over the MPI world, one GPU
// per rank (private to src/fleet).
#pragma once
#include "fleet/mpi_session.hpp"
#include "roofline/fleet.hpp"

namespace roofline::fleet {

/// Collective over all ranks (every rank must call it, in the same order as the others).
/// `cuda_device` is this rank's GPU index, or -1 when the rank measures a CPU. Returns status
/// "not run" (needs ≥ 2 GPUs / NCCL not found), "failed" (reason) or "measured" with the points:
/// sizes 8 KiB … 1 GiB (×2; --quick: ×16 up to 512 MiB), each the slowest rank's median of
/// `repeats` timed batches (CUDA events around a batch of collectives on one stream).
/// The result is meaningful on rank 0 (times are MPI_Allreduce-MAXed, so every rank holds it).
interconnect_result run_nccl_probe(const mpi_session& mpi, int cuda_device, bool quick);

}  // namespace roofline::fleet
