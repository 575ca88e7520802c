// The CPU fleet, end to end: `mpirun -np 2 roofline run --device cpu --quick --out DIR` on this
// machine (two ranks on one host), then the fleet report is checked. Skipped only when mpirun is
// absent (or roofline was built without MPI, so a fleet cannot run).
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <set>
#include <string>

#include "common/run_binary.hpp"
#include "markup_check.hpp"
#include "roofline/fleet.hpp"
#include "roofline/io.hpp"
#include "roofline/json.hpp"
#include "roofline/results.hpp"

namespace fs = std::filesystem;
using namespace roofline;

namespace {

/// Runs `mpirun -np 2 roofline <args>` (allowed as root, oversubscribed: 2 ranks may share 1 core);
/// its stdout then stderr go to the file `log`; returns the exit code.
int mpirun2(const std::string& args, const std::string& log) {
  const auto r = test::run_command(
      "OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1 "
      "mpirun --allow-run-as-root --oversubscribe -np 2 " +
      std::string(ROOFLINE_BINARY) + " " + args);
  write_file_atomic(log, r.all());
  return r.code;
}

fs::path fresh(const std::string& name) {
  const fs::path d = fs::temp_directory_path() / ("roofline_fleet_" + name + "_" + std::to_string(::getpid()));
  fs::remove_all(d);
  return d;
}

#define SKIP_WITHOUT_MPI()                                                             \
  do {                                                                                 \
    if (!test::have_command("mpirun")) GTEST_SKIP() << "mpirun not found (apt package openmpi-bin)";  \
    if (!fleet::built_with_mpi()) GTEST_SKIP() << "roofline built without MPI";        \
  } while (0)

}  // namespace

// One mpirun for every check (each gtest case runs in its own process under CTest).
TEST(CpuFleet, TwoRanksOnThisHostWriteTheFleetReport) {
  SKIP_WITHOUT_MPI();
  const fs::path dir_ = fresh("cpu");
  const std::string log_ = dir_.string() + ".log";
  const int code_ = mpirun2("run --device cpu --quick --out " + dir_.string(), log_);
  auto log = [&] { return fs::exists(log_) ? read_file(log_) : std::string(); };
  ASSERT_TRUE(fs::exists(dir_ / "fleet.json")) << "exit " << code_ << "\n" << log();
  const json fleet_ = json::parse(read_file((dir_ / "fleet.json").string()));
  {
    SCOPED_TRACE("ExitsLikeRunAndWritesTheFleetReport");
    ASSERT_TRUE(code_ == 0 || code_ == 1) << log();
    ASSERT_TRUE(fs::exists(dir_ / "fleet.json")) << log();
    EXPECT_TRUE(fs::exists(dir_ / "fleet.md"));
    // exit 0 exactly when every rank's run is complete
    bool all_complete = true;
    for (const auto& d : fleet_["devices"]) all_complete = all_complete && d["status"] == "complete";
    EXPECT_EQ(code_ == 0, all_complete) << log();
  }
  {
    SCOPED_TRACE("ListsTwoDevicesWithTheirRoofs");
    ASSERT_TRUE(fleet_.is_object()) << log();
    EXPECT_EQ(fleet_["ranks"], 2);
    ASSERT_EQ(fleet_["devices"].size(), 2u);
    for (int r = 0; r < 2; ++r) {
      const json& d = fleet_["devices"][r];
      EXPECT_EQ(d["rank"], r);
      EXPECT_EQ(d["kind"], "cpu");
      EXPECT_FALSE(d["host"].get<std::string>().empty());
      for (const char* roof : {"dram_bytes_per_s", "gemm_flops_per_s"}) {
        ASSERT_TRUE(d.contains(roof)) << roof;
        EXPECT_TRUE(d[roof].is_null() || d[roof].get<double>() > 0) << roof;
      }
      EXPECT_TRUE(d["fma_flops_per_s"].is_object());
      EXPECT_EQ(d["gemm_precision"], "fp32");
    }
  }
  {
    SCOPED_TRACE("SpreadCoversEveryRoofBothRanksMeasured");
    ASSERT_TRUE(fleet_["spread"].is_array());
    std::set<std::string> measured;
    for (const auto& d : fleet_["devices"]) {
      if (d["dram_bytes_per_s"].is_number()) measured.insert("dram bandwidth");
      if (d["gemm_flops_per_s"].is_number()) measured.insert("gemm fp32");
    }
    std::set<std::string> spread;
    for (const auto& s : fleet_["spread"]) {
      spread.insert(s["roof"].get<std::string>());
      const double mn = s["min"], med = s["median"], mx = s["max"];
      EXPECT_LE(mn, med);
      EXPECT_LE(med, mx);
      EXPECT_NEAR(s["spread"].get<double>(), (mx - mn) / med, 1e-9);
    }
    for (const auto& m : measured) EXPECT_TRUE(spread.count(m)) << m;
  }
  {
    SCOPED_TRACE("RankDirectoriesHoldEachRanksOutputsAndNothingElseIsWritten");
    for (const char* r : {"rank-0", "rank-1"}) {
      for (const char* f : {"results.json", "report.md", "roofline.svg", "report.html"})
        EXPECT_TRUE(fs::exists(dir_ / r / f)) << r << "/" << f;
      EXPECT_NO_THROW(load_results((dir_ / r / "results.json").string()));
    }
    std::set<std::string> names;
    for (const auto& e : fs::directory_iterator(dir_)) names.insert(e.path().filename().string());
    EXPECT_EQ(names, (std::set<std::string>{"fleet.html", "fleet.json", "fleet.md", "rank-0", "rank-1"}));
  }
  {
    SCOPED_TRACE("FleetHtmlDrawsEveryRankAndParses");
    ASSERT_TRUE(fs::exists(dir_ / "fleet.html"));
    const std::string html = read_file((dir_ / "fleet.html").string());
    EXPECT_EQ(html.rfind("<!DOCTYPE html>", 0), 0u);
    // one series per rank on the fleet roofline: rank r's roofs carry the class prefix dev<r>- and
    // the label "rank r: "; both CPU ranks measured their DRAM roof
    for (int r = 0; r < 2; ++r) {
      EXPECT_NE(html.find("class=\"roof memory measured dev" + std::to_string(r) + "-roof-level-dram\""), std::string::npos) << r;
      EXPECT_NE(html.find(">rank " + std::to_string(r) + ": "), std::string::npos) << r;
    }
    EXPECT_EQ(html.find("dev2-"), std::string::npos);
    EXPECT_EQ(html.find("coll-fit"), std::string::npos);  // no interconnect measured on CPUs: no collectives chart
    if (test::have_xmllint()) EXPECT_EQ(test::html_problems(html), "");
  }
  {
    SCOPED_TRACE("ProgressLinesSayWhichRank");
    const std::string text = log();
    EXPECT_NE(text.find("[rank 0/2] [roofline"), std::string::npos) << text.substr(0, 2000);
    EXPECT_NE(text.find("[rank 1/2] [roofline"), std::string::npos);
  }
  {
    SCOPED_TRACE("SharedHostIsSaidAndNcclIsNotRun");
    ASSERT_EQ(fleet_["notes"].size(), 1u);  // both ranks on this host: their numbers interfere
    EXPECT_NE(fleet_["notes"][0].get<std::string>().find("interfere"), std::string::npos);
    EXPECT_EQ(fleet_["interconnect"]["status"], "not run");
    EXPECT_NE(fleet_["interconnect"]["reason"].get<std::string>().find("needs ≥ 2 GPUs"), std::string::npos);
    EXPECT_DOUBLE_EQ(fleet_["straggler_threshold"].get<double>(), 0.05);
  }
  fs::remove_all(dir_);
  fs::remove(log_);
}

