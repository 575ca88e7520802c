// Shared machinery of the CPU op runner (src/backends/cpu/ops_*.cpp, private to this folder): the shape
// check, the per-copy input arena rotated past 2× the caches, the verification helpers, and what an op
// family's setup hands the runner (op_setup). The kernels live in op_kernels.cpp and
// attention_kernels.cpp; the runner (op_runner.cpp) dispatches on op_kind through a table of families.
#pragma once
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "backends/cpu/cpu_buffers.hpp"
#include "backends/cpu/probe_sizing.hpp"
#include "roofline/backend.hpp"
#include "roofline/error.hpp"
#include "roofline/model.hpp"

namespace roofline::cpu::detail {

inline std::int64_t need(std::int64_t v, const op_desc& op, const char* field) {
  if (v <= 0)
    throw probe_error(fmt::format("op {} ({}): shape field '{}' is missing", op.name, to_string(op.kind), field));
  return v;
}

/// Per-copy float layout: named segments; the runner rotates over `copies` copies.
struct arena {
  std::vector<std::int64_t> sizes;
  std::int64_t per_copy = 0;
  int copies = 1;
  int max_copies = 4096;  ///< rotation_copies' cap (a whole step: the op's count, see run_cpu_op)
  /// One op timed alone: the copies live in one process-wide buffer that the next op reuses, so an op
  /// does not fault in 2 × LLC of fresh pages (on a VM reporting a 260 MiB L3, ~0.3 s of the ~0.5 s an op
  /// took: 62 ops spent 21 s of a 35 s stage allocating). A whole step keeps every op's copies at once,
  /// each in its own buffer (pooled = false).
  bool pooled = false;
  /// In a whole step: the op's name, under which its buffer is kept for the next batch of the decode
  /// sweep (the same ops at another batch: the weights' copies, most of the bytes, are the same size), so
  /// each batch does not fault in the model's bytes again. "" = a buffer of its own, freed with the arena.
  std::string slot;
  aligned_buffer<float> own;
  float* base = nullptr;
  struct step_slot {
    aligned_buffer<float> buf;
    bool in_use = false;
  };
  step_slot* held = nullptr;
  arena() = default;
  arena(const arena&) = delete;
  arena& operator=(const arena&) = delete;
  ~arena() {
    if (held) held->in_use = false;
  }
  static std::map<std::string, step_slot>& step_pool() {
    static std::map<std::string, step_slot> p;
    return p;
  }
  std::int64_t add(std::int64_t n) {
    const std::int64_t off = per_copy;
    sizes.push_back(n);
    per_copy += (n + 15) / 16 * 16;  // 64-byte aligned segments
    return off;
  }
  static aligned_buffer<float>& pool() {
    static aligned_buffer<float> p;
    return p;
  }
  void allocate(std::int64_t llc_bytes, bool rotate, std::uint64_t seed) {
    const double bytes = 4.0 * static_cast<double>(per_copy);
    copies = rotate ? rotation_copies(bytes, llc_bytes, max_copies) : 1;
    const auto need = static_cast<std::size_t>(per_copy * copies);
    step_slot* sl = nullptr;
    if (!pooled && !slot.empty()) {  // a name already live in this step (never in TinyLlama's) gets its own buffer
      step_slot& candidate = step_pool()[slot];
      if (!candidate.in_use) sl = &candidate, sl->in_use = true, held = sl;
    }
    aligned_buffer<float>& buf = pooled ? pool() : sl ? sl->buf : own;
    if (buf.size() < need) {
      buf = aligned_buffer<float>();  // free the smaller one first
      buf = aligned_buffer<float>(need);
      advise_huge_pages(buf.data(), buf.size() * sizeof(float));
    }
    base = buf.data();
    // Copy 0 gets the random values; the others are byte copies of it. The copies exist only so
    // that each timed run starts with its inputs out of cache (distinct addresses), which identical
    // contents satisfy; generating 2x LLC of random numbers per op instead (a VM may report a
    // whole socket's L3, 508 MiB on a 2-vCPU Zen 5 guest) took ~2 s per op.
    fill_uniform(base, static_cast<std::size_t>(per_copy), seed);
    const std::int64_t n = per_copy;
    float* b = base;
#pragma omp parallel for schedule(static) if (copies > 2)
    for (int c = 1; c < copies; ++c) std::copy(b, b + n, b + c * n);
  }
  float* at(int copy, std::int64_t off) { return base + copy * per_copy + off; }
};

inline void check(bool ok, const op_desc& op, const std::string& what) {
  if (!ok) throw probe_error(fmt::format("op {} ({}) failed verification: {}", op.name, to_string(op.kind), what));
}

/// |got − ref| ≤ tol · max(1, |ref|)
inline bool close(double got, double ref, double tol) {
  return std::abs(got - ref) <= tol * std::max(1.0, std::abs(ref));
}

inline double silu_ref(double x) { return x / (1.0 + std::exp(-x)); }

/// "OpenMP, N threads": the threading part of an op's implementation string.
inline std::string omp_note(int threads) { return fmt::format("OpenMP, {} threads", threads); }

/// What an op family's setup leaves for the runner: the inputs' layout, the kernel on copy c, the
/// check of copy 0 after one run, and the note. The lambdas hold references into this object, so it
/// stays where run_cpu_op made it (neither copied nor moved).
struct op_setup {
  std::int64_t llc = 0;  ///< the sizing cache bytes the inputs rotate past (probe_sizing.hpp)
  arena ar;
  std::function<void(int)> kernel;  ///< runs the op on copy c
  std::function<void()> verify;     ///< checks copy 0 after one run
  std::function<void()> before;     ///< prepares copy 0 before the verification run (in-place ops)
  std::string note;
  std::vector<std::int32_t> ids;  ///< embedding: the gathered ids
  aligned_buffer<float> scores;   ///< naive attention: the materialised scores
  std::vector<float> saved;       ///< rope: copy 0's q before the in-place run
  bool rotate = true;             ///< false: the setup allocated the arena itself
  op_setup() = default;
  op_setup(const op_setup&) = delete;
  op_setup& operator=(const op_setup&) = delete;
};

/// Lays out `op`'s inputs in s.ar and sets s.kernel, s.verify (and s.before, s.note); throws
/// probe_error on a missing shape field.
using op_setup_fn = void (*)(const op_desc& op, op_setup& s);
/// The op_timing::implementation string of `op` on `threads` worker threads.
using op_implementation_fn = std::string (*)(const op_desc& op, int threads);

// One setup and one implementation string per family (the file that defines them).
void setup_binary(const op_desc& op, op_setup& s);  // ops_elementwise.cpp: add, mul, silu_mul
void setup_unary(const op_desc& op, op_setup& s);   // ops_elementwise.cpp: silu, gelu
std::string elementwise_implementation(const op_desc& op, int threads);
void setup_norm(const op_desc& op, op_setup& s);  // ops_norm.cpp: rmsnorm, layernorm, softmax
std::string norm_implementation(const op_desc& op, int threads);
void setup_rope(const op_desc& op, op_setup& s);  // ops_rope.cpp
std::string rope_implementation(const op_desc& op, int threads);
void setup_embedding(const op_desc& op, op_setup& s);  // ops_embedding.cpp
std::string embedding_implementation(const op_desc& op, int threads);
void setup_gemm(const op_desc& op, op_setup& s);  // ops_gemm.cpp
std::string gemm_implementation(const op_desc& op, int threads);
void setup_attention(const op_desc& op, op_setup& s);  // ops_attention.cpp: decode, naive, fused
std::string attention_implementation(const op_desc& op, int threads);

}  // namespace roofline::cpu::detail
