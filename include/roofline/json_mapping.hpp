// The one JSON mapping of results.json's types: src/common/results_json.cpp (the results tree) and
// src/common/analysis_json.cpp (its analysis blocks) list each type's keys once, and to_json and
// from_json both walk that list. A type is a line of groups, each field's name its key:
//
//   ROOFLINE_JSON(bandwidth_step, lenient, always(step, bytes_per_s, percent_of_nominal), present(pattern))
//
//   always(f…)   written always: nullopt as null, an empty string or array as such.
//   present(f…)  written only when it holds a value (an engaged optional, a non-empty string or array):
//                fields added after files were written, so an older file re-renders to the same document.
//   required(f…) written always; read with at(): a missing key is json::out_of_range.
//   shape(f…)    written always; an object without it is not this type (json::out_of_range before any
//                field is read): the key that tells an analysis block's shape.
//
// The second argument is the reading rule: `checked` (the results tree) or `lenient` (the analysis
// blocks); their comments below say what each does with a missing key, a null and an integer. A type
// with conditions in its writing, a key unlike its member's name or a key that is no one member opens
// its list with ROOFLINE_JSON_FIELDS(Type, rule) { … } and walks it by hand with `visit`, still one line
// a key: the groups as ROOFLINE_ALWAYS(f…) and the like; visit.always("key", &Type::member);
// `if (visit.when(c)) { … }` (written when c holds, read always); visit.present_object and visit.leads
// (below: a field that carries the ones in its `if`); json_mapping::computed for a value made of
// several members. nlohmann::json keeps an object's keys sorted, so the order of the list does not show
// in the file; it is the order fields are read in.
#pragma once
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include <fmt/format.h>

#include "roofline/json.hpp"

namespace roofline::json_mapping {

/// A field whose JSON value its C++ type cannot hold (parse_results names it and the file).
struct bad_field : std::runtime_error {
  std::string key;
  bad_field(std::string k, const std::string& what) : std::runtime_error(what), key(std::move(k)) {}
};

/// An integer field from any JSON number, or bad_field: a float must be whole and, like any
/// integer, inside the type's range. nlohmann converts with a bare static_cast, which for a
/// double out of range (2e48 into an int64 count, found by the fuzzer) is undefined behaviour
/// (C++20 [conv.fpint]/1) and for an integer out of range silently wraps.
template <class T>
T checked_integer(const json& v, const char* key) {
  if (!v.is_number()) return v.get<T>();  // nlohmann's type_error names the kind
  const auto out_of_range = [&] {
    return bad_field(key, fmt::format("{} does not fit in an integer field (range {} … {})", v.dump(),
                                      std::numeric_limits<T>::min(), std::numeric_limits<T>::max()));
  };
  if (v.is_number_float()) {
    const double d = v.get<double>();
    // 2^63 and its kin are exact doubles: the half-open range keeps the cast defined.
    const double lo = static_cast<double>(std::numeric_limits<T>::min());
    const double hi = std::ldexp(1.0, std::numeric_limits<T>::digits);
    if (!std::isfinite(d) || d < lo || d >= hi) throw out_of_range();
    if (d != std::trunc(d)) throw bad_field(key, fmt::format("{} is not a whole number", v.dump()));
    return static_cast<T>(d);
  }
  if (v.is_number_unsigned()) {
    const auto u = v.get<std::uint64_t>();
    if (u > static_cast<std::uint64_t>(std::numeric_limits<T>::max())) throw out_of_range();
    return static_cast<T>(u);
  }
  const auto i = v.get<std::int64_t>();
  if (i < static_cast<std::int64_t>(std::numeric_limits<T>::min()) ||
      (i > 0 && static_cast<std::uint64_t>(i) > static_cast<std::uint64_t>(std::numeric_limits<T>::max())))
    throw out_of_range();
  return static_cast<T>(i);
}

template <class T>
struct is_optional : std::false_type {};
template <class T>
struct is_optional<std::optional<T>> : std::true_type {};

/// The results tree's rule (results.hpp): a missing key takes the value of a default-constructed
/// object; null reads as the member's type reads it (nullopt for an optional, json::type_error
/// otherwise); every integer goes through checked_integer. Which fields a check relies on is
/// validated before, in parse_results.
struct checked {
  static void check(const json&) {}
  template <class T>
  static void field(const json& j, const char* key, T& out, const T& fallback) {
    if (!j.is_object()) {
      out = j.value(key, fallback);  // nlohmann's type_error for a non-object
      return;
    }
    const auto it = j.find(key);
    if (it == j.end()) {
      out = fallback;
    } else if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
      out = checked_integer<T>(*it, key);
    } else if constexpr (is_optional<T>::value) {
      using V = typename T::value_type;
      if constexpr (std::is_integral_v<V> && !std::is_same_v<V, bool>) {
        if (it->is_null()) out.reset();
        else out = checked_integer<V>(*it, key);
      } else {
        out = it->template get<T>();
      }
    } else {
      out = it->template get<T>();
    }
  }
};

