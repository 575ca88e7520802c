// Interconnect roofs with NCCL, measured the nccl-tests way (NVIDIA/nccl-tests doc/PERFORMANCE.md;
// conventions in busbw.cpp): fp16 elements, sum; S = bytes of the full buffer (all-reduce: the
// vector; all-gather: the gathered output; reduce-scatter: the input; broadcast: the buffer;
// all-to-all: one rank's send buffer of n chunks; send/recv: one message). Every rank launches the
// same calls in the same order; t is each rank's median over the repeats (time_repeated with a
// fixed count, so no rank repeats more often than another), then the maximum over the ranks (the
// slowest rank bounds a collective; for a pair, the two ranks of the pair). One sample = CUDA
// events around a batch of k back-to-back calls on one stream, divided by k (k large for small
// messages so the event resolution and launch cost amortize).
//
// All-to-all is grouped send/recv to every peer, itself included, as NCCL's documentation shows
// ("Point-to-point communication", "All-to-all"): older NCCL releases have no all-to-all call, and
// the grouped form runs on every NCCL with point-to-point (2.7 on). Send/recv per pair (a, b), a < b:
// a → b, b → a, then both at once.
#include "fleet/nccl_probe.hpp"

#include <algorithm>
#include <cstdio>
#include <fmt/format.h>
#include <optional>

#include "fleet/nccl_api.hpp"
#include "roofline/error.hpp"
#include "roofline/measure.hpp"
#include "roofline/units.hpp"
#ifdef ROOFLINE_HAVE_CUDA
#include "backends/cuda/collective_device.hpp"
#endif

