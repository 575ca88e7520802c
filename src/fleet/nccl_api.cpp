// Finding and loading NCCL at run time: the named file (--nccl), else the dynamic loader's search,
// else the copy PyTorch's wheels install (pip's nvidia-nccl-cu12 puts it at
// site-packages/nvidia/nccl/lib/libnccl.so.2), under the python3 found on PATH and every sys.path entry.
#include "fleet/nccl_api.hpp"

#include <dlfcn.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <mutex>
#include <sstream>

namespace roofline::fleet {

namespace fs = std::filesystem;

namespace {

constexpr const char* wheel_tail = "nvidia/nccl/lib/libnccl.so.2";

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::stringstream ss(s);
  for (std::string part; std::getline(ss, part, sep);)
    if (!part.empty()) out.push_back(part);
  return out;
}

void add_unique(std::vector<std::string>& v, const std::string& s) {
  if (std::find(v.begin(), v.end(), s) == v.end()) v.push_back(s);
}

/// <prefix>/lib/python3.*/site-packages/nvidia/nccl/lib/libnccl.so.2 for every python3.* directory
/// that exists, else the pattern itself (so the error still names where it looked).
void add_prefix_candidates(std::vector<std::string>& out, const fs::path& prefix) {
  std::error_code ec;
  std::vector<std::string> found;
  for (const auto& e : fs::directory_iterator(prefix / "lib", ec))
    if (e.is_directory(ec) && e.path().filename().string().rfind("python3", 0) == 0)
      found.push_back((e.path() / "site-packages" / wheel_tail).string());
  std::sort(found.begin(), found.end());
  if (found.empty()) found.push_back((prefix / "lib" / "python3.*" / "site-packages" / wheel_tail).string());
  for (const auto& f : found) add_unique(out, f);
}

template <class F>
bool bind(void* lib, const char* name, F& fn, std::string& why) {
  fn = reinterpret_cast<F>(dlsym(lib, name));
  if (!fn) why = std::string("lacks symbol ") + name;
  return fn != nullptr;
}

nccl_api g_api;
std::string g_why;
bool g_ok = false;

}  // namespace

std::vector<std::string> nccl_search_paths(const std::string& explicit_path, const std::string& path_env,
                                           const std::vector<std::string>& python_sys_path) {
  if (!explicit_path.empty()) return {explicit_path};
  std::vector<std::string> out = {"libnccl.so.2"};
  for (const auto& dir : split(path_env, ':')) {
    const fs::path py = fs::path(dir) / "python3";
    std::error_code ec;
    if (!fs::is_regular_file(py, ec) && !fs::is_symlink(py, ec)) continue;
    add_prefix_candidates(out, fs::path(dir).parent_path());  // a venv or an installation prefix
    const fs::path real = fs::canonical(py, ec);
    if (!ec) add_prefix_candidates(out, real.parent_path().parent_path());
  }
  for (const auto& entry : python_sys_path) add_unique(out, (fs::path(entry) / wheel_tail).string());
  return out;
}

std::vector<std::string> python_sys_path() {
  std::vector<std::string> out;
  if (const char* pp = std::getenv("PYTHONPATH")) out = split(pp, ':');
  // sys.path of the python3 on PATH (user site, venv, dist-packages); nothing when there is none
  FILE* p = ::popen("python3 -c 'import sys; print(\"\\n\".join(x for x in sys.path if x))' 2>/dev/null", "r");
  if (!p) return out;
  std::string text;
  char buf[512];
  while (std::fgets(buf, sizeof buf, p)) text += buf;
  ::pclose(p);
  for (const auto& line : split(text, '\n')) add_unique(out, line);
  return out;
}

bool load_nccl_from(const std::vector<std::string>& candidates, nccl_api& api, std::string& why) {
  void* nc = nullptr;
  std::string searched;
  for (const auto& c : candidates) {
    nc = dlopen(c.c_str(), RTLD_NOW | RTLD_GLOBAL);
    if (nc) {
      api.library = c;
      break;
    }
    const char* e = dlerror();
    std::string err = e ? e : "not loadable";
    if (err.rfind(c + ": ", 0) == 0) err = err.substr(c.size() + 2);  // dlerror repeats the path
    searched += (searched.empty() ? "" : "; ") + c + (c.find('/') == std::string::npos ? " (dynamic loader: " : " (") + err + ")";
  }
  if (!nc) {
    why = "NCCL not found; searched: " + searched + "; name the library with --nccl PATH";
    return false;
  }
  std::string lacks;
  const bool ok =
      bind(nc, "ncclGetVersion", api.GetVersion, lacks) && bind(nc, "ncclGetUniqueId", api.GetUniqueId, lacks) &&
      bind(nc, "ncclCommInitRank", api.CommInitRank, lacks) && bind(nc, "ncclCommDestroy", api.CommDestroy, lacks) &&
      bind(nc, "ncclCommAbort", api.CommAbort, lacks) && bind(nc, "ncclAllReduce", api.AllReduce, lacks) &&
      bind(nc, "ncclAllGather", api.AllGather, lacks) && bind(nc, "ncclReduceScatter", api.ReduceScatter, lacks) &&
      bind(nc, "ncclGetErrorString", api.GetErrorString, lacks);
  if (!ok) {
    why = "NCCL unusable (" + api.library + " " + lacks + ")";
    return false;
  }
  // optional symbols: left nullptr when absent (nccl_probe names them as "not available in this NCCL")
  api.Broadcast = reinterpret_cast<decltype(api.Broadcast)>(dlsym(nc, "ncclBroadcast"));
  api.Send = reinterpret_cast<decltype(api.Send)>(dlsym(nc, "ncclSend"));
  api.Recv = reinterpret_cast<decltype(api.Recv)>(dlsym(nc, "ncclRecv"));
  api.GroupStart = reinterpret_cast<decltype(api.GroupStart)>(dlsym(nc, "ncclGroupStart"));
  api.GroupEnd = reinterpret_cast<decltype(api.GroupEnd)>(dlsym(nc, "ncclGroupEnd"));
  if (api.GetVersion(&api.version) != 0) api.version = 0;
  return true;
}

std::string missing_symbol(const nccl_api& api, collective c) {
  switch (c) {
    case collective::all_reduce:
    case collective::all_gather:
    case collective::reduce_scatter: return "";
    case collective::broadcast: return api.Broadcast ? "" : "ncclBroadcast";
    case collective::all_to_all:  // grouped send/recv (older NCCL releases have no all-to-all call)
    case collective::send_recv:
    case collective::send_recv_bidir:
      if (!api.Send) return "ncclSend";
      if (!api.Recv) return "ncclRecv";
      if (!api.GroupStart) return "ncclGroupStart";
      if (!api.GroupEnd) return "ncclGroupEnd";
      return "";
  }
  return "";
}

const nccl_api* load_nccl(const std::string& explicit_path, std::string& why) {
  static std::once_flag once;
  std::call_once(once, [&] {
    // the loader's own search first; python3 is asked for sys.path only when that finds nothing
    const char* path = std::getenv("PATH");
    std::vector<std::string> places = nccl_search_paths(explicit_path, path ? path : "", {});
    g_ok = load_nccl_from(places, g_api, g_why);
    if (!g_ok && explicit_path.empty() && g_why.rfind("NCCL not found", 0) == 0) {
      g_api = nccl_api{};
      g_ok = load_nccl_from(nccl_search_paths("", path ? path : "", python_sys_path()), g_api, g_why);
    }
  });
  if (!g_ok) why = g_why;
  return g_ok ? &g_api : nullptr;
}

}  // namespace roofline::fleet
