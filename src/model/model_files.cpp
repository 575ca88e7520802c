// Finding model configs: shipped names (models/NAME.json) or paths.
#include <algorithm>
#include <cstdlib>
#include <filesystem>

#include "roofline/error.hpp"
#include "roofline/model.hpp"

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

std::string resolve_model_path(const std::string& name_or_path) {
  if (name_or_path.empty()) throw input_error("", "--model", "empty model name");
  std::error_code ec;
  const fs::path shipped = models_dir() / (name_or_path + ".json");
  if (name_or_path.find('/') == std::string::npos && fs::is_regular_file(shipped, ec)) return shipped.string();
  if (fs::is_regular_file(name_or_path, ec)) return name_or_path;
  std::string known;
  for (const auto& n : shipped_models()) known += (known.empty() ? "" : ", ") + n;
  throw input_error("", "--model",
                    "'" + name_or_path + "' is neither a shipped model (" + (known.empty() ? "none found" : known) +
                        ") nor a config.json file");
}

}  // namespace roofline
