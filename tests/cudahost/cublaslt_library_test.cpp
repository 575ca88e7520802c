// cuBLASLt loaded at run time (src/backends/cuda/cublaslt_library.cpp): nothing links libcublasLt, the
// first cublasLt* call loads it, and a missing library is one probe error naming what was searched.
// Each test runs in its own process (gtest_discover_tests), so each sees the library load once.
#include <cublasLt.h>
#include <gtest/gtest.h>
#include <link.h>
#include <stdlib.h>

#include <string>

#include "roofline/error.hpp"

namespace {

/// Whether a shared object whose path contains `part` is mapped into this process.
bool library_mapped(const char* part) {
  struct arg_t { const char* part; bool found; } a{part, false};
  dl_iterate_phdr(
      [](dl_phdr_info* info, size_t, void* p) {
        auto* x = static_cast<arg_t*>(p);
        if (info->dlpi_name && std::string(info->dlpi_name).find(x->part) != std::string::npos) x->found = true;
        return 0;
      },
      &a);
  return a.found;
}

}  // namespace

TEST(CublasLtLibrary, NotLoadedUntilTheFirstCallThenTheHeadersMajorVersion) {
  EXPECT_FALSE(library_mapped("libcublasLt")) << "a process that makes no cuBLASLt call must not load it";
  const size_t v = cublasLtGetVersion();  // the library's version: major·10000 + minor·100 + patch
  EXPECT_EQ(v / 10000, static_cast<size_t>(CUBLAS_VER_MAJOR));
  EXPECT_TRUE(library_mapped("libcublasLt"));
  EXPECT_STREQ(cublasLtGetStatusName(CUBLAS_STATUS_NOT_INITIALIZED), "CUBLAS_STATUS_NOT_INITIALIZED");
}

TEST(CublasLtLibrary, AMissingLibraryIsOneProbeErrorNamingWhereItLooked) {
  if (library_mapped("libcublasLt")) GTEST_SKIP() << "cuBLASLt was loaded earlier in this process (run this test alone)";
  ::setenv("ROOFLINE_CUBLASLT", "/nonexistent/libcublasLt.so.13", 1);
  cublasLtHandle_t h = nullptr;
  try {
    (void)cublasLtCreate(&h);
    FAIL() << "cublasLtCreate without a library must throw";
  } catch (const roofline::probe_error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("cuBLASLt not found"), std::string::npos) << what;
    EXPECT_NE(what.find("/nonexistent/libcublasLt.so.13"), std::string::npos) << what;
  }
  // the error paths' status text never throws
  EXPECT_STREQ(cublasLtGetStatusName(CUBLAS_STATUS_SUCCESS), "(cuBLASLt not loaded)");
}
