// Candidate paths for libraries loaded at run time; see include/roofline/library_search.hpp.
#include "roofline/library_search.hpp"

#include <dlfcn.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <sstream>

namespace roofline {

namespace fs = std::filesystem;

namespace {

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::stringstream ss(s);
  for (std::string part; std::getline(ss, part, sep);)
    if (!part.empty()) out.push_back(part);
  return out;
}

void add_unique(std::vector<std::string>& v, const std::string& s) {
  if (std::find(v.begin(), v.end(), s) == v.end()) v.push_back(s);
}

/// <prefix>/lib/python3.*/site-packages/<tail> for every python3.* directory that exists, else the
/// pattern itself.
void add_prefix_candidates(std::vector<std::string>& out, const fs::path& prefix, const std::string& tail) {
  std::error_code ec;
  std::vector<std::string> found;
  for (const auto& e : fs::directory_iterator(prefix / "lib", ec))
    if (e.is_directory(ec) && e.path().filename().string().rfind("python3", 0) == 0)
      found.push_back((e.path() / "site-packages" / tail).string());
  std::sort(found.begin(), found.end());
  if (found.empty()) found.push_back((prefix / "lib" / "python3.*" / "site-packages" / tail).string());
  for (const auto& f : found) add_unique(out, f);
}

}  // namespace

std::vector<std::string> library_search_paths(const std::string& soname, const std::vector<std::string>& wheel_tails,
                                              const std::string& explicit_path, const std::string& path_env,
                                              const std::vector<std::string>& python_sys_path,
                                              const std::vector<std::string>& dirs) {
  if (!explicit_path.empty()) return {explicit_path};
  std::vector<std::string> out = {soname};
  for (const auto& d : dirs) add_unique(out, (fs::path(d) / soname).string());
  for (const auto& dir : split(path_env, ':')) {
    const fs::path py = fs::path(dir) / "python3";
    std::error_code ec;
    if (!fs::is_regular_file(py, ec) && !fs::is_symlink(py, ec)) continue;
    const fs::path real = fs::canonical(py, ec);
    for (const auto& tail : wheel_tails) {
      add_prefix_candidates(out, fs::path(dir).parent_path(), tail);  // a venv or an installation prefix
      if (!ec) add_prefix_candidates(out, real.parent_path().parent_path(), tail);
    }
  }
  for (const auto& entry : python_sys_path)
    for (const auto& tail : wheel_tails) add_unique(out, (fs::path(entry) / tail).string());
  return out;
}

std::vector<std::string> python_sys_path() {
  std::vector<std::string> out;
  if (const char* pp = std::getenv("PYTHONPATH")) out = split(pp, ':');
  FILE* p = ::popen("python3 -c 'import sys; print(\"\\n\".join(x for x in sys.path if x))' 2>/dev/null", "r");
  if (!p) return out;
  std::string text;
  char buf[512];
  while (std::fgets(buf, sizeof buf, p)) text += buf;
  ::pclose(p);
  for (const auto& line : split(text, '\n')) add_unique(out, line);
  return out;
}

void* open_first_library(const std::vector<std::string>& candidates, std::string& loaded, std::string& searched) {
  for (const auto& c : candidates) {
    if (void* h = dlopen(c.c_str(), RTLD_NOW | RTLD_GLOBAL)) {
      loaded = c;
      return h;
    }
    const char* e = dlerror();
    std::string err = e ? e : "not loadable";
    if (err.rfind(c + ": ", 0) == 0) err = err.substr(c.size() + 2);  // dlerror repeats the path
    searched += (searched.empty() ? "" : "; ") + c + (c.find('/') == std::string::npos ? " (dynamic loader: " : " (") +
                err + ")";
  }
  return nullptr;
}

}  // namespace roofline
