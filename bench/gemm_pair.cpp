// libroofline_gemm_pair.so: roofline's GEMM probe choice behind a C interface, so one Python process
// can time it in alternation with PyTorch's matmul (bench/gemm_pair.py): both sides then share the
// GPU's clock and power state sample by sample, and their ratio is of the kernels, not of the order
// in which two processes ran. The choice is the probe's own (roofline::cuda::gemm_choice,
// src/backends/cuda/probe_gemm.cpp): same buffer sets, same candidates, same selection rounds.
//   rl_gemm_open(device, "fp16", 4096, err, len) -> handle (null on error, err filled)
//   rl_gemm_seconds(handle, inner)               -> seconds per matmul over `inner` back-to-back matmuls, < 0 on error
//   rl_gemm_config(handle, buf, len)             -> the chosen algorithm as JSON (compute_result::algo); length or -1
//   rl_gemm_verify(handle, err, len)             -> 0 when 16 sampled entries match the double reference
//   rl_gemm_close(handle)
#include <cstdio>
#include <cstring>
#include <exception>
#include <memory>
#include <string>

#include "backends/cuda/cuda_env.hpp"
#include "backends/cuda/probes.hpp"

namespace {

struct pair_handle {
  roofline::cuda::cuda_env env;
  std::unique_ptr<roofline::cuda::gemm_choice> choice;
  ~pair_handle() {
    choice.reset();
    roofline::cuda::close_cuda_env(env);
  }
};

void put(char* dst, int len, const std::string& s) {
  if (dst && len > 0) std::snprintf(dst, static_cast<std::size_t>(len), "%s", s.c_str());
}

}  // namespace

extern "C" {

void* rl_gemm_open(int device, const char* probe, long long n, char* err, int err_len) {
  try {
    auto h = std::make_unique<pair_handle>();
    roofline::cuda::open_cuda_env(h->env, device);
    h->choice = std::make_unique<roofline::cuda::gemm_choice>(h->env, probe ? probe : "", n);
    return h.release();
  } catch (const std::exception& e) {
    put(err, err_len, e.what());
    return nullptr;
  }
}

double rl_gemm_seconds(void* handle, int inner) {
  try {
    return static_cast<pair_handle*>(handle)->choice->seconds_per_matmul(inner);
  } catch (const std::exception&) {
    return -1.0;
  }
}

int rl_gemm_config(void* handle, char* buf, int len) {
  try {
    const std::string s = static_cast<pair_handle*>(handle)->choice->config().dump();
    put(buf, len, s);
    return static_cast<int>(s.size());
  } catch (const std::exception&) {
    return -1;
  }
}

int rl_gemm_verify(void* handle, char* err, int err_len) {
  try {
    static_cast<pair_handle*>(handle)->choice->verify();
    return 0;
  } catch (const std::exception& e) {
    put(err, err_len, e.what());
    return 1;
  }
}

void rl_gemm_close(void* handle) { delete static_cast<pair_handle*>(handle); }

}  // extern "C"
