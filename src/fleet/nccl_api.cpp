// Finding and loading NCCL at run time: the named file (--nccl), else the dynamic loader's search,
// else the copy PyTorch's wheels install (site-packages/nvidia/nccl/lib/libnccl.so.2), under the
// python3 found on PATH and every sys.path entry (roofline/library_search.hpp).
#include "fleet/nccl_api.hpp"

#include <dlfcn.h>

#include <cstdlib>
#include <mutex>

#include "roofline/library_search.hpp"

namespace roofline::fleet {

namespace {

constexpr const char* wheel_tail = "nvidia/nccl/lib/libnccl.so.2";

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
                                           const std::vector<std::string>& sys_path) {
  return library_search_paths("libnccl.so.2", {wheel_tail}, explicit_path, path_env, sys_path);
}

bool load_nccl_from(const std::vector<std::string>& candidates, nccl_api& api, std::string& why) {
  std::string searched;
  void* nc = open_first_library(candidates, api.library, searched);
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