/// The analysis blocks' rule (analysis_results.hpp): the value must be an object (json::type_error
/// otherwise: a block of another shape is not readable); a key absent or null keeps the member's
/// default (a field an older file lacks; an optional is nullopt); a value of another type is a
/// json::type_error.
struct lenient {
  static void check(const json& j) { (void)j.get_ref<const json::object_t&>(); }
  template <class T>
  static void field(const json& j, const char* key, T& out, const T&) {
    const auto it = j.find(key);
    if constexpr (is_optional<T>::value) {
      if (it != j.end() && !it->is_null()) out = it->template get<typename T::value_type>();
      else out.reset();
    } else {
      if (it != j.end() && !it->is_null()) it->get_to(out);
    }
  }
};

/// Whether a `present` field is written.
template <class T>
bool holds_value(const std::optional<T>& v) {
  return v.has_value();
}
inline bool holds_value(const std::string& v) { return !v.empty(); }
template <class T>
bool holds_value(const std::vector<T>& v) {
  return !v.empty();
}

/// Reads nothing: a computed key written for the reader (a ratio, a formula), not read back.
struct not_read {
  template <class T>
  void operator()(T&, const json&) const {}
};

/// A key whose value is no one member: written as get(object) (`present`: when holds_value), read
/// back, when present and not null, by set(object, value).
template <class Get, class Set = not_read>
struct computed {
  Get get;
  Set set = {};
};
template <class Get>
computed(Get) -> computed<Get>;
template <class Get, class Set>
computed(Get, Set) -> computed<Get, Set>;

/// to_json's walk over a type's fields.
template <class Type>
struct writer {
  json& j;
  const Type& v;
  template <class M, class C>
  void always(const char* key, M C::*m) {
    j[key] = v.*m;
  }
  template <class M, class C>
  void present(const char* key, M C::*m) {
    if (holds_value(v.*m)) j[key] = v.*m;
  }
  template <class M, class C>
  void required(const char* key, M C::*m) {
    always(key, m);
  }
  template <class M, class C>
  void shape(const char* key, M C::*m) {
    always(key, m);
  }
  template <class G, class S>
  void always(const char* key, const computed<G, S>& c) {
    j[key] = c.get(v);
  }
  template <class G, class S>
  void present(const char* key, const computed<G, S>& c) {
    if (const auto x = c.get(v); holds_value(x)) j[key] = x;
  }
  /// The fields in `if (visit.when(c)) { … }` are written when c holds and read whatever it is.
  static bool when(bool c) { return c; }
  /// An optional object written when it holds one and read when the key holds an object (anything
  /// else is passed over); the fields in its `if` are written and read only with it.
  template <class M, class C>
  bool present_object(const char* key, std::optional<M> C::*m) {
    present(key, m);
    return (v.*m).has_value();
  }
  /// A field that leads the ones in its `if`: written, with them, when `written`; read when its key
  /// is there (then as `required`: null is an error), and only then are they.
  template <class M, class C>
  bool leads(const char* key, M C::*m, bool written) {
    if (written) j[key] = v.*m;
    return written;
  }
};

/// from_json's walk: every field is read, whatever `when` says, by `Rule` (checked or lenient) except
/// `required` ones and computed keys (read when present and not null).
template <class Type, class Rule>
struct reader {
  const json& j;
  Type& v;
  const Type& defaults;
  template <class M, class C>
  void always(const char* key, M C::*m) {
    Rule::field(j, key, v.*m, defaults.*m);
  }
  template <class M, class C>
  void present(const char* key, M C::*m) {
    always(key, m);
  }
  template <class M, class C>
  void required(const char* key, M C::*m) {
    v.*m = j.at(key).template get<M>();
  }
  template <class M, class C>
  void shape(const char* key, M C::*m) {
    always(key, m);  // its presence was checked by shape_check
  }
  template <class G, class S>
  void always(const char* key, const computed<G, S>& c) {
    if (const auto it = j.find(key); it != j.end() && !it->is_null()) c.set(v, *it);
  }
  template <class G, class S>
  void present(const char* key, const computed<G, S>& c) {
    always(key, c);
  }
  static bool when(bool) { return true; }
  template <class M, class C>
  bool present_object(const char* key, std::optional<M> C::*m) {
    const auto it = j.find(key);
    if (it == j.end() || !it->is_object()) return false;
    v.*m = it->template get<M>();
    return true;
  }
  template <class M, class C>
  bool leads(const char* key, M C::*m, bool) {
    const auto it = j.find(key);
    if (it == j.end()) return false;
    v.*m = it->template get<M>();
    return true;
  }
};

/// from_json's first walk: every `shape` key must be there before any field is read.
struct shape_check {
  const json& j;
  template <class M, class C>
  void shape(const char* key, M C::*) {
    (void)j.at(key);
  }
  template <class... A>
  void always(A&&...) {}
  template <class... A>
  void present(A&&...) {}
  template <class... A>
  void required(A&&...) {}
  static bool when(bool) { return false; }
  template <class... A>
  bool present_object(A&&...) {
    return false;
  }
  template <class... A>
  bool leads(A&&...) {
    return false;
  }
};

