// Pure parts of the fleet report, on fixed numbers: bus-bandwidth convention, spread, stragglers,
// device choice, nominal link bandwidth, roof extraction.
#include <gtest/gtest.h>

#include "fleet/nccl_api.hpp"
#include "fleet/nccl_probe.hpp"
#include "roofline/error.hpp"
#include "roofline/fleet.hpp"
#include "roofline/json.hpp"
#include "roofline/spec.hpp"

using namespace roofline;
using namespace roofline::fleet;

namespace {

device_roofs dev(int rank, const std::string& host, double dram, double gemm) {
  device_roofs d;
  d.rank = rank;
  d.host = host;
  d.kind = "cuda";
  d.id = "cuda:" + std::to_string(rank);
  d.dram_bytes_per_s = dram;
  d.dram_pattern = "copy";
  d.gemm_flops_per_s = gemm;
  d.gemm_precision = "fp16";
  return d;
}

/// TinyLlama-1.1B (HF TinyLlama/TinyLlama-1.1B-Chat-v1.0 config.json): hidden 2048, 22 layers.
model_config tinyllama() {
  model_config c;
  c.name = "TinyLlama-1.1B";
  c.family = "llama";
  c.hidden = 2048;
  c.intermediate = 5632;
  c.layers = 22;
  c.heads = 32;
  c.kv_heads = 4;
  c.head_dim = 64;
  c.vocab = 32000;
  return c;
}

}  // namespace

// nccl-tests doc/PERFORMANCE.md: all-reduce 2(n−1)/n, all-gather / reduce-scatter (n−1)/n.
TEST(BusBandwidth, FactorsFollowNcclTests) {
  EXPECT_DOUBLE_EQ(bus_factor(collective::all_reduce, 8), 1.75);
  EXPECT_DOUBLE_EQ(bus_factor(collective::all_gather, 8), 0.875);
  EXPECT_DOUBLE_EQ(bus_factor(collective::reduce_scatter, 8), 0.875);
  EXPECT_DOUBLE_EQ(bus_factor(collective::all_reduce, 2), 1.0);
  EXPECT_DOUBLE_EQ(bus_factor(collective::all_gather, 2), 0.5);
  EXPECT_DOUBLE_EQ(bus_factor(collective::all_reduce, 1), 0.0);
  EXPECT_THROW(bus_factor(collective::all_reduce, 0), std::invalid_argument);
}

TEST(BusBandwidth, OneGibAllReduceOnEightRanks) {
  // 1 GiB in 10 ms: algbw = 107.374 GB/s; busbw = 1.75 × that = 187.905 GB/s.
  EXPECT_DOUBLE_EQ(algbw(1073741824.0, 0.01), 107374182400.0);
  EXPECT_NEAR(busbw(collective::all_reduce, 1073741824.0, 0.01, 8), 187904819200.0, 1.0);
  EXPECT_NEAR(busbw(collective::all_gather, 1073741824.0, 0.01, 8), 93952409600.0, 1.0);
  // and back: the time of that all-reduce predicted from its busbw
  EXPECT_NEAR(predict_collective_s(collective::all_reduce, 1073741824.0, 8, 187904819200.0), 0.01, 1e-12);
}

// All-to-all (n−1)/n as nccl-tests' src/alltoall.cu; broadcast 1 (doc/PERFORMANCE.md "Summary");
// send/recv 1 (src/sendrecv.cu), one direction and both at once alike.
TEST(BusBandwidth, AllToAllBroadcastAndSendRecvFactors) {
  EXPECT_DOUBLE_EQ(bus_factor(collective::all_to_all, 2), 0.5);
  EXPECT_DOUBLE_EQ(bus_factor(collective::all_to_all, 8), 0.875);
  EXPECT_DOUBLE_EQ(bus_factor(collective::broadcast, 8), 1.0);
  EXPECT_DOUBLE_EQ(bus_factor(collective::send_recv, 2), 1.0);
  EXPECT_DOUBLE_EQ(bus_factor(collective::send_recv_bidir, 2), 1.0);
  EXPECT_DOUBLE_EQ(bus_factor(collective::all_to_all, 1), 0.0);
  EXPECT_THROW(bus_factor(collective::broadcast, 0), std::invalid_argument);
  EXPECT_TRUE(is_point_to_point(collective::send_recv));
  EXPECT_TRUE(is_point_to_point(collective::send_recv_bidir));
  EXPECT_FALSE(is_point_to_point(collective::all_to_all));
}

