#include <string>

#include "roofline/backend.hpp"
#include "roofline/error.hpp"
#include "roofline/vocabulary.hpp"

namespace roofline {

std::unique_ptr<backend> make_backend(const std::string& device, const device_overrides& overrides) {
  check_overrides(device, overrides);
  const device_arg d = parse_device(device);  // throws input_error naming --device
  if (d.what == device_arg::kind::cpu) return make_cpu_backend(overrides);
  if (d.what == device_arg::kind::auto_select) {
#ifdef ROOFLINE_HAVE_CUDA
    if (cuda_device_count() > 0 && overrides.empty()) return make_cuda_backend(0);
#endif
    return make_cpu_backend(overrides);
  }
#ifdef ROOFLINE_HAVE_CUDA
  const int n = cuda_device_count();
  if (d.index >= n)
    throw input_error("", "--device", "'" + device + "' not present (" + std::to_string(n) + " CUDA device(s) visible)");
  return make_cuda_backend(d.index);
#else
  throw input_error("", "--device", "'" + device + "': this roofline was built without the CUDA backend");
#endif
}

}  // namespace roofline
