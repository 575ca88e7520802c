// File output that never leaves half-written files.
#pragma once
#include <string>

namespace roofline {

/// Writes `content` to `path` through `path.tmp.<pid>` + rename. Throws input_error on failure.
void write_file_atomic(const std::string& path, const std::string& content, const std::string& field = "--out");

/// Creates `dir` if needed and checks it is writable; throws input_error(field) otherwise.
void prepare_output_dir(const std::string& dir, const std::string& field = "--out");

/// Checks that `dir` could be written without creating anything: an existing directory that is
/// writable, or a path whose nearest existing ancestor is a writable directory. Throws
/// input_error(field) otherwise. prepare_output_dir creates it later, when there is output.
void check_output_dir(const std::string& dir, const std::string& field = "--out");

/// "DIR/{a,b,c}" for the "wrote …" line: `dir` without its trailing slashes ("cmp/" gives
/// "cmp/{…}", not "cmp//{…}"), `files` the comma-separated names.
std::string written_files(const std::string& dir, const std::string& files);

/// Reads a whole file; throws input_error(path, "", "cannot open ...").
std::string read_file(const std::string& path);

}  // namespace roofline
