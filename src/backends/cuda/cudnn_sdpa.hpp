// cuDNN's fused scaled-dot-product attention (flash attention forward), loaded at run time.
//
// roofline measures an attention op with the fastest verified implementation on the machine; where
// cuDNN is installed (it is wherever PyTorch's CUDA wheels are, and in most CUDA images), its fused
// attention is a candidate beside our own kernels (ops_attention_fused.cu, ops_attention_decode.cu),
// and the op names which one ran. Nothing links cuDNN: libcudnn.so.9 is dlopened on first use
// (roofline/library_search.hpp: the loader, the CUDA toolkit's lib directory, PyTorch's wheels),
// and only the graph API's header (cudnn_graph.h: types and enum values) is needed to build.
//
// The graph is the cuDNN graph API's flash fused attention forward pattern (cuDNN Developer Guide,
// "Graph API", "Fused Flash Attention fprop"; the composition cuDNN's frontend builds for SDPA):
//   S = Q·Kᵀ (matmul, fp32) → S·scale (pointwise MUL, scale by value) → [causal: row index ≥ column
//   index, rows counted from kv_len − q_len; else lowest float (GEN_INDEX, ADD, CMP_GE,
//   BINARY_SELECT)] → softmax (reduce MAX, SUB, EXP, reduce ADD, DIV; P in the input type) →
//   O = P·V (matmul).
// Layouts as our kernels': q, o [batch, heads, q_len, d]; k, v [batch, kv_heads, kv_len, d]
// (contiguous; GQA by the matmul's broadcast over heads / kv_heads). fp16 or bf16, fp32 accumulate.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

namespace roofline::cuda {

/// The shape of one attention op. Throws nothing; cudnn_sdpa validates it.
struct sdpa_shape {
  int64_t batch = 0, heads = 0, kv_heads = 0, q_len = 0, kv_len = 0, head_dim = 0;
  bool causal = false;
  bool bf16 = false;  ///< false: fp16
  float scale = 0;    ///< softmax scale, usually 1/√head_dim
};

/// "cuDNN 9.19.0 (/path/libcudnn.so.9)" when the library loads, else "" with `why` naming every
/// place searched. Loaded once per process.
std::string cudnn_available(std::string& why);

/// One built cuDNN SDPA graph with its verified-candidate execution plans. Not copyable.
class cudnn_sdpa {
 public:
  /// Builds the operation graph for `shape` on the current device and finalises up to
  /// `max_plans` execution plans from cuDNN's heuristics (mode A), in its order.
  /// Throws std::runtime_error naming the step and cuDNN's message when the library is missing,
  /// the graph is not supported (e.g. head_dim > 256, compute capability < 8.0), or no plan builds.
  cudnn_sdpa(const sdpa_shape& shape, cudaStream_t stream, int max_plans = 4);
  ~cudnn_sdpa();
  cudnn_sdpa(const cudnn_sdpa&) = delete;
  cudnn_sdpa& operator=(const cudnn_sdpa&) = delete;

  int plans() const;
  /// "engine 8 (heuristic rank 0), workspace 0 B" — what cuDNN reports of plan `i`.
  std::string plan_name(int i) const;
  void select(int i);
  int selected() const;
  /// Launches the selected plan on `stream` (capturable into a CUDA graph). Throws on a cuDNN error.
  void run(const void* q, const void* k, const void* v, void* o, cudaStream_t stream);
  /// "cuDNN 9.19.0 fused SDPA (flash attention fprop graph: …), engine …" for the op table.
  std::string description() const;

 private:
  struct impl;
  std::unique_ptr<impl> p_;
};

/// Verifies every plan of `sdpa` with `verify` (which runs the selected plan on a checked input and
/// throws on a wrong output), times the verified ones with `time` (seconds per launch) and selects
/// the fastest. Returns its time, or +infinity when no plan verified. `tried` lists each plan as
/// "<plan_name>: <t> us" or "<plan_name>: refused (<why>)".
double select_fastest_plan(cudnn_sdpa& sdpa, const std::function<void()>& verify, const std::function<double()>& time,
                           std::string& tried);

}  // namespace roofline::cuda
