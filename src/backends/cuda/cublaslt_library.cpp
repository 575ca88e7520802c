// cuBLASLt loaded at run time, as cuDNN is: the cublasLt* functions roofline calls are defined here and
// forward to the library found by open_cuda_library() on first use, so the call sites read as plain
// cuBLASLt and nothing links libcublasLt.so. A process that never makes a cuBLASLt handle never loads
// it (a CPU run, every test binary: loading its 540 MB took ~0.45 s a process); a machine without it
// gets one probe error naming every place searched, at the first call.
#include <cublasLt.h>
#include <dlfcn.h>

#include <mutex>
#include <string>

#include "backends/cuda/cuda_library.hpp"
#include "roofline/error.hpp"

namespace roofline::cuda {
namespace {

#define ROOFLINE_LT_SONAME_(major) "libcublasLt.so." #major
#define ROOFLINE_LT_SONAME(major) ROOFLINE_LT_SONAME_(major)

struct lt_library {
  void* handle = nullptr;
  std::string path, why;
};

/// The library, loaded once: the soname of the cuBLAS major version the headers declare.
const lt_library& library() {
  static lt_library lib;
  static std::once_flag once;
  std::call_once(once, [] {
    const char* soname = ROOFLINE_LT_SONAME(CUBLAS_VER_MAJOR);
    const std::string tail = std::string("/lib/") + soname;
    std::string searched;
    lib.handle = open_cuda_library(soname, {"nvidia/cublas" + tail, "nvidia/cu13" + tail}, "ROOFLINE_CUBLASLT", lib.path,
                                   searched);
    if (!lib.handle) lib.why = std::string("cuBLASLt not found (") + soname + "); searched: " + searched;
  });
  return lib;
}

/// The library's `name`, of the declared type F; throws probe_error when the library or the symbol is missing.
template <typename F>
F lt_symbol(const char* name) {
  const lt_library& lib = library();
  if (!lib.handle) throw probe_error(lib.why);
  void* f = dlsym(lib.handle, name);
  if (!f) throw probe_error(lib.path + " lacks " + name);
  return reinterpret_cast<F>(f);
}

/// The status text functions never throw: they run on error paths, and without the library there is no text.
const char* status_text(const char* name, cublasStatus_t s) {
  using fn = const char* (*)(cublasStatus_t);
  const lt_library& lib = library();
  const auto f = lib.handle ? reinterpret_cast<fn>(dlsym(lib.handle, name)) : nullptr;
  return f ? f(s) : "(cuBLASLt not loaded)";
}

}  // namespace
}  // namespace roofline::cuda

#define ROOFLINE_LT(name) static const auto fn = ::roofline::cuda::lt_symbol<decltype(&::name)>(#name)

