// A thin RAII wrapper over the few MPI calls a fleet run needs (private to src/fleet).
// Without ROOFLINE_HAVE_MPI it is a world of one rank.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace roofline::fleet {

class mpi_session {
 public:
  mpi_session();   ///< MPI_Init (when not yet initialized); throws probe_error on failure
  ~mpi_session();  ///< MPI_Finalize (when this object initialized MPI)
  mpi_session(const mpi_session&) = delete;
  mpi_session& operator=(const mpi_session&) = delete;

  int rank() const { return rank_; }
  int size() const { return size_; }
  /// The rank among those on this host (OMPI_COMM_WORLD_LOCAL_RANK, else MPI_COMM_TYPE_SHARED split).
  int local_rank() const { return local_rank_; }

  /// Rank 0 receives every rank's string (index = rank); other ranks get an empty vector.
  /// MPI_Gather of the sizes, then MPI_Gatherv of the bytes.
  std::vector<std::string> gather(const std::string& mine) const;
  int max(int v) const;          ///< MPI_Allreduce MAX
  double max(double v) const;    ///< MPI_Allreduce MAX
  int bcast(int v) const;        ///< rank 0's value to all
  void bcast_bytes(void* data, std::int64_t bytes) const;  ///< rank 0's bytes to all
  void barrier() const;
  /// A barrier that sleeps instead of spinning (MPI_Ibarrier + MPI_Test every millisecond): a rank
  /// that finished measuring must not steal a core from a rank still measuring on the same host.
  void quiet_barrier() const;

 private:
  int rank_ = 0, size_ = 1, local_rank_ = 0;
  bool owns_ = false;
};

}  // namespace roofline::fleet
