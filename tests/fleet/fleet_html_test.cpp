// fleet.html and its two figures on fixed numbers: every rank's roofs on one roofline, and the
// collectives' time against bytes with their communication roofs.
#include <gtest/gtest.h>

#include "markup_check.hpp"
#include "roofline/fleet.hpp"
#include "roofline/results.hpp"

using namespace roofline;
using namespace roofline::fleet;

namespace {

std::size_t count(const std::string& text, const std::string& needle) {
  std::size_t n = 0;
  for (auto p = text.find(needle); p != std::string::npos; p = text.find(needle, p + needle.size())) ++n;
  return n;
}

results gpu_fixture() { return load_results(std::string(ROOFLINE_TEST_DATA) + "/results-gpu.json"); }

/// Two H200 ranks: all-reduce 8 B in 10 µs and 512 MiB in 1.7263 ms (busbw 311.0 GB/s on 2 ranks,
/// factor 1); send/recv 0→1 of 8 B in 8 µs and 512 MiB in 1.4 ms (383.5 GB/s).
fleet_report two_rank_report(const std::vector<results>& per_rank) {
  fleet_report f = build_report(per_rank, 0.05);
  auto& ic = f.interconnect;
  ic.status = "measured";
  ic.ranks = 2;
  ic.library = "NCCL 2.28.9 (libnccl.so.2)";
  ic.nominal.bytes_per_s = 450e9;
  ic.nominal.formula = "18 NVLink links × 25 GB/s per link per direction";
  auto add = [&](collective c, std::int64_t bytes, double t, int src, int dst) {
    collective_point p;
    p.op = c;
    p.bytes = bytes;
    p.seconds = p.best_seconds = t;
    p.algbw = algbw(static_cast<double>(bytes), t);
    p.busbw = p.best_busbw = busbw(c, static_cast<double>(bytes), t, 2);
    p.src = src;
    p.dst = dst;
    ic.points.push_back(p);
  };
  add(collective::all_reduce, 8, 10e-6, -1, -1);
  add(collective::all_reduce, 536870912, 536870912 / 311e9, -1, -1);
  add(collective::send_recv, 8, 8e-6, 0, 1);
  add(collective::send_recv, 536870912, 1.4e-3, 0, 1);
  ic.roofs = communication_roofs(ic.points);
  return f;
}

}  // namespace

TEST(FleetHtml, RooflineDrawsOneSeriesPerRank) {
  const std::vector<results> per_rank = {gpu_fixture(), gpu_fixture()};
  const fleet_report f = two_rank_report(per_rank);
  const std::string svg = render_fleet_roofline_svg(f, per_rank);
  // each rank's roofs carry its own class prefix and legend label; the same fixture twice draws twice the roofs
  EXPECT_GT(count(svg, "dev0-roof-"), 0u);
  EXPECT_EQ(count(svg, "class=\"roof memory measured dev0-roof-level-dram\""), 1u);
  EXPECT_EQ(count(svg, "class=\"roof memory measured dev1-roof-level-dram\""), 1u);
  EXPECT_EQ(count(svg, "dev0-roof-"), count(svg, "dev1-roof-"));
  EXPECT_EQ(svg.find("dev2-"), std::string::npos);
  EXPECT_NE(svg.find(">rank 0: fp16 measured"), std::string::npos);
  EXPECT_NE(svg.find(">rank 1: fp16 measured"), std::string::npos);
  EXPECT_NE(svg.find("stroke=\"#1f4fa8\""), std::string::npos);  // rank 0 blue
  EXPECT_NE(svg.find("stroke=\"#d35400\""), std::string::npos);  // rank 1 orange
}

TEST(FleetHtml, CollectiveTimeAgainstBytesWithTheFittedRoof) {
  const fleet_report f = two_rank_report({gpu_fixture(), gpu_fixture()});
  const std::string svg = render_collectives_svg(f);
  EXPECT_EQ(count(svg, "class=\"coll-point coll-0-pt\""), 2u);  // all-reduce: 2 sizes
  EXPECT_EQ(count(svg, "class=\"coll-point coll-1-pt\""), 2u);  // send/recv 0→1
  EXPECT_EQ(count(svg, "<path class=\"coll-fit coll-0-fit\""), 1u);
  EXPECT_EQ(count(svg, "<path class=\"coll-fit coll-1-fit\""), 1u);
  // the fit: latency of the smallest message + S × factor ÷ best busbw
  EXPECT_NE(svg.find(">all_reduce: 10.0 µs + S × 1 ÷ 311 GB/s<"), std::string::npos) << svg.substr(svg.find("Legend"), 2000);
  EXPECT_NE(svg.find(">send_recv 0→1: 8.00 µs + S × 1 ÷ 383 GB/s<"), std::string::npos);
  EXPECT_NE(svg.find("<title>all_reduce 512 MiB: 1.73 ms (algbw 311 GB/s, busbw 311 GB/s)</title>"), std::string::npos);
  EXPECT_NE(svg.find(">message size S (bytes, log scale)<"), std::string::npos);
  EXPECT_NE(svg.find(">time per call (s, log scale)<"), std::string::npos);
  EXPECT_EQ(svg.find("FLOP"), std::string::npos);  // no roofline axis left over
  fleet_report none;
  EXPECT_EQ(render_collectives_svg(none), "");  // not measured: no chart
}

TEST(FleetHtml, PageHoldsBothFiguresAndTheTablesAndParses) {
  const std::vector<results> per_rank = {gpu_fixture(), gpu_fixture()};
  const fleet_report f = two_rank_report(per_rank);
  const std::string html = render_fleet_html(f, per_rank);
  EXPECT_EQ(html.rfind("<!DOCTYPE html>", 0), 0u);
  EXPECT_EQ(count(html, "<svg "), 2u);
  EXPECT_NE(html.find("<section id=\"interconnect\">"), std::string::npos);
  EXPECT_NE(html.find("send_recv 0→1"), std::string::npos);
  EXPECT_LT(html.find("<section id=\"devices\">"), html.find("<figure>"));  // the figures follow the devices table
  EXPECT_EQ(html.find("https://"), std::string::npos);  // self-contained
  if (!test::have_xmllint()) GTEST_SKIP() << "xmllint not installed (apt package libxml2-utils)";
  EXPECT_EQ(test::html_problems(html), "");
  EXPECT_NE(test::html_problems("<html><body><p>x</b></body></html>"), "");  // the check can fail
}
