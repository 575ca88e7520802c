// aten:: op + recorded shapes -> FLOPs and bytes, only through the model's constructors
// (gemm_op, attention_op, elementwise_op, embedding_op, tensor_op; docs/formulas-model.md §2-§4).
// The op table: docs/ingest.md, "PyTorch profiler traces".
#include "ingest/aten_cost.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <charconv>
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

// ---- fused attention (FlashAttention, Dao et al. 2022 §3, via attention_op) ----
struct attention_row {
  std::string_view op;
  int causal_arg;  // index of is_causal in Concrete Inputs (-1: custom_mask_type at 9)
  bool blhd;       // q [B, L, H, D] instead of [B, H, L, D]
};
constexpr attention_row attention_table[] = {
    {"scaled_dot_product_attention", 5, false},
    {"_scaled_dot_product_flash_attention", 4, false},
    {"_scaled_dot_product_efficient_attention", 6, false},
    {"_scaled_dot_product_cudnn_attention", 6, false},
    {"_cudnn_attention_forward", 10, false},
    {"_flash_attention_forward", 8, true},
    {"_efficient_attention_forward", -1, true},
};

std::optional<aten_cost> attention(const aten_call& c, const attention_row& row, std::string& why) {
  const auto& in = c.inputs;
  if (in.size() < 3 || !is_tensor(in[0]) || !is_tensor(in[1]) || in[0].dims.size() != 4 || in[1].dims.size() != 4) {
    why = "aten::" + std::string(row.op) + ": q/k shapes not recorded as 4-D";
    return std::nullopt;
  }
  const auto& q = in[0].dims;
  const auto& k = in[1].dims;
  const std::int64_t B = q[0], D = q[3];
  const std::int64_t H = row.blhd ? q[2] : q[1], L = row.blhd ? q[1] : q[2];
  const std::int64_t G = row.blhd ? k[2] : k[1], S = row.blhd ? k[1] : k[2];
  bool causal = false, known = false;
  if (row.causal_arg >= 0 && std::size_t(row.causal_arg) < in.size()) {
    const auto& v = in[std::size_t(row.causal_arg)].concrete;
    known = v == "True" || v == "False", causal = v == "True";
  } else if (row.causal_arg < 0 && in.size() > 9) {  // custom_mask_type: 0 none, 1/2 causal
    const auto v = parse_ints(in[9].concrete);
    known = !v.empty(), causal = known && v[0] != 0;
  }
  const auto* dt = find_dtype(in[0].type);
  const auto* kdt = find_dtype(in[1].type);
  aten_cost r;
  r.op = attention_op(op_kind::attention_fused, B, H, G, D, L, S, dt->bytes, kdt ? kdt->bytes : dt->bytes, causal);
  r.op.name = c.name;
  r.note = std::string(known ? (causal ? "is_causal=True" : "is_causal=False") : "is_causal not recorded: full");
  if (L == 1) r.note += "; one query: q, the K/V cache and out moved once (the KV append is its own kernel)";
  finish(r, dt, "attention_op");
  return r;
}

// ---- generic tensor ops (docs/formulas-model.md §3.1 via tensor_op, or elementwise_op on a fit) ----
struct tensor_row {
  std::string_view op;
  double flops_per_element;
  enum { elementwise, copy, reduction } form;
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
    {"copy_", 0, tensor_row::copy, none},
    {"contiguous", 0, tensor_row::copy, none},
    {"clone", 0, tensor_row::copy, none},
    {"cat", 0, tensor_row::copy, none},
    {"fill_", 0, tensor_row::copy, none},
    {"zero_", 0, tensor_row::copy, none},
    {"mean", 1, tensor_row::reduction, none},
    {"sum", 1, tensor_row::reduction, none},
    {"amax", 1, tensor_row::reduction, none},
    {"max", 1, tensor_row::reduction, none},
    {"argmax", 1, tensor_row::reduction, none},
    {"argmin", 1, tensor_row::reduction, none},
};

