#include "roofline/interference.hpp"

#include <algorithm>

#include "roofline/units.hpp"

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <fstream>
#include <sstream>
#include <fmt/format.h>

#include "roofline/measure.hpp"

namespace roofline {

namespace {

std::string slurp(const char* path) {
  std::ifstream f(path);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

}  // namespace

bool parse_proc_stat(const std::string& text, cpu_accounting& a) {
  std::istringstream in(text);
  std::string line;
  bool found = false;
  int cpus = 0;
  while (std::getline(in, line)) {
    if (line.rfind("cpu ", 0) == 0) {
      // cpu user nice system idle iowait irq softirq steal [guest guest_nice] (proc(5));
      // guest time is already inside user, so it is not added again.
      std::istringstream f(line.substr(4));
      double v[8] = {0};
      int n = 0;
      while (n < 8 && (f >> v[n])) ++n;
      if (n < 8) return false;
      a.busy_ticks = v[0] + v[1] + v[2] + v[5] + v[6];
      a.steal_ticks = v[7];
      found = true;
    } else if (line.rfind("cpu", 0) == 0 && line.size() > 3 && std::isdigit(static_cast<unsigned char>(line[3]))) {
      ++cpus;
    }
  }
  a.cpus = cpus > 0 ? cpus : 1;
  return found;
}

std::optional<double> parse_self_stat_ticks(const std::string& line) {
  const auto close = line.rfind(')');
  if (close == std::string::npos) return std::nullopt;
  std::istringstream f(line.substr(close + 1));
  std::string field;
  // After ')' come fields 3 (state) … ; utime is field 14, stime field 15.
  double utime = 0, stime = 0;
  for (int i = 3; i <= 15; ++i) {
    if (!(f >> field)) return std::nullopt;
    try {
      if (i == 14) utime = std::stod(field);
      if (i == 15) stime = std::stod(field);
    } catch (...) {
      return std::nullopt;
    }
  }
  return utime + stime;
}

cpu_accounting read_cpu_accounting() {
  cpu_accounting a;
  a.wall_s = now_s();
  const long hz = ::sysconf(_SC_CLK_TCK);
  a.ticks_per_s = hz > 0 ? static_cast<double>(hz) : 100.0;
  if (!parse_proc_stat(slurp("/proc/stat"), a)) return a;
  const auto self = parse_self_stat_ticks(slurp("/proc/self/stat"));
  if (!self) return a;
  a.self_ticks = *self;
  a.valid = true;
  return a;
}

interference_sample interference_between(const cpu_accounting& a, const cpu_accounting& b) {
  interference_sample s;
  s.wall_s = b.wall_s - a.wall_s;
  if (!a.valid || !b.valid || !(s.wall_s > 0)) return s;
  const double capacity = s.wall_s * a.ticks_per_s * a.cpus;  // ticks the machine had
  const double other = (b.busy_ticks - a.busy_ticks) - (b.self_ticks - a.self_ticks);
  s.other_cpu_fraction = std::clamp(other / capacity, 0.0, 1.0);
  s.steal_fraction = std::clamp((b.steal_ticks - a.steal_ticks) / capacity, 0.0, 1.0);
  return s;
}

std::vector<std::string> other_device_processes(const std::vector<device_process>& seen, unsigned self_pid) {
  auto label = [](const device_process& d) {
    std::string what = d.name.empty() ? std::string() : d.name;
    if (d.memory_bytes > 0) what += (what.empty() ? "" : ", ") + units::bytes_binary(d.memory_bytes);
    return fmt::format("pid {}{}", d.pid, what.empty() ? "" : " (" + what + ")");
  };
  std::vector<std::string> out;
  const bool self_listed = std::any_of(seen.begin(), seen.end(), [&](const device_process& d) { return d.pid == self_pid; });
  if (self_listed) {
    for (const auto& d : seen)
      if (d.pid != self_pid) out.push_back(label(d));
    return out;
  }
  if (seen.size() <= 1) return out;  // the one entry is this process, seen from outside its namespace
  std::string pids;
  for (const auto& d : seen) pids += (pids.empty() ? "" : ", ") + std::to_string(d.pid);
  out.push_back(fmt::format("{} other process(es) (PIDs from another PID namespace: {})", seen.size() - 1, pids));
  return out;
}

bool disturbed(const interference_sample& s, const interference_policy& p) {
  if (!s.device_processes.empty()) return true;
  if (s.wall_s < p.min_wall_s) return false;
  return s.other_cpu_fraction > p.other_cpu || s.steal_fraction > p.steal;
}

std::string describe_interference(const interference_sample& s) {
  std::string out = fmt::format("other processes used {:.0f} % of the CPU time, steal {:.0f} %, over {:.2f} s",
                                100 * s.other_cpu_fraction, 100 * s.steal_fraction, s.wall_s);
  if (!s.device_processes.empty()) {
    out += "; other processes on the device:";
    for (const auto& d : s.device_processes) out += " " + d;
  }
  return out;
}

std::string kept_out_timings(int ops, int steps) {
  const std::string o = ops > 0 ? fmt::format("{} op timing(s)", ops) : "", w = steps > 0 ? fmt::format("{} whole step(s)", steps) : "";
  return o.empty() ? w : w.empty() ? o : o + " and " + w;
}

int busy_probes(const interference_report& r) {
  int n = 0;
  for (const auto& s : r.probes) n += s.verdict.find("machine busy") != std::string::npos;
  return n;
}

bool busy_verdict(const interference_report& r) {
  return busy_probes(r) > 0 || r.before.verdict == "busy" || r.ops_kept_out > 0 || r.steps_kept_out > 0;
}

std::string summarize_interference(const interference_report& r, bool cpu_judged) {
  if (busy_verdict(r)) {
    std::string s = "the machine was busy";
    const char* sep = ": ";
    if (busy_probes(r) > 0 || r.unreliable_results > 0) {
      s += fmt::format("{}{} of {} probe(s) stayed disturbed after a re-run, {} result(s) kept out of the roofs", sep, busy_probes(r),
                       r.probes.size(), r.unreliable_results);
      sep = "; ";
    }
    if (r.ops_kept_out > 0 || r.steps_kept_out > 0) {
      s += fmt::format("{}{} taken while it was busy kept out", sep, kept_out_timings(r.ops_kept_out, r.steps_kept_out));
      sep = "; ";
    }
    if (r.before.verdict == "busy") s += std::string(sep) + "before measuring, " + describe_interference(r.before);
    return s;
  }
  if (r.unreliable_results > 0)
    return fmt::format("{} result(s) kept out of the roofs: their repeats disagreed twice", r.unreliable_results);
  return cpu_judged ? "the machine was quiet: no probe was disturbed" : "no result was unreliable";
}

bool keep_out_timing(std::optional<double>& measured, std::optional<double>& disturbed, std::string& note,
                     const interference_sample& s) {
  if (!measured) return false;
  disturbed = measured;
  measured.reset();
  note = fmt::format("kept out: timed at {} while the machine was busy ({}){}", units::seconds(*disturbed),
                     describe_interference(s), note.empty() ? "" : "; " + note);
  return true;
}

}  // namespace roofline
