// nlohmann::json with std::optional support (null <-> nullopt); the one JSON include of roofline.
#pragma once
#include <nlohmann/json.hpp>
#include <optional>

#include "roofline/json_fwd.hpp"

namespace nlohmann {
template <typename T>
struct adl_serializer<std::optional<T>> {
  static void to_json(json& j, const std::optional<T>& v) {
    if (v) j = *v; else j = nullptr;
  }
  static void from_json(const json& j, std::optional<T>& v) {
    if (j.is_null()) v.reset(); else v = j.get<T>();
  }
};
}  // namespace nlohmann

namespace roofline {
using json = nlohmann::json;
}
