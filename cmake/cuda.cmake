# CUDA backend: ROOFLINE_CUDA=AUTO builds it when a CUDA toolkit is found; ON requires it; OFF skips.
# Only src/backends/cuda/ sees CUDA headers; the rest of roofline talks to it through backend.hpp.
set(ROOFLINE_HAVE_CUDA_BACKEND OFF)
set(ROOFLINE_CUDA_STATUS "✗ (ROOFLINE_CUDA=OFF)")
if(NOT ROOFLINE_CUDA STREQUAL "OFF")
  if(NOT DEFINED CMAKE_CUDA_COMPILER AND EXISTS /usr/local/cuda/bin/nvcc)
    set(CMAKE_CUDA_COMPILER /usr/local/cuda/bin/nvcc)
  endif()
  set(_arch_why "CMAKE_CUDA_ARCHITECTURES as given")
  if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES)
    # roofline measures the machine it is built on: the GPUs nvidia-smi lists (code and PTX for each compute
    # capability). Without one (a compile check, or a build to run elsewhere): sm_90 code (H100/H200) and
    # compute_75 PTX that the driver compiles for any other GPU from the T4 on. Each architecture is another
    # device compile of every .cu file (timings: bench/results/cpu-zen5, make test). Override with
    # -DCMAKE_CUDA_ARCHITECTURES=... (preset h200: 90).
    set(_caps "")
    find_program(ROOFLINE_NVIDIA_SMI nvidia-smi)
    if(ROOFLINE_NVIDIA_SMI)
      execute_process(COMMAND ${ROOFLINE_NVIDIA_SMI} --query-gpu=compute_cap --format=csv,noheader
                      OUTPUT_VARIABLE _out RESULT_VARIABLE _rc ERROR_QUIET OUTPUT_STRIP_TRAILING_WHITESPACE TIMEOUT 20)
      if(_rc EQUAL 0)
        string(REPLACE "\n" ";" _lines "${_out}")
        foreach(_l IN LISTS _lines)
          string(STRIP "${_l}" _l)
          if(_l MATCHES "^([0-9]+)\\.([0-9]+)$")
            list(APPEND _caps "${CMAKE_MATCH_1}${CMAKE_MATCH_2}")
          endif()
        endforeach()
        list(REMOVE_DUPLICATES _caps)
      endif()
    endif()
    if(_caps)
      set(CMAKE_CUDA_ARCHITECTURES "${_caps}")
      set(_arch_why "this machine's GPUs (nvidia-smi)")
    else()
      set(CMAKE_CUDA_ARCHITECTURES "75-virtual;90")
      set(_arch_why "no GPU seen: sm_90 code, compute_75 PTX for the others")
    endif()
  endif()
  include(CheckLanguage)
  check_language(CUDA)
  if(CMAKE_CUDA_COMPILER)
    enable_language(CUDA)
    find_package(CUDAToolkit)
  endif()
  if(CMAKE_CUDA_COMPILER AND CUDAToolkit_FOUND AND TARGET CUDA::cublasLt)
    set(ROOFLINE_HAVE_CUDA_BACKEND ON)
  elseif(ROOFLINE_CUDA STREQUAL "ON")
    message(FATAL_ERROR "ROOFLINE_CUDA=ON but no CUDA toolkit with cuBLASLt was found")
  else()
    set(ROOFLINE_CUDA_STATUS "✗ (no CUDA toolkit found)")
  endif()
