// Generic rendering of free-form json (device.properties, measured.telemetry, analysis keys without a
// typed block): never throws on a missing key, a null or an unexpected type; numbers get their unit
// from the key's suffix.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "report/sections.hpp"
#include "report/units.hpp"
#include "roofline/json.hpp"

namespace roofline::report {

namespace {

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}
bool has(const std::string& s, const std::string& w) { return s.find(w) != std::string::npos; }

/// The components of a path "a.b (row name).c": split at the dots outside parentheses (a row's name,
/// "TinyLlama-1.1B", keeps its dots).
std::vector<std::string> components(const std::string& path) {
  std::vector<std::string> parts(1);
  int depth = 0;
  for (const char c : path) {
    if (c == '(') ++depth;
    else if (c == ')' && depth > 0) --depth;
    if (c == '.' && depth == 0) parts.emplace_back();
    else parts.back() += c;
  }
  return parts;
}

std::string last(const std::string& path) { return components(path).back(); }

/// A number with the unit its own key names (the last component of `path`). Only the free-form
/// objects come here (device.properties, measured.telemetry, and the analysis blocks the report's
/// "Other analysis" lists as results.json holds them: latency_model, batch_sweep, tpot_input, …);
/// the sections of the typed blocks name their units field by field (sections_analysis.cpp).
std::string number_text(const std::string& path, double x) {
  const std::string key = last(path);
  if (ends_with(key, "bytes_per_s") || ends_with(key, "bandwidth")) return rate_bytes(x);
  if (ends_with(key, "flops_per_s")) return rate_flops(x);
  if (has(key, "fraction")) return percent(x);
  if (has(key, "intensity") || has(key, "ridge")) return intensity(x);
  if (ends_with(key, "_mhz")) return sig(x, 4) + " MHz";
  if (ends_with(key, "_hz")) return si(x, "Hz", 4);
  if (ends_with(key, "_w")) return sig(x) + " W";
  if (ends_with(key, "_c")) return sig(x) + " °C";
  if (key == "s" || ends_with(key, "_s") || ends_with(key, "_seconds") || key == "time") return seconds(x);
  if (has(key, "bytes")) return bytes_binary(x);
  if (has(key, "flops") || has(key, "flop_count")) return flop_count(x);
  if (std::floor(x) == x && std::fabs(x) < 1e6) return fmt::format("{:.0f}", x);
  if (std::fabs(x) >= 1e6) return si(x, "");
  return sig(x, 4);
}

bool is_scalar(const json& v) { return !v.is_object() && !v.is_array(); }

bool array_of_objects(const json& v) {
  if (!v.is_array() || v.empty()) return false;
  return std::all_of(v.begin(), v.end(), [](const json& e) { return e.is_object(); });
}

std::string label(const std::string& key) {
  std::string s = key;
  std::replace(s.begin(), s.end(), '_', ' ');
  return s;
}

/// A heading for the value at `path` no other heading of `s` already has: its last component, else
/// its last two joined by " › ", and so on up to the whole path (the same key, e.g. telemetry, sits
/// under many rows; a reader of the HTML sees which one).
void unique_heading(section& s, const std::string& path) {
  std::vector<std::string> parts = components(path);
  for (auto& p : parts) p = label(p);
  auto taken = [&](const std::string& h) {
    return std::any_of(s.blocks.begin(), s.blocks.end(),
                       [&](const block& x) { return x.k == block::kind::heading && x.lines.at(0) == h; });
  };
  std::string h;
  for (std::size_t n = 1; n <= parts.size(); ++n) {
    h = parts.back();
    for (std::size_t i = 1; i < n; ++i) h = parts[parts.size() - 1 - i] + " › " + h;
    if (!taken(h)) break;
  }
  s.heading(h);
}

/// A value that does not fit in a table cell: an object or an array holding objects or arrays.
bool is_nested(const json& v) {
  return v.is_object() || (v.is_array() && !std::all_of(v.begin(), v.end(), is_scalar));
}

/// Columns: text-valued keys first (names, steps), then the others, each in key order. Nested values
/// are left out: add_json renders them under the table, one block per row.
table objects_table(const json& arr, const std::string& path) {
  std::vector<std::string> text_keys, other_keys;
  for (const auto& e : arr)
    for (auto it = e.begin(); it != e.end(); ++it) {
      if (it.value().is_null() || is_nested(it.value())) continue;
      auto& dst = it.value().is_string() ? text_keys : other_keys;
      if (std::find(text_keys.begin(), text_keys.end(), it.key()) == text_keys.end() &&
          std::find(other_keys.begin(), other_keys.end(), it.key()) == other_keys.end())
        dst.push_back(it.key());
    }
  std::vector<std::string> keys = text_keys;
  keys.insert(keys.end(), other_keys.begin(), other_keys.end());
  table t;
  for (const auto& k : keys) t.header.push_back(label(k));
  for (const auto& e : arr) {
    std::vector<cell> row;
    for (const auto& k : keys) row.push_back(e.contains(k) ? json_cell(path + "." + k, e.at(k)) : cell("—"));
    t.rows.push_back(std::move(row));
  }
  return t;
}

}  // namespace

