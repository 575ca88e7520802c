#include "fleet/mpi_session.hpp"

#include <chrono>
#include <cstdlib>
#include <thread>
#include <fmt/format.h>

#include "roofline/error.hpp"

#ifdef ROOFLINE_HAVE_MPI
#include <mpi.h>
#endif

namespace roofline::fleet {

#ifdef ROOFLINE_HAVE_MPI

namespace {
void check(int rc, const char* what) {
  if (rc == MPI_SUCCESS) return;
  char msg[MPI_MAX_ERROR_STRING] = {0};
  int len = 0;
  MPI_Error_string(rc, msg, &len);
  throw probe_error(fmt::format("{} failed: {}", what, msg));
}
}  // namespace

mpi_session::mpi_session() {
  int inited = 0;
  MPI_Initialized(&inited);
  if (!inited) {
    check(MPI_Init(nullptr, nullptr), "MPI_Init");
    owns_ = true;
  }
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  check(MPI_Comm_rank(MPI_COMM_WORLD, &rank_), "MPI_Comm_rank");
  check(MPI_Comm_size(MPI_COMM_WORLD, &size_), "MPI_Comm_size");
  if (const char* l = std::getenv("OMPI_COMM_WORLD_LOCAL_RANK")) {
    local_rank_ = std::atoi(l);
  } else {
    MPI_Comm node;
    check(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank_, MPI_INFO_NULL, &node), "MPI_Comm_split_type");
    MPI_Comm_rank(node, &local_rank_);
    MPI_Comm_free(&node);
  }
}

mpi_session::~mpi_session() {
  if (!owns_) return;
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (!finalized) MPI_Finalize();
}

std::vector<std::string> mpi_session::gather(const std::string& mine) const {
  const int n = static_cast<int>(mine.size());
  std::vector<int> sizes(rank_ == 0 ? size_ : 0);
  check(MPI_Gather(&n, 1, MPI_INT, sizes.data(), 1, MPI_INT, 0, MPI_COMM_WORLD), "MPI_Gather");
  std::vector<int> displs(sizes.size());
  std::vector<char> all;
  if (rank_ == 0) {
    std::int64_t total = 0;
    for (std::size_t i = 0; i < sizes.size(); ++i) {
      displs[i] = static_cast<int>(total);
      total += sizes[i];
    }
    if (total > 2147483647) throw probe_error("fleet: gathered results exceed 2 GiB");
    all.resize(static_cast<std::size_t>(total));
  }
  check(MPI_Gatherv(mine.data(), n, MPI_CHAR, all.data(), sizes.data(), displs.data(), MPI_CHAR, 0, MPI_COMM_WORLD),
        "MPI_Gatherv");
  std::vector<std::string> out;
  for (std::size_t i = 0; i < sizes.size(); ++i) out.emplace_back(all.data() + displs[i], sizes[i]);
  return out;
}

int mpi_session::max(int v) const {
  int r = 0;
  check(MPI_Allreduce(&v, &r, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD), "MPI_Allreduce");
  return r;
}

double mpi_session::max(double v) const {
  double r = 0;
  check(MPI_Allreduce(&v, &r, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD), "MPI_Allreduce");
  return r;
}

int mpi_session::bcast(int v) const {
  check(MPI_Bcast(&v, 1, MPI_INT, 0, MPI_COMM_WORLD), "MPI_Bcast");
  return v;
}

void mpi_session::bcast_bytes(void* data, std::int64_t bytes) const {
  check(MPI_Bcast(data, static_cast<int>(bytes), MPI_BYTE, 0, MPI_COMM_WORLD), "MPI_Bcast");
}

void mpi_session::barrier() const { check(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier"); }

void mpi_session::quiet_barrier() const {
  MPI_Request req;
  check(MPI_Ibarrier(MPI_COMM_WORLD, &req), "MPI_Ibarrier");
  for (int done = 0;;) {
    check(MPI_Test(&req, &done, MPI_STATUS_IGNORE), "MPI_Test");
    if (done) return;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
}

#else  // a world of one

mpi_session::mpi_session() = default;
mpi_session::~mpi_session() = default;
std::vector<std::string> mpi_session::gather(const std::string& mine) const { return {mine}; }
int mpi_session::max(int v) const { return v; }
double mpi_session::max(double v) const { return v; }
int mpi_session::bcast(int v) const { return v; }
void mpi_session::bcast_bytes(void*, std::int64_t) const {}
void mpi_session::barrier() const {}
void mpi_session::quiet_barrier() const {}

#endif

}  // namespace roofline::fleet
