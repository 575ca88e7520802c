# Header-only / Debian-packaged dependencies. Where the system lacks a header-only one (the GPU
# machine's image), third_party/include (filled by scripts/vendor-headers.sh) is used instead.
add_library(roofline_deps INTERFACE)
add_library(roofline::deps ALIAS roofline_deps)
set(_vendored ${CMAKE_SOURCE_DIR}/third_party/include)

find_package(nlohmann_json 3.10 QUIET)
if(nlohmann_json_FOUND)
  target_link_libraries(roofline_deps INTERFACE nlohmann_json::nlohmann_json)
elseif(EXISTS ${_vendored}/nlohmann/json.hpp)
  target_include_directories(roofline_deps SYSTEM INTERFACE ${_vendored})
else()
  message(FATAL_ERROR "nlohmann_json not found: run scripts/setup.sh (apt package nlohmann-json3-dev)")
endif()

find_package(CLI11 QUIET)
if(CLI11_FOUND)
  target_link_libraries(roofline_deps INTERFACE CLI11::CLI11)
elseif(EXISTS ${_vendored}/CLI/CLI.hpp)
  target_include_directories(roofline_deps SYSTEM INTERFACE ${_vendored})
else()
  message(FATAL_ERROR "CLI11 not found: run scripts/setup.sh (apt package libcli11-dev)")
endif()

find_package(fmt 8 QUIET)
if(fmt_FOUND)
  target_link_libraries(roofline_deps INTERFACE fmt::fmt)
elseif(EXISTS ${_vendored}/fmt/format.h)
  target_include_directories(roofline_deps SYSTEM INTERFACE ${_vendored})
  target_compile_definitions(roofline_deps INTERFACE FMT_HEADER_ONLY=1)
else()
  message(FATAL_ERROR "fmt not found: run scripts/setup.sh (apt package libfmt-dev)")
endif()

find_package(Threads REQUIRED)
target_link_libraries(roofline_deps INTERFACE Threads::Threads ${CMAKE_DL_LIBS})

find_package(OpenMP)
if(OpenMP_CXX_FOUND)
  target_link_libraries(roofline_deps INTERFACE OpenMP::OpenMP_CXX)
  target_compile_definitions(roofline_deps INTERFACE ROOFLINE_HAVE_OPENMP=1)
  set(ROOFLINE_OPENMP_STATUS ✓)
else()
  set(ROOFLINE_OPENMP_STATUS ✗)
endif()

# OpenBLAS: the CPU GEMM roof. Optional so that the GPU machine's image (no OpenBLAS) still builds;
# without it the CPU GEMM probes are reported "not run (built without OpenBLAS)".
# With GCC the OpenMP build is preferred (Debian: libopenblas-openmp-dev): its threads are libgomp's,
# the same pool as our OpenMP ops. The pthreads build keeps its own workers spinning for ~0.1 s after
# each call (OPENBLAS_THREAD_TIMEOUT), and an OpenMP op right after a GEMM then shares the cores with
# them: 8 ms instead of 0.5 ms for a residual add on a 16-vCPU Xeon (bench/results/cpu-xeon/2026-12-01/bench.md).
# clang's OpenMP runtime is libomp, not libgomp, so clang builds (the sanitize preset) take the pthreads one.
set(_openblas_variants openblas-pthread)
if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
  set(_openblas_variants openblas-openmp openblas-pthread)
endif()
foreach(_v IN LISTS _openblas_variants)
  if(NOT OPENBLAS_LIBRARY AND EXISTS /usr/lib/${CMAKE_LIBRARY_ARCHITECTURE}/${_v}/libopenblas.so
     AND EXISTS /usr/include/${CMAKE_LIBRARY_ARCHITECTURE}/${_v}/cblas.h)
    set(OPENBLAS_LIBRARY /usr/lib/${CMAKE_LIBRARY_ARCHITECTURE}/${_v}/libopenblas.so CACHE FILEPATH "OpenBLAS")
    set(OPENBLAS_INCLUDE_DIR /usr/include/${CMAKE_LIBRARY_ARCHITECTURE}/${_v} CACHE PATH "OpenBLAS headers")
  endif()
endforeach()
find_path(OPENBLAS_INCLUDE_DIR cblas.h PATH_SUFFIXES openblas x86_64-linux-gnu/openblas-pthread)
find_library(OPENBLAS_LIBRARY NAMES openblas)
if(OPENBLAS_INCLUDE_DIR AND OPENBLAS_LIBRARY)
  target_include_directories(roofline_deps SYSTEM INTERFACE ${OPENBLAS_INCLUDE_DIR})
  target_link_libraries(roofline_deps INTERFACE ${OPENBLAS_LIBRARY})
  target_compile_definitions(roofline_deps INTERFACE ROOFLINE_HAVE_OPENBLAS=1)
  # The threading of the build is read at run time (openblas_get_parallel) and named in each result;
  # here only the library's folder tells it.
  if(OPENBLAS_LIBRARY MATCHES "openblas-openmp")
    set(ROOFLINE_OPENBLAS_STATUS "✓ OpenMP build")
  else()
    set(ROOFLINE_OPENBLAS_STATUS ✓)
  endif()
else()
  set(ROOFLINE_OPENBLAS_STATUS ✗)
endif()

# Debian 12's cpuinfo CMake config names a libclog.a it does not ship, so find the library directly.
find_path(CPUINFO_INCLUDE_DIR cpuinfo.h)
find_library(CPUINFO_LIBRARY NAMES cpuinfo)
if(CPUINFO_INCLUDE_DIR AND CPUINFO_LIBRARY)
  target_include_directories(roofline_deps SYSTEM INTERFACE ${CPUINFO_INCLUDE_DIR})
  target_link_libraries(roofline_deps INTERFACE ${CPUINFO_LIBRARY})
  target_compile_definitions(roofline_deps INTERFACE ROOFLINE_HAVE_CPUINFO=1)
  set(ROOFLINE_CPUINFO_STATUS ✓)
else()
  set(ROOFLINE_CPUINFO_STATUS ✗)
endif()

# MPI (Debian: libopenmpi-dev): fleet runs, `mpirun -np N roofline run`. Optional; without it a run
# launched by mpirun says so and exits 2. NCCL is not linked: src/fleet loads it at run time.
find_package(MPI COMPONENTS CXX QUIET)
if(MPI_CXX_FOUND)
  target_link_libraries(roofline_deps INTERFACE MPI::MPI_CXX)
  target_compile_definitions(roofline_deps INTERFACE ROOFLINE_HAVE_MPI=1)
  set(ROOFLINE_MPI_STATUS ✓)
else()
  set(ROOFLINE_MPI_STATUS ✗)
endif()

# zlib: reading gzipped PyTorch profiler traces (.json.gz). Optional: without it a .gz trace is
# refused with one line saying so (gunzip it first).
find_package(ZLIB QUIET)
if(ZLIB_FOUND)
  target_link_libraries(roofline_deps INTERFACE ZLIB::ZLIB)
  target_compile_definitions(roofline_deps INTERFACE ROOFLINE_HAVE_ZLIB=1)
  set(ROOFLINE_ZLIB_STATUS ✓)
else()
  set(ROOFLINE_ZLIB_STATUS ✗)
endif()