cell json_cell(const std::string& key, const json& v) {
  if (v.is_null()) return cell("—");
  if (v.is_boolean()) return cell(v.get<bool>() ? "yes" : "no");
  if (v.is_number()) {
    const double x = v.get<double>();
    if (!std::isfinite(x)) return cell("n/a");
    return cell(number_text(key, x), x);
  }
  if (v.is_string()) return cell(v.get<std::string>());
  if (v.is_array() && std::all_of(v.begin(), v.end(), is_scalar)) {
    std::string s;
    for (const auto& e : v) s += (s.empty() ? "" : ", ") + json_cell(key, e).text;
    return cell(s);
  }
  if (v.is_object()) {  // a small object (e.g. caches): "key value, key value" with units from the keys
    std::string s;
    for (auto it = v.begin(); it != v.end(); ++it)
      if (!it.value().is_null()) s += (s.empty() ? "" : ", ") + label(it.key()) + " " + json_cell(it.key(), it.value()).text;
    return cell(s.empty() ? "—" : s);
  }
  return cell(v.dump());
}

void add_json(section& s, const json& j, const std::string& name, int depth) {
  if (j.is_null() || ((j.is_array() || j.is_object()) && j.empty())) return;
  if (is_scalar(j)) {
    s.bullets({label(name) + ": " + json_cell(name, j).text});
    return;
  }
  if (array_of_objects(j)) {
    if (!name.empty() && depth > 0) unique_heading(s, name);
    s.add(objects_table(j, name));
    if (depth >= 3) return;
    for (const auto& e : j) {  // each row's nested values, named by the row's first text value
      std::string row_name;
      for (const char* k : {"precision", "name", "phase", "pattern"})
        if (row_name.empty() && e.contains(k) && e.at(k).is_string()) row_name = e.at(k).get<std::string>();
      for (auto it = e.begin(); it != e.end() && row_name.empty(); ++it)
        if (it.value().is_string()) row_name = it.value().get<std::string>();
      for (auto it = e.begin(); it != e.end(); ++it)
        if (is_nested(it.value()) && !it.value().empty())
          add_json(s, it.value(), name + "." + it.key() + (row_name.empty() ? "" : " (" + row_name + ")"), depth + 1);
    }
    return;
  }
  if (j.is_array()) {
    if (j.empty()) return;
    std::vector<std::string> items;
    for (const auto& e : j) items.push_back(is_scalar(e) ? json_cell(name, e).text : e.dump());
    if (!name.empty() && depth > 0) unique_heading(s, name);
    s.bullets(items);
    return;
  }
  // object: scalars (and scalar lists) first as one bullet list, then nested values in key order.
  std::vector<std::string> items;
  for (auto it = j.begin(); it != j.end(); ++it)
    if (is_scalar(it.value()) || (it.value().is_array() && std::all_of(it.value().begin(), it.value().end(), is_scalar)))
      if (!it.value().is_null() && !(it.value().is_array() && it.value().empty())) items.push_back(label(it.key()) + ": " + json_cell(name + "." + it.key(), it.value()).text);
  if (!items.empty() && !name.empty() && depth > 0) unique_heading(s, name);
  s.bullets(items);
  for (auto it = j.begin(); it != j.end(); ++it) {
    const json& v = it.value();
    if (is_scalar(v) || (v.is_array() && std::all_of(v.begin(), v.end(), is_scalar))) continue;
    const std::string sub = name.empty() ? it.key() : name + "." + it.key();
    if (depth >= 3) s.bullets({label(sub) + ": " + v.dump()});
    else add_json(s, v, sub, depth + 1);
  }
}

}  // namespace roofline::report
