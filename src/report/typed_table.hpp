// Tables and bullet lists over the typed analysis blocks (roofline/waterfall.hpp, …): each column
// names its field and formats it with roofline/units.hpp; a column no row has a value for is left out.
#pragma once
#include <fmt/format.h>

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "report/document.hpp"
#include "report/units.hpp"
#include "roofline/results.hpp"

namespace roofline::report {

template <class Row>
struct column {
  std::string header;
  std::function<std::optional<cell>(const Row&)> value;  ///< nullopt: shown as "—"
};

template <class Row>
table typed_table(const std::vector<Row>& rows, const std::vector<column<Row>>& cols) {
  table t;
  std::vector<const column<Row>*> shown;
  for (const auto& c : cols)
    for (const auto& r : rows)
      if (c.value(r)) {
        shown.push_back(&c);
        break;
      }
  for (const auto* c : shown) t.header.push_back(c->header);
  for (const auto& r : rows) {
    std::vector<cell> row;
    for (const auto* c : shown) row.push_back(c->value(r).value_or(cell("—")));
    t.rows.push_back(std::move(row));
  }
  return t;
}

/// A number cell formatted by `f`; nullopt when there is no value.
inline std::optional<cell> num(std::optional<double> v, std::string (*f)(double)) {
  if (!v) return std::nullopt;
  return cell(f(*v), *v);
}
inline std::optional<cell> text(const std::string& s) { return s.empty() ? std::nullopt : std::optional<cell>(cell(s)); }
inline std::optional<cell> yes_no(std::optional<bool> b) {
  if (!b) return std::nullopt;
  return cell(*b ? "yes" : "no");
}
/// A value already in percent: "71.3%", "100%".
inline std::string percent_value(double x) { return units::sig(x) + "%"; }
/// A dimensionless factor: "1", "0.9697".
inline std::string factor_text(double x) { return x == static_cast<double>(static_cast<long long>(x)) ? fmt::format("{:.0f}", x) : units::sig(x, 4); }
inline std::string integer(double x) { return fmt::format("{:.0f}", x); }
inline std::string tokens_rate(double x) { return units::sig(x) + " tokens/s"; }
inline std::string mhz(double x) { return units::sig(x, 4) + " MHz"; }

/// "label: value" when there is a value.
inline void item(std::vector<std::string>& items, const std::string& label, const std::optional<std::string>& v) {
  if (v && !v->empty()) items.push_back(label + ": " + *v);
}
template <class F>
std::optional<std::string> fmt_opt(std::optional<double> v, F f) {
  if (!v) return std::nullopt;
  return f(*v);
}

/// Renders block `key` of r.analysis (`block`, its member) with `render`; when it is absent, one line
/// naming the block where it was in the file but not readable (analysis.unreadable), else `absent`
/// (when not empty).
template <class T, class F>
void render_block(section& s, const results& r, const char* key, const std::optional<T>& block, F&& render,
                  const std::string& absent) {
  if (block) {
    render(*block);
    return;
  }
  if (const auto it = r.analysis.unreadable.find(key); it != r.analysis.unreadable.end())
    s.para(fmt::format("analysis.{} is not readable: {}", key, it->second));
  else if (!absent.empty())
    s.para(absent);
}

}  // namespace roofline::report