const tensor_row* find_tensor_row(const std::string& op) {
  std::string base = op;
  if (base.size() > 1 && base.back() == '_' && base != "copy_" && base != "fill_" && base != "zero_")
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
  if (row.op == "cat") {  // TensorList: no dtype recorded; the kernel's OpaqueType<N> is the element size
    const aten_input* list = nullptr;
    for (const auto& in : c.inputs)
      if (in.is_list) list = &in;
    const auto p = kernel_name.find("OpaqueType<");
    if (!list || p == std::string_view::npos) {
      why = "aten::cat: the TensorList's dtype is not recorded (and the kernel does not name its element size)";
      return std::nullopt;
    }
    const auto size = parse_ints(kernel_name.substr(p + 11, 4));
    if (size.empty() || size[0] <= 0) return why = "aten::cat: unreadable OpaqueType<N>", std::nullopt;
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
    } else if (row.op == "fill_" || row.op == "zero_") {  // written only
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
    written = out_elems * (index_out ? 8 : dt->bytes);  // argmax/argmin write int64 indices
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
  written = elements * out_dt->bytes;
  r.op = tensor_op(c.name, read, written, row.flops_per_element, std::int64_t(elements));
  finish(r, out_dt, "tensor_op");
  return r;
}

// ---- norms, softmax (elementwise_op, §3) and gathers (embedding_op) ----
std::optional<aten_cost> row_op(const aten_call& c, const std::string& op, std::string& why) {
  const auto& in = c.inputs;
  if (in.empty() || !is_tensor(in[0]) || in[0].dims.empty()) return why = c.name + ": input shape not recorded", std::nullopt;
  const auto& x = in[0].dims;
  const auto* dt = find_dtype(in[0].type);
  std::int64_t cols = x.back();
  op_kind kind = op_kind::softmax;
  if (op == "layer_norm" || op == "native_layer_norm" || op == "rms_norm" || op == "_fused_rms_norm") {
    kind = op.find("rms") != std::string::npos ? op_kind::rmsnorm : op_kind::layernorm;
    if (in.size() > 1) {  // normalized_shape
      const auto ns = parse_ints(in[1].concrete);
      if (!ns.empty()) cols = std::accumulate(ns.begin(), ns.end(), std::int64_t(1), std::multiplies<>());
    }
  } else if (in.size() > 1) {  // softmax(x, dim): the row is the softmax dim (bytes do not depend on it)
    const auto d = parse_ints(in[1].concrete);
    if (!d.empty()) {
      const auto dim = d[0] < 0 ? d[0] + std::int64_t(x.size()) : d[0];
      if (dim >= 0 && std::size_t(dim) < x.size()) cols = x[std::size_t(dim)];
    }
  }
  if (cols <= 0) return why = c.name + ": empty row", std::nullopt;
  aten_cost r;
  r.op = elementwise_op(kind, c.name, std::int64_t(numel(x) / double(cols)), cols, dt->bytes);
  finish(r, dt, "elementwise_op");
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

const attention_row* find_attention(const std::string& op) {
  for (const auto& r : attention_table)
    if (r.op == op) return &r;
  return nullptr;
}

bool is_gemm(const std::string& op) {
  return op == "mm" || op == "addmm" || op == "bmm" || op == "baddbmm" || op == "matmul" || op == "linear";
}
bool is_row(const std::string& op) {
  return op == "layer_norm" || op == "native_layer_norm" || op == "rms_norm" || op == "_fused_rms_norm" ||
         op == "softmax" || op == "_softmax";
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
  return is_gemm(op) || find_attention(op) || is_row(op) || is_gather(op) || find_tensor_row(op);
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
  try {
    if (is_gemm(op)) return gemm(c, op, why);
    if (const auto* a = find_attention(op)) return attention(c, *a, why);
    if (is_row(op)) return row_op(c, op, why);
    if (is_gather(op)) return gather(c, op, why);
    return tensor(c, *find_tensor_row(op), kernel_name, why);
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
