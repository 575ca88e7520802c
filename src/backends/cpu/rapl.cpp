// RAPL through Linux powercap (rapl.hpp).
#include "backends/cpu/rapl.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "roofline/measure.hpp"

namespace roofline::cpu {

namespace {

namespace fs = std::filesystem;

/// The first line of a sysfs file, nullopt when it cannot be opened (errno kept for the caller).
std::optional<std::string> read_line(const fs::path& p) {
  errno = 0;
  std::ifstream in(p);
  if (!in) return std::nullopt;
  std::string s;
  std::getline(in, s);
  if (!in && !in.eof()) return std::nullopt;
  return s;
}

std::optional<std::uint64_t> read_u64(const fs::path& p) {
  const auto s = read_line(p);
  if (!s || s->empty()) return std::nullopt;
  try {
    std::size_t used = 0;
    const unsigned long long v = std::stoull(*s, &used);
    if (used != s->size()) return std::nullopt;
    return static_cast<std::uint64_t>(v);
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

/// "intel-rapl:0" → top level; "intel-rapl:0:1" → a subdomain.
bool is_top_level(const std::string& name) { return std::count(name.begin(), name.end(), ':') == 1; }

}  // namespace

rapl_meter::rapl_meter(const std::string& root) {
  std::error_code ec;
  std::vector<fs::path> tops;
  if (fs::is_directory(root, ec))
    for (const auto& e : fs::directory_iterator(root, ec)) {
      const std::string n = e.path().filename().string();
      if (n.rfind("intel-rapl:", 0) == 0 && is_top_level(n)) tops.push_back(e.path());
    }
  std::sort(tops.begin(), tops.end());
  if (tops.empty()) {
    why_ = fmt::format("not available (no {}/intel-rapl:* domain: no RAPL powercap driver in this kernel or VM)", root);
    return;
  }
  std::vector<rapl_domain> found;
  for (const auto& t : tops) {
    const auto name = read_line(t / "name");
    if (!name || name->rfind("package", 0) != 0) continue;  // psys: the platform, would count the package twice
    found.push_back({t.string(), *name, read_u64(t / "max_energy_range_uj").value_or(0)});
    for (const auto& e : fs::directory_iterator(t, ec)) {
      const std::string n = e.path().filename().string();
      if (n.rfind(t.filename().string() + ":", 0) != 0) continue;
      const auto sub = read_line(e.path() / "name");
      if (sub && *sub == "dram")
        found.push_back({e.path().string(), "dram", read_u64(e.path() / "max_energy_range_uj").value_or(0)});
    }
  }
  if (found.empty()) {
    why_ = fmt::format("not available (no package domain under {}/intel-rapl:*)", root);
    return;
  }
  for (const auto& d : found) {
    const fs::path f = fs::path(d.dir) / "energy_uj";
    if (!read_u64(f)) {
      const int err = errno;
      why_ = fmt::format("not available ({}: {}{})", f.string(), err ? std::strerror(err) : "unreadable",
                         err == EACCES ? "; energy_uj is readable by root only since Linux 5.10 (CVE-2020-8694)" : "");
      return;
    }
  }
  domains_ = std::move(found);
}

const rapl_meter& rapl_meter::system() {
  static const rapl_meter m;
  return m;
}

energy_mark rapl_meter::mark() const {
  energy_mark m;
  m.t_s = now_s();
  for (const auto& d : domains_) {
    const auto v = read_u64(fs::path(d.dir) / "energy_uj");
    if (!v) {
      m.raw.clear();
      return m;
    }
    m.raw.push_back(*v);
  }
  return m;
}

energy_window rapl_meter::between(const energy_mark& a, const energy_mark& b) const {
  energy_window w;
  w.window_s = b.t_s - a.t_s;
  std::string names;
  for (const auto& d : domains_) names += (names.empty() ? "" : " + ") + d.name;
  w.source = "RAPL energy_uj (µJ) of " + (names.empty() ? std::string("no domain") : names) +
             ", read before and after the window";
  if (!available()) {
    w.note = why_;
    return w;
  }
  if (a.raw.size() != domains_.size() || b.raw.size() != domains_.size()) {
    w.note = "not available (a RAPL counter was unreadable at one end of the window)";
    return w;
  }
  double uj = 0;
  for (std::size_t i = 0; i < domains_.size(); ++i)
    uj += static_cast<double>(counter_delta(a.raw[i], b.raw[i], domains_[i].range_uj));
  w.counter_j = uj / 1e6;
  w.note = "integrated power: not available (a CPU has no power sampler; RAPL's counter is the one reading)";
  return w;
}

std::optional<double> rapl_meter::power_limit_w() const {
  double w = 0;
  bool any = false;
  for (const auto& d : domains_) {
    if (d.name.rfind("package", 0) != 0) continue;
    const auto uw = read_u64(fs::path(d.dir) / "constraint_0_power_limit_uw");
    if (!uw) return std::nullopt;
    w += static_cast<double>(*uw) / 1e6, any = true;
  }
  return any ? std::optional<double>(w) : std::nullopt;
}

}  // namespace roofline::cpu