TEST(BusBandwidth, WorkedAllToAllBroadcastSendRecv) {
  // all-to-all over 2 ranks, 512 MiB (one rank's send buffer) in 10 ms:
  // algbw = 536870912 / 0.01 = 53.687 GB/s; busbw = × 1/2 = 26.844 GB/s.
  EXPECT_DOUBLE_EQ(algbw(536870912.0, 0.01), 53687091200.0);
  EXPECT_DOUBLE_EQ(busbw(collective::all_to_all, 536870912.0, 0.01, 2), 26843545600.0);
  // the same on 8 ranks: × 7/8 = 46.976 GB/s
  EXPECT_DOUBLE_EQ(busbw(collective::all_to_all, 536870912.0, 0.01, 8), 46976204800.0);
  // broadcast of 1 GiB in 4 ms on 2 ranks: busbw = algbw = 268.4 GB/s
  EXPECT_DOUBLE_EQ(busbw(collective::broadcast, 1073741824.0, 0.004, 2), 268435456000.0);
  // send/recv of 512 MiB in 1.5 ms: 357.9 GB/s one way, and per direction when both send at once
  EXPECT_NEAR(busbw(collective::send_recv, 536870912.0, 0.0015, 2), 357913941333.3, 1.0);
  EXPECT_NEAR(busbw(collective::send_recv_bidir, 536870912.0, 0.0015, 2), 357913941333.3, 1.0);
  // and back: 512 MiB all-to-all on 2 ranks at 26.84 GB/s busbw after 20 µs of latency
  EXPECT_NEAR(predict_collective_s(collective::all_to_all, 536870912.0, 2, 26843545600.0, 20e-6), 0.01002, 1e-12);
}

TEST(BusBandwidth, SeriesNamesTheSendRecvPair) {
  EXPECT_EQ(series_name(collective::send_recv, 0, 1), "send_recv 0→1");
  EXPECT_EQ(series_name(collective::send_recv, 1, 0), "send_recv 1→0");
  EXPECT_EQ(series_name(collective::send_recv_bidir, 0, 1), "send_recv_bidir 0↔1");
  EXPECT_EQ(series_name(collective::all_to_all, -1, -1), "all_to_all");
  EXPECT_EQ(to_string(collective::broadcast), "broadcast");
}

TEST(BusBandwidth, OneRoofPerSendRecvPairAndDirection) {
  std::vector<collective_point> pts = {
      {collective::send_recv, 8, 8e-6, 7e-6, 0, 0, 1e6, 0, 1},
      {collective::send_recv, 1 << 29, 1.5e-3, 1.4e-3, 0, 0, 383e9, 0, 1},
      {collective::send_recv, 8, 9e-6, 8e-6, 0, 0, 0.9e6, 1, 0},
      {collective::send_recv, 1 << 29, 1.6e-3, 1.5e-3, 0, 0, 357e9, 1, 0},
      {collective::send_recv_bidir, 8, 10e-6, 9e-6, 0, 0, 0.8e6, 0, 1},
  };
  const auto roofs = communication_roofs(pts);
  ASSERT_EQ(roofs.size(), 3u);
  EXPECT_EQ(roofs[0].src, 0);
  EXPECT_EQ(roofs[0].dst, 1);
  EXPECT_DOUBLE_EQ(roofs[0].latency_s, 8e-6);
  EXPECT_DOUBLE_EQ(roofs[0].busbw, 383e9);
  EXPECT_EQ(roofs[1].src, 1);
  EXPECT_DOUBLE_EQ(roofs[1].latency_s, 9e-6);
  EXPECT_DOUBLE_EQ(roofs[1].busbw, 357e9);
  EXPECT_EQ(roofs[2].op, collective::send_recv_bidir);
  // measured ÷ nominal: H200 NVLink 18 × 25 GB/s per direction = 450 GB/s; 383 / 450 = 85.1 %
  link_nominal nv;
  nv.bytes_per_s = 450e9;
  EXPECT_NEAR(*vs_nominal(roofs[0], nv), 383.0 / 450.0, 1e-12);
  EXPECT_FALSE(vs_nominal(roofs[0], link_nominal{}).has_value());
}

