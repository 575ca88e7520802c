// NCCL, loaded at run time (dlopen) so that roofline builds, links and runs on machines without
// NCCL and says "not run (NCCL not found)" there. Private to src/fleet. The typedefs mirror nccl.h
// (NCCL 2.x, stable C ABI); opaque handles (ncclComm_t, cudaStream_t) are void*. The CUDA runtime is
// not declared here: the GPU side comes from the CUDA backend (backends/cuda/collective_device.hpp).
#pragma once
#include <cstddef>
#include <string>
#include <vector>

#include "roofline/fleet.hpp"

namespace roofline::fleet {

struct nccl_unique_id {
  char internal[128];  ///< NCCL_UNIQUE_ID_BYTES
};

struct nccl_api {
  // nccl.h: ncclResult_t is an int enum (ncclSuccess = 0); ncclFloat16 = 6, ncclFloat32 = 7; ncclSum = 0.
  static constexpr int nccl_float16 = 6;
  static constexpr int nccl_float32 = 7;
  static constexpr int nccl_sum = 0;
  using result_t = int;
  result_t (*GetVersion)(int*) = nullptr;
  result_t (*GetUniqueId)(nccl_unique_id*) = nullptr;
  result_t (*CommInitRank)(void** comm, int nranks, nccl_unique_id id, int rank) = nullptr;
  result_t (*CommDestroy)(void* comm) = nullptr;
  result_t (*CommAbort)(void* comm) = nullptr;
  result_t (*AllReduce)(const void*, void*, std::size_t, int dtype, int op, void* comm, void* stream) = nullptr;
  result_t (*AllGather)(const void*, void*, std::size_t sendcount, int dtype, void* comm, void* stream) = nullptr;
  result_t (*ReduceScatter)(const void*, void*, std::size_t recvcount, int dtype, int op, void* comm, void* stream) = nullptr;
  const char* (*GetErrorString)(result_t) = nullptr;
  // Optional: nullptr when this NCCL lacks them (the patterns that need them are skipped, named in
  // interconnect_result::not_available). Point-to-point since NCCL 2.7; ncclBroadcast since 2.2.
  result_t (*Broadcast)(const void*, void*, std::size_t, int dtype, int root, void* comm, void* stream) = nullptr;
  result_t (*Send)(const void*, std::size_t, int dtype, int peer, void* comm, void* stream) = nullptr;
  result_t (*Recv)(void*, std::size_t, int dtype, int peer, void* comm, void* stream) = nullptr;
  result_t (*GroupStart)() = nullptr;
  result_t (*GroupEnd)() = nullptr;

  int version = 0;         ///< ncclGetVersion, e.g. 22809 for 2.28.9
  std::string library;     ///< the soname that loaded
};

/// The NCCL symbol pattern `c` needs that `api` lacks ("ncclSend", "ncclBroadcast", …), or "" when
/// every symbol it needs is there (all-reduce, all-gather, reduce-scatter are required at load).
std::string missing_symbol(const nccl_api& api, collective c);

/// Where NCCL is looked for, in order: `explicit_path` alone when given (--nccl); else
/// "libnccl.so.2" for the dynamic loader (LD_LIBRARY_PATH, ld.so.cache, system directories), then
/// PyTorch's copy (pip's nvidia-nccl wheel: site-packages/nvidia/nccl/lib/libnccl.so.2) for every
/// directory of `path_env` (PATH) holding a python3: <dir>/../lib/python3.*/site-packages/…, also for
/// the prefix its symlinks resolve to; then <entry>/nvidia/nccl/lib/libnccl.so.2 for every
/// `python_sys_path` entry. A prefix without a python3.* directory is listed as its pattern, so an
/// error names every place looked at. No duplicates (roofline::library_search_paths).
std::vector<std::string> nccl_search_paths(const std::string& explicit_path, const std::string& path_env,
                                           const std::vector<std::string>& python_sys_path);

/// dlopens the first loadable candidate and binds the symbols into `api`. False with `why` = "NCCL
/// not found; searched: <place> (<error>); …; name the library with --nccl PATH" or "NCCL unusable
/// (<file> lacks symbol X)".
bool load_nccl_from(const std::vector<std::string>& candidates, nccl_api& api, std::string& why);

/// Loads NCCL once per process (the first call's `explicit_path` wins): nccl_search_paths without
/// sys.path first, then, when nothing loaded and no path was named, with python_sys_path(). Returns
/// nullptr and sets `why` (load_nccl_from's message) when it fails.
const nccl_api* load_nccl(const std::string& explicit_path, std::string& why);

}  // namespace roofline::fleet
