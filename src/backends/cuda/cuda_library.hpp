// The one search for the CUDA libraries roofline loads at run time (cuDNN, cuBLASLt): a machine without
// them still starts roofline, and a process that never touches the GPU never pays for loading them
// (cuBLASLt's 540 MB takes ~0.45 s to load: every test binary and CPU run paid it when it was linked).
#pragma once
#include <string>
#include <vector>

namespace roofline::cuda {

/// dlopens `soname` (RTLD_NOW | RTLD_GLOBAL): `$<env_var>` alone when that variable is set; else the
/// dynamic loader's search for the soname, $CUDA_HOME/lib64, $CUDA_PATH/lib64, the CUDA toolkit this
/// build was configured with, then `<prefix>/lib/python3.*/site-packages/<tail>` for each wheel tail
/// (PyTorch's nvidia-* wheels) beside every python3 on PATH; and only when all of those fail,
/// `<entry>/<tail>` for python3's sys.path (asking python3 costs a process start).
/// Returns the handle and sets `path` to what loaded; nullptr with `searched` = "<candidate> (<loader's
/// error>); …" when nothing loads.
void* open_cuda_library(const std::string& soname, const std::vector<std::string>& wheel_tails, const char* env_var,
                        std::string& path, std::string& searched);

}  // namespace roofline::cuda
