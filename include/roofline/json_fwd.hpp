// JSON declared, not defined: the schema headers (results.hpp and the analysis blocks) name `json`
// through <nlohmann/json_fwd.hpp>, so that a unit that only reads typed fields never parses
// nlohmann/json.hpp (~135,000 lines a translation unit). A unit that builds, reads or writes JSON
// includes roofline/json.hpp.
#pragma once
#include <memory>
#include <string>

#include <nlohmann/json_fwd.hpp>

namespace roofline {

using json = nlohmann::json;

/// A JSON value a struct carries without its header defining json: a deep-copied value behind a
/// pointer (never null). Reads and writes as the json it holds: `*v`, `v->contains("k")`,
/// `v["k"] = 1`, and it converts to `json&` where a json is expected. `json_value(json_kind::object)`
/// starts as {} (likewise array; the default is null). Serialised as the value itself (to_json /
/// from_json), so results.json does not change.
enum class json_kind { null, object, array };

class json_value {
 public:
  json_value();
  explicit json_value(json_kind kind);
  json_value(const json& j);  // NOLINT: a json is a json_value
  json_value(json&& j);       // NOLINT
  json_value(const json_value& o);
  json_value(json_value&& o) noexcept;
  json_value& operator=(const json_value& o);
  json_value& operator=(json_value&& o) noexcept;
  json_value& operator=(const json& j);
  ~json_value();

  json& operator*() { return *v_; }
  const json& operator*() const { return *v_; }
  json* operator->() { return v_.get(); }
  const json* operator->() const { return v_.get(); }
  operator json&() { return *v_; }              // NOLINT
  operator const json&() const { return *v_; }  // NOLINT
  json& operator[](const std::string& key);
  const json& operator[](const std::string& key) const;  ///< json's const operator[]: the key must exist
  json& operator[](const char* key);
  const json& operator[](const char* key) const;

 private:
  std::unique_ptr<json> v_;
};

void to_json(json& j, const json_value& v);
void from_json(const json& j, json_value& v);

}  // namespace roofline