endif()
if(ROOFLINE_HAVE_CUDA_BACKEND)
  # CMake < 3.26 does not know nvcc's flag for the CUDA20 dialect (and CUDA targets inherit
  # CXX_STANDARD 20): tell it. nvcc >= 12 accepts -std=c++20.
  if(CMAKE_VERSION VERSION_LESS 3.26 AND NOT DEFINED CMAKE_CUDA20_STANDARD_COMPILE_OPTION)
    set(CMAKE_CUDA20_STANDARD_COMPILE_OPTION "-std=c++20")
    set(CMAKE_CUDA20_EXTENSION_COMPILE_OPTION "-std=c++20")
  endif()
  set(CMAKE_CUDA_STANDARD 20)
  set(CMAKE_CUDA_STANDARD_REQUIRED ON)
  file(GLOB ROOFLINE_CUDA_SOURCES CONFIGURE_DEPENDS src/backends/cuda/*.cu src/backends/cuda/*.cpp)
  add_library(roofline_cuda STATIC ${ROOFLINE_CUDA_SOURCES})
  # A unity build (ROOFLINE_UNITY) batches the host sources only: CMake ≥ 3.31 would batch the .cu files
  # too, and device code has not been checked for names shared between files.
  file(GLOB _cu_sources CONFIGURE_DEPENDS src/backends/cuda/*.cu)
  set_source_files_properties(${_cu_sources} TARGET_DIRECTORY roofline_cuda PROPERTIES SKIP_UNITY_BUILD_INCLUSION ON)
  target_include_directories(roofline_cuda PUBLIC include PRIVATE src)
  # roofline_spec: the backend derives its nominal roofs (gpu_nominal_live) from the live factors.
  target_link_libraries(roofline_cuda PUBLIC roofline_base CUDA::cudart ${CMAKE_DL_LIBS}
                        PRIVATE roofline_spec roofline_warnings)
  # cuBLASLt and cuDNN are loaded at run time (cublaslt_library.cpp, cudnn_sdpa.cpp): headers only here, and the
  # toolkit's library directory as one place the loader searches.
  target_compile_definitions(roofline_cuda PUBLIC ROOFLINE_HAVE_CUDA=1
                             PRIVATE ROOFLINE_CUDA_TOOLKIT_LIB_DIR="${CUDAToolkit_LIBRARY_DIR}")
  target_compile_options(roofline_cuda PRIVATE $<$<COMPILE_LANGUAGE:CUDA>:--expt-relaxed-constexpr -lineinfo
                         -Xcompiler=-Wall,-Wextra,-Wno-unused-parameter>)
  option(ROOFLINE_PTXAS_VERBOSE "Print ptxas register/spill reports for the CUDA kernels" OFF)
  if(ROOFLINE_PTXAS_VERBOSE)
    target_compile_options(roofline_cuda PRIVATE $<$<COMPILE_LANGUAGE:CUDA>:-Xptxas=-v>)
  endif()
  set_target_properties(roofline_cuda PROPERTIES CUDA_SEPARABLE_COMPILATION OFF POSITION_INDEPENDENT_CODE ON)
  # cuDNN: only its graph-API header is needed at build time (types and enums); the library is
  # loaded at run time (src/backends/cuda/cudnn_library.cpp), so a machine without it still runs
  # roofline, with our own attention kernels alone.
  find_path(ROOFLINE_CUDNN_INCLUDE_DIR cudnn_graph.h HINTS ${CUDAToolkit_INCLUDE_DIRS} /usr/include
            /usr/include/x86_64-linux-gnu)
  if(ROOFLINE_CUDNN_INCLUDE_DIR)
    target_include_directories(roofline_cuda PRIVATE ${ROOFLINE_CUDNN_INCLUDE_DIR})
    target_compile_definitions(roofline_cuda PRIVATE ROOFLINE_HAVE_CUDNN_HEADER=1)
    set(_cudnn_status "cuDNN header ✓, library loaded at run time")
  else()
    set(_cudnn_status "cuDNN header ✗: attention runs our kernels only")
  endif()
  set(ROOFLINE_CUDA_STATUS "✓ (nvcc ${CMAKE_CUDA_COMPILER_VERSION}, archs ${CMAKE_CUDA_ARCHITECTURES}: ${_arch_why}; cuBLASLt and NVML loaded at run time; ${_cudnn_status})")
endif()
