#include "backends/cuda/launch_kernels.hpp"

namespace roofline::cuda {

namespace {
__global__ void empty_kernel() {}
}  // namespace

void launch_empty(cudaStream_t stream) { empty_kernel<<<1, 1, 0, stream>>>(); }

}  // namespace roofline::cuda
