// The GPU side of the NCCL probe (src/fleet/nccl_probe.cpp): a device, two buffers, one stream and the
// CUDA-event timer, for host code that includes no CUDA header. It exists so that the CUDA runtime is
// declared in one place, the toolkit's cuda_runtime.h, included only under src/backends/cuda (built
// with ROOFLINE_HAVE_CUDA); NCCL, loaded at run time, gets the stream and buffers as opaque pointers.
#pragma once
#include <cstddef>
#include <functional>
#include <memory>

namespace roofline::cuda {

class collective_device {
 public:
  /// Selects GPU `device`, allocates a send and a receive buffer of `bytes` each (zeroed) and
  /// creates a stream. Throws probe_error naming the CUDA call that failed.
  collective_device(int device, std::size_t bytes);
  ~collective_device();
  void* send() const;
  void* recv() const;
  void* stream() const;  ///< the cudaStream_t, as NCCL's calls take it
  /// Seconds the work `enqueue` puts on the stream takes (CUDA events around it); waits for it.
  double time(const std::function<void()>& enqueue) const;

 private:
  struct state;
  std::unique_ptr<state> s_;
};

}  // namespace roofline::cuda
