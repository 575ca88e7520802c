// Names of phases, op kinds and dtypes (op_shapes.hpp), in roofline_base: every layer and backend prints them.
#include "roofline/error.hpp"
#include "roofline/op_shapes.hpp"

namespace roofline {

std::string to_string(phase p) {
  switch (p) {
    case phase::decode: return "decode";
    case phase::prefill: return "prefill";
    case phase::train: return "train";
  }
  return "?";
}

phase parse_phase(const std::string& s) {
  if (s == "decode") return phase::decode;
  if (s == "prefill") return phase::prefill;
  if (s == "train" || s == "training") return phase::train;
  throw input_error("", "--phase", "'" + s + "' is not a phase (decode, prefill, train)");
}

std::string to_string(op_kind k) {
  switch (k) {
    case op_kind::gemm: return "gemm";
    case op_kind::add: return "add";
    case op_kind::mul: return "mul";
    case op_kind::silu: return "silu";
    case op_kind::silu_mul: return "silu_mul";
    case op_kind::gelu: return "gelu";
    case op_kind::rmsnorm: return "rmsnorm";
    case op_kind::layernorm: return "layernorm";
    case op_kind::softmax: return "softmax";
    case op_kind::rope: return "rope";
    case op_kind::embedding: return "embedding";
    case op_kind::attention_decode: return "attention_decode";
    case op_kind::attention_naive: return "attention_naive";
    case op_kind::attention_fused: return "attention_fused";
  }
  return "?";
}

int dtype_bytes(const std::string& dtype) {
  if (dtype == "fp32" || dtype == "float32") return 4;
  if (dtype == "fp16" || dtype == "bf16" || dtype == "float16" || dtype == "bfloat16") return 2;
  if (dtype == "fp8" || dtype == "int8" || dtype == "e4m3" || dtype == "e5m2") return 1;
  throw input_error("", "--dtype", "'" + dtype + "' is not a dtype (fp32, fp16, bf16, fp8, int8)");
}

}  // namespace roofline
