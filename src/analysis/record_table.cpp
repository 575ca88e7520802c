// The record table, computed once from the typed fields (roofline/record_table.hpp).
// docs/formulas-analysis.md §6.
#include "roofline/record_table.hpp"

#include <fmt/format.h>

#include "roofline/clock_match.hpp"
#include "roofline/units.hpp"
#include "roofline/vocabulary.hpp"

namespace roofline {

namespace {

bool starts_with(const std::string& s, const char* p) { return s.rfind(p, 0) == 0; }

/// "95.6% of nominal, above the usual 75–90% of nominal" — the opening of every above_usual text
/// (`usual`: the row's expected_note).
std::string above_words(double measured, double nominal, const std::string& usual) {
  return fmt::format("{} of nominal, above the usual {}", units::percent(measured / nominal), usual);
}

/// Why a device-memory result reads above the usual range, from its own record (the probe's flags):
/// the kernel's access width and bytes in flight, the working set against the last cache. On a GPU
/// whose kernel keeps 16-byte (or TMA bulk) accesses in flight that is the known cause: a stream of wide accesses
/// with enough bytes in flight to cover the memory latency (Little's law) keeps every HBM channel
/// busy, and its bytes are those DRAM moves (Nsight Compute's dram__bytes read 4.295 GB for a 4 GiB
/// read by this probe's kernel on an H200: bench/results/h200/2026-12-01-l2-write/bench.md;
/// BabelStream and gpu-benches read within 1% of it: bench/results/h200/2026-12-01-peers/bench.md).
std::string bandwidth_above_reason(const results& r, const bandwidth_result& b) {
  std::string kernel, working_set;  // the kernel's flag; the working set against the last cache
  for (const auto& f : b.flags) {
    if (starts_with(f, "kernel: ")) kernel = f.substr(8);
    else if (const auto at = f.find("working set is "); at != std::string::npos) {  // GPU: "hbm: working set is 68.27× L2 (…)"
      const std::string rest = f.substr(at + 15);
      working_set = "a working set " + rest.substr(0, rest.find(" ("));
    } else if (starts_with(f, "DRAM: ")) {  // CPU: "DRAM: 128 MiB in total >= 4× the 32 MiB last-level cache"
      working_set = f.substr(6);
    }
  }
  const bool wide = kernel.find("16 B") != std::string::npos || kernel.find("TMA bulk") != std::string::npos;
  const std::string where = working_set.empty() ? std::string() : " (" + working_set + ")";
  if (r.device.kind != "cpu" && wide)
    return fmt::format("its kernel keeps enough 16-byte or bulk accesses in flight to cover the memory latency{}, and Nsight "
                       "Compute's DRAM counters match the bytes it counts (bench/results/h200/2026-12-01-l2-write)",
                       where);
  return fmt::format("no cause recorded: check the nominal bandwidth's factors{}{}", where,
                     kernel.empty() ? "" : " and the kernel (" + kernel + ")");
}

/// Why a GEMM reads above the usual 70–85%: a clock above the one the nominal peak is computed at
/// (its telemetry), else on a CPU the library's kernel (GotoBLAS-style GEMMs spend all but packing and
/// edge blocks in an FMA micro-kernel and reach 90% of a core's peak and more: Goto and van de Geijn,
/// "Anatomy of high-performance matrix multiplication", ACM TOMS 34(3), 2008, §8).
std::string gemm_above_reason(const results& r, const compute_result& c, const nominal_peak* p) {
  const auto nominal_mhz = nominal_clock_mhz(r.nominal, p);
  if (nominal_mhz && c.telemetry && c.telemetry->sm_clock_mhz && c.telemetry->sm_clock_mhz->median > *nominal_mhz)
    return fmt::format("the clock during the GEMM, a median {} MHz, was above the {} MHz the nominal peak is computed at",
                       units::fixed(c.telemetry->sm_clock_mhz->median, 0), units::fixed(*nominal_mhz, 0));
  if (r.device.kind == "cpu")
    return fmt::format("a tuned BLAS GEMM ({}) spends all but its packing and edge blocks in an FMA micro-kernel: such kernels "
                       "reach 90% of a core's peak and more (Goto and van de Geijn, ACM TOMS 34(3), 2008)",
                       c.method.empty() ? "the library's" : c.method);
  return "no cause recorded";
}

std::string sizes_run(const results& r, const std::string& precision) {
  std::string s;
  for (const auto& c : r.measured.compute)
    if (c.precision == precision && c.size && is_gemm_engine(c.engine)) s += (s.empty() ? "" : ", ") + std::to_string(*c.size);
  return s.empty() ? "no " + precision + " GEMM results" : precision + " GEMM sizes run: " + s;
}

void bandwidth_rows(const results& r, std::vector<record_row>& rows) {
  const auto nom = r.nominal.memory_bandwidth_bytes_per_s;
  const bool known = nom && *nom > 0;
  const std::string level = r.device.kind == "cpu" ? "DRAM" : "device memory";
  for (const char* pattern : {"read", "write", "copy"}) {
    record_row row;
    row.key = fmt::format("bandwidth_{}", pattern);
    row.unit = "B/s";
    row.expected_note = "75–90% of nominal";
    const bandwidth_result* b = best_device_bandwidth(r.measured, pattern);
    row.label = fmt::format("{} {} bandwidth{}", level, pattern,
                            b ? " (" + units::bytes_binary(static_cast<double>(b->working_set_bytes)) + ")" : std::string());
    if (known) {
      row.nominal = nom;
      row.expected_low = usual_bandwidth_low * *nom;
      row.expected_high = usual_bandwidth_high * *nom;
    } else {
      row.nominal_note = "nominal memory bandwidth: " + (r.nominal.memory_bandwidth_reason.empty() ? std::string("no reason recorded")
                                                                                                     : r.nominal.memory_bandwidth_reason);
    }
    if (b) {
      row.measured = b->bytes_per_s;
      if (row.expected_high && b->bytes_per_s > *row.expected_high)
        row.above_usual = above_words(b->bytes_per_s, *nom, row.expected_note) + ": " + bandwidth_above_reason(r, *b);
    } else {
      row.measured_note = why_missing(r, {pattern}, "no " + std::string(pattern) + " result at " + level);
      if (const bandwidth_result* x = rejected_device_bandwidth(r.measured, pattern)) {  // measured, then kept out: say why
        row.measured_note = "rejected: " + x->rejected_reason;
        row.rejected = true;
      }
      if (const bandwidth_result* stand_in = best_device_bandwidth(r.measured))
        row.measured_note += fmt::format("; the {} roof stands on {} ({})", level, stand_in->pattern,
                                         units::rate_bytes(stand_in->bytes_per_s));
    }
    rows.push_back(std::move(row));
  }
}

/// The fastest GEMM of `precision` that ran, rejected ones included (`at`: of that size only).
const compute_result* fastest_gemm_run(const results& r, const std::string& precision, std::optional<std::int64_t> at = std::nullopt) {
  const compute_result* best = nullptr;
  for (const auto& c : r.measured.compute)
    if (c.precision == precision && is_gemm_engine(c.engine) && c.size && (!at || *c.size == *at) &&
        (!best || c.flops_per_s > best->flops_per_s))
      best = &c;
  return best;
}

/// The size of the GEMM that is `precision`'s measured roof (the best one: the figure's roof and the
/// ridge's numerator), so the record table, the figure and the ridge show one value. When every GEMM
/// of it was rejected, the size of the fastest one that ran (the row then says why it was rejected);
/// nullopt when no sized GEMM of that precision ran: the row names no size it did not run.
std::optional<std::int64_t> roof_gemm_size(const results& r, const std::string& precision) {
  if (const compute_result* c = best_compute_on(r.measured, precision, "gemm"); c && c->size) return c->size;
  if (const compute_result* c = fastest_gemm_run(r, precision)) return c->size;
  return std::nullopt;
}

void gemm_row(const results& r, std::vector<record_row>& rows, const std::string& precision, std::optional<std::int64_t> n, bool usual) {
  const nominal_peak* p = peak_for(r.nominal, precision);
  const compute_result* c = n ? gemm_at(r.measured, precision, *n) : nullptr;
  record_row row;
  row.key = n ? fmt::format("gemm_{}_{}", precision, *n) : fmt::format("gemm_{}", precision);
  // the roof names the data it was measured on, where the file records it
  const std::string roof_words = !usual || !c ? "" : c->inputs ? fmt::format(" (the roof, {} inputs)", *c->inputs) : " (the roof)";
  row.label = fmt::format("{}{} GEMM{}{}", precision, p && p->engine == "tensor" ? " tensor" : "",
                          n ? fmt::format(", n = {}", *n) : std::string(" (no size ran)"), roof_words);
  row.unit = units::work_unit(precision) + "/s";
  if (p) row.nominal = p->flops_per_s;
  else row.nominal_note = "no nominal " + precision + " peak";
  if (usual) {
    row.expected_note = "70–85% of nominal";
    if (p) row.expected_low = usual_compute_low * p->flops_per_s, row.expected_high = usual_compute_high * p->flops_per_s;
  } else {
    row.expected_note = r.device.kind == "cpu"
                            ? "no usual range: a small GEMM is dominated by packing, edge blocks and thread start-up"
                            : "no usual range: a small GEMM is dominated by wave quantization and launch";
  }
  if (c) {
    row.measured = c->flops_per_s;
    if (usual && p && row.expected_high && c->flops_per_s > *row.expected_high)
      row.above_usual = above_words(c->flops_per_s, p->flops_per_s, row.expected_note) + ": " + gemm_above_reason(r, *c, p);
  } else if (const compute_result* run = n ? fastest_gemm_run(r, precision, n) : nullptr; run && run->rejected) {
    row.rejected = true;  // measured, then kept out of the roofs: say why, and which sizes ran
    row.measured_note = "rejected: " + (run->rejected_reason.empty() ? std::string("no reason recorded") : run->rejected_reason) + "; " +
                        sizes_run(r, precision);
  } else {
    row.measured_note = why_missing(r, {"gemm", precision}, sizes_run(r, precision));
  }
  rows.push_back(std::move(row));
}

/// The roof GEMM at the clock of its own interval (clock_match.hpp): the peak at that clock beside the
/// rate, so the ratio column is "% of the peak at that clock" (never above 100 %: an uncertain clock
/// gives no ratio). Only for GEMMs that paired their repeats with their clocks (repeat_clock).
void gemm_at_clock_row(const results& r, std::vector<record_row>& rows, const std::string& precision, std::optional<std::int64_t> n) {
  const compute_result* c = n ? gemm_at(r.measured, precision, *n) : nullptr;
  if (!c || !c->repeat_clock) return;
  const nominal_peak* p = peak_for(r.nominal, precision);
  const clock_matched m = match_clock(r.nominal, p, *c);
  record_row row;
  row.key = "gemm_at_clock";
  row.unit = units::work_unit(precision) + "/s";
  row.expected_note = "at most 100%: no rate passes the peak at its own clock";
  if (m.fraction) {
    const bool fastest = m.interval == clock_interval::fastest_repeat;
    row.label = fmt::format("{} GEMM, n = {}, at the clock of its {} ({})", precision, *n,
                            fastest ? "fastest repeat" : "fastest repeat the telemetry resolves", units::value(*m.clock_mhz, "MHz"));
    row.nominal = m.peak;
    row.nominal_note = fmt::format("the nominal peak at that clock: {} × {} ÷ {}", units::compute_rate(p->flops_per_s, precision),
                                   units::value(*m.clock_mhz, "MHz"), units::value(*nominal_clock_mhz(r.nominal, p), "MHz"));
    row.measured = m.rate;
    const repeat_clocks& rc = *c->repeat_clock;
    row.measured_note = fmt::format("the SM clock time-weighted over that repeat's own window; {} of {} repeats resolved by the "
                                    "telemetry (every {})",
                                    rc.resolved, rc.repeats, units::seconds(rc.period_s));
    if (!fastest) row.measured_note = m.fastest_uncertain + "; " + row.measured_note;
  } else {
    row.label = fmt::format("{} GEMM, n = {}, at the clock of its fastest repeat", precision, *n);
    row.nominal_note = "no peak at its clock: " + m.uncertain;
    row.measured = c->flops_per_s;
    row.measured_note = "the clock is uncertain: " + m.uncertain;
  }
  rows.push_back(std::move(row));
}

/// The sustained runs of the model's precision on each input distribution (sustained_by_input): the
/// power-cap story in numbers — the rate, clock and power each data holds. Only where they were run.
void sustained_rows(const results& r, std::vector<record_row>& rows, const std::string& precision) {
  const compute_result* g = nullptr;
  for (const auto& c : r.measured.compute)
    if (c.precision == precision && is_gemm_engine(c.engine) && !c.sustained_by_input.empty() && (!g || c.size.value_or(0) > g->size.value_or(0)))
      g = &c;
  if (!g) return;
  const nominal_peak* p = peak_for(r.nominal, precision);
  for (const sustained_run& s : g->sustained_by_input) {
    record_row row;
    row.key = s.inputs == inputs_zeros ? "gemm_sustained_zeros" : "gemm_sustained_random";
    row.unit = units::work_unit(precision) + "/s";
    std::string held;
    if (s.telemetry && s.telemetry->sm_clock_mhz) held += units::value(s.telemetry->sm_clock_mhz->median, "MHz");
    if (s.telemetry && s.telemetry->power_w) held += (held.empty() ? "" : ", ") + units::value(s.telemetry->power_w->median, "W");
    row.label = fmt::format("{} GEMM{} on {} inputs, sustained {}{}", precision, g->size ? fmt::format(", n = {}", *g->size) : "",
                            s.inputs == inputs_zeros ? "all-zero" : s.inputs, units::seconds(s.duration_s),
                            held.empty() ? " (no telemetry)" : " (" + held + ")");
    if (p) row.nominal = p->flops_per_s;
    else row.nominal_note = "no nominal " + precision + " peak";
    row.measured = s.flops_per_s;
    row.measured_note = "rate, median clock and median power over the second half of a back-to-back run after an idle pause";
    if (s.telemetry && !s.telemetry->throttle_reasons.empty()) {
      std::string reasons;
      for (const auto& x : s.telemetry->throttle_reasons) reasons += (reasons.empty() ? "" : ", ") + x;
      row.measured_note += fmt::format("; throttled {} of its samples: {}", units::percent(s.telemetry->throttled_fraction), reasons);
    }
    row.expected_note = s.inputs == inputs_zeros ? "above the random-data rate where a power cap binds: zeros toggle no bits (never the roof)"
                                                 : "the data the roof is measured on";
    rows.push_back(std::move(row));
  }
}

/// The GEMM whose telemetry the clock and power rows read: the main precision's roof GEMM, else the
/// largest GEMM of it that carries telemetry, else the largest GEMM of it.
const compute_result* telemetry_gemm(const results& r, const std::string& precision) {
  const auto roof_n = roof_gemm_size(r, precision);
  const compute_result* c = roof_n ? gemm_at(r.measured, precision, *roof_n) : nullptr;
  if (c && c->telemetry) return c;
  const compute_result* best = nullptr;
  for (const auto& x : r.measured.compute)
    if (x.precision == precision && x.telemetry && is_gemm_engine(x.engine) && (!best || x.size.value_or(0) > best->size.value_or(0)))
      best = &x;
  if (best) return best;
  if (c) return c;
  for (const auto& x : r.measured.compute)  // no telemetry anywhere: the largest GEMM names the gap
    if (x.precision == precision && is_gemm_engine(x.engine) && (!best || x.size.value_or(0) > best->size.value_or(0))) best = &x;
  return best;
}

std::string gemm_name(const compute_result& c) {
  return c.size ? fmt::format("{} GEMM n = {}", c.precision, *c.size) : c.precision + " " + c.engine;
}

void telemetry_rows(const results& r, std::vector<record_row>& rows, const std::string& precision) {
  const bool cpu = r.device.kind == "cpu";
  const compute_result* g = telemetry_gemm(r, precision);
  const std::string no_tel = g ? "no telemetry recorded for " + gemm_name(*g) : "no " + precision + " GEMM measured";
  const nominal_peak* peak = peak_for(r.nominal, precision);
  record_row clock;
  clock.key = "sm_clock";
  clock.label = cpu ? "sustained core clock during the GEMM" : "sustained SM clock during the GEMM";
  clock.unit = "MHz";
  clock.expected_note = cpu ? "at or below the all-core boost" : "at or below the boost clock";
  clock.nominal = nominal_clock_mhz(r.nominal, peak);
  // A clock that was itself measured (a CPU without a datasheet clock) is not a datasheet value.
  if (const factor* f = nominal_clock_factor(r.nominal, peak); f && f->source.rfind("measured", 0) == 0)
    clock.nominal_note = "the clock the peaks are computed at: " + f->source;
  else if (!clock.nominal)
    clock.nominal_note = "no clock factor among the nominal factors";
  if (g && g->telemetry && g->telemetry->sm_clock_mhz) clock.measured = g->telemetry->sm_clock_mhz->median;
  else clock.measured_note = no_tel;
  rows.push_back(std::move(clock));
  if (cpu) return;  // no power telemetry on a CPU

  record_row power;
  power.key = "power";
  power.label = "power during the GEMM (power limit)";
  power.unit = "W";
  power.expected_note = "near the limit";
  power.nominal = property_number(r, {"power_limit_w", "enforced_power_limit_w", "power_limit", "tdp_w"});
  if (!power.nominal) power.nominal_note = "no power limit reported";
  if (g && g->telemetry && g->telemetry->power_w) {
    power.measured = g->telemetry->power_w->median;
    if (!g->telemetry->throttle_reasons.empty()) {
      std::string reasons;
      for (const auto& s : g->telemetry->throttle_reasons) reasons += (reasons.empty() ? "" : ", ") + s;
      power.measured_note = fmt::format("throttled {} of the samples of {}: {}", units::percent(g->telemetry->throttled_fraction),
                                        gemm_name(*g), reasons);
    }
  } else {
    power.measured_note = no_tel;
  }
  rows.push_back(std::move(power));
}

void ridge_record_row(const results& r, std::vector<record_row>& rows, const std::string& precision) {
  const ridge_pair rp = ridge_for(r, precision);
  record_row row;
  row.key = "ridge";
  row.label = fmt::format("ridge point ({})", precision);
  row.unit = units::work_unit(precision) + "/B";
  row.nominal = rp.nominal;
  row.measured = rp.measured;
  row.expected_note = "±20% of nominal (both roofs shrink)";
  if (rp.nominal) row.expected_low = usual_ridge_low * *rp.nominal, row.expected_high = usual_ridge_high * *rp.nominal;
  else row.nominal_note = "nominal ridge: " + std::string(!rp.peak_nominal ? "no nominal " + precision + " peak" : "nominal memory bandwidth unknown");
  if (!rp.measured)
    row.measured_note = !rp.peak_measured ? "no " + precision + " compute measured" : "no device-memory bandwidth measured";
  // Above the usual ±20%: the compute roof kept more of its nominal than the memory roof did, and the
  // ridge (peak ÷ bandwidth) moves by their ratio.
  if (rp.measured && row.expected_high && *rp.measured > *row.expected_high && rp.peak_measured && rp.peak_nominal &&
      rp.bw_measured && rp.bw_nominal && *rp.peak_nominal > 0 && *rp.bw_nominal > 0) {
    const double pf = *rp.peak_measured / *rp.peak_nominal, bf = *rp.bw_measured / *rp.bw_nominal;
    row.above_usual = above_words(*rp.measured, *rp.nominal, row.expected_note) +
                      fmt::format(": the compute roof kept {} of its nominal and the memory roof {}, and the ridge moves by "
                                  "their ratio ({})",
                                  units::percent(pf), units::percent(bf), units::ratio(pf / bf));
  }
  rows.push_back(std::move(row));
}

void ecc_row(const results& r, std::vector<record_row>& rows) {
  if (r.device.kind == "cpu") return;  // DRAM ECC is not visible to roofline on a CPU
  record_row row;
  row.key = "ecc";
  row.label = "ECC";
  row.expected_note = "on for datacenter GPUs";
  std::string source;
  if (const auto state = ecc_state(r, &source)) row.measured_text = *state, row.measured_note = "from " + source;
  else row.measured_note = "ECC state not in the telemetry";
  rows.push_back(std::move(row));
}

void mfu_row(const results& r, std::vector<record_row>& rows, const std::string& precision) {
  const nominal_peak* p = peak_for(r.nominal, precision);
  const decode_step d = decode_step_at(r, 1);
  const ridge_pair rp = ridge_for(r, precision);
  record_row row;
  row.key = "tpot_mfu";
  row.label = fmt::format("TPOT → MFU (decode, batch 1, {})", precision);
  row.unit = "FLOP/s";
  if (p) row.nominal = p->flops_per_s;
  else row.nominal_note = "no nominal " + precision + " peak";
  const double intensity = d.bytes > 0 ? d.flops / d.bytes : 0;
  if (intensity > 0 && rp.nominal) {
    row.expected_note = fmt::format("≈ {} = intensity ÷ nominal ridge = {} ÷ {} (MFU of a bandwidth-bound decode)",
                                    units::percent(std::min(1.0, intensity / *rp.nominal)), units::sig(intensity), units::sig(*rp.nominal));
    if (p) row.expected_low = row.expected_high = std::min(1.0, intensity / *rp.nominal) * p->flops_per_s;
  } else if (intensity > 0 && rp.measured) {
    row.expected_note = fmt::format("≤ {} of the measured roof = intensity ÷ measured ridge = {} ÷ {} (nominal bandwidth unknown)",
                                    units::percent(std::min(1.0, intensity / *rp.measured)), units::sig(intensity), units::sig(*rp.measured));
  } else {
    row.expected_note = "≈ intensity ÷ ridge";
  }
  if (d.tpot_s && d.flops > 0) {
    row.measured = d.flops / *d.tpot_s;
    row.seconds = d.tpot_s;
    row.measured_note = fmt::format("TPOT from {}; {} per token", d.tpot_source == "--tpot" ? "--tpot" : "the " + d.tpot_source, units::flop_count(d.flops));
    // decode is bandwidth-bound: MBU = the step's bytes ÷ TPOT ÷ nominal bandwidth (§4.5), and the
    // attainable TPOT (the step's ops predicted at the roofs) it is a multiple of
    if (d.bytes > 0 && r.roofline.bandwidth_nominal && *r.roofline.bandwidth_nominal > 0)
      row.measured_note += fmt::format("; MBU {} ({} ÷ TPOT = {} of {})", units::percent(d.bytes / *d.tpot_s / *r.roofline.bandwidth_nominal),
                                       units::si(d.bytes, "B"), units::rate_bytes(d.bytes / *d.tpot_s),
                                       units::rate_bytes(*r.roofline.bandwidth_nominal));
    if (d.predicted_s > 0)
      row.measured_note += fmt::format("; {} the attainable {}", units::ratio(*d.tpot_s / d.predicted_s), units::seconds(d.predicted_s));
    if (d.tpot_source == "whole step") {
      row.measured_note += d.sum_of_ops_s ? "; sum of isolated ops " + units::seconds(*d.sum_of_ops_s) : "; sum of isolated ops not measured";
      if (d.whole_step_predicted_s) row.measured_note += "; predicted " + units::seconds(*d.whole_step_predicted_s);
    }
  } else {
    row.measured_note = "TPOT: " + d.why;
  }
  rows.push_back(std::move(row));
}

}  // namespace

std::vector<record_row> record_table(const results& r) {
  std::vector<record_row> rows;
  const std::string p1 = main_precision(r), p2 = second_precision(r.device.kind);
  bandwidth_rows(r, rows);
  const std::optional<std::int64_t> roof_n = roof_gemm_size(r, p1);
  gemm_row(r, rows, p1, roof_n, true);
  gemm_at_clock_row(r, rows, p1, roof_n);
  sustained_rows(r, rows, p1);
  if (roof_n != 512) gemm_row(r, rows, p1, 512, false);  // the small GEMM, unless it is the roof itself (--quick)
  gemm_row(r, rows, p2, roof_gemm_size(r, p2), true);
  telemetry_rows(r, rows, p1);
  ridge_record_row(r, rows, p1);
  ecc_row(r, rows);
  mfu_row(r, rows, p1);
  return rows;
}

}  // namespace roofline
