// Reading and writing the typed blocks of results.analysis (roofline/waterfall.hpp, ridge_analysis.hpp,
// decode_mfu.hpp, fusion_analysis.hpp, accuracy.hpp, batch_sweep.hpp, energy_analysis.hpp): the field
// helpers their to_json / from_json share. The blocks are members of analysis_results
// (roofline/analysis_results.hpp), which results.hpp holds: these headers declare `results` only.
#pragma once
#include <optional>
#include <string>

#include "roofline/json.hpp"

namespace roofline {

struct results;

namespace detail {

/// Throws json::type_error unless `j` is an object (a block of another shape is not readable).
inline void require_object(const json& j) { (void)j.get_ref<const json::object_t&>(); }
/// require_object, and the key that identifies a block's shape (json::out_of_range when absent:
/// an object of an older shape is not read as an empty block).
inline void require_block(const json& j, const char* key) {
  require_object(j);
  (void)j.at(key);
}
/// j[key] into `v` when present and not null; `v` keeps its default otherwise (a field an older
/// file lacks). Throws json::type_error when the value has another type.
template <class T>
void read(const json& j, const char* key, T& v) {
  const auto it = j.find(key);
  if (it != j.end() && !it->is_null()) it->get_to(v);
}
template <class T>
void read(const json& j, const char* key, std::optional<T>& v) {
  const auto it = j.find(key);
  if (it != j.end() && !it->is_null()) v = it->template get<T>();
  else v.reset();
}
/// Writes `v` under `key` only when it holds a value: the key is absent, not null, otherwise.
template <class T>
void write_if(json& j, const char* key, const std::optional<T>& v) {
  if (v) j[key] = *v;
}
inline void write_if(json& j, const char* key, const std::string& v) {
  if (!v.empty()) j[key] = v;
}

}  // namespace detail

/// The body of a from_json(const json& j, T& v): detail::read(j, "f", v.f) for each field f named.
#define ROOFLINE_READ_FIELD(f) ::roofline::detail::read(j, #f, v.f);
#define ROOFLINE_READ_FIELDS(...) NLOHMANN_JSON_EXPAND(NLOHMANN_JSON_PASTE(ROOFLINE_READ_FIELD, __VA_ARGS__))

}  // namespace roofline
