// Private to the trace reader: an aten:: op as recorded by the PyTorch profiler (record_shapes=True:
// Input Dims, Input type, Input Strides, Concrete Inputs) turned into FLOPs and bytes through the
// op-cost model (roofline/model.hpp). The table of ops and the model function each uses:
// docs/ingest.md, "PyTorch profiler traces".
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "roofline/model.hpp"

namespace roofline::ingest::detail {

/// One input of an op, as the profiler recorded it.
struct aten_input {
  std::vector<std::int64_t> dims;                 ///< a tensor's shape ([] = 0-dim or not a tensor)
  std::vector<std::vector<std::int64_t>> list;    ///< a TensorList's shapes (is_list)
  std::vector<std::int64_t> strides;              ///< a tensor's strides (may be empty)
  std::string type;                               ///< "c10::Half", "float", "Scalar", "TensorList", ""
  std::string concrete;                           ///< the Concrete Inputs entry ("" when none)
  bool is_list = false;
};

/// One aten:: op call.
struct aten_call {
  std::string name;  ///< "aten::mm"
  std::vector<aten_input> inputs;
};

/// What the model says one op costs.
struct aten_cost {
  op_desc op;              ///< from the model's constructor: flops, bytes_read, bytes_written
  std::string precision;   ///< fp16 | bf16 | fp32 | fp64 | fp8 | "" (integer or unknown: no FLOPs kept)
  std::string engine;      ///< "tensor" for an fp16/bf16 matmul, else ""
  std::string cost_model;  ///< "gemm_op", "attention_op", "elementwise_op", "embedding_op", "tensor_op"
  std::string note;        ///< the counting convention used
  std::int64_t last_dim = 0;  ///< the first tensor input's last dimension (0: none)
};

/// Whether `name` (e.g. "aten::mm") has a cost model at all (the reader keeps the shapes of those ops
/// only).
bool has_cost_model(std::string_view name);

/// The op's cost, or nullopt with `why` set (e.g. "no cost model for aten::arange"). `kernel_name`
/// is the op's kernel's name: aten::cat's TensorList records no dtype, and its CatArrayBatchedCopy
/// kernel names the element size (OpaqueType<N>).
std::optional<aten_cost> cost_aten_op(const aten_call& call, std::string_view kernel_name, std::string& why);

/// "[[512,2048],[2048,2048]] fp16": the inputs' dims as recorded and their distinct dtypes.
std::string format_shapes(const aten_call& call);

/// Bytes per element and the precision name of a profiler "Input type" ("c10::Half" → 2, "fp16";
/// "long int" → 8, "int64"); 0 and "" when it is not a tensor type.
int type_bytes(std::string_view type);
std::string type_precision(std::string_view type);

}  // namespace roofline::ingest::detail
