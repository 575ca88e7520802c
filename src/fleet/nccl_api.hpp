// NCCL, loaded at run time (dlopen) so that roofline builds, links and runs on machines without
// NCCL and says "not run (NCCL not found)" there. Private to src/fleet. The typedefs mirror nccl.h
// (NCCL 2.x, stable C ABI); opaque handles (ncclComm_t, cudaStream_t) are void*. The CUDA runtime is
// not declared here: the GPU side comes from the CUDA backend (backends/cuda/collective_device.hpp).
#pragma once
#include <cstddef>
#include <string>

namespace roofline::fleet {

struct nccl_unique_id {
  char internal[128];  ///< NCCL_UNIQUE_ID_BYTES
};

struct nccl_api {
  // nccl.h: ncclResult_t is an int enum (ncclSuccess = 0); ncclFloat32 = 7; ncclSum = 0.
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

  int version = 0;         ///< ncclGetVersion, e.g. 22809 for 2.28.9
  std::string library;     ///< the soname that loaded
};

/// Loads libnccl.so.2 once per process. Returns nullptr and sets `why` ("NCCL not found (<dlerror>)",
/// "NCCL unusable (lacks symbol X)") when it is missing.
const nccl_api* load_nccl(std::string& why);

}  // namespace roofline::fleet
