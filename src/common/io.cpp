#include "roofline/io.hpp"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "roofline/error.hpp"

namespace fs = std::filesystem;

namespace roofline {

void write_file_atomic(const std::string& path, const std::string& content, const std::string& field) {
  const std::string tmp = path + ".tmp." + std::to_string(::getpid());
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) throw input_error(path, field, "cannot open for writing");
    out << content;
    out.flush();
    if (!out) {
      std::error_code ec;
      fs::remove(tmp, ec);
      throw input_error(path, field, "write failed");
    }
  }
  std::error_code ec;
  fs::rename(tmp, path, ec);
  if (ec) {
    fs::remove(tmp, ec);
    throw input_error(path, field, "cannot rename into place: " + ec.message());
  }
}

void prepare_output_dir(const std::string& dir, const std::string& field) {
  std::error_code ec;
  if (fs::exists(dir, ec) && !fs::is_directory(dir, ec))
    throw input_error(dir, field, "exists and is not a directory");
  fs::create_directories(dir, ec);
  if (ec) throw input_error(dir, field, "cannot create directory: " + ec.message());
  if (::access(dir.c_str(), W_OK) != 0) throw input_error(dir, field, "directory is not writable");
}

namespace {
/// Whether an entry can be made in the existing directory `dir`: makes a uniquely named
/// subdirectory and removes it again. access(W_OK) is no test for root, to whom it says yes
/// everywhere, /proc included (where every mkdir then fails).
bool can_create_in(const fs::path& dir) {
  std::string name = (dir / ".roofline-write-check-XXXXXX").string();
  if (::mkdtemp(name.data()) == nullptr) return false;
  ::rmdir(name.c_str());
  return true;
}
}  // namespace

void check_output_dir(const std::string& dir, const std::string& field) {
  std::error_code ec;
  if (dir.empty()) throw input_error(dir, field, "empty directory name");
  fs::path p = fs::absolute(dir, ec);
  if (fs::exists(p, ec)) {
    if (!fs::is_directory(p, ec)) throw input_error(dir, field, "exists and is not a directory");
    if (::access(p.c_str(), W_OK) != 0 || !can_create_in(p)) throw input_error(dir, field, "directory is not writable");
    return;
  }
  for (fs::path a = p.parent_path(); !a.empty(); a = a.parent_path()) {
    if (fs::exists(a, ec)) {
      if (!fs::is_directory(a, ec)) throw input_error(dir, field, a.string() + " exists and is not a directory");
      if (::access(a.c_str(), W_OK) != 0 || !can_create_in(a))
        throw input_error(dir, field, "cannot create it: " + a.string() + " is not writable");
      return;
    }
    if (a == a.parent_path()) break;
  }
  throw input_error(dir, field, "no existing parent directory");
}

std::string written_files(const std::string& dir, const std::string& files) {
  std::string d = dir;
  while (d.size() > 1 && d.back() == '/') d.pop_back();
  return d + "/{" + files + "}";
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw input_error(path, "", "cannot open for reading");
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace roofline
