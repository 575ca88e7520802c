// An immutable string shared by reference count: one pointer wide, copies share one heap copy of the
// characters. For the text fields of records read from files (ingest.hpp kernel_record): a trace of
// 10^6 kernels holds a few hundred distinct kernel names (C++ template names of ~400 characters), op
// names, shapes and notes, and one std::string each (32 bytes + its own heap copy) would dominate the
// reader's memory (docs/ingest.md, "Read speed").
//
// Reads like a const std::string (it converts to `const std::string&` and to std::string_view, and
// has the usual const members); assigning or appending makes a new string (never changes one that
// others share). The empty string holds no allocation. Thread-safe as std::shared_ptr is: copies may
// be made and dropped on several threads at once.
#pragma once
#include <compare>
#include <cstddef>
#include <ostream>
#include <string>
#include <string_view>
#include <utility>

#include <fmt/core.h>

#include "roofline/shared_value.hpp"

namespace roofline {

class shared_string {
 public:
  using size_type = std::string::size_type;
  static constexpr size_type npos = std::string::npos;

  shared_string() noexcept = default;
  shared_string(std::string s) : v_(s.empty() ? shared_value<std::string>() : shared_value<std::string>(std::move(s))) {}
  shared_string(std::string_view s) : shared_string(std::string(s)) {}
  shared_string(const char* s) : shared_string(std::string(s)) {}
  shared_string& operator=(std::string s) { return *this = shared_string(std::move(s)); }
  shared_string& operator=(std::string_view s) { return *this = shared_string(s); }
  shared_string& operator=(const char* s) { return *this = shared_string(s); }

  /// A new string: this one's characters, then `s`.
  shared_string& operator+=(std::string_view s) {
    if (!s.empty()) *this = str() + std::string(s);
    return *this;
  }

  const std::string& str() const noexcept { return *v_; }
  operator const std::string&() const noexcept { return str(); }
  operator std::string_view() const noexcept { return str(); }

  bool empty() const noexcept { return !v_.has_value(); }
  size_type size() const noexcept { return str().size(); }
  size_type length() const noexcept { return str().size(); }
  const char* c_str() const noexcept { return str().c_str(); }
  const char* data() const noexcept { return str().data(); }
  std::string::const_iterator begin() const noexcept { return str().begin(); }
  std::string::const_iterator end() const noexcept { return str().end(); }
  char operator[](size_type i) const noexcept { return str()[i]; }
  char front() const noexcept { return str().front(); }
  char back() const noexcept { return str().back(); }
  size_type find(std::string_view s, size_type pos = 0) const noexcept { return str().find(s, pos); }
  size_type find(char c, size_type pos = 0) const noexcept { return str().find(c, pos); }
  size_type rfind(std::string_view s, size_type pos = npos) const noexcept { return str().rfind(s, pos); }
  size_type rfind(char c, size_type pos = npos) const noexcept { return str().rfind(c, pos); }
  size_type find_first_of(std::string_view s, size_type pos = 0) const noexcept { return str().find_first_of(s, pos); }
  std::string substr(size_type pos = 0, size_type n = npos) const { return str().substr(pos, n); }
  bool starts_with(std::string_view s) const noexcept { return std::string_view(str()).starts_with(s); }
  bool ends_with(std::string_view s) const noexcept { return std::string_view(str()).ends_with(s); }
  int compare(std::string_view s) const noexcept { return std::string_view(str()).compare(s); }

  friend bool operator==(const shared_string& a, const shared_string& b) noexcept {
    return a.v_.same(b.v_) || a.str() == b.str();
  }
  friend bool operator==(const shared_string& a, std::string_view b) noexcept { return std::string_view(a.str()) == b; }
  friend bool operator==(const shared_string& a, const std::string& b) noexcept { return a.str() == b; }
  friend bool operator==(const shared_string& a, const char* b) noexcept { return a.str() == b; }
  friend std::strong_ordering operator<=>(const shared_string& a, const shared_string& b) noexcept {
    return std::string_view(a.str()) <=> std::string_view(b.str());
  }
  friend std::strong_ordering operator<=>(const shared_string& a, std::string_view b) noexcept {
    return std::string_view(a.str()) <=> b;
  }
  friend std::string operator+(const shared_string& a, std::string_view b) { return a.str() + std::string(b); }
  friend std::string operator+(std::string_view a, const shared_string& b) { return std::string(a) + b.str(); }
  friend std::string operator+(const shared_string& a, const char* b) { return a.str() + b; }
  friend std::string operator+(const char* a, const shared_string& b) { return a + b.str(); }
  friend std::string operator+(const shared_string& a, const std::string& b) { return a.str() + b; }
  friend std::string operator+(const std::string& a, const shared_string& b) { return a + b.str(); }
  friend std::ostream& operator<<(std::ostream& os, const shared_string& s) { return os << s.str(); }

 private:
  shared_value<std::string> v_;  // none for the empty string
};

}  // namespace roofline

template <>
struct fmt::formatter<roofline::shared_string> : fmt::formatter<fmt::string_view> {
  template <class Context>
  auto format(const roofline::shared_string& s, Context& ctx) const {
    return fmt::formatter<fmt::string_view>::format(fmt::string_view(s.data(), s.size()), ctx);
  }
};
