// Interference accounting from /proc text (proc(5)), on fixed inputs.
#include <gtest/gtest.h>

#include "roofline/interference.hpp"

using namespace roofline;

namespace {
const char* proc_stat =
    "cpu  1000 10 500 80000 20 30 40 50 0 0\n"
    "cpu0 500 5 250 40000 10 15 20 25 0 0\n"
    "cpu1 500 5 250 40000 10 15 20 25 0 0\n"
    "intr 12345\nctxt 999\nprocs_running 3\n";
}

TEST(Interference, ProcStatGivesBusyStealAndCpus) {
  cpu_accounting a;
  ASSERT_TRUE(parse_proc_stat(proc_stat, a));
  EXPECT_DOUBLE_EQ(a.busy_ticks, 1000 + 10 + 500 + 30 + 40);  // user nice system irq softirq
  EXPECT_DOUBLE_EQ(a.steal_ticks, 50);
  EXPECT_EQ(a.cpus, 2);
  cpu_accounting b;
  EXPECT_FALSE(parse_proc_stat("cpu  1 2 3\n", b));
  EXPECT_FALSE(parse_proc_stat("", b));
}

TEST(Interference, SelfStatCountsFieldsAfterTheCommandName) {
  // A command name with spaces and a parenthesis; utime 250, stime 50.
  const std::string line = "4242 (my (odd) prog) R 1 4242 4242 0 -1 4194560 100 0 0 0 250 50 0 0 20 0 3 0 12345";
  ASSERT_TRUE(parse_self_stat_ticks(line).has_value());
  EXPECT_DOUBLE_EQ(*parse_self_stat_ticks(line), 300);
  EXPECT_FALSE(parse_self_stat_ticks("4242 no-paren R 1").has_value());
  EXPECT_FALSE(parse_self_stat_ticks("4242 (x) R 1 2").has_value());
}

TEST(Interference, OtherProcessesShareIsBusyMinusOwnOverCapacity) {
  cpu_accounting a, b;
  a.valid = b.valid = true;
  a.cpus = b.cpus = 2;
  a.ticks_per_s = b.ticks_per_s = 100;
  a.wall_s = 10, b.wall_s = 11;            // 1 s × 2 CPUs × 100 ticks = 200 ticks of capacity
  a.busy_ticks = 1000, b.busy_ticks = 1180;  // 180 busy ticks ...
  a.self_ticks = 50, b.self_ticks = 130;     // ... 80 of them ours: others used 100 = 50 %
  a.steal_ticks = 7, b.steal_ticks = 27;     // 20 ticks stolen: 10 %
  const interference_sample s = interference_between(a, b);
  EXPECT_DOUBLE_EQ(s.wall_s, 1.0);
  EXPECT_DOUBLE_EQ(s.other_cpu_fraction, 0.5);
  EXPECT_DOUBLE_EQ(s.steal_fraction, 0.1);
  EXPECT_TRUE(disturbed(s));
  interference_sample quiet = s;
  quiet.other_cpu_fraction = 0.02, quiet.steal_fraction = 0.01;
  EXPECT_FALSE(disturbed(quiet));
  interference_sample brief = s;
  brief.wall_s = 0.01;  // one tick: not judged
  EXPECT_FALSE(disturbed(brief));
  b.valid = false;
  EXPECT_DOUBLE_EQ(interference_between(a, b).other_cpu_fraction, 0.0);
}

TEST(Interference, ThisMachineCanBeRead) {
  const cpu_accounting a = read_cpu_accounting();
  if (!a.valid) GTEST_SKIP() << "/proc not readable here";
  EXPECT_GE(a.cpus, 1);
  EXPECT_GT(a.ticks_per_s, 0);
}

TEST(DeviceProcesses, OthersAreNamedOursIsNot) {
  const std::vector<device_process> seen = {{100, 2.0 * (1 << 30), "roofline"}, {4242, 12.0 * (1 << 30), "python3"}, {77, 0, ""}};
  EXPECT_EQ(other_device_processes(seen, 100), (std::vector<std::string>{"pid 4242 (python3, 12.0 GiB)", "pid 77"}));
  EXPECT_TRUE(other_device_processes({{100, 1e9, "roofline"}}, 100).empty());
}

TEST(DeviceProcesses, InAnotherPidNamespaceOneEntryIsOursAndTheRestAreCounted) {
  // NVML reports host PIDs; in a container getpid() is another number: our own entry cannot be named.
  EXPECT_TRUE(other_device_processes({{811, 1e9, ""}}, 12).empty());
  EXPECT_EQ(other_device_processes({{811, 1e9, ""}, {9001, 5e9, ""}}, 12),
            (std::vector<std::string>{"1 other process(es) (PIDs from another PID namespace: 811, 9001)"}));
  EXPECT_TRUE(other_device_processes({}, 12).empty());
}
