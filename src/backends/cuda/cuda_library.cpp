// The run-time search for CUDA libraries; see cuda_library.hpp.
#include "backends/cuda/cuda_library.hpp"

#include <cstdlib>

#include "roofline/library_search.hpp"

#ifndef ROOFLINE_CUDA_TOOLKIT_LIB_DIR
#define ROOFLINE_CUDA_TOOLKIT_LIB_DIR "/usr/local/cuda/lib64"
#endif

namespace roofline::cuda {

void* open_cuda_library(const std::string& soname, const std::vector<std::string>& wheel_tails, const char* env_var,
                        std::string& path, std::string& searched) {
  std::vector<std::string> dirs;
  for (const char* env : {"CUDA_HOME", "CUDA_PATH"})
    if (const char* v = std::getenv(env)) dirs.push_back(std::string(v) + "/lib64");
  dirs.push_back(ROOFLINE_CUDA_TOOLKIT_LIB_DIR);
  const char* path_env = std::getenv("PATH");
  const char* named = env_var ? std::getenv(env_var) : nullptr;  // a user's explicit library, tried alone
  if (named && !*named) named = nullptr;
  void* h = open_first_library(library_search_paths(soname, wheel_tails, named ? named : "", path_env ? path_env : "", {}, dirs),
                               path, searched);
  if (h || named) return h;
  std::string more;
  h = open_first_library(library_search_paths(soname, wheel_tails, "", path_env ? path_env : "", python_sys_path(), dirs),
                         path, more);
  if (!h) searched = more;
  return h;
}

}  // namespace roofline::cuda
