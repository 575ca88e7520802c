// Checked cuBLAS(Lt) calls: a status other than CUBLAS_STATUS_SUCCESS throws probe_error with
// file:line, the call and the status name and string (cublasLtGetStatusName / cublasLtGetStatusString: no libcublas).
#pragma once
#include <cublasLt.h>

#include <string>

#include "roofline/error.hpp"

namespace roofline::cuda {

[[noreturn]] inline void throw_cublas(cublasStatus_t s, const char* call, const char* file, int line) {
  throw probe_error(std::string(file) + ":" + std::to_string(line) + ": " + call + ": " + cublasLtGetStatusName(s) +
                    " (" + cublasLtGetStatusString(s) + ")");
}

}  // namespace roofline::cuda

#define ROOFLINE_CUBLAS_CALL(call)                                                                 \
  do {                                                                                             \
    const cublasStatus_t roofline_st_ = (call);                                                    \
    if (roofline_st_ != CUBLAS_STATUS_SUCCESS)                                                     \
      ::roofline::cuda::throw_cublas(roofline_st_, #call, __FILE__, __LINE__);                     \
  } while (0)