TEST(NcclProbe, MessageSizesAndShapes) {
  const auto quick = nccl_message_sizes(true);
  ASSERT_EQ(quick.size(), 14u);  // 8 B × 4^k up to 512 MiB
  EXPECT_EQ(quick.front(), 8);
  EXPECT_EQ(quick.back(), std::int64_t{512} << 20);
  const auto full = nccl_message_sizes(false);
  ASSERT_EQ(full.size(), 28u);  // 8 B × 2^k up to 1 GiB
  EXPECT_EQ(full.back(), std::int64_t{1} << 30);
  // fp16 on 2 ranks: all-reduce of 8 B = 4 elements; all-gather 2 per rank; all-to-all 2 per peer
  EXPECT_EQ(shape_of(collective::all_reduce, 8, 2, 2).count, 4u);
  EXPECT_EQ(shape_of(collective::all_gather, 8, 2, 2).count, 2u);
  EXPECT_EQ(shape_of(collective::all_to_all, 8, 2, 2).count, 2u);
  EXPECT_EQ(shape_of(collective::all_to_all, 8, 2, 2).bytes, 8);
  EXPECT_EQ(shape_of(collective::send_recv, 8, 2, 2).count, 4u);
  EXPECT_EQ(shape_of(collective::broadcast, 8, 8, 2).count, 4u);
  // 8 ranks: 8 B of all-gather is less than one element per rank (skipped); 24 B rounds down to 16 B
  EXPECT_EQ(shape_of(collective::all_gather, 8, 8, 2).count, 0u);
  EXPECT_EQ(shape_of(collective::reduce_scatter, 40, 8, 2).bytes, 32);
}

TEST(NcclProbe, MissingSymbolSkipsThePatternItNeeds) {
  nccl_api api;  // nothing loaded: every optional symbol is missing
  EXPECT_EQ(missing_symbol(api, collective::all_reduce), "");
  EXPECT_EQ(missing_symbol(api, collective::broadcast), "ncclBroadcast");
  EXPECT_EQ(missing_symbol(api, collective::send_recv), "ncclSend");
  EXPECT_EQ(missing_symbol(api, collective::all_to_all), "ncclSend");
  api.Send = [](const void*, std::size_t, int, int, void*, void*) { return 0; };
  EXPECT_EQ(missing_symbol(api, collective::send_recv_bidir), "ncclRecv");
  api.Recv = [](void*, std::size_t, int, int, void*, void*) { return 0; };
  EXPECT_EQ(missing_symbol(api, collective::all_to_all), "ncclGroupStart");
  api.GroupStart = [] { return 0; };
  api.GroupEnd = [] { return 0; };
  EXPECT_EQ(missing_symbol(api, collective::all_to_all), "");
}