TEST(CpuFleetInput, BadDeviceExits2OnEveryRankAndWritesNothing) {
  SKIP_WITHOUT_MPI();
  const fs::path d = fresh("bad");
  const std::string log = d.string() + ".log";
  EXPECT_EQ(mpirun2("run --device cuda:99 --quick --out " + d.string(), log), 2);
  EXPECT_FALSE(fs::exists(d));
  EXPECT_NE(read_file(log).find("rank 1: --device"), std::string::npos) << read_file(log);
  fs::remove(log);
}

TEST(CpuFleetInput, StragglerThresholdOutOfRangeExits2) {
  SKIP_WITHOUT_MPI();
  const fs::path d = fresh("thr");
  const std::string log = d.string() + ".log";
  EXPECT_EQ(mpirun2("run --device cpu --quick --straggler-threshold 1.5 --out " + d.string(), log), 2);
  EXPECT_FALSE(fs::exists(d));
  fs::remove(log);
}

// `roofline measure` under mpirun is a fleet run too: the fleet report of the roofs alone (no model,
// so no tensor-parallel plan), every rank's outputs in rank-<r>/.
TEST(CpuFleetMeasure, MeasureWritesTheFleetReportOfTheRoofsAlone) {
  SKIP_WITHOUT_MPI();
  const fs::path d = fresh("measure");
  const std::string log = d.string() + ".log";
  const int code = mpirun2("measure --device cpu --quick --only compute --out " + d.string(), log);
  ASSERT_TRUE(code == 0 || code == 1) << read_file(log);
  ASSERT_TRUE(fs::exists(d / "fleet.json")) << read_file(log);
  const json f = json::parse(read_file((d / "fleet.json").string()));
  EXPECT_EQ(f["ranks"], 2);
  ASSERT_EQ(f["devices"].size(), 2u);
  EXPECT_TRUE(f["tp_allreduce"].empty());
  for (const char* r : {"rank-0", "rank-1"}) {  // each rank measured its FMA roofs (a loaded host may reject them as disturbed)
    const results res = load_results((d / r / "results.json").string());
    EXPECT_FALSE(res.measured.compute.empty()) << r;
    EXPECT_TRUE(res.ops.empty()) << r;  // measure runs no model
  }
  std::set<std::string> names;
  for (const auto& e : fs::directory_iterator(d)) names.insert(e.path().filename().string());
  EXPECT_EQ(names, (std::set<std::string>{"fleet.html", "fleet.json", "fleet.md", "rank-0", "rank-1"}));
  EXPECT_TRUE(fs::exists(d / "rank-1" / "results.json"));
  EXPECT_NE(read_file(log).find("[rank 1/2] "), std::string::npos);
  fs::remove_all(d);
  fs::remove(log);
}