/// The bodies of a mapped type's to_json and from_json; json_fields is the type's field list.
template <class Type>
void write(json& j, const Type& v) {
  j = json::object();
  writer<Type> w{j, v};
  json_fields(w, v);
}
template <class Rule, class Type>
void read(const json& j, Type& v) {
  Rule::check(j);
  shape_check s{j};
  json_fields(s, v);
  const Type defaults{};
  reader<Type, Rule> r{j, v, defaults};
  json_fields(r, v);
}

}  // namespace roofline::json_mapping

// ---- the macros: a field's name is its key (#f); groups as in the comment at the top ----

#define ROOFLINE_JSON_VISIT_ALWAYS(f) visit.always(#f, &std::remove_cvref_t<decltype(v)>::f);
#define ROOFLINE_JSON_VISIT_PRESENT(f) visit.present(#f, &std::remove_cvref_t<decltype(v)>::f);
#define ROOFLINE_JSON_VISIT_REQUIRED(f) visit.required(#f, &std::remove_cvref_t<decltype(v)>::f);
#define ROOFLINE_JSON_VISIT_SHAPE(f) visit.shape(#f, &std::remove_cvref_t<decltype(v)>::f);
/// In a ROOFLINE_JSON_FIELDS body: the groups, each field's name its key.
#define ROOFLINE_ALWAYS(...) NLOHMANN_JSON_EXPAND(NLOHMANN_JSON_PASTE(ROOFLINE_JSON_VISIT_ALWAYS, __VA_ARGS__))
#define ROOFLINE_PRESENT(...) NLOHMANN_JSON_EXPAND(NLOHMANN_JSON_PASTE(ROOFLINE_JSON_VISIT_PRESENT, __VA_ARGS__))
#define ROOFLINE_REQUIRED(...) NLOHMANN_JSON_EXPAND(NLOHMANN_JSON_PASTE(ROOFLINE_JSON_VISIT_REQUIRED, __VA_ARGS__))
#define ROOFLINE_SHAPE(...) NLOHMANN_JSON_EXPAND(NLOHMANN_JSON_PASTE(ROOFLINE_JSON_VISIT_SHAPE, __VA_ARGS__))

/// Defines to_json and from_json of `Type` (reading by json_mapping::`rule`) and opens its field list,
/// `template <class Visit> void json_fields(Visit& visit, const Type& v)`, whose body follows in braces.
#define ROOFLINE_JSON_FIELDS(Type, rule)                                                        \
  template <class Visit>                                                                        \
  void json_fields(Visit& visit, const Type& v);                                                \
  void to_json(json& j, const Type& v) { ::roofline::json_mapping::write(j, v); }               \
  void from_json(const json& j, Type& v) {                                                      \
    ::roofline::json_mapping::read<::roofline::json_mapping::rule>(j, v);                       \
  }                                                                                             \
  template <class Visit>                                                                        \
  void json_fields(Visit& visit, const Type& v)

/// ROOFLINE_JSON(Type, rule, group(f…), …): a type of one to four groups and nothing else.
#define ROOFLINE_JSON(Type, rule, ...) \
  ROOFLINE_JSON_FIELDS(Type, rule) { ROOFLINE_JSON_GROUPS(__VA_ARGS__) }
#define ROOFLINE_JSON_GROUP_always(...) ROOFLINE_ALWAYS(__VA_ARGS__)
#define ROOFLINE_JSON_GROUP_present(...) ROOFLINE_PRESENT(__VA_ARGS__)
#define ROOFLINE_JSON_GROUP_required(...) ROOFLINE_REQUIRED(__VA_ARGS__)
#define ROOFLINE_JSON_GROUP_shape(...) ROOFLINE_SHAPE(__VA_ARGS__)
#define ROOFLINE_JSON_GROUPS1(a) ROOFLINE_JSON_GROUP_##a
#define ROOFLINE_JSON_GROUPS2(a, b) ROOFLINE_JSON_GROUP_##a ROOFLINE_JSON_GROUP_##b
#define ROOFLINE_JSON_GROUPS3(a, b, c) ROOFLINE_JSON_GROUP_##a ROOFLINE_JSON_GROUP_##b ROOFLINE_JSON_GROUP_##c
#define ROOFLINE_JSON_GROUPS4(a, b, c, d) \
  ROOFLINE_JSON_GROUP_##a ROOFLINE_JSON_GROUP_##b ROOFLINE_JSON_GROUP_##c ROOFLINE_JSON_GROUP_##d
#define ROOFLINE_JSON_GROUPS_PICK(_1, _2, _3, _4, name, ...) name
#define ROOFLINE_JSON_GROUPS(...)                                                                 \
  ROOFLINE_JSON_GROUPS_PICK(__VA_ARGS__, ROOFLINE_JSON_GROUPS4, ROOFLINE_JSON_GROUPS3,            \
                            ROOFLINE_JSON_GROUPS2, ROOFLINE_JSON_GROUPS1, )(__VA_ARGS__)