TEST(BusBandwidth, CommunicationRoofIsLatencyOfSmallestAndBestBusbw) {
  std::vector<collective_point> pts = {
      {collective::all_reduce, 8192, 20e-6, 18e-6, 0, 0, 0.4e9},
      {collective::all_reduce, 1 << 30, 3.2e-3, 3.1e-3, 0, 0, 346e9},
      {collective::all_reduce, 1 << 20, 40e-6, 35e-6, 0, 0, 30e9},
      {collective::all_gather, 8192, 15e-6, 14e-6, 0, 0, 0.3e9},
  };
  const auto roofs = communication_roofs(pts);
  ASSERT_EQ(roofs.size(), 2u);
  EXPECT_EQ(roofs[0].op, collective::all_reduce);
  EXPECT_DOUBLE_EQ(roofs[0].latency_s, 20e-6);
  EXPECT_DOUBLE_EQ(roofs[0].busbw, 346e9);
  EXPECT_EQ(roofs[0].at_bytes, 1 << 30);
  EXPECT_EQ(roofs[1].op, collective::all_gather);
  EXPECT_DOUBLE_EQ(roofs[1].latency_s, 15e-6);
}

TEST(Stragglers, ThresholdIsStrictlyBelowMedian) {
  EXPECT_TRUE(below_median(0.94, 1.0, 0.05));
  EXPECT_FALSE(below_median(0.96, 1.0, 0.05));
  EXPECT_FALSE(below_median(1.20, 1.0, 0.05));  // above the median is never a straggler
  EXPECT_FALSE(below_median(0.5, 0.0, 0.05));   // no median, no verdict
}

TEST(Stragglers, SpreadAndStragglersOfThreeDevices) {
  // DRAM 100, 98, 90 GB/s: median 98, spread (100 − 90) / 98 = 10.2 %; 90 is 8.16 % below → straggler.
  const std::vector<device_roofs> d = {dev(0, "a", 100e9, 700e12), dev(1, "a", 98e9, 702e12), dev(2, "b", 90e9, 701e12)};
  const auto s = fleet_spread(d);
  ASSERT_EQ(s.size(), 2u);
  EXPECT_EQ(s[0].roof, "dram bandwidth");
  EXPECT_EQ(s[0].stats.n, 3);
  EXPECT_DOUBLE_EQ(s[0].stats.min, 90e9);
  EXPECT_DOUBLE_EQ(s[0].stats.median, 98e9);
  EXPECT_DOUBLE_EQ(s[0].stats.max, 100e9);
  EXPECT_NEAR(s[0].stats.range, 10.0 / 98.0, 1e-12);  // the fleet spread shown: (max − min) / median
  EXPECT_EQ(s[1].roof, "gemm fp16");
  const auto st = find_stragglers(d, 0.05);
  ASSERT_EQ(st.size(), 1u);
  EXPECT_EQ(st[0].rank, 2);
  EXPECT_EQ(st[0].roof, "dram bandwidth");
  EXPECT_NEAR(st[0].shortfall, 8.0 / 98.0, 1e-12);
  EXPECT_TRUE(find_stragglers(d, 0.10).empty());  // 8.2 % is within a 10 % threshold
}

TEST(Stragglers, OneThrottledGpuOfEight) {
  // GEMM TFLOP/s of 8 GPUs; sorted 640 698 699 700 700 701 702 703: median 700; 640 is 8.57 % below.
  const double g[8] = {700, 702, 698, 701, 699, 640, 700, 703};
  std::vector<device_roofs> d;
  for (int i = 0; i < 8; ++i) d.push_back(dev(i, "node1", 4.0e12, g[i] * 1e12));
  const auto st = find_stragglers(d, 0.05);
  ASSERT_EQ(st.size(), 1u);
  EXPECT_EQ(st[0].rank, 5);
  EXPECT_EQ(st[0].roof, "gemm fp16");
  EXPECT_DOUBLE_EQ(st[0].median, 700e12);
  EXPECT_NEAR(st[0].shortfall, 60.0 / 700.0, 1e-12);
}

TEST(Stragglers, OneDeviceHasNoStragglers) {
  EXPECT_TRUE(find_stragglers({dev(0, "a", 1e9, 1e12)}, 0.05).empty());
}

