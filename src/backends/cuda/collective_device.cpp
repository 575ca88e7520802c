#include "backends/cuda/collective_device.hpp"

#include <cuda_runtime.h>

#include "backends/cuda/device_memory.hpp"

namespace roofline::cuda {

struct collective_device::state {
  device_buffer send, recv;
  cudaStream_t stream = nullptr;
  ~state() {
    if (stream) cudaStreamDestroy(stream);
  }
};

collective_device::collective_device(int device, std::size_t bytes) : s_(std::make_unique<state>()) {
  ROOFLINE_CUDA_CALL(cudaSetDevice(device));
  s_->send = device_buffer(bytes);
  s_->recv = device_buffer(bytes);
  ROOFLINE_CUDA_CALL(cudaMemset(s_->send.get(), 0, bytes));
  ROOFLINE_CUDA_CALL(cudaMemset(s_->recv.get(), 0, bytes));
  ROOFLINE_CUDA_CALL(cudaStreamCreate(&s_->stream));
}

collective_device::~collective_device() = default;
void* collective_device::send() const { return s_->send.get(); }
void* collective_device::recv() const { return s_->recv.get(); }
void* collective_device::stream() const { return s_->stream; }
double collective_device::time(const std::function<void()>& f) const { return time_on_stream(s_->stream, f); }

}  // namespace roofline::cuda
