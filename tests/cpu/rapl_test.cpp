// RAPL through powercap (src/backends/cpu/rapl.cpp) on a sysfs tree written by the test: which
// domains are counted, the counter's wrap, and "not available (<reason>)" without one.
// Layout and units: Linux Documentation/power/powercap/powercap.rst (energy_uj in µJ,
// max_energy_range_uj the counter's range; intel-rapl:N package domains with subdomains
// intel-rapl:N:M named core, uncore or dram; psys a platform domain of its own).
#include "backends/cpu/rapl.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

namespace roofline::cpu {
namespace {

namespace fs = std::filesystem;

void put(const fs::path& p, const std::string& text) {
  fs::create_directories(p.parent_path());
  std::ofstream(p) << text << "\n";
}

struct fake_powercap {
  fs::path root;
  fake_powercap() {
    root = fs::temp_directory_path() /
           ("roofline-rapl-" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(root);
    // package 0 with core (inside the package: not added) and dram (outside it: added) subdomains
    domain("intel-rapl:0", "package-0", 1000);
    domain("intel-rapl:0/intel-rapl:0:0", "core", 700);
    domain("intel-rapl:0/intel-rapl:0:1", "dram", 50);
    domain("intel-rapl:1", "psys", 99999);  // the platform: would count the package twice
  }
  ~fake_powercap() { fs::remove_all(root); }
  void domain(const std::string& dir, const std::string& name, std::uint64_t uj) {
    put(root / dir / "name", name);
    put(root / dir / "energy_uj", std::to_string(uj));
    put(root / dir / "max_energy_range_uj", "262143328850");
  }
  void set(const std::string& dir, std::uint64_t uj) { put(root / dir / "energy_uj", std::to_string(uj)); }
};

TEST(Rapl, CountsPackageAndDramOnceAndUndoesTheWrap) {
  fake_powercap f;
  const rapl_meter m(f.root.string());
  ASSERT_TRUE(m.available()) << m.why();
  ASSERT_EQ(m.domains().size(), 2u);
  EXPECT_EQ(m.domains()[0].name, "package-0");
  EXPECT_EQ(m.domains()[1].name, "dram");
  EXPECT_EQ(m.domains()[0].range_uj, 262143328850u);
  energy_mark a = m.mark();
  ASSERT_EQ(a.raw.size(), 2u);
  a.raw[0] = 262143328850ull - 2000000;               // the package counter 2 J below its top
  f.set("intel-rapl:0", 3000000);                     // wrapped: 2 J + 3 J
  f.set("intel-rapl:0/intel-rapl:0:1", 50 + 500000);  // DRAM: 0.5 J
  f.set("intel-rapl:0/intel-rapl:0:0", 9999999);      // core: inside the package, not added
  energy_mark b = m.mark();
  b.t_s = a.t_s + 0.5;
  const energy_window w = m.between(a, b);
  ASSERT_TRUE(w.counter_j) << w.note;
  EXPECT_DOUBLE_EQ(*w.counter_j, 5.5);
  EXPECT_DOUBLE_EQ(w.window_s, 0.5);
  EXPECT_NE(w.source.find("package-0 + dram"), std::string::npos) << w.source;
  EXPECT_FALSE(w.integrated_j);
}

TEST(Rapl, NotAvailableSaysWhy) {
  const rapl_meter none("/nonexistent-powercap-root");
  EXPECT_FALSE(none.available());
  EXPECT_EQ(none.why().rfind("not available (no /nonexistent-powercap-root/intel-rapl:* domain", 0), 0u) << none.why();
  const energy_window w = none.between(none.mark(), none.mark());
  EXPECT_FALSE(w.counter_j);
  EXPECT_EQ(w.note, none.why());
  fake_powercap f;
  fs::remove(f.root / "intel-rapl:0" / "energy_uj");  // the package counter is gone (as if unreadable)
  const rapl_meter broken(f.root.string());
  EXPECT_FALSE(broken.available());
  EXPECT_NE(broken.why().find("intel-rapl:0/energy_uj"), std::string::npos) << broken.why();
}

TEST(Rapl, PowerLimitIsThePackagesLongTermConstraint) {
  fake_powercap f;
  put(f.root / "intel-rapl:0" / "constraint_0_power_limit_uw", "205000000");
  EXPECT_DOUBLE_EQ(*rapl_meter(f.root.string()).power_limit_w(), 205.0);
}

}  // namespace
}  // namespace roofline::cpu
