// Interference: what else the machine does while roofline measures. A probe that shares the CPUs
// with other processes, or whose VM loses time to the hypervisor (steal), measures the share it
// got, not the machine. Read from Linux's CPU accounting: /proc/stat (machine-wide busy and steal
// ticks; proc(5)) against /proc/self/stat (this process's user + system ticks, fields 14 and 15).
// Methodology: docs/methodology.md §"Interference".
#pragma once
#include <optional>
#include <string>

#include "roofline/measure.hpp"
#include "roofline/results.hpp"

namespace roofline {

/// Cumulative CPU accounting at one instant. Ticks are USER_HZ (sysconf(_SC_CLK_TCK)).
struct cpu_accounting {
  bool valid = false;    ///< false where /proc is not readable (then nothing is judged)
  double wall_s = 0;     ///< monotonic clock
  double busy_ticks = 0; ///< user + nice + system + irq + softirq, all CPUs
  double steal_ticks = 0;
  double self_ticks = 0; ///< this process, every thread: utime + stime
  double ticks_per_s = 100;
  int cpus = 1;          ///< logical CPUs counted in /proc/stat
};

/// Reads /proc/stat and /proc/self/stat now.
cpu_accounting read_cpu_accounting();

/// Parses /proc/stat's text into `a` (busy, steal, cpus); false when the "cpu " line is missing or short.
bool parse_proc_stat(const std::string& text, cpu_accounting& a);
/// utime + stime (fields 14 and 15) of a /proc/<pid>/stat line; nullopt when malformed. The
/// command name (field 2) may contain spaces and parentheses: fields are counted after the last ')'.
std::optional<double> parse_self_stat_ticks(const std::string& line);

/// The interference between two readings: other processes' CPU share and steal share of the
/// machine's CPU time over the interval. Both 0 when either reading is invalid or the interval
/// is empty.
interference_sample interference_between(const cpu_accounting& a, const cpu_accounting& b);

/// When a measurement counts as disturbed, and how noisy repeats may be.
struct interference_policy {
  double other_cpu = 0.10;  ///< other processes used more than this share of the machine's CPU time
  double steal = 0.05;      ///< the hypervisor took more than this share
  double spread = noisy_spread;  ///< IQR / median of a row's repeat times above this: repeats disagree
  double min_wall_s = 0.1;  ///< judging window: a shorter probe is judged over this much (tick: 10 ms)
};

/// A process NVML (or another device driver) reports holding the device.
struct device_process {
  unsigned pid = 0;
  double memory_bytes = 0;  ///< device memory it holds; 0 when not reported
  std::string name;         ///< executable, "" when not readable
};
/// The processes in `seen` other than this one (`self_pid`), as "pid 1234 (python3, 12.0 GiB)".
/// This process holds a context on the device, so it is one of `seen`; when no entry has
/// `self_pid` (NVML reports host PIDs, this process runs in a container's PID namespace), one entry
/// is ours and which one is unknowable: the others are then counted, "2 other process(es) (PIDs
/// from another PID namespace: 811, 812, 9001)", and none when `seen` has one entry.
std::vector<std::string> other_device_processes(const std::vector<device_process>& seen, unsigned self_pid);

/// True when `s` shows other work above the policy's bounds (and the interval is long enough), or
/// another process on the device (any share of a GPU disturbs a roof).
bool disturbed(const interference_sample& s, const interference_policy& p = {});

/// "other processes used 48 % of the CPU time, steal 0 %" — the words used everywhere.
std::string describe_interference(const interference_sample& s);

/// The one line of results.interference.summary, from the report's numbers: busy ("the machine was
/// busy: 3 of 14 probe(s) stayed disturbed after a re-run, 9 result(s) kept out of the roofs; 40 op
/// timing(s) and 2 whole step(s) kept out; before measuring, other processes used …"), else the
/// results whose repeats disagreed, else quiet (`cpu_judged`: "the machine was quiet: no probe was
/// disturbed"; a GPU whose processes were watched: "no result was unreliable"). Sets nothing: the
/// caller stores it (and r.busy: busy_verdict).
std::string summarize_interference(const interference_report& r, bool cpu_judged);
/// "46 op timing(s) and 4 whole step(s)", "46 op timing(s)", "4 whole step(s)": the timings kept out,
/// a count of zero left out ("" when both are).
std::string kept_out_timings(int ops, int steps);
/// The probes of `r` that stayed disturbed after their re-run (verdict "unreliable: machine busy …").
int busy_probes(const interference_report& r);
/// True when the report shows a busy machine: the idle check before measuring found it busy, a probe
/// stayed disturbed after its re-run, or an op or whole-step timing was kept out.
bool busy_verdict(const interference_report& r);

/// Moves a timing taken while the machine was busy out of `measured` into `disturbed` and says so at
/// the front of `note` ("kept out: timed at 7.96 ms while the machine was busy (other processes used
/// 85 % of the CPU time, steal 0 %, over 0.21 s)", the old note after "; "). Nothing when `measured`
/// is empty (a timing that failed or was not run stays as it is). True when a time was kept out.
bool keep_out_timing(std::optional<double>& measured, std::optional<double>& disturbed, std::string& note,
                     const interference_sample& s);

}  // namespace roofline
