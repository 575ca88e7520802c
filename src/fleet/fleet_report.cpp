// The fleet report: every device's roofs, their spread, the stragglers, the interconnect roofs.
// Pure functions of the gathered results (rank 0 renders them; the tests render fixed numbers).
#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "fleet/fleet_document.hpp"
#include "roofline/fleet.hpp"
#include "roofline/json.hpp"
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

report::document fleet_document(const fleet_report& f) {
  using report::cell;
  using report::section;
  using report::table;
  report::document doc;
  doc.title = "roofline fleet report";
  doc.intro.push_back(fmt::format("{} rank(s); straggler threshold: {:.1f}% below the fleet median of any roof.", f.ranks,
                                  100 * f.straggler_threshold));
  for (const auto& n : f.notes) doc.intro.push_back("Note: " + n + ".");
  auto rate = [](const std::optional<double>& v, const std::string& unit, const std::string& prefix = "") {
    return v ? cell(prefix + si(*v, unit), *v) : cell("not measured");
  };

  section dev{"Devices", "devices", {}};
  table t;
  t.header = {"rank", "host", "device", "name", "status", "DRAM bandwidth (pattern)", "GEMM", "FMA", "sustained clock", "power"};
  for (const auto& d : f.devices) {
    std::string fma;
    for (const auto& [k, v] : d.fma_flops_per_s) fma += (fma.empty() ? "" : "; ") + k + " " + si(v, "FLOP/s");
    const std::string unknown = d.telemetry_note.empty() ? "unknown" : "unknown " + t.note(d.telemetry_note);
    cell dram = rate(d.dram_bytes_per_s, "B/s");
    if (d.dram_bytes_per_s) dram.text += " (" + d.dram_pattern + ")";
    t.rows.push_back({cell(std::to_string(d.rank), d.rank), d.host, d.id + (d.uuid.empty() ? "" : " (" + d.uuid + ")"), d.name, d.status, dram,
                      d.gemm_flops_per_s ? cell(d.gemm_precision + " " + si(*d.gemm_flops_per_s, "FLOP/s"), *d.gemm_flops_per_s)
                                         : cell("not measured"),
                      fma.empty() ? "not measured" : fma,
                      d.sustained_clock_mhz ? cell(fmt::format("{:.0f} MHz", *d.sustained_clock_mhz), *d.sustained_clock_mhz) : cell(unknown),
                      d.power_w ? cell(fmt::format("{:.0f} W", *d.power_w), *d.power_w) : cell(unknown)});
  }
  dev.add(std::move(t));
  doc.sections.push_back(std::move(dev));

  section sp{"Spread over the fleet", "spread", {}};
  sp.para("spread = (max − min) / median.");
  table st;
  st.header = {"roof", "n", "min", "median", "max", "spread"};
  for (const auto& s : f.spread)
    st.rows.push_back({s.roof, cell(std::to_string(s.stats.n), s.stats.n), cell(si(s.stats.min, s.unit), s.stats.min),
                       cell(si(s.stats.median, s.unit), s.stats.median), cell(si(s.stats.max, s.unit), s.stats.max),
                       cell(fmt::format("{:.1f}%", 100 * s.stats.range), s.stats.range)});
  if (f.spread.empty()) st.rows.push_back({"(no roof measured)"});
  sp.add(std::move(st));
  doc.sections.push_back(std::move(sp));

  section sg{"Stragglers", "stragglers", {}};
  sg.para(fmt::format("A device is a straggler on a roof when it is more than {:.1f}% below the fleet median of that roof.",
                      100 * f.straggler_threshold));
  if (f.stragglers.empty()) {
    sg.para("None.");
  } else {
    table tt;
    tt.header = {"rank", "host", "device", "roof", "value", "fleet median", "below by", "clock", "power", "throttle reasons"};
    for (const auto& s : f.stragglers) {
      const device_roofs* d = nullptr;
      for (const auto& x : f.devices)
        if (x.rank == s.rank) d = &x;
      std::string reasons;
      if (d)
        for (const auto& r : d->throttle_reasons) reasons += (reasons.empty() ? "" : ", ") + r;
      tt.rows.push_back({cell(std::to_string(s.rank), s.rank), s.host, s.id, s.roof, cell(si(s.value, s.unit), s.value),
                         cell(si(s.median, s.unit), s.median), cell(fmt::format("{:.1f}%", 100 * s.shortfall), s.shortfall),
                         d ? opt_str(d->sustained_clock_mhz, "{:.0f} MHz", "unknown") : "", d ? opt_str(d->power_w, "{:.0f} W", "unknown") : "",
                         reasons.empty() ? "none reported" : reasons});
    }
    sg.add(std::move(tt));
  }
  doc.sections.push_back(std::move(sg));

  const auto& ic = f.interconnect;
  section in{"Interconnect (NCCL)", "interconnect", {}};
  in.para(std::string("Convention: ") + convention + ".");
  in.para("Nominal link bandwidth: " +
          (ic.nominal.bytes_per_s ? fmt::format("{} = {}{}", ic.nominal.formula, si(*ic.nominal.bytes_per_s, "B/s"),
                                                ic.nominal.source.empty() ? "" : " (" + ic.nominal.source + ")")
                                  : (ic.nominal.reason.empty() ? std::string("unknown (not looked up)") : ic.nominal.reason)));
  if (ic.status != "measured") {
    in.para("Status: " + (ic.reason.empty() ? ic.status : ic.reason) + ".");
  } else {
    in.para(fmt::format("{} ranks, {}, {} messages.", ic.ranks, ic.library, ic.dtype));
    in.heading("Communication roofs");
    in.para("t(S) ≈ latency + S × factor / busbw (send_recv a→b: rank a sends to rank b; send_recv_bidir a↔b: both at once, busbw "
            "per direction).");
    table rt;
    rt.header = {"pattern", "latency (smallest message)", "best busbw", "at", "nominal link", "measured ÷ nominal"};
    for (const auto& r : ic.roofs) {
      const auto x = vs_nominal(r, ic.nominal);
      rt.rows.push_back({series_name(r.op, r.src, r.dst), cell(units::seconds(r.latency_s), r.latency_s), cell(si(r.busbw, "B/s"), r.busbw),
                         cell(bytes_label(r.at_bytes), static_cast<double>(r.at_bytes)), rate(ic.nominal.bytes_per_s, "B/s"),
                         x ? cell(fmt::format("{:.0f}%", 100 * *x), *x) : cell("unknown")});
    }
    in.add(std::move(rt));
    if (!ic.not_available.empty()) in.bullets(ic.not_available);
    in.heading("Bytes per collective vs time");
    table pt;
    pt.header = {"pattern", "bytes", "time (median)", "algbw", "busbw"};
    for (const auto& p : ic.points)
      pt.rows.push_back({series_name(p.op, p.src, p.dst), cell(bytes_label(p.bytes), static_cast<double>(p.bytes)),
                         cell(units::seconds(p.seconds), p.seconds), cell(si(p.algbw, "B/s"), p.algbw), cell(si(p.busbw, "B/s"), p.busbw)});
    in.add(std::move(pt));
  }
  doc.sections.push_back(std::move(in));

  if (f.tp_decode || f.tp_prefill) {
    section tp{fmt::format("Tensor-parallel all-reduce of {} (Megatron-LM §3: 2 per layer forward)", f.model_name), "tp", {}};
    table tt;
    tt.header = {"phase", "tp", "tokens", "bytes per all-reduce", "per layer", "per step"};
    for (const auto* p : {&f.tp_decode, &f.tp_prefill})
      if (*p) {
        const auto& x = **p;
        tt.rows.push_back({p == &f.tp_decode ? "decode" : "prefill", cell(std::to_string(x.tp), x.tp),
                           cell(std::to_string(x.tokens), static_cast<double>(x.tokens)),
                           x.ops.empty() ? cell("0", 0.0) : cell(fmt::format("{:.0f} B", x.ops[0].bytes), x.ops[0].bytes),
                           cell(fmt::format("{:.1f} µs", x.seconds_per_layer * 1e6), x.seconds_per_layer),
                           cell(fmt::format("{:.3f} ms", x.seconds_per_step * 1e3), x.seconds_per_step)});
      }
    tp.add(std::move(tt));
    doc.sections.push_back(std::move(tp));
  }
  if (!f.errors.empty()) {
    section er{"Errors", "errors", {}};
    std::vector<std::string> items;
    for (const auto& e : f.errors) items.push_back(e.probe + ": " + e.message);
    er.bullets(items);
    doc.sections.push_back(std::move(er));
  }
  return doc;
}

std::string render_fleet_markdown(const fleet_report& f) { return report::to_markdown(fleet_document(f)); }

}  // namespace roofline::fleet
