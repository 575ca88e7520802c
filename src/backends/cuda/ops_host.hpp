// Host-only helpers of the op runner (no CUDA device code, compiled by the host compiler where
// they format text with fmt): dtype selection, labels, buffer rotation, the check verdict, and the
// declarations of the host functions around the shared kernels (ops_common.cu).
#pragma once
#include <cuda_runtime.h>

#include <cstdint>
#include <functional>
#include <sstream>
#include <string>

#include "backends/cuda/cuda_check.hpp"
#include "backends/cuda/cuda_ops.hpp"

namespace roofline::cuda::detail {

/// Concatenates with operator<< (the .cu files do not use fmt: nvcc cannot compile fmt 9's
/// consteval format strings).
template <typename... A>
std::string cat(const A&... a) {
  std::ostringstream os;
  (os << ... << a);
  return os.str();
}
/// x in scientific notation with `digits` after the point ("1.23e-03").
std::string sci(double x, int digits = 2);

// ---- host helpers ----

/// Which storage type an op runs in: "fp16" or "bf16"; anything else throws probe_error.
enum class dtype_id { f16, bf16 };
dtype_id parse_dtype(const op_desc& op);

/// "<name> (<kind> <shape>, <dtype>)" for error messages.
std::string op_label(const op_desc& op);

/// Device memory owned by this object (cudaFree on destruction, errors there are ignored).
class device_buffer {
 public:
  device_buffer() = default;
  explicit device_buffer(size_t bytes);
  ~device_buffer();
  device_buffer(const device_buffer&) = delete;
  device_buffer& operator=(const device_buffer&) = delete;
  device_buffer(device_buffer&& o) noexcept : p_(o.p_), n_(o.n_) { o.p_ = nullptr; o.n_ = 0; }
  device_buffer& operator=(device_buffer&& o) noexcept;
  void* get() const { return p_; }
  template <typename U> U* as(size_t byte_offset = 0) const {
    return reinterpret_cast<U*>(static_cast<char*>(p_) + byte_offset);
  }
  size_t bytes() const { return n_; }

 private:
  void* p_ = nullptr;
  size_t n_ = 0;
};

/// Rounds up to 256 bytes (every sub-buffer starts 256-byte aligned: 16-byte vector access is legal).
inline size_t align256(size_t b) { return (b + 255) / 256 * 256; }

/// Fills n elements with uniform values in [-scale, scale) from a hash of (seed, index): different
/// seeds give independent data; never zeros as a whole.
void fill_random(void* p, dtype_id t, size_t n, uint64_t seed, float scale, cudaStream_t s);
void fill_random_f32(float* p, size_t n, uint64_t seed, float scale, cudaStream_t s);
/// Random ints in [0, hi).
void fill_random_ids(int32_t* p, size_t n, uint64_t seed, int32_t hi, cudaStream_t s);
/// out[i] = float(in[i]) for n elements of type t.
void to_f32(const void* in, dtype_id t, float* out, size_t n, cudaStream_t s);
/// NaN in fp16, bf16 and fp32 alike (all bits set), so an unwritten output fails the check.
void poison(void* p, size_t bytes, cudaStream_t s);

/// How a buffer set is rotated so repeated runs are not served from L2: n_sets sets of set_bytes,
/// together at least 3 × L2 (capped at 4 GiB of rotation memory).
struct rotation {
  int n_sets = 1;
  size_t set_bytes = 0;
  std::string note() const;  ///< e.g. "rotating 91 buffer sets of 2.1 MB (3 x L2)"
};
rotation plan_rotation(size_t set_bytes, size_t l2_bytes);

/// The ‖out − ref‖ / ‖ref‖ check of rows × cols outputs of type T against an fp32 reference.
/// `row_map` (device, optional) maps reference row r to output row row_map[r].
/// `out_row_stride` is the output row pitch in elements.
struct check_result {
  double rel_err = 0, max_abs = 0, ref_norm = 0;
  unsigned long long nonfinite = 0, first_nonfinite = 0, worst_index = 0, n = 0, cols = 1;
};
check_result compare(const void* out, dtype_id t, const float* ref, size_t rows, size_t cols,
                     size_t out_row_stride, const int32_t* row_map, cudaStream_t s);
/// Throws probe_error with the op's label, the error and the tolerance when the check fails;
/// returns e.g. "rel err 1.2e-03 (tol 1e-02) over 65536 outputs".
std::string require_close(const check_result& c, double tol, const op_desc& op, const std::string& what);

/// Default tolerance on ‖out − ref‖ / ‖ref‖: fp16 outputs 5e-3, bf16 outputs 1.5e-2 (bf16 keeps
/// 8 significant bits: unit roundoff 2^-9 ≈ 2e-3 per rounding, a few roundings per output).
double default_tol(dtype_id t);

/// Times `launch(set)` with CUDA events on ctx.stream through time_repeated(); set = i mod n_sets,
/// starting at set 0 (the set written first, so the coldest). `kernel` names what ran (our kernel,
/// variant and launch configuration, or the library and its choice) and, where the runner knows it,
/// what one launch executes (op_timing::executed); `note` the check and the buffer rotation.
op_timing time_launches(const op_context& ctx, const timing_options& timing, int n_sets,
                        const std::function<void(int set)>& launch, step_kernel kernel, std::string note);

/// Seconds per launch of `launch(set)`: the median of 5 replays of a CUDA graph of max(20, n_sets)
/// launches (eager bursts of 10 when capture fails). For choosing among verified candidate
/// implementations; the op's reported time comes from time_launches.
double quick_time(const op_context& ctx, int n_sets, const std::function<void(int)>& launch);

/// "CUDA <runtime version>" of the runtime this binary runs on, e.g. "CUDA 13.0".
std::string cuda_runtime_version();
/// "cuBLASLt 13.0.2" (cublasLtGetVersion of the loaded library).
std::string cublaslt_version();

int sm_count(const op_context& ctx);

/// Grid for a grid-stride loop over n work items with `threads` per block.
unsigned grid_for(size_t n, int threads, const op_context& ctx);

std::string fmt_bytes(double b);

/// Split-KV plan of the tensor-core decode attention kernel (ops_attention_decode.cu): `splits`
/// blocks of `chunk` keys (a multiple of 16) per (sequence, KV head, head group), chosen among 1…256
/// splits to minimise waves × (16-key iterations per warp + 2) + 0.05 · splits, where a wave is
/// `resident_blocks` blocks (occupancy × SMs). `cost` is that minimum, in iterations.
struct decode_split_plan {
  long long splits = 1, chunk = 0;
  double cost = 0;
};
decode_split_plan plan_decode_splits(long long pairs, long long kv_len, long long resident_blocks);

}  // namespace roofline::cuda::detail