TEST(Launch, DeviceOfEachRank) {
  EXPECT_EQ(resolve_device("auto", 1, 8), "cuda:1");
  EXPECT_EQ(resolve_device("auto", 0, 0), "cpu");
  EXPECT_EQ(resolve_device("auto", 3, 0), "cpu");
  EXPECT_EQ(resolve_device("auto", 3, 1), "cuda:0");  // one GPU visible per rank
  EXPECT_EQ(resolve_device("cpu", 3, 8), "cpu");
  EXPECT_EQ(resolve_device("cuda:2", 0, 8), "cuda:2");
  EXPECT_THROW(resolve_device("auto", 3, 2), input_error);  // 4 ranks on 2 GPUs
}

TEST(NominalLink, NvlinkLinksTimesRatePerDirection) {
  // H100 SXM (H100 whitepaper, "NVLink"): 18 fourth-generation links × 50 GB/s (both directions)
  // = 900 GB/s; busbw is one direction: 18 × 25 = 450 GB/s.
  gpu_link_info e;
  e.pcie_generation = 5, e.pcie_lanes = 16, e.pcie_bytes_per_s = 128e9, e.pcie_source = "datasheet";
  e.nvlink_links = 18, e.nvlink_bytes_per_s_per_link = 50e9, e.nvlink_source = "whitepaper";
  const auto n = nominal_link_from_links(e);
  ASSERT_TRUE(n.bytes_per_s.has_value());
  EXPECT_DOUBLE_EQ(*n.bytes_per_s, 450e9);
  EXPECT_EQ(n.source, "table: whitepaper");
  // L4: PCIe Gen4 x16, 64 GB/s both directions, no NVLink → 32 GB/s per direction.
  gpu_link_info l4;
  l4.pcie_bytes_per_s = 64e9;
  const auto pcie = nominal_link_from_links(l4);
  ASSERT_TRUE(pcie.bytes_per_s.has_value());
  EXPECT_DOUBLE_EQ(*pcie.bytes_per_s, 32e9);
  const auto none = nominal_link_from_links(gpu_link_info{});
  EXPECT_FALSE(none.bytes_per_s.has_value());
  EXPECT_EQ(none.reason.rfind("unknown (", 0), 0u);
  // through the spec module's table and matcher: the H100 SXM row, spelled as `roofline spec` takes it
  const auto table = nominal_link("h100-sxm");
  ASSERT_TRUE(table.bytes_per_s.has_value()) << table.reason;
  EXPECT_DOUBLE_EQ(*table.bytes_per_s, 450e9);
  const auto unknown = nominal_link("no-such-gpu");
  EXPECT_FALSE(unknown.bytes_per_s.has_value());
  EXPECT_EQ(unknown.reason.rfind("unknown (no-such-gpu is not in the device table", 0), 0u) << unknown.reason;
}

TEST(NominalLink, FromTheSpecModulesFactors) {
  nominal_roofs n;
  n.factors = {{"PCIe bandwidth (Gen5 x16, both directions)", 128, "GB/s", "table: datasheet"},
               {"NVLink links", 18, "", "table: whitepaper"},
               {"NVLink bandwidth per link (both directions)", 50, "GB/s", "table: whitepaper"}};
  const auto l = nominal_link_from_factors(n);
  ASSERT_TRUE(l.bytes_per_s.has_value());
  EXPECT_DOUBLE_EQ(*l.bytes_per_s, 450e9);
  n.factors.resize(1);  // a PCIe-only card
  EXPECT_DOUBLE_EQ(*nominal_link_from_factors(n).bytes_per_s, 64e9);
  EXPECT_FALSE(nominal_link_from_factors(nominal_roofs{}).bytes_per_s.has_value());
}

