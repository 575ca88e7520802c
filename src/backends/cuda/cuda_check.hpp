// Checked CUDA / cuBLAS calls: every foreign call is checked where it is made. A failure throws
// probe_error with file:line, the call and the error string; a sticky error (the context is lost)
// throws device_lost_error so the driver stops running probes on this device.
#pragma once
#include <cuda_runtime.h>

#include <string>

#include "roofline/error.hpp"

namespace roofline::cuda {

[[noreturn]] inline void throw_cuda(cudaError_t e, const char* call, const char* file, int line) {
  const std::string msg = std::string(file) + ":" + std::to_string(line) + ": " + call + ": " +
                          cudaGetErrorName(e) + " (" + cudaGetErrorString(e) + ")";
  switch (e) {
    case cudaErrorIllegalAddress:
    case cudaErrorLaunchFailure:
    case cudaErrorHardwareStackError:
    case cudaErrorIllegalInstruction:
    case cudaErrorMisalignedAddress:
    case cudaErrorInvalidPc:
    case cudaErrorECCUncorrectable:
    case cudaErrorDevicesUnavailable:
    case cudaErrorUnknown:
      throw device_lost_error(msg);
    default:
      throw probe_error(msg);
  }
}

}  // namespace roofline::cuda

#define ROOFLINE_CUDA_CALL(call)                                                          \
  do {                                                                                    \
    const cudaError_t roofline_err_ = (call);                                             \
    if (roofline_err_ != cudaSuccess) ::roofline::cuda::throw_cuda(roofline_err_, #call, __FILE__, __LINE__); \
  } while (0)

/// After a kernel launch: checks the launch itself (not its completion).
#define ROOFLINE_CUDA_LAUNCH_CHECK() ROOFLINE_CUDA_CALL(cudaGetLastError())