extern "C" {

cublasStatus_t CUBLASWINAPI cublasLtCreate(cublasLtHandle_t* handle) {
  ROOFLINE_LT(cublasLtCreate);
  return fn(handle);
}

cublasStatus_t CUBLASWINAPI cublasLtDestroy(cublasLtHandle_t handle) {
  ROOFLINE_LT(cublasLtDestroy);
  return fn(handle);
}

const char* CUBLASWINAPI cublasLtGetStatusName(cublasStatus_t status) {
  return ::roofline::cuda::status_text("cublasLtGetStatusName", status);
}

const char* CUBLASWINAPI cublasLtGetStatusString(cublasStatus_t status) {
  return ::roofline::cuda::status_text("cublasLtGetStatusString", status);
}

size_t CUBLASWINAPI cublasLtGetVersion(void) {
  ROOFLINE_LT(cublasLtGetVersion);
  return fn();
}

cublasStatus_t CUBLASWINAPI cublasLtMatmul(cublasLtHandle_t handle, cublasLtMatmulDesc_t desc, const void* alpha,
                                           const void* a, cublasLtMatrixLayout_t a_desc, const void* b,
                                           cublasLtMatrixLayout_t b_desc, const void* beta, const void* c,
                                           cublasLtMatrixLayout_t c_desc, void* d, cublasLtMatrixLayout_t d_desc,
                                           const cublasLtMatmulAlgo_t* algo, void* workspace, size_t workspace_bytes,
                                           cudaStream_t stream) {
  ROOFLINE_LT(cublasLtMatmul);
  return fn(handle, desc, alpha, a, a_desc, b, b_desc, beta, c, c_desc, d, d_desc, algo, workspace, workspace_bytes,
            stream);
}

cublasStatus_t CUBLASWINAPI cublasLtMatmulAlgoConfigGetAttribute(const cublasLtMatmulAlgo_t* algo,
                                                                 cublasLtMatmulAlgoConfigAttributes_t attr, void* buf,
                                                                 size_t bytes, size_t* written) {
  ROOFLINE_LT(cublasLtMatmulAlgoConfigGetAttribute);
  return fn(algo, attr, buf, bytes, written);
}

cublasStatus_t CUBLASWINAPI cublasLtMatmulAlgoGetHeuristic(cublasLtHandle_t handle, cublasLtMatmulDesc_t desc,
                                                           cublasLtMatrixLayout_t a, cublasLtMatrixLayout_t b,
                                                           cublasLtMatrixLayout_t c, cublasLtMatrixLayout_t d,
                                                           cublasLtMatmulPreference_t pref, int requested,
                                                           cublasLtMatmulHeuristicResult_t results[], int* returned) {
  ROOFLINE_LT(cublasLtMatmulAlgoGetHeuristic);
  return fn(handle, desc, a, b, c, d, pref, requested, results, returned);
}

cublasStatus_t CUBLASWINAPI cublasLtMatmulDescCreate(cublasLtMatmulDesc_t* desc, cublasComputeType_t compute,
                                                     cudaDataType_t scale) {
  ROOFLINE_LT(cublasLtMatmulDescCreate);
  return fn(desc, compute, scale);
}

cublasStatus_t CUBLASWINAPI cublasLtMatmulDescDestroy(cublasLtMatmulDesc_t desc) {
  ROOFLINE_LT(cublasLtMatmulDescDestroy);
  return fn(desc);
}

cublasStatus_t CUBLASWINAPI cublasLtMatmulDescSetAttribute(cublasLtMatmulDesc_t desc, cublasLtMatmulDescAttributes_t attr,
                                                           const void* buf, size_t bytes) {
  ROOFLINE_LT(cublasLtMatmulDescSetAttribute);
  return fn(desc, attr, buf, bytes);
}

cublasStatus_t CUBLASWINAPI cublasLtMatmulPreferenceCreate(cublasLtMatmulPreference_t* pref) {
  ROOFLINE_LT(cublasLtMatmulPreferenceCreate);
  return fn(pref);
}

cublasStatus_t CUBLASWINAPI cublasLtMatmulPreferenceDestroy(cublasLtMatmulPreference_t pref) {
  ROOFLINE_LT(cublasLtMatmulPreferenceDestroy);
  return fn(pref);
}

cublasStatus_t CUBLASWINAPI cublasLtMatmulPreferenceSetAttribute(cublasLtMatmulPreference_t pref,
                                                                 cublasLtMatmulPreferenceAttributes_t attr,
                                                                 const void* buf, size_t bytes) {
  ROOFLINE_LT(cublasLtMatmulPreferenceSetAttribute);
  return fn(pref, attr, buf, bytes);
}

cublasStatus_t CUBLASWINAPI cublasLtMatrixLayoutCreate(cublasLtMatrixLayout_t* layout, cudaDataType type, uint64_t rows,
                                                       uint64_t cols, int64_t ld) {
  ROOFLINE_LT(cublasLtMatrixLayoutCreate);
  return fn(layout, type, rows, cols, ld);
}

cublasStatus_t CUBLASWINAPI cublasLtMatrixLayoutDestroy(cublasLtMatrixLayout_t layout) {
  ROOFLINE_LT(cublasLtMatrixLayoutDestroy);
  return fn(layout);
}

cublasStatus_t CUBLASWINAPI cublasLtMatrixLayoutSetAttribute(cublasLtMatrixLayout_t layout,
                                                             cublasLtMatrixLayoutAttribute_t attr, const void* buf,
                                                             size_t bytes) {
  ROOFLINE_LT(cublasLtMatrixLayoutSetAttribute);
  return fn(layout, attr, buf, bytes);
}

}  // extern "C"

#undef ROOFLINE_LT
