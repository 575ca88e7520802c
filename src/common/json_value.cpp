// roofline::json_value, the schema's JSON held by pointer; see roofline/json_fwd.hpp.
#include "roofline/json.hpp"

namespace roofline {

json_value::json_value() : v_(std::make_unique<json>()) {}
json_value::json_value(json_kind kind)
    : v_(std::make_unique<json>(kind == json_kind::object  ? json::object()
                                : kind == json_kind::array ? json::array()
                                                           : json())) {}
json_value::json_value(const json& j) : v_(std::make_unique<json>(j)) {}
json_value::json_value(json&& j) : v_(std::make_unique<json>(std::move(j))) {}
json_value::json_value(const json_value& o) : v_(std::make_unique<json>(*o.v_)) {}
json_value::json_value(json_value&& o) noexcept : v_(std::make_unique<json>()) { v_.swap(o.v_); }
json_value& json_value::operator=(const json_value& o) {
  if (this != &o) *v_ = *o.v_;
  return *this;
}
json_value& json_value::operator=(json_value&& o) noexcept {
  v_.swap(o.v_);
  return *this;
}
json_value& json_value::operator=(const json& j) {
  *v_ = j;
  return *this;
}
json_value::~json_value() = default;

json& json_value::operator[](const std::string& key) { return (*v_)[key]; }
const json& json_value::operator[](const std::string& key) const { return (*v_)[key]; }
json& json_value::operator[](const char* key) { return (*v_)[key]; }
const json& json_value::operator[](const char* key) const { return (*v_)[key]; }

void to_json(json& j, const json_value& v) { j = *v; }
void from_json(const json& j, json_value& v) { *v = j; }

}  // namespace roofline
