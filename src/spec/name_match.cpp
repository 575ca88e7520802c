// GPU name matching: exact on normalized names and aliases, then the one row whose SKU tokens
// include every token of the query (whole tokens only: "L40" is not "L40S"), else an input_error
// listing the candidates (several rows) or the closest table names by edit distance (none).
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
    if (token != "nvidia" && token != "tesla" && token != "geforce" && token != "amd" && token != "instinct")
      out += token;
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

std::string gpu_key(const sku_row& s) {
  std::string k = s.name;
  for (const auto& a : s.aliases)
    if (a.size() < k.size()) k = a;
  std::string o;
  for (unsigned char c : k) o += c == ' ' ? '-' : static_cast<char>(std::tolower(c));
  return o;
}

const sku_row* match_exact(const device_table& t, const std::string& name) {
  const std::string q = normalize_gpu_name(name);
  if (q.empty()) return nullptr;
  for (const auto& s : t.skus)
    for (const auto& sp : spellings(s))
      if (sp == q) return &s;
  return nullptr;
}

std::vector<std::string> name_tokens(const std::string& name) {
  std::string lower;
  for (char ch : name) lower += static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  if (const auto mig = lower.find(" mig "); mig != std::string::npos) lower.resize(mig);
  std::vector<std::string> out;
  std::string token;
  auto flush = [&] {
    if (!token.empty() && token != "nvidia" && token != "tesla" && token != "geforce" && token != "amd" &&
        token != "instinct")
      out.push_back(token);
    token.clear();
  };
  for (char ch : lower) {
    if (std::isalnum(static_cast<unsigned char>(ch))) token += ch;
    else flush();
  }
  flush();
  return out;
}

const sku_row& match_forgiving(const device_table& t, const std::string& name, const std::string& field) {
  if (const sku_row* s = match_exact(t, name)) return *s;
  const std::string q = normalize_gpu_name(name);
  const std::vector<std::string> qt = name_tokens(name);
  if (!qt.empty()) {
    // Every query token must be a whole SKU token of one spelling: "L40" never matches "L40S",
    // "a100 80gb" matches both A100 80GB rows (SXM and PCIe) and is refused as ambiguous.
    std::vector<const sku_row*> hits;
    for (const auto& s : t.skus) {
      std::vector<std::string> all{s.name};
      all.insert(all.end(), s.aliases.begin(), s.aliases.end());
      for (const auto& sp : all) {
        const auto st = name_tokens(sp);
        const bool covered = std::all_of(qt.begin(), qt.end(), [&](const std::string& tok) {
          return std::find(st.begin(), st.end(), tok) != st.end();
        });
        if (covered) {
          hits.push_back(&s);
          break;
        }
      }
    }
    if (hits.size() == 1) return *hits.front();
    if (hits.size() > 1) {
      std::vector<std::string> keys;
      for (const auto* h : hits) keys.push_back(gpu_key(*h) + " (" + h->name + ")");
      throw input_error("", field, "'" + name + "' is ambiguous: type one of " + join(keys) + " (roofline spec --list)");
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
  throw input_error("", field, "unknown GPU '" + name + "'; closest: " + join(closest) + " (roofline spec --list)");
}

}  // namespace roofline::spec_detail

namespace roofline {

std::string match_gpu_name(const std::string& name) {
  return spec_detail::match_forgiving(spec_detail::load_default_table(), name).name;
}

}  // namespace roofline
