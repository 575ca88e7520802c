// The text of a run's progress line on stderr (roofline/report.hpp, render_progress_line); the
// meter that decides what to show is src/run/progress.cpp.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "roofline/report.hpp"

namespace roofline {

namespace {

/// A wall-clock duration rounded to the second: "42 s", "3 min 07 s", "1 h 05 min".
std::string duration(double s) {
  const long t = std::lround(std::max(0.0, s));
  if (t < 60) return fmt::format("{} s", t);
  if (t < 3600) return fmt::format("{} min {:02} s", t / 60, t % 60);
  return fmt::format("{} h {:02} min", t / 3600, (t % 3600) / 60);
}

}  // namespace

std::string render_progress_line(double fraction, std::optional<double> took_s, std::optional<double> eta_s,
                                 const std::string& what) {
  std::string eta;
  if (took_s)
    eta = " · took " + duration(*took_s);
  else if (eta_s)
    eta = " · ETA " + duration(*eta_s);
  return fmt::format("[roofline {:3.0f}%{}] {}", 100.0 * fraction, eta, what);
}

}  // namespace roofline
