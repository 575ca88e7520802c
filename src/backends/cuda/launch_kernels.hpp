// The empty kernel of the launch-floor probe (host interface; defined in launch_kernels.cu).
#pragma once
#include <cuda_runtime.h>

namespace roofline::cuda {

/// Enqueues empty_kernel<<<1, 1>>> on `stream`; the caller checks cudaGetLastError.
void launch_empty(cudaStream_t stream);

}  // namespace roofline::cuda
