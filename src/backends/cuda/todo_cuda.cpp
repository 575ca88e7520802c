// PLACEHOLDER until the CUDA backend lands (delete this file when implementing src/backends/cuda/).
#include "roofline/backend.hpp"
#include "roofline/error.hpp"
namespace roofline {
int cuda_device_count() { return 0; }
std::unique_ptr<backend> make_cuda_backend(int) { throw probe_error("CUDA backend not implemented"); }
}  // namespace roofline
