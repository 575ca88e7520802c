// Forgiving GPU name matching: exact on normalized names and aliases, then a unique substring,
// else an input_error that suggests the closest table names by edit distance.
#include "spec/name_match.hpp"

#include <algorithm>
#include <cctype>
#include <numeric>
#include <vector>

#include "roofline/error.hpp"
#include "roofline/spec.hpp"

namespace roofline::spec_detail {

std::string normalize_gpu_name(const std::string& name) {
  std::string lower;
  for (char ch : name) lower += static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  if (const auto mig = lower.find(" mig "); mig != std::string::npos) lower.resize(mig);
  std::string out, token;
  auto flush = [&] {
    if (token != "nvidia" && token != "tesla" && token != "geforce") out += token;
    token.clear();
  };
  for (char ch : lower) {
    if (std::isalnum(static_cast<unsigned char>(ch))) token += ch;
    else flush();
  }
  flush();
  return out;
}

std::size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<std::size_t> prev(b.size() + 1), cur(b.size() + 1);
  std::iota(prev.begin(), prev.end(), 0);
  for (std::size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j)
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)});
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

namespace {

std::vector<std::string> spellings(const sku_row& s) {
  std::vector<std::string> v{normalize_gpu_name(s.name)};
  for (const auto& a : s.aliases) v.push_back(normalize_gpu_name(a));
  return v;
}

std::string join(const std::vector<std::string>& v) {
  std::string out;
  for (const auto& s : v) out += (out.empty() ? "" : ", ") + s;
  return out;
}

}  // namespace

const sku_row* match_exact(const device_table& t, const std::string& name) {
  const std::string q = normalize_gpu_name(name);
  if (q.empty()) return nullptr;
  for (const auto& s : t.skus)
    for (const auto& sp : spellings(s))
      if (sp == q) return &s;
  return nullptr;
}

const sku_row& match_forgiving(const device_table& t, const std::string& name) {
  if (const sku_row* s = match_exact(t, name)) return *s;
  const std::string q = normalize_gpu_name(name);
  if (q.size() >= 2) {
    std::vector<const sku_row*> hits;
    for (const auto& s : t.skus)
      for (const auto& sp : spellings(s))
        if (sp.find(q) != std::string::npos) {
          hits.push_back(&s);
          break;
        }
    if (hits.size() == 1) return *hits.front();
    if (hits.size() > 1) {
      std::vector<std::string> names;
      for (const auto* h : hits) names.push_back(h->name);
      throw input_error("", "NAME", "'" + name + "' is ambiguous: it matches " + join(names) + " (roofline spec --list)");
    }
  }
  std::vector<std::pair<std::size_t, std::string>> ranked;
  for (const auto& s : t.skus) {
    std::size_t best = std::string::npos;
    for (const auto& sp : spellings(s)) best = std::min(best, edit_distance(q, sp));
    ranked.emplace_back(best, s.name);
  }
  std::stable_sort(ranked.begin(), ranked.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<std::string> closest;
  for (std::size_t i = 0; i < ranked.size() && i < 3; ++i) closest.push_back(ranked[i].second);
  throw input_error("", "NAME", "unknown GPU '" + name + "'; closest: " + join(closest) + " (roofline spec --list)");
}

}  // namespace roofline::spec_detail

namespace roofline {

std::string match_gpu_name(const std::string& name) {
  return spec_detail::match_forgiving(spec_detail::load_default_table(), name).name;
}

}  // namespace roofline
