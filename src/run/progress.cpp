#include "run/progress.hpp"

#include <algorithm>
#include <cmath>
#include <optional>

#include "roofline/report.hpp"

namespace roofline::job {

namespace {

/// `s` cut to `n` glyphs (a transient terminal line only; never the summary or a report).
std::string fit(const std::string& s, std::size_t n) {
  std::string o;
  std::size_t g = 0;
  for (std::size_t i = 0; i < s.size(); ++i) {
    const bool lead = (static_cast<unsigned char>(s[i]) & 0xC0) != 0x80;
    if (lead && ++g > n) break;
    o += s[i];
  }
  return o;
}

}  // namespace

progress_meter::progress_meter(bool tty, std::function<double()> now_s, std::size_t columns)
    : tty_(tty), now_(std::move(now_s)), columns_(std::max<std::size_t>(columns, 40)) {
  start_ = now_();
}

std::string progress_meter::update(const std::string& what, double fraction) {
  if (std::isfinite(fraction)) shown_ = std::max(shown_, std::clamp(fraction, 0.0, 1.0));
  const double elapsed = now_() - start_;
  std::optional<double> took, eta;
  if (shown_ >= 1.0) took = elapsed;
  else if (shown_ >= 0.05 && elapsed >= 2) eta = elapsed * (1 - shown_) / shown_;
  const std::string line = render_progress_line(shown_, took, eta, what);
  if (!tty_) return line + "\n";
  open_ = shown_ < 1.0;
  return "\r\033[K" + fit(line, columns_ - 1) + (open_ ? "" : "\n");
}

std::string progress_meter::finish() {
  if (!tty_ || !open_) return "";
  open_ = false;
  return "\n";
}

}  // namespace roofline::job