TEST(DeviceRoofs, BestDramPatternGemmOfDefaultPrecisionAndFma) {
  results r;
  r.host.hostname = "node7";
  r.device = {"cpu", "Test CPU", "cpu", json::object()};
  r.roofline.precision = "fp32";
  bandwidth_result b;
  b.level = "dram";
  b.pattern = "read";
  b.bytes_per_s = 90e9;
  r.measured.bandwidth.push_back(b);
  b.pattern = "copy";
  b.bytes_per_s = 100e9;
  r.measured.bandwidth.push_back(b);
  b.level = "llc";
  b.pattern = "read";
  b.bytes_per_s = 500e9;  // a cache level is not the DRAM roof
  r.measured.bandwidth.push_back(b);
  compute_result c;
  c.engine = "gemm";
  c.precision = "fp32";
  c.flops_per_s = 1e12;
  r.measured.compute.push_back(c);
  c.precision = "fp64";
  c.flops_per_s = 0.5e12;
  r.measured.compute.push_back(c);
  c.engine = "vector";
  c.precision = "fp32";
  c.flops_per_s = 1.2e12;
  r.measured.compute.push_back(c);
  const auto d = extract_roofs(r, 3);
  EXPECT_EQ(d.rank, 3);
  EXPECT_EQ(d.host, "node7");
  ASSERT_TRUE(d.dram_bytes_per_s.has_value());
  EXPECT_DOUBLE_EQ(*d.dram_bytes_per_s, 100e9);
  EXPECT_EQ(d.dram_pattern, "copy");
  ASSERT_TRUE(d.gemm_flops_per_s.has_value());
  EXPECT_DOUBLE_EQ(*d.gemm_flops_per_s, 1e12);
  EXPECT_DOUBLE_EQ(d.fma_flops_per_s.at("vector fp32"), 1.2e12);
  EXPECT_FALSE(d.sustained_clock_mhz.has_value());
  EXPECT_FALSE(d.telemetry_note.empty());
  EXPECT_EQ(named_roofs(d).size(), 3u);
}

TEST(Report, SharedHostIsNotedAndStragglerCarriesTelemetry) {
  auto a = dev(0, "node1", 100e9, 700e12), b = dev(1, "node1", 80e9, 700e12);
  b.sustained_clock_mhz = 1410;
  b.power_w = 698;
  b.throttle_reasons = {"sw_power_cap"};
  fleet_report f;
  f.ranks = 2;
  f.devices = {a, b};
  f.spread = fleet_spread(f.devices);
  f.stragglers = find_stragglers(f.devices, 0.05);
  f.notes = shared_host_notes(f.devices);
  ASSERT_EQ(f.notes.size(), 1u);
  EXPECT_NE(f.notes[0].find("interfere"), std::string::npos);
  EXPECT_TRUE(shared_host_notes({dev(0, "a", 1, 1), dev(1, "b", 1, 1)}).empty());
  // two devices: median 90 GB/s; 80 is 11.1 % below it
  ASSERT_EQ(f.stragglers.size(), 1u);
  const json j = to_json(f);
  EXPECT_EQ(j["devices"].size(), 2u);
  EXPECT_EQ(j["stragglers"][0]["rank"], 1);
  EXPECT_EQ(j["stragglers"][0]["telemetry"]["throttle_reasons"][0], "sw_power_cap");
  EXPECT_DOUBLE_EQ(j["stragglers"][0]["telemetry"]["sustained_clock_mhz"].get<double>(), 1410);
  const std::string md = render_fleet_markdown(f);
  EXPECT_NE(md.find("sw_power_cap"), std::string::npos);
  EXPECT_NE(md.find("11.1%"), std::string::npos);
  EXPECT_NE(md.find("interfere"), std::string::npos);
}

