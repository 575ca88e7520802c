// CSV text (RFC 4180), written and read: one writer for `--csv` outputs, one reader for the kernel lists
// `place --csv` reads (its own format, an Nsight Compute export). Rendering results as CSV is the
// report's (roofline/report.hpp: render_csv, render_ops_csv).
#pragma once
#include <string>
#include <vector>

namespace roofline {

/// `s` as one CSV field: as it is, or quoted (quotes doubled) where it holds a comma, quote or line break.
std::string csv_field(const std::string& s);
/// One CSV line of `fields` (each through csv_field), ending in "\n".
std::string csv_line(const std::vector<std::string>& fields);
/// Parses CSV text into rows of fields (quotes, doubled quotes, CRLF; blank lines skipped). Throws
/// input_error naming `file` on an unterminated quote.
std::vector<std::vector<std::string>> parse_csv(const std::string& text, const std::string& file);

}  // namespace roofline
