// A rate against the nominal peak at the clock of the same interval (roofline/clock_match.hpp;
// docs/formulas-analysis.md §6, "The peak at that clock").
#include "roofline/clock_match.hpp"

#include <fmt/format.h>

#include "roofline/units.hpp"
#include "roofline/vocabulary.hpp"

namespace roofline {

std::optional<double> peak_at_clock(const nominal_roofs& n, const nominal_peak& p, double mhz) {
  const auto at = nominal_clock_mhz(n, &p);
  if (!at || !(*at > 0) || !(mhz > 0) || !(p.flops_per_s > 0)) return std::nullopt;
  return p.flops_per_s * mhz / *at;
}

namespace {

/// The interval's numbers when its rate is at most the peak at its clock; nullopt otherwise (or
/// without a peak at that clock).
std::optional<clock_matched> matched(const nominal_roofs& n, const nominal_peak& p, double rate, double mhz, clock_interval which) {
  const auto peak = peak_at_clock(n, p, mhz);
  if (!peak || rate > *peak) return std::nullopt;
  clock_matched m;
  m.rate = rate;
  m.clock_mhz = mhz;
  m.peak = peak;
  m.fraction = rate / *peak;
  m.interval = which;
  return m;
}

std::string above(const nominal_roofs& n, const nominal_peak& p, double rate, double mhz, const char* what) {
  const auto peak = peak_at_clock(n, p, mhz);
  return fmt::format("{} ran {}, above the {} peak at the {} its samples read: the clock rose between them", what,
                     units::compute_rate(rate, p.precision), units::compute_rate(*peak, p.precision), units::value(mhz, "MHz"));
}

}  // namespace

clock_matched match_clock(const nominal_roofs& n, const nominal_peak* p, const compute_result& c) {
  clock_matched out;
  if (!p) {
    out.uncertain = "no nominal " + c.precision + " peak";
    return out;
  }
  if (!nominal_clock_mhz(n, p)) {
    out.uncertain = "the nominal " + c.precision + " peak names no clock";
    return out;
  }
  if (c.repeat_clock) {
    const repeat_clocks& rc = *c.repeat_clock;
    std::string fastest;
    if (rc.fastest_mhz) {
      if (auto m = matched(n, *p, c.flops_per_s, *rc.fastest_mhz, clock_interval::fastest_repeat)) return *m;
      fastest = above(n, *p, c.flops_per_s, *rc.fastest_mhz, "the fastest repeat");
    } else {
      fastest = fmt::format("the clock of the fastest repeat is uncertain ({})", rc.fastest_why.empty() ? "not resolved" : rc.fastest_why);
    }
    if (rc.resolved_flops_per_s && rc.resolved_mhz) {
      if (auto m = matched(n, *p, *rc.resolved_flops_per_s, *rc.resolved_mhz, clock_interval::resolved_repeat)) {
        m->fastest_uncertain = fastest;
        return *m;
      }
      out.uncertain = fastest + "; " + above(n, *p, *rc.resolved_flops_per_s, *rc.resolved_mhz, "the fastest resolved repeat");
    } else {
      out.uncertain = fastest + fmt::format("; the samples resolve none of its {} repeats", rc.repeats);
    }
    out.fastest_uncertain = fastest;
    return out;
  }
  // An older file: only the median clock of all the timed runs, beside the best of them.
  if (!c.telemetry || !c.telemetry->sm_clock_mhz || !(c.telemetry->sm_clock_mhz->median > 0)) {
    out.uncertain = "no SM clock recorded for the GEMM";
    return out;
  }
  const double median = c.telemetry->sm_clock_mhz->median;
  if (auto m = matched(n, *p, c.flops_per_s, median, clock_interval::timed_runs)) return *m;
  const auto peak = peak_at_clock(n, *p, median);
  out.uncertain = fmt::format(
      "the clock of the fastest repeat is uncertain: the file records only the median clock of all the timed runs, {}, and the "
      "fastest repeat's {} is above the {} peak at it (the clock rose while it ran)",
      units::value(median, "MHz"), units::compute_rate(c.flops_per_s, p->precision), units::compute_rate(*peak, p->precision));
  out.fastest_uncertain = out.uncertain;
  return out;
}

}  // namespace roofline
