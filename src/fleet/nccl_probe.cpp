// Interconnect roofs with NCCL, measured the nccl-tests way (NVIDIA/nccl-tests doc/PERFORMANCE.md):
// S = bytes of the full buffer (all-reduce: the vector; all-gather: the gathered output; reduce-
// scatter: the input), fp32 elements, sum; algbw = S / t, busbw = algbw × 2(n−1)/n (all-reduce) or
// × (n−1)/n (all-gather, reduce-scatter). Every rank launches the same collectives in the same
// order; t is each rank's median over the repeats (time_repeated with a fixed count, so no rank
// repeats more often than another), then the maximum over the ranks (the slowest rank bounds a
// collective). One sample = CUDA events around a batch of k back-to-back collectives on one stream,
// divided by k (k large for small messages so the event resolution and launch cost amortize).
#include "fleet/nccl_probe.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <optional>

#include "fleet/nccl_api.hpp"
#include "roofline/error.hpp"
#include "roofline/measure.hpp"
#ifdef ROOFLINE_HAVE_CUDA
#include "backends/cuda/collective_device.hpp"
#endif

namespace roofline::fleet {

namespace {
#ifdef ROOFLINE_HAVE_CUDA  // the measurement; without the CUDA backend no rank has a GPU to measure

constexpr std::int64_t kib = 1024, gib = 1024 * 1024 * 1024;

std::vector<std::int64_t> message_sizes(bool quick) {
  std::vector<std::int64_t> s;
  for (std::int64_t b = 8 * kib; b <= gib; b *= quick ? 16 : 2) s.push_back(b);
  return s;
}

/// Collectives per timed sample: ~64 MiB of traffic per sample, between 1 and 50.
int batch_of(std::int64_t bytes) {
  return static_cast<int>(std::clamp<std::int64_t>((64 * 1024 * kib) / bytes, 1, 50));
}

/// The communicator, aborted or destroyed before the device's buffers and stream go.
struct nccl_comm {
  const nccl_api& api;
  void* comm = nullptr;
  ~nccl_comm() {
    if (comm) api.CommDestroy(comm);
  }
};

#define FLEET_NCCL(call)                                                                                 \
  do {                                                                                                   \
    const int rc_ = (call);                                                                              \
    if (rc_ != 0) throw probe_error(fmt::format("{}:{}: {} failed: {}", __FILE__, __LINE__, #call,       \
                                                api.GetErrorString(rc_)));                               \
  } while (0)

/// Every rank's local step succeeded? (a failed rank must not leave the others waiting in NCCL).
void agree(const mpi_session& mpi, bool ok, const std::string& what, std::string& err) {
  if (mpi.max(ok ? 0 : 1) != 0) throw probe_error(err.empty() ? what + " failed on another rank" : err);
}

#endif
}  // namespace

interconnect_result run_nccl_probe(const mpi_session& mpi, int cuda_device, bool quick) {
  interconnect_result res;
  res.ranks = mpi.size();
  std::string why;
  const nccl_api* loaded = cuda_device >= 0 ? load_nccl(why) : nullptr;
  // 0 ready, 1 this rank has no GPU, 2 NCCL missing
  const int local = cuda_device < 0 ? 1 : (loaded ? 0 : 2);
  const int worst = mpi.max(local);
  if (mpi.size() < 2 || worst == 1) {
    res.reason = mpi.size() < 2 ? "not run (needs ≥ 2 GPUs: this run has 1 rank)"
                                : "not run (needs ≥ 2 GPUs: a rank of this run measures a CPU or has no GPU result)";
    return res;
  }
  if (worst == 2) {
    res.reason = "not run (" + (why.empty() ? std::string("NCCL not found on another rank") : why) + ")";
    return res;
  }
#ifdef ROOFLINE_HAVE_CUDA  // (else unreachable: without the CUDA backend no rank measures a GPU)
  const nccl_api& api = *loaded;
  res.library = fmt::format("NCCL {}.{}.{} ({})", api.version / 10000, (api.version / 100) % 100,
                            api.version % 100, api.library);

  const auto sizes = message_sizes(quick);
  std::optional<cuda::collective_device> dev;
  nccl_comm st{api};
  std::string err;
  try {
    try {
      dev.emplace(cuda_device, static_cast<std::size_t>(sizes.back()));
    } catch (const probe_error& e) {
      err = fmt::format("rank {}: {}", mpi.rank(), e.what());
    }
    agree(mpi, err.empty(), "CUDA setup", err);
    void *send = dev->send(), *recv = dev->recv(), *stream = dev->stream();

    nccl_unique_id id{};
    int id_rc = 0;
    if (mpi.rank() == 0) id_rc = api.GetUniqueId(&id);
    if (mpi.bcast(id_rc) != 0) throw probe_error("ncclGetUniqueId failed on rank 0");
    mpi.bcast_bytes(&id, sizeof id);
    const int init_rc = api.CommInitRank(&st.comm, mpi.size(), id, mpi.rank());
    if (init_rc != 0) st.comm = nullptr;  // nothing to destroy
    if (init_rc != 0) err = fmt::format("rank {}: ncclCommInitRank failed: {}", mpi.rank(), api.GetErrorString(init_rc));
    agree(mpi, init_rc == 0, "ncclCommInitRank", err);

    const int n = mpi.size();
    const timing_options fixed{quick ? 1 : 2, quick ? 3 : 10, quick ? 3 : 10, 0.0, 1e30};
    for (const collective c : {collective::all_reduce, collective::all_gather, collective::reduce_scatter}) {
      for (const std::int64_t requested : sizes) {
        // Element counts: all-reduce moves S/4 floats; all-gather / reduce-scatter S/(4n) per rank.
        const std::size_t per_rank = static_cast<std::size_t>(requested / 4 / (c == collective::all_reduce ? 1 : n));
        if (per_rank == 0) continue;
        const std::int64_t bytes = static_cast<std::int64_t>(per_rank) * 4 * (c == collective::all_reduce ? 1 : n);
        const int k = batch_of(bytes);
        auto launch = [&] {
          switch (c) {
            case collective::all_reduce:
              FLEET_NCCL(api.AllReduce(send, recv, per_rank, nccl_api::nccl_float32, nccl_api::nccl_sum, st.comm, stream));
              break;
            case collective::all_gather:
              FLEET_NCCL(api.AllGather(send, recv, per_rank, nccl_api::nccl_float32, st.comm, stream));
              break;
            case collective::reduce_scatter:
              FLEET_NCCL(api.ReduceScatter(send, recv, per_rank, nccl_api::nccl_float32, nccl_api::nccl_sum, st.comm, stream));
              break;
          }
        };
        auto once = [&] { return dev->time([&] { for (int i = 0; i < k; ++i) launch(); }) / k; };
        const stats_summary s = summarize(time_repeated(once, fixed));
        collective_point p;
        p.op = c;
        p.bytes = bytes;
        p.seconds = mpi.max(s.median);
        p.best_seconds = mpi.max(s.min);
        p.algbw = algbw(static_cast<double>(bytes), p.seconds);
        p.busbw = busbw(c, static_cast<double>(bytes), p.seconds, n);
        p.best_busbw = busbw(c, static_cast<double>(bytes), p.best_seconds, n);
        res.points.push_back(p);
      }
    }
  } catch (const probe_error& e) {
    // A failure inside a collective leaves the other ranks waiting in NCCL: abort the communicator so
    // the job ends instead of hanging (the other ranks' NCCL calls then fail too).
    if (st.comm) {
      api.CommAbort(st.comm);
      st.comm = nullptr;
    }
    res.status = "failed";
    res.reason = e.what();
    return res;
  }
  res.status = "measured";
  res.roofs = communication_roofs(res.points);
#endif
  return res;
}

}  // namespace roofline::fleet
