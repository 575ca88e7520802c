// An optional number the size of the number: "absent" is one value the number never takes (NaN for a
// floating type, the lowest value for a signed integer, the highest for an unsigned one). For the
// optional fields of records read from files (ingest.hpp kernel_record): std::optional<double> is 16
// bytes, this is 8, and a trace of 10^6 kernels holds nine such fields a kernel (docs/ingest.md,
// "Read speed").
//
// Reads like std::optional<T>: has_value(), explicit bool, *, value() (throws std::bad_optional_access),
// value_or(), reset(), = std::nullopt, == against another, a T or std::nullopt, and it converts to and
// from std::optional<T>. Storing the absent value itself (a NaN, INT64_MIN) stores "absent".
#pragma once
#include <cmath>
#include <limits>
#include <optional>
#include <type_traits>

namespace roofline {

template <class T>
  requires std::is_arithmetic_v<T>
class packed_optional {
 public:
  using value_type = T;

  constexpr packed_optional() noexcept = default;
  constexpr packed_optional(std::nullopt_t) noexcept {}
  constexpr packed_optional(T v) noexcept : v_(v) {}
  constexpr packed_optional(const std::optional<T>& o) noexcept : v_(o ? *o : absent()) {}
  constexpr packed_optional& operator=(std::nullopt_t) noexcept { return v_ = absent(), *this; }
  constexpr packed_optional& operator=(T v) noexcept { return v_ = v, *this; }
  constexpr packed_optional& operator=(const std::optional<T>& o) noexcept { return v_ = o ? *o : absent(), *this; }

  constexpr bool has_value() const noexcept {
    if constexpr (std::is_floating_point_v<T>) return !std::isnan(v_);
    else return v_ != absent();
  }
  constexpr explicit operator bool() const noexcept { return has_value(); }
  constexpr operator std::optional<T>() const noexcept { return has_value() ? std::optional<T>(v_) : std::nullopt; }
  /// The value; undefined (the absent marker) when there is none, as std::optional's operator*.
  constexpr const T& operator*() const noexcept { return v_; }
  constexpr T& operator*() noexcept { return v_; }
  constexpr T value() const {
    if (!has_value()) throw std::bad_optional_access();
    return v_;
  }
  constexpr T value_or(T other) const noexcept { return has_value() ? v_ : other; }
  constexpr void reset() noexcept { v_ = absent(); }
  constexpr T& emplace(T v) noexcept { return v_ = v; }

  friend constexpr bool operator==(const packed_optional& a, const packed_optional& b) noexcept {
    return a.has_value() == b.has_value() && (!a.has_value() || a.v_ == b.v_);
  }
  friend constexpr bool operator==(const packed_optional& a, T b) noexcept { return a.has_value() && a.v_ == b; }
  friend constexpr bool operator==(const packed_optional& a, std::nullopt_t) noexcept { return !a.has_value(); }

 private:
  static constexpr T absent() noexcept {
    if constexpr (std::is_floating_point_v<T>) return std::numeric_limits<T>::quiet_NaN();
    else if constexpr (std::is_signed_v<T>) return std::numeric_limits<T>::lowest();
    else return std::numeric_limits<T>::max();
  }
  T v_ = absent();
};

}  // namespace roofline