namespace roofline::fleet {

std::vector<std::int64_t> nccl_message_sizes(bool quick) {
  const std::int64_t top = quick ? (std::int64_t{512} << 20) : (std::int64_t{1} << 30);
  std::vector<std::int64_t> s;
  for (std::int64_t b = 8; b <= top; b *= quick ? 4 : 2) s.push_back(b);
  return s;
}

message_shape shape_of(collective c, std::int64_t requested, int n, int elem_bytes) {
  const bool per_rank = c == collective::all_gather || c == collective::reduce_scatter || c == collective::all_to_all;
  const std::int64_t parts = per_rank ? n : 1;
  message_shape m;
  if (requested <= 0 || n < 1 || elem_bytes < 1) return m;
  m.count = static_cast<std::size_t>(requested / elem_bytes / parts);
  m.bytes = static_cast<std::int64_t>(m.count) * elem_bytes * parts;
  return m;
}

namespace {
#ifdef ROOFLINE_HAVE_CUDA  // the measurement; without the CUDA backend no rank has a GPU to measure

constexpr int elem = 2;  // fp16

/// Calls per timed sample: ~64 MiB of traffic per sample, between 1 and 50.
int batch_of(std::int64_t bytes) {
  return static_cast<int>(std::clamp<std::int64_t>((std::int64_t{64} << 20) / std::max<std::int64_t>(bytes, 1), 1, 50));
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

/// One measurement: which pattern, which pair (p2p only).
struct task {
  collective op;
  int a = -1, b = -1;
};

std::vector<task> tasks(int n, const std::vector<collective>& available) {
  std::vector<task> t;
  auto has = [&](collective c) { return std::find(available.begin(), available.end(), c) != available.end(); };
  for (const collective c : {collective::all_reduce, collective::all_gather, collective::reduce_scatter, collective::all_to_all,
                             collective::broadcast})
    if (has(c)) t.push_back({c});
  for (int a = 0; a < n; ++a)
    for (int b = a + 1; b < n; ++b) {
      if (has(collective::send_recv)) {
        t.push_back({collective::send_recv, a, b});
        t.push_back({collective::send_recv, b, a});
      }
      if (has(collective::send_recv_bidir)) t.push_back({collective::send_recv_bidir, a, b});
    }
  return t;
}

#endif
}  // namespace

interconnect_result run_nccl_probe(const mpi_session& mpi, int cuda_device, bool quick, const std::string& nccl_path) {
  interconnect_result res;
  res.ranks = mpi.size();
  std::string why;
  const nccl_api* loaded = cuda_device >= 0 ? load_nccl(nccl_path, why) : nullptr;
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
  const int n = mpi.size(), me = mpi.rank();

  // Patterns every rank's NCCL can run; the others are named, not measured.
  std::vector<collective> available;
  for (const collective c : {collective::all_reduce, collective::all_gather, collective::reduce_scatter, collective::all_to_all,
                             collective::broadcast, collective::send_recv, collective::send_recv_bidir}) {
    const std::string sym = missing_symbol(api, c);
    if (mpi.max(sym.empty() ? 0 : 1) == 0) available.push_back(c);
    else res.not_available.push_back(to_string(c) + ": not available in this NCCL (lacks " +
                                     (sym.empty() ? std::string("a symbol on another rank") : sym) + ")");
  }

  const auto sizes = nccl_message_sizes(quick);
  std::optional<cuda::collective_device> dev;
  nccl_comm st{api};
  std::string err;
  try {
    try {
      dev.emplace(cuda_device, static_cast<std::size_t>(sizes.back()));
    } catch (const probe_error& e) {
      err = fmt::format("rank {}: {}", me, e.what());
    }
    agree(mpi, err.empty(), "CUDA setup", err);
    char* send = static_cast<char*>(dev->send());
    char* recv = static_cast<char*>(dev->recv());
    void* stream = dev->stream();

    nccl_unique_id id{};
    int id_rc = 0;
    if (me == 0) id_rc = api.GetUniqueId(&id);
    if (mpi.bcast(id_rc) != 0) throw probe_error("ncclGetUniqueId failed on rank 0");
    mpi.bcast_bytes(&id, sizeof id);
    const int init_rc = api.CommInitRank(&st.comm, n, id, me);
    if (init_rc != 0) st.comm = nullptr;  // nothing to destroy
    if (init_rc != 0) err = fmt::format("rank {}: ncclCommInitRank failed: {}", me, api.GetErrorString(init_rc));
    agree(mpi, init_rc == 0, "ncclCommInitRank", err);

    const int f16 = nccl_api::nccl_float16, sum = nccl_api::nccl_sum;
    const timing_options fixed{quick ? 1 : 2, quick ? 3 : 10, quick ? 3 : 10, 0.0, 1e30};
    collective last = collective::send_recv_bidir;
    for (const task& t : tasks(n, available)) {
      if (me == 0 && (t.op != last || !is_point_to_point(t.op)))
        std::fprintf(stderr, "%s[roofline] interconnect: NCCL %s, %s … %s\n", progress_label().c_str(),
                     is_point_to_point(t.op) ? (to_string(t.op) + " per GPU pair").c_str() : to_string(t.op).c_str(),
                     units::bytes_binary(static_cast<double>(sizes.front())).c_str(),
                     units::bytes_binary(static_cast<double>(sizes.back())).c_str());
      last = t.op;
      const bool involved = !is_point_to_point(t.op) || me == t.a || me == t.b;
      const int peer = me == t.a ? t.b : t.a;
      for (const std::int64_t requested : sizes) {
        const message_shape m = shape_of(t.op, requested, n, elem);
        if (m.count == 0) continue;
        const std::size_t c = m.count;
        const std::size_t chunk = c * elem;
        auto launch = [&] {
          switch (t.op) {
            case collective::all_reduce: FLEET_NCCL(api.AllReduce(send, recv, c, f16, sum, st.comm, stream)); break;
            case collective::all_gather: FLEET_NCCL(api.AllGather(send, recv, c, f16, st.comm, stream)); break;
            case collective::reduce_scatter: FLEET_NCCL(api.ReduceScatter(send, recv, c, f16, sum, st.comm, stream)); break;
            case collective::broadcast: FLEET_NCCL(api.Broadcast(send, recv, c, f16, 0, st.comm, stream)); break;
            case collective::all_to_all:
              FLEET_NCCL(api.GroupStart());
              for (int r = 0; r < n; ++r) {
                FLEET_NCCL(api.Send(send + r * chunk, c, f16, r, st.comm, stream));
                FLEET_NCCL(api.Recv(recv + r * chunk, c, f16, r, st.comm, stream));
              }
              FLEET_NCCL(api.GroupEnd());
              break;
            case collective::send_recv:
              if (me == t.a) FLEET_NCCL(api.Send(send, c, f16, t.b, st.comm, stream));
              else FLEET_NCCL(api.Recv(recv, c, f16, t.a, st.comm, stream));
              break;
            case collective::send_recv_bidir:
              FLEET_NCCL(api.GroupStart());
              FLEET_NCCL(api.Send(send, c, f16, peer, st.comm, stream));
              FLEET_NCCL(api.Recv(recv, c, f16, peer, st.comm, stream));
              FLEET_NCCL(api.GroupEnd());
              break;
          }
        };
        const int k = batch_of(m.bytes);
        double median_s = 0, best_s = 0;
        bool ok = true;
        if (involved) try {
            auto once = [&] { return dev->time([&] { for (int i = 0; i < k; ++i) launch(); }) / k; };
            const stats_summary s = summarize(time_repeated(once, fixed));
            median_s = s.median;
            best_s = s.min;
          } catch (const probe_error& e) {
            ok = false;
            err = fmt::format("rank {}: {}", me, e.what());
          }
        agree(mpi, ok, series_name(t.op, t.a, t.b), err);
        collective_point p;
        p.op = t.op;
        p.bytes = m.bytes;
        p.src = t.a;
        p.dst = t.b;
        p.seconds = mpi.max(median_s);
        p.best_seconds = mpi.max(best_s);
        p.algbw = algbw(static_cast<double>(m.bytes), p.seconds);
        p.busbw = busbw(t.op, static_cast<double>(m.bytes), p.seconds, n);
        p.best_busbw = busbw(t.op, static_cast<double>(m.bytes), p.best_seconds, n);
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
