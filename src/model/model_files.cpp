// Finding model configs: shipped names (models/NAME.json) or paths.
#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>

#include "roofline/error.hpp"
#include "roofline/model.hpp"
#include "spec/name_match.hpp"

namespace roofline {

namespace fs = std::filesystem;

namespace {

/// $ROOFLINE_MODELS_DIR, else $ROOFLINE_SOURCE_DIR/models, else the source tree's models/.
fs::path models_dir() {
  if (const char* d = std::getenv("ROOFLINE_MODELS_DIR"); d && *d) return d;
  if (const char* d = std::getenv("ROOFLINE_SOURCE_DIR"); d && *d) return fs::path(d) / "models";
  return fs::path(ROOFLINE_SOURCE_DIR) / "models";
}

}  // namespace

std::vector<std::string> shipped_models() {
  std::vector<std::string> names;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(models_dir(), ec))
    if (e.is_regular_file() && e.path().extension() == ".json") names.push_back(e.path().stem().string());
  std::sort(names.begin(), names.end());
  return names;
}

namespace {

/// Lower-case alphanumerics only: "Llama-3-8B", "llama_3_8b" and "llama-3-8b" all read "llama38b".
std::string normalize_model_name(const std::string& s) {
  std::string o;
  for (unsigned char c : s)
    if (std::isalnum(c)) o += static_cast<char>(std::tolower(c));
  return o;
}

}  // namespace

std::string resolve_model_path(const std::string& name_or_path) {
  if (name_or_path.empty()) throw input_error("", "--model", "empty model name");
  std::error_code ec;
  const bool path_like = name_or_path.find('/') != std::string::npos ||
                         (name_or_path.size() > 5 && name_or_path.substr(name_or_path.size() - 5) == ".json");
  if (path_like || fs::exists(name_or_path, ec)) {
    if (fs::is_directory(name_or_path, ec)) {  // a HuggingFace model folder
      const fs::path cfg = fs::path(name_or_path) / "config.json";
      if (fs::is_regular_file(cfg, ec)) return cfg.string();
      throw input_error(name_or_path, "--model", "a directory without a config.json");
    }
    if (fs::is_regular_file(name_or_path, ec)) return name_or_path;
    if (path_like) throw input_error(name_or_path, "--model", "no such file");
  }
  // A shipped model, matched like GPU names: case and separators ignored ("Llama-3-8B", the README's
  // spelling, is llama-3-8b), else the one name that contains the query.
  const auto names = shipped_models();
  const std::string q = normalize_model_name(name_or_path);
  std::vector<std::string> contains;
  for (const auto& n : names) {
    if (normalize_model_name(n) == q) return (models_dir() / (n + ".json")).string();
    if (!q.empty() && normalize_model_name(n).find(q) != std::string::npos) contains.push_back(n);
  }
  if (contains.size() == 1) return (models_dir() / (contains[0] + ".json")).string();
  std::string known;
  for (const auto& n : names) known += (known.empty() ? "" : ", ") + n;
  if (contains.size() > 1) {
    std::string c;
    for (const auto& n : contains) c += (c.empty() ? "" : ", ") + n;
    throw input_error("", "--model", "'" + name_or_path + "' matches several shipped models: " + c);
  }
  // the three closest names (edit distance on the normal forms)
  std::vector<std::pair<std::size_t, std::string>> near;
  for (const auto& n : names) near.emplace_back(spec_detail::edit_distance(q, normalize_model_name(n)), n);
  std::sort(near.begin(), near.end());
  std::string suggest;
  for (std::size_t i = 0; i < std::min<std::size_t>(3, near.size()); ++i) suggest += (suggest.empty() ? "" : ", ") + near[i].second;
  throw input_error("", "--model",
                    "'" + name_or_path + "' is not a shipped model" + (suggest.empty() ? "" : "; did you mean " + suggest + "?") +
                        " (shipped: " + (known.empty() ? "none found" : known) + "; or give a path to a config.json)");
}

}  // namespace roofline
