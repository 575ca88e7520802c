// aten:: op + recorded shapes -> FLOPs and bytes, only through the model's constructors
// (gemm_op, attention_op, elementwise_op, embedding_op, tensor_op; docs/formulas-model.md §2-§4).
// The op table: docs/ingest.md, "PyTorch profiler traces".
#include "ingest/aten_cost.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <functional>
#include <map>
#include <numeric>

namespace roofline::ingest::detail {

namespace {

struct dtype_row {
  std::string_view type;  // the profiler's "Input type"
  int bytes;
  std::string_view precision;  // roofline/vocabulary.hpp names; integers get no FLOP entry
  bool floating;
};
// c10 ScalarType names as torch.profiler writes them (c10::toString / the C++ type names).
constexpr dtype_row dtype_table[] = {
    {"c10::Half", 2, "fp16", true},          {"c10::BFloat16", 2, "bf16", true},
    {"float", 4, "fp32", true},              {"double", 8, "fp64", true},
    {"c10::Float8_e4m3fn", 1, "fp8", true},  {"c10::Float8_e5m2", 1, "fp8", true},
    {"c10::Float8_e4m3fnuz", 1, "fp8", true}, {"c10::Float8_e5m2fnuz", 1, "fp8", true},
    {"long int", 8, "int64", false},         {"int", 4, "int32", false},
    {"short int", 2, "int16", false},        {"signed char", 1, "int8", false},
    {"long unsigned int", 8, "uint64", false}, {"unsigned int", 4, "uint32", false},  // philox seeds and offsets
    {"unsigned char", 1, "uint8", false},    {"bool", 1, "bool", false},
};

const dtype_row* find_dtype(std::string_view t) {
  for (const auto& r : dtype_table)
    if (r.type == t) return &r;
  return nullptr;
}

bool is_tensor(const aten_input& in) { return !in.is_list && find_dtype(in.type) != nullptr; }

double numel(const std::vector<std::int64_t>& d) {
  double n = 1;
  for (auto x : d) n *= double(x);
  return n;
}

std::string strip(std::string_view name) {
  if (name.substr(0, 6) == "aten::") name.remove_prefix(6);
  return std::string(name);
}

// Integers of a Concrete Inputs entry: "-1", "[-1]", "[0, 2]"; empty when none.
std::vector<std::int64_t> parse_ints(std::string_view s) {
  std::vector<std::int64_t> v;
  std::size_t i = 0;
  while (i < s.size()) {
    if (s[i] == '-' || std::isdigit(static_cast<unsigned char>(s[i]))) {
      std::int64_t x = 0;
      auto [p, ec] = std::from_chars(s.data() + i, s.data() + s.size(), x);
      if (ec != std::errc()) break;
      v.push_back(x);
      i = std::size_t(p - s.data());
    } else {
      ++i;
    }
  }
  return v;
}

// Broadcast shape of the non-0-dim tensors (NumPy rules); empty when none.
std::vector<std::int64_t> broadcast(const std::vector<const aten_input*>& ts) {
  std::vector<std::int64_t> out;
  for (const auto* t : ts) {
    const auto& d = t->dims;
    if (d.size() > out.size()) out.insert(out.begin(), d.size() - out.size(), 1);
    for (std::size_t i = 0; i < d.size(); ++i) {
      auto& o = out[out.size() - d.size() + i];
      if (o == 1) o = d[i];
    }
  }
  return out;
}

void finish(aten_cost& c, const dtype_row* dt, const std::string& model) {
  c.cost_model = model;
  if (dt && dt->floating) c.precision = std::string(dt->precision);
  if (model == "tensor_op") return;  // its one convention (inputs read once, output written once) is the model's name
  if (!c.note.empty() && !c.op.note.empty()) c.note += "; ";
  c.note += c.op.note;
}

// ---- GEMMs: [m×k]·[k×n] (Kaplan et al. 2020 §2.1 via gemm_op) ----
std::optional<aten_cost> gemm(const aten_call& c, const std::string& op, std::string& why) {
  const auto& in = c.inputs;
  const aten_input *a = nullptr, *b = nullptr;
  bool bias = false;
  if ((op == "mm" || op == "bmm" || op == "matmul") && in.size() >= 2) a = &in[0], b = &in[1];
  if ((op == "addmm" || op == "baddbmm") && in.size() >= 3) a = &in[1], b = &in[2], bias = op == "addmm";
  if (op == "linear" && in.size() >= 2) {
    a = &in[0], b = &in[1];
    bias = in.size() >= 3 && is_tensor(in[2]) && !in[2].dims.empty();
  }
  if (!a || !is_tensor(*a) || !is_tensor(*b) || a->dims.empty() || b->dims.empty()) {
    why = fmt::format("aten::{}: operand shapes not recorded", op);
    return std::nullopt;
  }
  const auto* dt = find_dtype(a->type);
  const auto& A = a->dims;
  const auto& Bd = b->dims;
  std::int64_t m = 0, n = 0, k = 0, batch = 1;
  if (op == "linear") {  // x [..., k] · Wᵀ, W [n × k]
    if (Bd.size() != 2) return why = "aten::linear: weight is not 2-D", std::nullopt;
    k = A.back(), n = Bd[0], m = std::int64_t(numel(A) / double(k));
  } else if (Bd.size() == 2 && A.size() >= 2) {  // mm, addmm, matmul with a 2-D right operand
    k = A.back(), n = Bd[1], m = std::int64_t(numel(A) / double(k));
  } else if (A.size() >= 3 && Bd.size() >= 3) {  // bmm, baddbmm, batched matmul
    m = A[A.size() - 2], k = A.back(), n = Bd.back();
    batch = std::int64_t(numel(A) / double(m * k));
  } else {
    why = fmt::format("aten::{}: a 1-D operand (a GEMV/dot form the model does not cost)", op);
    return std::nullopt;
  }
  if (m <= 0 || n <= 0 || k <= 0) return why = fmt::format("aten::{}: an empty operand", op), std::nullopt;
  aten_cost r;
  r.op = gemm_op(c.name, m, n, k, dt->bytes, bias);
  if (batch > 1) {  // B independent GEMMs (docs/ingest.md): FLOPs and bytes × B
    r.op.flops *= double(batch), r.op.bytes_read *= double(batch), r.op.bytes_written *= double(batch);
    r.op.batch = batch;
    r.op.shape = fmt::format("{}×{}", batch, r.op.shape);
    r.note = fmt::format("{} independent GEMMs", batch);
  }
  if (op == "baddbmm") r.note += std::string(r.note.empty() ? "" : "; ") + "the added input (beta·C) not counted";
  finish(r, dt, "gemm_op");
  if (r.precision == "fp16" || r.precision == "bf16") r.engine = "tensor";
  return r;
}

// ---- fused attention (FlashAttention, Dao et al. 2022 §3, via attention_op) and its backward
// (attention_backward_op). The argument positions are PyTorch's native_functions.yaml signatures, as
// the profiler records them (checked on traces of torch 2.11: the SDPA cuDNN, flash and
// memory-efficient paths, forward and backward). ----
struct attention_row {
  std::string_view op;
  int q_arg;       // index of the query (backward ops take grad_out first)
  int causal_arg;  // index of is_causal in Concrete Inputs (-1: none recorded)
  int mask_arg;    // index of custom_mask_type (memory-efficient kernels; -1: none)
  bool blhd;       // q [B, L, H, D] instead of [B, H, L, D]
  bool backward;
};
constexpr attention_row attention_table[] = {
    {"scaled_dot_product_attention", 0, 5, -1, false, false},
    {"_scaled_dot_product_flash_attention", 0, 4, -1, false, false},
    {"_scaled_dot_product_efficient_attention", 0, 6, -1, false, false},
    {"_scaled_dot_product_cudnn_attention", 0, 6, -1, false, false},
    {"_cudnn_attention_forward", 0, 10, -1, false, false},
    {"_flash_attention_forward", 0, 8, -1, true, false},
    {"_efficient_attention_forward", 0, -1, 9, true, false},
    // backward(grad_out, query, key, value, out, logsumexp, ...)
    {"_scaled_dot_product_flash_attention_backward", 1, 11, -1, false, true},
    {"_flash_attention_backward", 1, 11, -1, true, true},
    {"_scaled_dot_product_efficient_attention_backward", 1, 11, -1, false, true},
    {"_efficient_attention_backward", 1, -1, 14, true, true},
    {"_scaled_dot_product_cudnn_attention_backward", 1, 14, -1, false, true},
    {"_cudnn_attention_backward", 1, 14, -1, false, true},
};

std::optional<aten_cost> attention(const aten_call& c, const attention_row& row, std::string& why) {
  const auto& in = c.inputs;
  const auto qi = std::size_t(row.q_arg);
  if (in.size() < qi + 3 || !is_tensor(in[qi]) || !is_tensor(in[qi + 1]) || in[qi].dims.size() != 4 ||
      in[qi + 1].dims.size() != 4) {
    why = "aten::" + std::string(row.op) + ": q/k shapes not recorded as 4-D";
    return std::nullopt;
  }
  const auto& q = in[qi].dims;
  const auto& k = in[qi + 1].dims;
  const std::int64_t B = q[0], D = q[3];
  const std::int64_t H = row.blhd ? q[2] : q[1], L = row.blhd ? q[1] : q[2];
  const std::int64_t G = row.blhd ? k[2] : k[1], S = row.blhd ? k[1] : k[2];
  bool causal = false, known = false;
  if (row.causal_arg >= 0 && std::size_t(row.causal_arg) < in.size()) {
    const auto& v = in[std::size_t(row.causal_arg)].concrete;
    known = v == "True" || v == "False", causal = v == "True";
  } else if (row.mask_arg >= 0 && std::size_t(row.mask_arg) < in.size()) {  // custom_mask_type: 0 none, 1/2 causal
    const auto v = parse_ints(in[std::size_t(row.mask_arg)].concrete);
    known = !v.empty(), causal = known && v[0] != 0;
  }
  const auto* dt = find_dtype(in[qi].type);
  const auto* kdt = find_dtype(in[qi + 1].type);
  aten_cost r;
  const op_desc fwd =
      attention_op(op_kind::attention_fused, B, H, G, D, L, S, dt->bytes, kdt ? kdt->bytes : dt->bytes, causal);
  r.op = row.backward ? attention_backward_op(fwd) : fwd;
  r.op.name = c.name;
  r.note = std::string(known ? (causal ? "is_causal=True" : "is_causal=False") : "is_causal not recorded: full");
  if (L == 1 && !row.backward) r.note += "; one query: q, the K/V cache and out moved once (the KV append is its own kernel)";
  finish(r, dt, row.backward ? "attention_backward_op" : "attention_op");
  return r;
}

// ---- generic tensor ops (docs/formulas-model.md §3.1 via tensor_op, or elementwise_op on a fit) ----
struct tensor_row {
  std::string_view op;
  double flops_per_element;
  enum { elementwise, copy, reduction, compare } form;  // compare: a bool output (1 B per element)
  op_kind kind;  // the §3 kind used when the shapes fit (op_kind::embedding = none)
};
constexpr op_kind none = op_kind::embedding;
constexpr tensor_row tensor_table[] = {
    {"add", add_flops_per_element, tensor_row::elementwise, op_kind::add},
    {"sub", add_flops_per_element, tensor_row::elementwise, op_kind::add},
    {"mul", add_flops_per_element, tensor_row::elementwise, op_kind::mul},
    {"div", 1, tensor_row::elementwise, none},
    {"silu", silu_flops_per_element, tensor_row::elementwise, op_kind::silu},
    {"gelu", gelu_flops_per_element, tensor_row::elementwise, op_kind::gelu},
    {"sigmoid", 4, tensor_row::elementwise, none},
    {"tanh", 4, tensor_row::elementwise, none},
    {"neg", 1, tensor_row::elementwise, none},
    {"pow", 1, tensor_row::elementwise, none},
    {"rsqrt", 1, tensor_row::elementwise, none},
    {"sqrt", 1, tensor_row::elementwise, none},
    {"reciprocal", 1, tensor_row::elementwise, none},
    {"exp", 1, tensor_row::elementwise, none},
    {"log", 1, tensor_row::elementwise, none},
    {"cos", 1, tensor_row::elementwise, none},
    {"sin", 1, tensor_row::elementwise, none},
    {"abs", 1, tensor_row::elementwise, none},
    {"relu", 1, tensor_row::elementwise, none},
    {"where", 1, tensor_row::elementwise, none},
    {"maximum", 1, tensor_row::elementwise, none},
    {"minimum", 1, tensor_row::elementwise, none},
    {"clamp", 2, tensor_row::elementwise, none},
    {"clamp_min", 1, tensor_row::elementwise, none},
    {"clamp_max", 1, tensor_row::elementwise, none},
    {"masked_fill", 0, tensor_row::elementwise, none},
    {"cumsum", 1, tensor_row::elementwise, none},
    // activation backwards without a §3 kind: grad and the saved output read, the gradient written
    {"sigmoid_backward", 3, tensor_row::elementwise, none},
    {"tanh_backward", 3, tensor_row::elementwise, none},
    {"threshold_backward", 1, tensor_row::elementwise, none},
    {"bitwise_and", 1, tensor_row::elementwise, none},
    {"bitwise_or", 1, tensor_row::elementwise, none},
    {"bitwise_xor", 1, tensor_row::elementwise, none},
    {"bitwise_not", 1, tensor_row::elementwise, none},
    {"logical_and", 1, tensor_row::compare, none},
    {"logical_or", 1, tensor_row::compare, none},
    {"logical_not", 1, tensor_row::compare, none},
    {"eq", 1, tensor_row::compare, none},
    {"ne", 1, tensor_row::compare, none},
    {"lt", 1, tensor_row::compare, none},
    {"le", 1, tensor_row::compare, none},
    {"gt", 1, tensor_row::compare, none},
    {"ge", 1, tensor_row::compare, none},
    {"isinf", 1, tensor_row::compare, none},
    {"isnan", 1, tensor_row::compare, none},
    {"copy_", 0, tensor_row::copy, none},
    {"contiguous", 0, tensor_row::copy, none},
    {"clone", 0, tensor_row::copy, none},
    {"cat", 0, tensor_row::copy, none},
    {"stack", 0, tensor_row::copy, none},
    {"fill_", 0, tensor_row::copy, none},
    {"zero_", 0, tensor_row::copy, none},
    // random fills: written only (the generator's arithmetic not counted)
    {"normal_", 0, tensor_row::copy, none},
    {"uniform_", 0, tensor_row::copy, none},
    {"exponential_", 0, tensor_row::copy, none},
    {"bernoulli_", 0, tensor_row::copy, none},
    {"mean", 1, tensor_row::reduction, none},
    {"sum", 1, tensor_row::reduction, none},
    {"amax", 1, tensor_row::reduction, none},
    {"max", 1, tensor_row::reduction, none},
    {"argmax", 1, tensor_row::reduction, none},
    {"argmin", 1, tensor_row::reduction, none},
    {"any", 1, tensor_row::reduction, none},
    {"all", 1, tensor_row::reduction, none},
};

const tensor_row* find_tensor_row(const std::string& op) {
  std::string base = op;
  static constexpr std::string_view keep[] = {"copy_", "fill_", "zero_", "normal_", "uniform_", "exponential_", "bernoulli_"};
  if (base.size() > 1 && base.back() == '_' && std::find(std::begin(keep), std::end(keep), base) == std::end(keep))
    base.pop_back();  // in-place form: add_ -> add
  for (const auto& r : tensor_table)
    if (r.op == base) return &r;
  return nullptr;
}

std::optional<aten_cost> tensor(const aten_call& c, const tensor_row& row, std::string_view kernel_name,
                                std::string& why) {
  std::vector<const aten_input*> ts, full;  // tensors; non-0-dim tensors
  for (const auto& in : c.inputs)
    if (is_tensor(in)) {
      ts.push_back(&in);
      if (!in.dims.empty()) full.push_back(&in);
    }
  aten_cost r;
  const dtype_row* out_dt = nullptr;
  double read = 0, written = 0, elements = 0;
  if (row.op == "cat" || row.op == "stack") {  // TensorList: no dtype recorded; the kernel's OpaqueType<N> is the element size
    const aten_input* list = nullptr;
    for (const auto& in : c.inputs)
      if (in.is_list) list = &in;
    const auto p = kernel_name.find("OpaqueType<");
    if (!list || p == std::string_view::npos) {
      why = c.name + ": the TensorList's dtype is not recorded (and the kernel does not name its element size)";
      return std::nullopt;
    }
    const auto size = parse_ints(kernel_name.substr(p + 11, 4));
    if (size.empty() || size[0] <= 0) return why = c.name + ": unreadable OpaqueType<N>", std::nullopt;
    for (const auto& d : list->list) elements += numel(d);
    read = written = elements * double(size[0]);
    r.op = tensor_op(c.name, read, written, 0, std::int64_t(elements));
    r.note = fmt::format("element size {} B from the kernel's OpaqueType<{}>", size[0], size[0]);
    finish(r, nullptr, "tensor_op");
    return r;
  }
  if (ts.empty()) return why = c.name + ": no tensor input recorded", std::nullopt;
  if (row.form == tensor_row::copy) {
    if (row.op == "copy_" && ts.size() >= 2) {  // copy_(dst, src): src read, dst written
      const auto* d = find_dtype(ts[0]->type);
      const auto* s = find_dtype(ts[1]->type);
      read = numel(ts[1]->dims) * s->bytes, written = numel(ts[0]->dims) * d->bytes;
      elements = numel(ts[0]->dims), out_dt = d;
      if (d != s) r.note = fmt::format("cast {} → {}", s->precision, d->precision);
    } else if (row.op != "contiguous" && row.op != "clone") {  // fill_, zero_, random fills: written only
      out_dt = find_dtype(ts[0]->type);
      elements = numel(ts[0]->dims), written = elements * out_dt->bytes;
    } else {  // contiguous, clone: same dtype
      out_dt = find_dtype(ts[0]->type);
      elements = numel(ts[0]->dims), read = written = elements * out_dt->bytes;
    }
    r.op = tensor_op(c.name, read, written, 0, std::int64_t(elements));
    finish(r, out_dt, "tensor_op");
    return r;
  }
  if (row.form == tensor_row::reduction) {
    const auto* x = ts[0];
    const auto* dt = find_dtype(x->type);
    const double in_elems = numel(x->dims);
    double out_elems = 1;
    std::vector<std::int64_t> dims;
    if (c.inputs.size() > 1) dims = parse_ints(c.inputs[1].concrete);
    if (!dims.empty() && !x->dims.empty()) {
      double reduced = 1;
      for (auto d : dims) {
        if (d < 0) d += std::int64_t(x->dims.size());
        if (d >= 0 && std::size_t(d) < x->dims.size()) reduced *= double(x->dims[std::size_t(d)]);
      }
      out_elems = in_elems / reduced;
    }
    const bool index_out = row.op == "argmax" || row.op == "argmin";
    read = in_elems * dt->bytes;
    const bool bool_out = row.op == "any" || row.op == "all";
    written = out_elems * (index_out ? 8 : bool_out ? 1 : dt->bytes);  // argmax/argmin: int64 indices; any/all: bools
    r.op = tensor_op(c.name, read, written, row.flops_per_element, std::int64_t(in_elems));
    r.note = fmt::format("reduction {} → {} elements", std::int64_t(in_elems), std::int64_t(out_elems));
    finish(r, dt, "tensor_op");
    return r;
  }
  // elementwise: the shapes fit a §3 kind exactly -> elementwise_op; else tensor_op.
  const std::size_t expected = (row.kind == op_kind::add || row.kind == op_kind::mul) ? 2 : 1;
  if (row.kind != none && ts.size() == expected && full.size() == expected) {
    bool same = true;
    for (const auto* t : full) same = same && t->dims == full[0]->dims && t->type == full[0]->type;
    if (same) {
      const auto* dt = find_dtype(full[0]->type);
      const std::int64_t cols = full[0]->dims.back();
      const std::int64_t rows = std::int64_t(numel(full[0]->dims) / double(cols));
      if (rows > 0 && cols > 0) {
        r.op = elementwise_op(row.kind, c.name, rows, cols, dt->bytes);
        finish(r, dt, "elementwise_op");
        return r;
      }
    }
  }
  const auto out = broadcast(full.empty() ? ts : full);
  for (const auto* t : ts) {
    const auto* dt = find_dtype(t->type);
    read += numel(t->dims) * dt->bytes;
    if (!t->dims.empty() || full.empty())
      if (!out_dt || dt->bytes > out_dt->bytes) out_dt = dt;  // type promotion: the widest tensor
  }
  if (row.op == "where" && ts.size() == 3) out_dt = find_dtype(ts[1]->type);
  elements = numel(out);
  written = elements * (row.form == tensor_row::compare ? 1 : out_dt->bytes);
  r.op = tensor_op(c.name, read, written, row.flops_per_element, std::int64_t(elements));
  finish(r, out_dt, "tensor_op");
  return r;
}

// ---- norms, softmax and log-softmax (elementwise_op, §3), their backward (elementwise_backward_op)
// and gathers (embedding_op) ----
struct row_row {
  std::string_view op;
  op_kind kind;     // the forward's kind
  int x_arg;        // the input whose shape is rows × cols (backward: the saved input or output)
  int shape_arg;    // normalized_shape (norms) or dim (softmax) in Concrete Inputs; -1 none
  bool backward;
};
constexpr row_row row_table[] = {
    {"layer_norm", op_kind::layernorm, 0, 1, false},
    {"native_layer_norm", op_kind::layernorm, 0, 1, false},
    {"rms_norm", op_kind::rmsnorm, 0, 1, false},
    {"_fused_rms_norm", op_kind::rmsnorm, 0, 1, false},
    {"softmax", op_kind::softmax, 0, 1, false},
    {"_softmax", op_kind::softmax, 0, 1, false},
    {"log_softmax", op_kind::softmax, 0, 1, false},
    {"_log_softmax", op_kind::softmax, 0, 1, false},
    // backward(grad_output, saved, ...): the saved tensor has the forward's shape
    {"native_layer_norm_backward", op_kind::layernorm, 1, 2, true},
    {"_fused_rms_norm_backward", op_kind::rmsnorm, 1, 2, true},
    {"_softmax_backward_data", op_kind::softmax, 1, 2, true},
    {"_log_softmax_backward_data", op_kind::softmax, 1, 2, true},
    {"silu_backward", op_kind::silu, 1, -1, true},
    {"gelu_backward", op_kind::gelu, 1, -1, true},
};

const row_row* find_row(const std::string& op) {
  for (const auto& r : row_table)
    if (r.op == op) return &r;
  return nullptr;
}

std::optional<aten_cost> row_op(const aten_call& c, const row_row& row, std::string& why) {
  const auto& in = c.inputs;
  const auto xi = std::size_t(row.x_arg);
  if (in.size() <= xi || !is_tensor(in[xi]) || in[xi].dims.empty()) return why = c.name + ": input shape not recorded", std::nullopt;
  const auto& x = in[xi].dims;
  const auto* dt = find_dtype(in[xi].type);
  std::int64_t cols = x.back();
  const bool norm = row.kind == op_kind::layernorm || row.kind == op_kind::rmsnorm;
  if (row.shape_arg >= 0 && std::size_t(row.shape_arg) < in.size()) {
    const auto v = parse_ints(in[std::size_t(row.shape_arg)].concrete);
    if (norm && !v.empty()) {  // normalized_shape: the row is their product
      cols = std::accumulate(v.begin(), v.end(), std::int64_t(1), std::multiplies<>());
    } else if (!norm && !v.empty()) {  // softmax(x, dim): the row is the softmax dim (bytes do not depend on it)
      const auto dim = v[0] < 0 ? v[0] + std::int64_t(x.size()) : v[0];
      if (dim >= 0 && std::size_t(dim) < x.size()) cols = x[std::size_t(dim)];
    }
  }
  if (cols <= 0) return why = c.name + ": empty row", std::nullopt;
  aten_cost r;
  const op_desc fwd = elementwise_op(row.kind, c.name, std::int64_t(numel(x) / double(cols)), cols, dt->bytes);
  r.op = row.backward ? elementwise_backward_op(fwd) : fwd;
  r.op.name = c.name;
  finish(r, dt, row.backward ? "elementwise_backward_op" : "elementwise_op");
  return r;
}

std::optional<aten_cost> gather(const aten_call& c, const std::string& op, std::string& why) {
  const auto& in = c.inputs;
  // embedding(weight [V, C], ids [...]); index_select(table, dim, index [R]); gather(table, dim, index)
  const aten_input* table = in.empty() ? nullptr : &in[0];
  const aten_input* ids = op == "embedding" ? (in.size() > 1 ? &in[1] : nullptr) : (in.size() > 2 ? &in[2] : nullptr);
  if (!table || !ids || !is_tensor(*table) || !is_tensor(*ids)) return why = c.name + ": shapes not recorded", std::nullopt;
  const auto* dt = find_dtype(table->type);
  const auto dim = op == "embedding" ? std::vector<std::int64_t>{0} : parse_ints(in[1].concrete);
  const bool rows_of_2d = table->dims.size() == 2 && !dim.empty() && dim[0] == 0;
  std::int64_t rows = -1;
  if (rows_of_2d && op != "gather") rows = std::int64_t(numel(ids->dims));
  // gather(table [V, C], 0, index [R, C]) whose index is expanded along C (stride 0): a row gather
  if (rows_of_2d && op == "gather" && ids->dims.size() == 2 && ids->strides.size() == 2 && ids->strides[1] == 0)
    rows = ids->dims[0];
  aten_cost r;
  if (rows > 0) {
    r.op = embedding_op(c.name, rows, table->dims[1], dt->bytes, table->dims[0]);
    finish(r, dt, "embedding_op");
    return r;
  }
  const auto* it = find_dtype(ids->type);
  const double out = numel(ids->dims);  // gather: output has the index's shape
  if (op == "index_select") return why = "aten::index_select: not a row gather of a 2-D table", std::nullopt;
  r.op = tensor_op(c.name, out * it->bytes + out * dt->bytes, out * dt->bytes, 0, std::int64_t(out));
  finish(r, dt, "tensor_op");
  return r;
}

// ---- framework ops of training and serving runs: each a cost from the model's constructors ----

// The element type a PyTorch kernel's functor names first (multi_tensor_apply's
// `BinaryOpScalarFunctor<c10::BFloat16, 1, 1, 0>`, `FusedAdamMathFunctor<c10::BFloat16, 4, …>`):
// TensorList inputs record no dtype, the kernel's template does. The integers after it: the functor's
// depth (tensor lists touched), r_args_depth (lists read) and res_arg_index (the list written).
struct kernel_functor {
  const dtype_row* dtype = nullptr;
  std::vector<std::int64_t> args;
};
std::optional<kernel_functor> functor_of(std::string_view kernel) {
  const auto p = kernel.find("Functor<");
  if (p == std::string_view::npos) return std::nullopt;
  const auto rest = kernel.substr(p + 8);
  const auto comma = rest.find_first_of(",>");
  if (comma == std::string_view::npos) return std::nullopt;
  kernel_functor f;
  f.dtype = find_dtype(rest.substr(0, comma));
  if (!f.dtype) return std::nullopt;
  const auto close = rest.find('>');
  if (close != std::string_view::npos && close > comma) f.args = parse_ints(rest.substr(comma, close - comma));
  return f;
}

double list_elements(const aten_input& in) {
  double e = 0;
  for (const auto& d : in.list) e += numel(d);
  return e;
}

const aten_input* first_list(const aten_call& c) {
  for (const auto& in : c.inputs)
    if (in.is_list) return &in;
  return nullptr;
}

using cost_fn = std::optional<aten_cost> (*)(const aten_call&, std::string_view, std::string&);
struct framework_row {
  std::string_view op;
  cost_fn cost;
};

// embedding_dense_backward(grad_output [..., C], indices [...], num_weights, padding_idx, scale_grad)
std::optional<aten_cost> embedding_backward(const aten_call& c, std::string_view, std::string& why) {
  const auto& in = c.inputs;
  if (in.size() < 3 || !is_tensor(in[0]) || !is_tensor(in[1]) || in[0].dims.empty())
    return why = c.name + ": shapes not recorded", std::nullopt;
  const auto* dt = find_dtype(in[0].type);
  const auto table = parse_ints(in[2].concrete);
  const auto rows = std::int64_t(numel(in[1].dims)), cols = in[0].dims.back();
  if (rows <= 0 || cols <= 0 || table.empty() || table[0] <= 0) return why = c.name + ": num_weights not recorded", std::nullopt;
  aten_cost r;
  r.op = embedding_backward_op(embedding_op(c.name, rows, cols, dt->bytes, table[0]));
  r.op.name = c.name;
  finish(r, dt, "embedding_backward_op");
  return r;
}

// nll_loss_forward(self [N, C], target [N], weight, reduction, ignore_index): the N picked log-probs
// and the targets read; the loss (reduction none: N values) and total_weight written.
std::optional<aten_cost> nll_loss_forward(const aten_call& c, std::string_view, std::string& why) {
  const auto& in = c.inputs;
  if (in.size() < 2 || !is_tensor(in[0]) || !is_tensor(in[1])) return why = c.name + ": shapes not recorded", std::nullopt;
  const auto* dt = find_dtype(in[0].type);
  const double n = numel(in[1].dims);
  const auto red = in.size() > 3 ? parse_ints(in[3].concrete) : std::vector<std::int64_t>{};
  const double out = (!red.empty() && red[0] == 0) ? n : 1;
  aten_cost r;
  r.op = tensor_op(c.name, n * (token_id_bytes + dt->bytes), (out + 1) * dt->bytes, 1, std::int64_t(n));
  r.note = "the target rows' log-probabilities gathered and reduced";
  finish(r, dt, "tensor_op");
  return r;
}

// nll_loss_backward(grad_output, self [N, C], target [N], weight, reduction, ignore_index,
// total_weight): writes −grad into the N target positions of the zero-filled gradient (the zero fill
// is its own aten::fill_/zero_ op).
std::optional<aten_cost> nll_loss_backward(const aten_call& c, std::string_view, std::string& why) {
  const auto& in = c.inputs;
  if (in.size() < 3 || !is_tensor(in[1]) || !is_tensor(in[2])) return why = c.name + ": shapes not recorded", std::nullopt;
  const auto* dt = find_dtype(in[1].type);
  const double n = numel(in[2].dims), g = is_tensor(in[0]) ? numel(in[0].dims) : 1;
  aten_cost r;
  r.op = tensor_op(c.name, n * token_id_bytes + g * dt->bytes, n * dt->bytes, 1, std::int64_t(n));
  r.note = "N target positions written into the zero-filled gradient";
  finish(r, dt, "tensor_op");
  return r;
}

// native_dropout(input, p, train): x read, y and the bool mask written; native_dropout_backward(grad,
// mask, scale): grad and mask read, grad_input written. 1 FLOP per element (the scale).
std::optional<aten_cost> dropout(const aten_call& c, std::string_view, std::string& why) {
  const auto& in = c.inputs;
  if (in.empty() || !is_tensor(in[0])) return why = c.name + ": shapes not recorded", std::nullopt;
  const auto* dt = find_dtype(in[0].type);
  const double e = numel(in[0].dims);
  const bool bwd = c.name.find("backward") != std::string::npos;
  aten_cost r;
  r.op = bwd ? tensor_op(c.name, e * (dt->bytes + 1), e * dt->bytes, 1, std::int64_t(e))
             : tensor_op(c.name, e * dt->bytes, e * (dt->bytes + 1), 1, std::int64_t(e));
  r.note = "the mask is one byte (bool) per element";
  finish(r, dt, "tensor_op");
  return r;
}

// index_copy(self, dim, index, source): the source rows and the index read, the rows written (a KV-cache
// append). _index_put_impl_(self, indices, values, accumulate, unsafe): the values and the index
// tensors read, the indexed elements written.
std::optional<aten_cost> index_write(const aten_call& c, std::string_view, std::string& why) {
  const auto& in = c.inputs;
  const bool put = c.name.find("index_put") != std::string::npos;
  const aten_input* self = in.empty() ? nullptr : &in[0];
  const aten_input* src = put ? (in.size() > 2 ? &in[2] : nullptr) : (in.size() > 3 ? &in[3] : nullptr);
  if (!self || !src || !is_tensor(*self) || !is_tensor(*src)) return why = c.name + ": shapes not recorded", std::nullopt;
  const auto* dt = find_dtype(self->type);
  double index = 0;
  if (put && in.size() > 1 && in[1].is_list) index = list_elements(in[1]);
  if (!put && is_tensor(in[2])) index = numel(in[2].dims);
  const double e = src->dims.empty() ? std::max(index, 1.0) : numel(src->dims);
  aten_cost r;
  r.op = tensor_op(c.name, e * dt->bytes + index * token_id_bytes, e * dt->bytes, 0, std::int64_t(e));
  r.note = put ? "the indexed elements written" : "the indexed rows written";
  finish(r, dt, "tensor_op");
  return r;
}

// topk(self, k, dim, largest, sorted): the input read, k values and their int64 indices written per row.
// sort(self, [stable,] dim, descending): the input read, the sorted values and int64 indices written
// (a radix sort's passes are not counted: the I/O lower bound). multinomial(self [rows, V],
// num_samples, replacement): the probabilities read, the int64 samples written.
std::optional<aten_cost> select_op(const aten_call& c, std::string_view, std::string& why) {
  const auto& in = c.inputs;
  if (in.empty() || !is_tensor(in[0]) || in[0].dims.empty()) return why = c.name + ": shapes not recorded", std::nullopt;
  const auto* dt = find_dtype(in[0].type);
  const auto& x = in[0].dims;
  const double e = numel(x);
  double out = e;  // sort
  const std::string op = strip(c.name);
  if (op == "topk" || op == "multinomial") {
    const auto k = in.size() > 1 ? parse_ints(in[1].concrete) : std::vector<std::int64_t>{};
    if (k.empty() || k[0] <= 0) return why = c.name + ": k / num_samples not recorded", std::nullopt;
    std::int64_t dim = std::int64_t(x.size()) - 1;
    if (op == "topk" && in.size() > 2) {
      const auto d = parse_ints(in[2].concrete);
      if (!d.empty()) dim = d[0] < 0 ? d[0] + std::int64_t(x.size()) : d[0];
    }
    if (dim < 0 || std::size_t(dim) >= x.size()) return why = c.name + ": dim out of range", std::nullopt;
    out = e / double(x[std::size_t(dim)]) * double(k[0]);
  }
  const double written = op == "multinomial" ? out * token_id_bytes : out * (dt->bytes + token_id_bytes);
  aten_cost r;
  r.op = tensor_op(c.name, e * dt->bytes, written, op == "multinomial" ? 1 : 0, std::int64_t(e));
  r.note = op == "sort" ? "values and int64 indices written once (radix passes not counted)"
                        : "int64 indices written beside the values";
  if (op == "multinomial") r.note = "int64 samples written";
  finish(r, dt, "tensor_op");
  return r;
}

// ScalarType codes of c10 (c10/core/ScalarType.h) as Concrete Inputs records an out_dtype.
const dtype_row* scalar_type_code(std::string_view v) {
  const auto code = parse_ints(v);
  if (code.empty()) return nullptr;
  switch (code[0]) {
    case 5: return find_dtype("c10::Half");
    case 6: return find_dtype("float");
    case 15: return find_dtype("c10::BFloat16");
    case 23: return find_dtype("c10::Float8_e5m2");
    case 24: return find_dtype("c10::Float8_e4m3fn");
    default: return nullptr;
  }
}

// _scaled_mm(self [m×k], mat2 [k×n], scale_a, scale_b, bias, scale_result, out_dtype, use_fast_accum):
// an fp8 GEMM (gemm_op with 1-byte operands); the output in out_dtype (else the operands' type).
std::optional<aten_cost> scaled_mm(const aten_call& c, std::string_view, std::string& why) {
  const auto& in = c.inputs;
  if (in.size() < 2 || !is_tensor(in[0]) || !is_tensor(in[1]) || in[0].dims.size() != 2 || in[1].dims.size() != 2)
    return why = c.name + ": operand shapes not recorded as 2-D", std::nullopt;
  const auto* dt = find_dtype(in[0].type);
  const std::int64_t m = in[0].dims[0], k = in[0].dims[1], n = in[1].dims[1];
  if (m <= 0 || n <= 0 || k <= 0) return why = c.name + ": an empty operand", std::nullopt;
  const auto* out = in.size() > 6 ? scalar_type_code(in[6].concrete) : nullptr;
  aten_cost r;
  r.op = gemm_op(c.name, m, n, k, dt->bytes);
  if (out) r.op.bytes_written = double(m) * double(n) * out->bytes;
  r.note = out ? fmt::format("output in {}", out->precision) : "output in the operands' type (out_dtype not recorded)";
  finish(r, dt, "gemm_op");
  r.engine = "tensor";
  return r;
}

// _grouped_mm(mat_a, mat_b, offs, bias, out_dtype) (MoE experts): a [T×K] routed rows against b
// [E×K×N], each row through one expert: 2·T·K·N FLOPs, every expert's weights read once. A 3-D a
// [E×M×K] is E independent GEMMs.
std::optional<aten_cost> grouped_mm(const aten_call& c, std::string_view, std::string& why) {
  const auto& in = c.inputs;
  if (in.size() < 2 || !is_tensor(in[0]) || !is_tensor(in[1]) || in[1].dims.size() != 3)
    return why = c.name + ": operand shapes not recorded (a: 2-D or 3-D, b: 3-D)", std::nullopt;
  const auto* dt = find_dtype(in[0].type);
  const auto& A = in[0].dims;
  const auto& Bd = in[1].dims;
  const std::int64_t E = Bd[0], K = Bd[1], N = Bd[2];
  aten_cost r;
  if (A.size() == 2) {
    r.op = gemm_op(c.name, A[0], N, K, dt->bytes);
    r.op.bytes_read += double(E - 1) * double(K) * double(N) * dt->bytes;
    r.note = fmt::format("{} routed rows over {} experts: each row through one, every expert's weights read", A[0], E);
  } else if (A.size() == 3 && A[0] == E) {
    r.op = gemm_op(c.name, A[1], N, K, dt->bytes);
    r.op.flops *= double(E), r.op.bytes_read *= double(E), r.op.bytes_written *= double(E);
    r.note = fmt::format("{} independent GEMMs", E);
  } else {
    return why = c.name + ": operand shapes not a grouped GEMM", std::nullopt;
  }
  finish(r, dt, "gemm_op");
  if (r.precision == "fp16" || r.precision == "bf16" || r.precision == "fp8") r.engine = "tensor";
  return r;
}

// The fused optimizers (_fused_adam_, _fused_adamw_, _fused_sgd_): optimizer_op over the parameters
// of the first TensorList, the element type from the kernel's functor (the lists record none).
std::optional<aten_cost> fused_optimizer(const aten_call& c, std::string_view kernel, std::string& why) {
  const auto* params = first_list(c);
  if (!params || params->list.empty()) return why = c.name + ": the parameter list's shapes not recorded", std::nullopt;
  const auto f = functor_of(kernel);
  if (!f) return why = c.name + ": the kernel does not name its element type (…Functor<T, …>)", std::nullopt;
  const std::string op = strip(c.name);
  optimizer_kind kind = optimizer_kind::adam;
  if (op == "_fused_adamw_") kind = optimizer_kind::adamw;
  if (op == "_fused_sgd_") {
    const bool momentum = c.inputs.size() > 2 && c.inputs[2].is_list && !c.inputs[2].list.empty();
    kind = momentum ? optimizer_kind::sgd_momentum : optimizer_kind::sgd;
  }
  const double e = list_elements(*params);
  aten_cost r;
  r.op = optimizer_op(kind, c.name, e, f->dtype->bytes, f->dtype->bytes, f->dtype->bytes);
  r.note = fmt::format("{} parameters in {} tensors, {} (from the kernel's functor)", std::int64_t(e), params->list.size(),
                       f->dtype->precision);
  finish(r, f->dtype, "optimizer_op");
  return r;
}

// arange(end) / arange(start, end[, step]): n elements written, int64 when every bound is an integer,
// else fp32 (PyTorch's default dtype; the dtype argument is not recorded as a type).
std::optional<aten_cost> arange(const aten_call& c, std::string_view, std::string& why) {
  std::vector<double> v;
  bool integral = true;
  for (const auto& in : c.inputs) {
    if (in.type != "Scalar" || in.concrete.empty() || in.concrete == "True" || in.concrete == "False") continue;
    char* end = nullptr;
    const double x = std::strtod(in.concrete.c_str(), &end);
    if (end == in.concrete.c_str()) continue;
    integral = integral && in.concrete.find_first_of(".eE") == std::string::npos;
    v.push_back(x);
  }
  double n = 0;
  if (v.size() == 1) n = v[0];
  else if (v.size() == 2) n = v[1] - v[0];
  else if (v.size() >= 3 && v[2] != 0) n = std::ceil((v[1] - v[0]) / v[2]);
  if (!(n > 0)) return why = c.name + ": the bounds are not recorded (Concrete Inputs)", std::nullopt;
  aten_cost r;
  r.op = tensor_op(c.name, 0, n * (integral ? 8 : 4), 0, std::int64_t(n));
  r.note = integral ? "int64 elements written" : "fp32 elements written";
  finish(r, nullptr, "tensor_op");
  return r;
}

constexpr framework_row framework_table[] = {
    {"arange", arange},
    {"embedding_dense_backward", embedding_backward},
    {"nll_loss_forward", nll_loss_forward},
    {"nll_loss2d_forward", nll_loss_forward},
    {"nll_loss_backward", nll_loss_backward},
    {"nll_loss2d_backward", nll_loss_backward},
    {"native_dropout", dropout},
    {"native_dropout_backward", dropout},
    {"index_copy", index_write},
    {"index_copy_", index_write},
    {"_index_put_impl_", index_write},
    {"index_put_", index_write},
    {"index_put", index_write},
    {"topk", select_op},
    {"sort", select_op},
    {"multinomial", select_op},
    {"_scaled_mm", scaled_mm},
    {"_grouped_mm", grouped_mm},
    {"_fused_adam_", fused_optimizer},
    {"_fused_adamw_", fused_optimizer},
    {"_fused_sgd_", fused_optimizer},
};

const framework_row* find_framework_row(const std::string& op) {
  for (const auto& r : framework_table)
    if (r.op == op) return &r;
  return nullptr;
}

// ---- _foreach_* ops (the foreach optimizers' steps): elementwise over TensorLists. Bytes: Σ elements
// of the first list × the element size × (lists read + 1 written), both counts from the kernel's
// functor (BinaryOpScalarFunctor<T, depth, r_args_depth, res_arg_index>). ----
struct foreach_row {
  std::string_view op;  // without "_foreach_" and the in-place '_'
  double flops_per_element;
};
constexpr foreach_row foreach_table[] = {
    {"add", 1}, {"sub", 1}, {"mul", 1}, {"div", 1}, {"sqrt", 1}, {"neg", 1}, {"exp", 1}, {"reciprocal", 1},
    {"pow", 1}, {"maximum", 1}, {"minimum", 1}, {"clamp_min", 1}, {"clamp_max", 1}, {"sign", 1}, {"abs", 1},
    {"addcmul", 2}, {"addcdiv", 2}, {"lerp", 3}, {"copy", 0}, {"zero", 0},
};
const foreach_row* find_foreach(const std::string& op) {
  if (op.rfind("_foreach_", 0) != 0) return nullptr;
  std::string base = op.substr(9);
  if (!base.empty() && base.back() == '_') base.pop_back();
  for (const auto& r : foreach_table)
    if (r.op == base) return &r;
  return nullptr;
}

std::optional<aten_cost> foreach_op(const aten_call& c, const foreach_row& row, std::string_view kernel, std::string& why) {
  const auto* list = first_list(c);
  // an empty list: the profiler wrote `[]` for a TensorList it did not record (a long list), not a list of none
  if (!list || list->list.empty()) return why = c.name + ": the TensorList's shapes not recorded", std::nullopt;
  const auto f = functor_of(kernel);
  if (!f || f->args.size() < 2) return why = c.name + ": the kernel does not name its element type and lists (…Functor<T, depth, reads, out>)", std::nullopt;
  const double e = list_elements(*list), b = f->dtype->bytes;
  const double reads = double(f->args[1]);
  aten_cost r;
  r.op = tensor_op(c.name, e * b * reads, e * b, row.flops_per_element, std::int64_t(e));
  r.note = fmt::format("{} elements in {} tensors, {}; {} list(s) read, 1 written (from the kernel's functor)",
                       std::int64_t(e), list->list.size(), f->dtype->precision, f->args[1]);
  finish(r, f->dtype, "tensor_op");
  return r;
}

const attention_row* find_attention(const std::string& op) {
  for (const auto& r : attention_table)
    if (r.op == op) return &r;
  return nullptr;
}

bool is_gemm(const std::string& op) {
  return op == "mm" || op == "addmm" || op == "bmm" || op == "baddbmm" || op == "matmul" || op == "linear";
}
bool is_gather(const std::string& op) { return op == "embedding" || op == "index_select" || op == "gather"; }

}  // namespace

int type_bytes(std::string_view type) {
  const auto* d = find_dtype(type);
  return d ? d->bytes : 0;
}
std::string type_precision(std::string_view type) {
  const auto* d = find_dtype(type);
  return d ? std::string(d->precision) : std::string();
}

bool has_cost_model(std::string_view name) {
  if (name.substr(0, 6) != "aten::") return false;
  const std::string op = strip(name);
  return is_gemm(op) || find_attention(op) || find_row(op) || is_gather(op) || find_tensor_row(op) ||
         find_framework_row(op) || find_foreach(op);
}

std::optional<aten_cost> cost_aten_op(const aten_call& c, std::string_view kernel_name, std::string& why) {
  why.clear();
  if (!has_cost_model(c.name)) {
    why = "no cost model for " + c.name;
    return std::nullopt;
  }
  const std::string op = strip(c.name);
  // Every tensor's dtype must be one we know the size of (a tensor type we do not know: no count).
  for (const auto& in : c.inputs)
    if (!in.is_list && !in.dims.empty() && !find_dtype(in.type)) {
      why = fmt::format("{}: input type '{}' not known", c.name, in.type);
      return std::nullopt;
    }
  std::int64_t last = 0;
  for (const auto& in : c.inputs)
    if (is_tensor(in) && !in.dims.empty()) {
      last = in.dims.back();
      break;
    }
  auto with_last = [&](std::optional<aten_cost> r) {
    if (r) r->last_dim = last;
    return r;
  };
  try {
    if (is_gemm(op)) return with_last(gemm(c, op, why));
    if (const auto* a = find_attention(op)) return with_last(attention(c, *a, why));
    if (const auto* r = find_row(op)) return with_last(row_op(c, *r, why));
    if (const auto* f = find_framework_row(op)) return with_last(f->cost(c, kernel_name, why));
    if (const auto* f = find_foreach(op)) return with_last(foreach_op(c, *f, kernel_name, why));
    if (is_gather(op)) return with_last(gather(c, op, why));
    return with_last(tensor(c, *find_tensor_row(op), kernel_name, why));
  } catch (const std::exception& e) {  // a model constructor refused the shape (e.g. a zero dim)
    why = fmt::format("{}: {}", c.name, e.what());
    return std::nullopt;
  }
}

std::string format_shapes(const aten_call& c) {
  std::string dims = "[", types;
  auto list = [](const std::vector<std::int64_t>& d) {
    std::string s = "[";
    for (std::size_t i = 0; i < d.size(); ++i) s += (i ? "," : "") + std::to_string(d[i]);
    return s + "]";
  };
  for (std::size_t i = 0; i < c.inputs.size(); ++i) {
    const auto& in = c.inputs[i];
    if (i) dims += ",";
    if (in.is_list) {
      dims += "[";
      for (std::size_t j = 0; j < in.list.size(); ++j) dims += (j ? "," : "") + list(in.list[j]);
      dims += "]";
    } else {
      dims += list(in.dims);
    }
    const auto p = type_precision(in.type);
    if (!p.empty() && types.find(p) == std::string::npos) types += (types.empty() ? "" : ",") + p;
  }
  return dims + "]" + (types.empty() ? "" : " " + types);
}

}  // namespace roofline::ingest::detail

namespace roofline::ingest {

std::string functor_precision(std::string_view kernel_name) {
  const auto f = detail::functor_of(kernel_name);
  return f ? std::string(f->dtype->precision) : std::string();
}

}  // namespace roofline::ingest
