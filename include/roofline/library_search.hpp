// Where a shared library that roofline loads at run time (dlopen) is looked for: the dynamic
// loader's own search, then listed directories, then the copies that Python wheels install
// (PyTorch's dependencies: pip's nvidia-nccl-cu12 puts NCCL at
// site-packages/nvidia/nccl/lib/libnccl.so.2, nvidia-cudnn-cu12 puts cuDNN at
// site-packages/nvidia/cudnn/lib/libcudnn.so.9) under the python3 found on PATH and under every
// sys.path entry. Used for NCCL (fleet) and cuDNN (CUDA backend); NVML is the driver's and is
// found by the loader alone.
#pragma once

#include <string>
#include <vector>

namespace roofline {

/// Candidate paths for one library, in the order they are tried; no duplicates.
/// `explicit_path` non-empty: only that path (a user's choice is never second-guessed).
/// Else: `soname` (the dynamic loader: LD_LIBRARY_PATH, ld.so.cache, system directories); then
/// `<dir>/<soname>` for each of `dirs`; then, for every directory of `path_env` (a PATH value)
/// holding a python3, `<prefix>/lib/python3.*/site-packages/<tail>` for each wheel tail, for the
/// prefix above that directory and for the prefix of the python3 it links to (a prefix without a
/// python3.* directory is listed as its pattern, so an error message still names the place); then
/// `<entry>/<tail>` for every `python_sys_path` entry and tail.
std::vector<std::string> library_search_paths(const std::string& soname, const std::vector<std::string>& wheel_tails,
                                              const std::string& explicit_path, const std::string& path_env,
                                              const std::vector<std::string>& python_sys_path,
                                              const std::vector<std::string>& dirs = {});

/// PYTHONPATH's entries, then sys.path of the python3 on PATH (asked by running it); empty when
/// there is no python3.
std::vector<std::string> python_sys_path();

/// dlopens the first loadable candidate (RTLD_NOW | RTLD_GLOBAL, so that a library's own plug-ins
/// resolve against it). Returns the handle and sets `loaded` to the candidate; nullptr when none
/// loads, with `searched` = "<candidate> (<loader's error>); …" for the message.
void* open_first_library(const std::vector<std::string>& candidates, std::string& loaded, std::string& searched);

}  // namespace roofline
