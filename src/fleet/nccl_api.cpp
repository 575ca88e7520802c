#include "fleet/nccl_api.hpp"

#include <dlfcn.h>

#include <mutex>

namespace roofline::fleet {

namespace {

void* open_first(std::initializer_list<const char*> names, std::string& which, std::string& err) {
  for (const char* n : names) {
    if (void* h = dlopen(n, RTLD_NOW | RTLD_GLOBAL)) {
      which = n;
      return h;
    }
    const char* e = dlerror();
    if (err.empty() && e) err = e;
  }
  return nullptr;
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

void load_once() {
  std::string err;
  void* nc = open_first({"libnccl.so.2", "libnccl.so"}, g_api.library, err);
  if (!nc) {
    g_why = "NCCL not found (" + err + ")";
    return;
  }
  std::string why;
  const bool ok =
      bind(nc, "ncclGetVersion", g_api.GetVersion, why) && bind(nc, "ncclGetUniqueId", g_api.GetUniqueId, why) &&
      bind(nc, "ncclCommInitRank", g_api.CommInitRank, why) && bind(nc, "ncclCommDestroy", g_api.CommDestroy, why) &&
      bind(nc, "ncclCommAbort", g_api.CommAbort, why) && bind(nc, "ncclAllReduce", g_api.AllReduce, why) &&
      bind(nc, "ncclAllGather", g_api.AllGather, why) && bind(nc, "ncclReduceScatter", g_api.ReduceScatter, why) &&
      bind(nc, "ncclGetErrorString", g_api.GetErrorString, why);
  if (!ok) {
    g_why = "NCCL unusable (" + why + ")";
    return;
  }
  if (g_api.GetVersion(&g_api.version) != 0) g_api.version = 0;
  g_ok = true;
}

}  // namespace

const nccl_api* load_nccl(std::string& why) {
  static std::once_flag once;
  std::call_once(once, load_once);
  if (!g_ok) why = g_why;
  return g_ok ? &g_api : nullptr;
}

}  // namespace roofline::fleet
