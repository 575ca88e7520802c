// The fleet report: every device's roofs, their spread, the stragglers, the interconnect roofs.
// Pure functions of the gathered results (rank 0 renders them; the tests render fixed numbers).
#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "roofline/fleet.hpp"
#include "roofline/units.hpp"

namespace roofline::fleet {

namespace {

json opt_num(const std::optional<double>& v) { return v ? json(*v) : json(nullptr); }

/// The bus-bandwidth convention, as fleet.json and fleet.md state it (busbw.cpp has the sources).
constexpr const char* convention =
    "nccl-tests (doc/PERFORMANCE.md; src/alltoall.cu, src/sendrecv.cu): algbw = bytes / time; busbw = algbw × 2(n−1)/n "
    "for all_reduce, × (n−1)/n for all_gather, reduce_scatter and all_to_all, × 1 for broadcast and send_recv; bytes = the "
    "full buffer (all_to_all: one rank's send buffer; send_recv: one message)";

std::string si(double v, const std::string& unit) { return units::value(v, unit); }

std::string opt_str(const std::optional<double>& v, const char* fmt_spec, const std::string& unknown) {
  return v ? fmt::format(fmt::runtime(fmt_spec), *v) : unknown;
}

std::string bytes_label(std::int64_t b) { return units::bytes_binary(static_cast<double>(b)); }

json to_json(const device_roofs& d) {
  json fma = json::object();
  for (const auto& [k, v] : d.fma_flops_per_s) fma[k] = v;
  return {{"rank", d.rank},
          {"host", d.host},
          {"kind", d.kind},
          {"id", d.id},
          {"name", d.name},
          {"uuid", d.uuid},
          {"status", d.status},
          {"dram_bytes_per_s", opt_num(d.dram_bytes_per_s)},
          {"dram_pattern", d.dram_pattern},
          {"gemm_flops_per_s", opt_num(d.gemm_flops_per_s)},
          {"gemm_precision", d.gemm_precision},
          {"fma_flops_per_s", fma},
          {"sustained_clock_mhz", opt_num(d.sustained_clock_mhz)},
          {"power_w", opt_num(d.power_w)},
          {"throttle_reasons", d.throttle_reasons},
          {"telemetry_note", d.telemetry_note}};
}

json to_json(const tp_allreduce_plan& p, const std::string& ph) {
  json ops = json::array();
  for (const auto& o : p.ops) ops.push_back({{"name", o.name}, {"bytes", o.bytes}, {"count", o.count}, {"predicted_s", o.predicted_s}});
  return {{"phase", ph},           {"tp", p.tp}, {"tokens", p.tokens}, {"ops", ops}, {"bytes_per_layer", p.bytes_per_layer},
          {"seconds_per_layer", p.seconds_per_layer}, {"seconds_per_step", p.seconds_per_step}, {"note", p.note}};
}

}  // namespace

std::vector<std::string> shared_host_notes(const std::vector<device_roofs>& devices) {
  std::map<std::string, std::vector<int>> by_host;
  for (const auto& d : devices) by_host[d.host].push_back(d.rank);
  std::vector<std::string> notes;
  for (const auto& [host, ranks] : by_host) {
    if (ranks.size() < 2) continue;
    std::string list;
    for (int r : ranks) list += (list.empty() ? "" : ", ") + std::to_string(r);
    notes.push_back(fmt::format(
        "host {} runs ranks {}: they measured at the same time and share its CPU cores, memory bandwidth, "
        "caches and PCIe/power budget, so their numbers interfere (CPU ranks most; GPU ranks through host-side "
        "limits only)",
        host, list));
  }
  return notes;
}

fleet_report build_report(const std::vector<results>& per_rank, double straggler_threshold) {
  fleet_report f;
  f.ranks = static_cast<int>(per_rank.size());
  f.straggler_threshold = straggler_threshold;
  for (std::size_t r = 0; r < per_rank.size(); ++r) {
    f.devices.push_back(extract_roofs(per_rank[r], static_cast<int>(r)));
    for (const auto& e : per_rank[r].errors)
      if (e.probe != "build") f.errors.push_back({fmt::format("rank {}: {}", r, e.probe), e.message});
  }
  if (!per_rank.empty() && per_rank[0].model) f.model_name = per_rank[0].model->name;
  f.spread = fleet_spread(f.devices);
  f.stragglers = find_stragglers(f.devices, straggler_threshold);
  f.notes = shared_host_notes(f.devices);
  return f;
}

json to_json(const fleet_report& f) {
  json devices = json::array(), spread = json::array(), stragglers = json::array(), errors = json::array();
  for (const auto& d : f.devices) devices.push_back(to_json(d));
  for (const auto& s : f.spread)
    spread.push_back({{"roof", s.roof}, {"unit", s.unit}, {"n", s.stats.n}, {"min", s.stats.min}, {"median", s.stats.median},
                      {"max", s.stats.max}, {"spread", s.stats.range}});
  for (const auto& s : f.stragglers) {
    const device_roofs* d = nullptr;
    for (const auto& x : f.devices)
      if (x.rank == s.rank) d = &x;
    json j = {{"rank", s.rank}, {"host", s.host}, {"id", s.id}, {"roof", s.roof}, {"unit", s.unit},
              {"value", s.value}, {"median", s.median}, {"shortfall", s.shortfall}};
    if (d) j["telemetry"] = {{"sustained_clock_mhz", opt_num(d->sustained_clock_mhz)}, {"power_w", opt_num(d->power_w)},
                             {"throttle_reasons", d->throttle_reasons}, {"note", d->telemetry_note}};
    stragglers.push_back(j);
  }
  for (const auto& e : f.errors) errors.push_back({{"probe", e.probe}, {"message", e.message}});

  const auto& ic = f.interconnect;
  json points = json::array(), roofs = json::array();
  auto pair = [](json& j, int src, int dst) {
    j["src"] = src >= 0 ? json(src) : json(nullptr);
    j["dst"] = dst >= 0 ? json(dst) : json(nullptr);
  };
  for (const auto& p : ic.points) {
    json j = {{"collective", to_string(p.op)}, {"series", series_name(p.op, p.src, p.dst)}, {"bytes", p.bytes}, {"seconds", p.seconds},
              {"best_seconds", p.best_seconds}, {"algbw_bytes_per_s", p.algbw}, {"busbw_bytes_per_s", p.busbw},
              {"best_busbw_bytes_per_s", p.best_busbw}};
    pair(j, p.src, p.dst);
    points.push_back(j);
  }
  for (const auto& r : ic.roofs) {
    json j = {{"collective", to_string(r.op)}, {"series", series_name(r.op, r.src, r.dst)}, {"latency_s", r.latency_s},
              {"busbw_bytes_per_s", r.busbw}, {"at_bytes", r.at_bytes}, {"vs_nominal", opt_num(vs_nominal(r, ic.nominal))}};
    pair(j, r.src, r.dst);
    roofs.push_back(j);
  }
  json inter = {{"status", ic.status},
                {"reason", ic.reason},
                {"ranks", ic.ranks},
                {"library", ic.library},
                {"dtype", ic.dtype},
                {"not_available", ic.not_available},
                {"convention", convention},
                {"nominal_link_bytes_per_s", opt_num(ic.nominal.bytes_per_s)},
                {"nominal_link_formula", ic.nominal.formula},
                {"nominal_link_source", ic.nominal.source},
                {"nominal_link_reason", ic.nominal.reason},
                {"points", points},
                {"roofs", roofs}};
  json tp = json::array();
  if (f.tp_decode) tp.push_back(to_json(*f.tp_decode, "decode"));
  if (f.tp_prefill) tp.push_back(to_json(*f.tp_prefill, "prefill"));

  return {{"schema_version", "1.0"},
          {"kind", "roofline fleet report"},
          {"ranks", f.ranks},
          {"straggler_threshold", f.straggler_threshold},
          {"model", f.model_name},
          {"devices", devices},
          {"spread", spread},
          {"stragglers", stragglers},
          {"notes", f.notes},
          {"errors", errors},
          {"interconnect", inter},
          {"tp_allreduce", tp}};
}

std::string render_fleet_markdown(const fleet_report& f) {
  std::string md = fmt::format("# roofline fleet report\n\n{} rank(s); straggler threshold: {:.1f}% below the fleet median "
                               "of any roof.\n\n",
                               f.ranks, 100 * f.straggler_threshold);
  for (const auto& n : f.notes) md += "> **Note:** " + n + ".\n\n";

  md += "## Devices\n\n| rank | host | device | name | status | DRAM bandwidth (pattern) | GEMM | FMA | sustained clock | power |\n"
        "|---:|---|---|---|---|---|---|---|---|---|\n";
  for (const auto& d : f.devices) {
    std::string fma;
    for (const auto& [k, v] : d.fma_flops_per_s) fma += (fma.empty() ? "" : "; ") + k + " " + si(v, "FLOP/s");
    const std::string unknown = d.telemetry_note.empty() ? "unknown" : "unknown¹";
    md += fmt::format("| {} | {} | {}{} | {} | {} | {} | {} | {} | {} | {} |\n", d.rank, d.host, d.id,
                      d.uuid.empty() ? "" : " (" + d.uuid + ")", d.name, d.status,
                      d.dram_bytes_per_s ? si(*d.dram_bytes_per_s, "B/s") + " (" + d.dram_pattern + ")" : "not measured",
                      d.gemm_flops_per_s ? d.gemm_precision + " " + si(*d.gemm_flops_per_s, "FLOP/s") : "not measured",
                      fma.empty() ? "not measured" : fma, opt_str(d.sustained_clock_mhz, "{:.0f} MHz", unknown),
                      opt_str(d.power_w, "{:.0f} W", unknown));
  }

  std::vector<std::string> seen;  // each distinct "unknown (why)" once, below the table
  for (const auto& d : f.devices)
    if (!d.telemetry_note.empty() && std::find(seen.begin(), seen.end(), d.telemetry_note) == seen.end()) {
      seen.push_back(d.telemetry_note);
      md += (seen.size() == 1 ? "\n¹ " : "  \n¹ ") + d.telemetry_note + "\n";
    }
  md += "\n## Spread over the fleet\n\nspread = (max − min) / median.\n\n| roof | n | min | median | max | spread |\n"
        "|---|---:|---:|---:|---:|---:|\n";
  for (const auto& s : f.spread)
    md += fmt::format("| {} | {} | {} | {} | {} | {:.1f}% |\n", s.roof, s.stats.n, si(s.stats.min, s.unit), si(s.stats.median, s.unit),
                      si(s.stats.max, s.unit), 100 * s.stats.range);
  if (f.spread.empty()) md += "| (no roof measured) | | | | | |\n";

  md += fmt::format("\n## Stragglers\n\nA device is a straggler on a roof when it is more than {:.1f}% below the fleet median "
                    "of that roof.\n\n",
                    100 * f.straggler_threshold);
  if (f.stragglers.empty()) {
    md += "None.\n";
  } else {
    md += "| rank | host | device | roof | value | fleet median | below by | clock | power | throttle reasons |\n"
          "|---:|---|---|---|---:|---:|---:|---|---|---|\n";
    for (const auto& s : f.stragglers) {
      const device_roofs* d = nullptr;
      for (const auto& x : f.devices)
        if (x.rank == s.rank) d = &x;
      std::string reasons;
      if (d)
        for (const auto& r : d->throttle_reasons) reasons += (reasons.empty() ? "" : ", ") + r;
      md += fmt::format("| {} | {} | {} | {} | {} | {} | {:.1f}% | {} | {} | {} |\n", s.rank, s.host, s.id, s.roof, si(s.value, s.unit),
                        si(s.median, s.unit), 100 * s.shortfall, d ? opt_str(d->sustained_clock_mhz, "{:.0f} MHz", "unknown") : "",
                        d ? opt_str(d->power_w, "{:.0f} W", "unknown") : "", reasons.empty() ? "none reported" : reasons);
    }
  }

  const auto& ic = f.interconnect;
  md += "\n## Interconnect (NCCL)\n\n";
  md += std::string("Convention: ") + convention + ".\n\n";
  md += "Nominal link bandwidth: " +
        (ic.nominal.bytes_per_s ? fmt::format("{} = {}{}", ic.nominal.formula, si(*ic.nominal.bytes_per_s, "B/s"),
                                              ic.nominal.source.empty() ? "" : " (" + ic.nominal.source + ")")
                                : (ic.nominal.reason.empty() ? std::string("unknown (not looked up)") : ic.nominal.reason)) +
        "\n\n";
  if (ic.status != "measured") {
    md += "Status: " + (ic.reason.empty() ? ic.status : ic.reason) + ".\n";
  } else {
    md += fmt::format("{} ranks, {}, {} messages.\n\n### Communication roofs\n\nt(S) ≈ latency + S × factor / busbw "
                      "(send_recv a→b: rank a sends to rank b; send_recv_bidir a↔b: both at once, busbw per direction).\n\n"
                      "| pattern | latency (smallest message) | best busbw | at | nominal link | measured ÷ nominal |\n"
                      "|---|---:|---:|---:|---:|---:|\n",
                      ic.ranks, ic.library, ic.dtype);
    const std::string nominal = ic.nominal.bytes_per_s ? si(*ic.nominal.bytes_per_s, "B/s") : "unknown";
    for (const auto& r : ic.roofs) {
      const auto x = vs_nominal(r, ic.nominal);
      md += fmt::format("| {} | {} | {} | {} | {} | {} |\n", series_name(r.op, r.src, r.dst), units::seconds(r.latency_s), si(r.busbw, "B/s"),
                        bytes_label(r.at_bytes), nominal, x ? fmt::format("{:.0f}%", 100 * *x) : "unknown");
    }
    for (const auto& na : ic.not_available) md += "| " + na + " | | | | | |\n";
    md += "\n### Bytes per collective vs time\n\n| pattern | bytes | time (median) | algbw | busbw |\n|---|---:|---:|---:|---:|\n";
    for (const auto& p : ic.points)
      md += fmt::format("| {} | {} | {} | {} | {} |\n", series_name(p.op, p.src, p.dst), bytes_label(p.bytes), units::seconds(p.seconds),
                        si(p.algbw, "B/s"), si(p.busbw, "B/s"));
  }
  if (f.tp_decode || f.tp_prefill) {
    md += fmt::format("\n## Tensor-parallel all-reduce of {} (Megatron-LM §3: 2 per layer forward)\n\n"
                      "| phase | tp | tokens | bytes per all-reduce | per layer | per step |\n|---|---:|---:|---:|---:|---:|\n",
                      f.model_name);
    for (const auto* p : {&f.tp_decode, &f.tp_prefill})
      if (*p) {
        const auto& t = **p;
        md += fmt::format("| {} | {} | {} | {} | {:.1f} µs | {:.3f} ms |\n", p == &f.tp_decode ? "decode" : "prefill", t.tp, t.tokens,
                          t.ops.empty() ? std::string("0") : fmt::format("{:.0f} B", t.ops[0].bytes), t.seconds_per_layer * 1e6,
                          t.seconds_per_step * 1e3);
      }
  }
  if (!f.errors.empty()) {
    md += "\n## Errors\n\n";
    for (const auto& e : f.errors) md += "- " + e.probe + ": " + e.message + "\n";
  }
  return md;
}

}  // namespace roofline::fleet
