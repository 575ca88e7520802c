// RAII for device memory, events and streams, and the one timer every CUDA probe uses: CUDA events
// recorded on the probe's stream around the enqueued work, read after cudaEventSynchronize.
#pragma once
#include <cuda_runtime.h>

#include <cstddef>
#include <functional>
#include <string>
#include <utility>

#include "backends/cuda/cuda_check.hpp"

namespace roofline::cuda {

/// cudaMalloc'd bytes, freed on destruction. Throws probe_error (with the size) when allocation fails.
class device_buffer {
 public:
  device_buffer() = default;
  explicit device_buffer(std::size_t bytes) : bytes_(bytes) {
    if (bytes == 0) return;
    const cudaError_t e = cudaMalloc(&ptr_, bytes);
    if (e != cudaSuccess) {
      (void)cudaGetLastError();  // clear the non-sticky allocation error
      throw probe_error("cudaMalloc(" + std::to_string(bytes) + " bytes) failed: " + cudaGetErrorName(e) + " (" +
                        cudaGetErrorString(e) + ")");
    }
  }
  ~device_buffer() {
    if (ptr_) cudaFree(ptr_);
  }
  device_buffer(device_buffer&& o) noexcept : ptr_(std::exchange(o.ptr_, nullptr)), bytes_(std::exchange(o.bytes_, 0)) {}
  device_buffer& operator=(device_buffer&& o) noexcept {
    if (this != &o) {
      if (ptr_) cudaFree(ptr_);
      ptr_ = std::exchange(o.ptr_, nullptr);
      bytes_ = std::exchange(o.bytes_, 0);
    }
    return *this;
  }
  device_buffer(const device_buffer&) = delete;
  device_buffer& operator=(const device_buffer&) = delete;

  void* get() const { return ptr_; }
  template <class T>
  T* as() const { return static_cast<T*>(ptr_); }
  std::size_t bytes() const { return bytes_; }

 private:
  void* ptr_ = nullptr;
  std::size_t bytes_ = 0;
};

class cuda_event {
 public:
  cuda_event() { ROOFLINE_CUDA_CALL(cudaEventCreate(&e_)); }
  ~cuda_event() {
    if (e_) cudaEventDestroy(e_);
  }
  cuda_event(const cuda_event&) = delete;
  cuda_event& operator=(const cuda_event&) = delete;
  cuda_event(cuda_event&& o) noexcept : e_(std::exchange(o.e_, nullptr)) {}
  cudaEvent_t get() const { return e_; }

 private:
  cudaEvent_t e_ = nullptr;
};

/// Seconds taken on `stream` by the work `enqueue` puts there (events recorded before and after).
/// Checks the launches' errors (cudaGetLastError) and the completion (cudaEventSynchronize).
inline double time_on_stream(cudaStream_t stream, const std::function<void()>& enqueue) {
  cuda_event start, stop;  // created outside the timed region (a few µs)
  ROOFLINE_CUDA_CALL(cudaEventRecord(start.get(), stream));
  enqueue();
  ROOFLINE_CUDA_LAUNCH_CHECK();
  ROOFLINE_CUDA_CALL(cudaEventRecord(stop.get(), stream));
  ROOFLINE_CUDA_CALL(cudaEventSynchronize(stop.get()));
  float ms = 0;
  ROOFLINE_CUDA_CALL(cudaEventElapsedTime(&ms, start.get(), stop.get()));
  return ms * 1e-3;
}

}  // namespace roofline::cuda