TEST(Report, MeasuredInterconnectAgainstNominalLink) {
  // 8 ranks; all-reduce of 8 KiB in 25 µs and of 1 GiB in 5 ms: busbw(1 GiB) = 1073741824 / 5e-3 × 1.75
  // = 375.8 GB/s, 83.5 % of an H100-SXM-class 450 GB/s per direction.
  fleet_report f;
  f.ranks = 8;
  f.model_name = "TinyLlama-1.1B";
  auto& ic = f.interconnect;
  ic.status = "measured";
  ic.ranks = 8;
  ic.library = "NCCL 2.28.9";
  for (const auto& [bytes, t] : {std::pair<std::int64_t, double>{8192, 25e-6}, {1073741824, 5e-3}}) {
    collective_point p;
    p.op = collective::all_reduce;
    p.bytes = bytes;
    p.seconds = p.best_seconds = t;
    p.algbw = algbw(static_cast<double>(bytes), t);
    p.busbw = p.best_busbw = busbw(collective::all_reduce, static_cast<double>(bytes), t, 8);
    ic.points.push_back(p);
  }
  ic.roofs = communication_roofs(ic.points);
  ic.nominal.bytes_per_s = 450e9;
  ic.nominal.formula = "18 NVLink links × 25 GB/s per link per direction";
  ASSERT_EQ(ic.roofs.size(), 1u);
  EXPECT_NEAR(ic.roofs[0].busbw, 375.809638e9, 1e3);
  f.tp_prefill = tp_allreduce_ops(tinyllama(), phase::prefill, 1, 2048, 8, ic.roofs[0].busbw, "fp16", ic.roofs[0].latency_s);
  const std::string md = render_fleet_markdown(f);
  EXPECT_NE(md.find("376 GB/s"), std::string::npos) << md;
  EXPECT_NE(md.find("84%"), std::string::npos) << md;  // 375.8 / 450
  EXPECT_NE(md.find("25.0 µs"), std::string::npos) << md;
  EXPECT_NE(md.find("| prefill | 8 | 2048 | 8388608 B |"), std::string::npos) << md;
  const json j = to_json(f);
  EXPECT_EQ(j["interconnect"]["points"].size(), 2u);
  EXPECT_DOUBLE_EQ(j["interconnect"]["nominal_link_bytes_per_s"].get<double>(), 450e9);
  EXPECT_NEAR(j["interconnect"]["roofs"][0]["vs_nominal"].get<double>(), 375.809638e9 / 450e9, 1e-6);
  EXPECT_TRUE(j["interconnect"]["roofs"][0]["src"].is_null());
  EXPECT_EQ(j["tp_allreduce"][0]["ops"].size(), 2u);
}

TEST(Report, SendRecvPairsAndPatternsThisNcclLacks) {
  // 2 ranks; 0 → 1 of 512 MiB in 1.4 ms = 383.5 GB/s, 85 % of 450 GB/s per direction.
  fleet_report f;
  f.ranks = 2;
  auto& ic = f.interconnect;
  ic.status = "measured";
  ic.ranks = 2;
  ic.library = "NCCL 2.6.4";
  ic.nominal.bytes_per_s = 450e9;
  collective_point p;
  p.op = collective::send_recv;
  p.src = 0;
  p.dst = 1;
  p.bytes = 536870912;
  p.seconds = p.best_seconds = 1.4e-3;
  p.algbw = algbw(536870912.0, 1.4e-3);
  p.busbw = p.best_busbw = busbw(collective::send_recv, 536870912.0, 1.4e-3, 2);
  ic.points.push_back(p);
  ic.roofs = communication_roofs(ic.points);
  ic.not_available = {"broadcast: not available in this NCCL (lacks ncclBroadcast)"};
  const std::string md = render_fleet_markdown(f);
  EXPECT_NE(md.find("| send_recv 0→1 | 1.40 ms | 383 GB/s | 512 MiB | 450 GB/s | 85% |"), std::string::npos) << md;
  EXPECT_NE(md.find("broadcast: not available in this NCCL (lacks ncclBroadcast)"), std::string::npos) << md;
  const json j = to_json(f);
  EXPECT_EQ(j["interconnect"]["roofs"][0]["series"], "send_recv 0→1");
  EXPECT_EQ(j["interconnect"]["roofs"][0]["src"], 0);
  EXPECT_EQ(j["interconnect"]["roofs"][0]["dst"], 1);
  EXPECT_EQ(j["interconnect"]["points"][0]["dst"], 1);
  EXPECT_EQ(j["interconnect"]["not_available"].size(), 1u);
  EXPECT_EQ(j["interconnect"]["dtype"], "fp16");
}
