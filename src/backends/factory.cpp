#include <string>

#include "roofline/backend.hpp"
#include "roofline/error.hpp"

namespace roofline {

std::unique_ptr<backend> make_backend(const std::string& device, const device_overrides& overrides) {
  check_overrides(device, overrides);
  if (device == "cpu") return make_cpu_backend(overrides);
  if (device == "auto") {
#ifdef ROOFLINE_HAVE_CUDA
    if (cuda_device_count() > 0 && overrides.empty()) return make_cuda_backend(0);
#endif
    return make_cpu_backend(overrides);
  }

  if (device == "cuda" || device.rfind("cuda:", 0) == 0) {
    [[maybe_unused]] int index = 0;
    if (device.size() > 5) {
      const std::string num = device.substr(5);
      if (num.empty() || num.find_first_not_of("0123456789") != std::string::npos || num.size() > 4)
        throw input_error("", "--device", "bad GPU index in '" + device + "' (expected cuda:N)");
      index = std::stoi(num);
    }
#ifdef ROOFLINE_HAVE_CUDA
    const int n = cuda_device_count();
    if (index >= n)
      throw input_error("", "--device", "'" + device + "' not present (" + std::to_string(n) + " CUDA device(s) visible)");
    return make_cuda_backend(index);
#else
    throw input_error("", "--device", "'" + device + "': this roofline was built without the CUDA backend");
#endif
  }
  throw input_error("", "--device", "unknown device '" + device + "' (expected auto, cpu or cuda:N)");
}

}  // namespace roofline
