// Error types. The library throws; only main() turns these into exit codes:
//   input_error -> exit 2 (bad input: one line naming the field and the file, nothing written)
//   probe_error -> recorded in results.errors; the run goes on and finally exits 1.
#pragma once
#include <stdexcept>
#include <string>

namespace roofline {

/// Bad user input. `what()` is the full one-line message: "<file>: <field>: <problem>".
class input_error : public std::runtime_error {
 public:
  input_error(std::string file, std::string field, const std::string& problem)
      : std::runtime_error(compose(file, field, problem)), file_(std::move(file)), field_(std::move(field)) {}
  const std::string& file() const { return file_; }
  const std::string& field() const { return field_; }

 private:
  static std::string compose(const std::string& file, const std::string& field, const std::string& problem) {
    std::string s;
    if (!file.empty()) s += file + ": ";
    if (!field.empty()) s += field + ": ";
    return s + problem;
  }
  std::string file_, field_;
};

/// A measurement that failed (verification, a CUDA error, an unsupported feature at run time).
class probe_error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// The device context is gone (e.g. a sticky CUDA error): no further probe on it can run.
class device_lost_error : public probe_error {
 public:
  using probe_error::probe_error;
};

}  // namespace roofline
