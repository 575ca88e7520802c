// NCCL and the CUDA runtime, loaded at run time (dlopen) so that roofline builds, links and runs on
// machines without NCCL (or without a GPU) and says "not run (NCCL not found)" there. Private to
// src/fleet. The typedefs mirror nccl.h (NCCL 2.x, stable C ABI) and cuda_runtime_api.h; opaque
// handles (ncclComm_t, cudaStream_t, cudaEvent_t) are void*. No CUDA header is included.
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

  // cuda_runtime_api.h: cudaError_t is an int enum (cudaSuccess = 0).
  int (*cudaGetDeviceCount)(int*) = nullptr;
  int (*cudaSetDevice)(int) = nullptr;
  int (*cudaMalloc)(void**, std::size_t) = nullptr;
  int (*cudaFree)(void*) = nullptr;
  int (*cudaMemset)(void*, int, std::size_t) = nullptr;
  int (*cudaStreamCreate)(void**) = nullptr;
  int (*cudaStreamDestroy)(void*) = nullptr;
  int (*cudaStreamSynchronize)(void*) = nullptr;
  int (*cudaEventCreate)(void**) = nullptr;
  int (*cudaEventDestroy)(void*) = nullptr;
  int (*cudaEventRecord)(void*, void*) = nullptr;
  int (*cudaEventSynchronize)(void*) = nullptr;
  int (*cudaEventElapsedTime)(float*, void*, void*) = nullptr;
  const char* (*cudaGetErrorString)(int) = nullptr;

  int version = 0;         ///< ncclGetVersion, e.g. 22809 for 2.28.9
  std::string library;     ///< the soname that loaded
  std::string cudart;      ///< the CUDA runtime soname that loaded
};

/// Loads libnccl.so.2 and the CUDA runtime once per process. Returns nullptr and sets `why`
/// ("NCCL not found: <dlerror>", "CUDA runtime not found: …", "… lacks symbol X") when either is missing.
const nccl_api* load_nccl(std::string& why);

}  // namespace roofline::fleet
