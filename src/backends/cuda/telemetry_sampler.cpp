#include "backends/cuda/telemetry_sampler.hpp"

#include <algorithm>
#include <chrono>

#include <fmt/format.h>

#include "roofline/json.hpp"
#include "roofline/measure.hpp"

namespace roofline::cuda {

telemetry_sampler::telemetry_sampler(const std::string& pci_bus_id, int cuda_index, double period_s)
    : period_s_(period_s) {
  lib_ = nvml_library::open(why_);
  if (!lib_) return;
  device_ = lib_->device_for_cuda(pci_bus_id, cuda_index, why_, device_note_);
  if (!device_) {
    lib_.reset();
    return;
  }
  samples_.reserve(1 << 14);
  thread_ = std::thread([this] { loop(); });
  if (lib_->total_energy) counter_thread_ = std::thread([this] { watch_counter(); });
}

telemetry_sampler::~telemetry_sampler() {
  stop_.store(true);
  if (thread_.joinable()) thread_.join();
  if (counter_thread_.joinable()) counter_thread_.join();
}

void telemetry_sampler::watch_counter() {
  // NVML's energy counter moves in steps (every 100 ms on an H100, where one read takes ~3.3 ms), so an
  // update is timed midway between the read that first saw it and the read before it: ± half a read.
  std::optional<std::uint64_t> last;
  double prev_mid = 0;
  while (!stop_.load()) {
    const double t_a = now_s();
    unsigned long long mj = 0;
    const nvml_return r = lib_->total_energy(*device_, &mj);
    const double mid = 0.5 * (t_a + now_s());
    if (r != nvml_success) return;  // energy_mj() says why where a window needs it
    if (last && mj != *last) {
      std::lock_guard<std::mutex> lock(mu_);
      updates_.push_back({0.5 * (prev_mid + mid), static_cast<std::uint64_t>(mj)});
    }
    last = mj;
    prev_mid = mid;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
}

void telemetry_sampler::note_error(const std::string& e) const {
  std::lock_guard<std::mutex> lock(mu_);
  for (const auto& x : errors_)
    if (x.substr(0, x.find(':')) == e.substr(0, e.find(':'))) return;
  errors_.push_back(e);
}

telemetry_sample telemetry_sampler::read_now() const {
  telemetry_sample s;
  s.t_s = now_s();
  if (!available()) return s;
  const nvml_device d = *device_;
  unsigned v = 0;
  nvml_return r = lib_->clock_info(d, nvml_clock_sm, &v);
  if (r == nvml_success) s.sm_clock_mhz = v;
  else note_error(lib_->describe("nvmlDeviceGetClockInfo(SM)", r));
  r = lib_->clock_info(d, nvml_clock_mem, &v);
  if (r == nvml_success) s.mem_clock_mhz = v;
  else note_error(lib_->describe("nvmlDeviceGetClockInfo(MEM)", r));
  if (lib_->power_usage) {
    r = lib_->power_usage(d, &v);
    if (r == nvml_success) s.power_w = v / 1000.0;  // milliwatts
    else note_error(lib_->describe("nvmlDeviceGetPowerUsage", r));
  }
  if (lib_->field_values) {
    nvml_field_value f{};
    f.field_id = nvml_fi_dev_power_instant;
    r = lib_->field_values(d, 1, &f);
    if (r == nvml_success && f.nvml_ret == nvml_success) s.instant_power_w = f.value.ui / 1000.0;  // milliwatts
    else note_error(lib_->describe("nvmlDeviceGetFieldValues(NVML_FI_DEV_POWER_INSTANT)", r != nvml_success ? r : f.nvml_ret));
  }
  if (lib_->temperature) {
    r = lib_->temperature(d, nvml_temperature_gpu, &v);
    if (r == nvml_success) s.temperature_c = v;
    else note_error(lib_->describe("nvmlDeviceGetTemperature", r));
  }
  if (lib_->clocks_event_reasons) {
    unsigned long long m = 0;
    r = lib_->clocks_event_reasons(d, &m);
    if (r == nvml_success) s.reasons = m;
    else note_error(lib_->describe(lib_->reasons_symbol.c_str(), r));
  }
  return s;
}

std::optional<std::uint64_t> telemetry_sampler::energy_mj(std::string& why) const {
  if (!available()) {
    why = "not available (NVML: " + why_ + ")";
    return std::nullopt;
  }
  if (!lib_->total_energy) {
    why = "not available (libnvidia-ml.so.1 lacks nvmlDeviceGetTotalEnergyConsumption)";
    return std::nullopt;
  }
  unsigned long long mj = 0;
  const nvml_return r = lib_->total_energy(*device_, &mj);
  if (r != nvml_success) {
    why = "not available (" + lib_->describe("nvmlDeviceGetTotalEnergyConsumption", r) + ")";
    return std::nullopt;
  }
  return static_cast<std::uint64_t>(mj);
}

energy_mark telemetry_sampler::mark() const {
  energy_mark m;
  std::string why;
  const auto mj = energy_mj(why);
  m.t_s = now_s();
  if (mj) m.raw.push_back(*mj);
  return m;
}

energy_window telemetry_sampler::energy_between(const energy_mark& a, const energy_mark& b) const {
  energy_window w;
  w.window_s = b.t_s - a.t_s;
  w.source = "NVML nvmlDeviceGetTotalEnergyConsumption (mJ), read before and after the window";
  if (a.raw.size() == 1 && b.raw.size() == 1) {
    w.counter_j = static_cast<double>(counter_delta(a.raw[0], b.raw[0], 0)) / 1e3;
    std::optional<power_between_updates> p;
    {
      std::lock_guard<std::mutex> lock(mu_);
      p = power_from_updates(updates_, a.t_s, b.t_s, 1e-3);
    }
    if (p) {
      w.ends_j = w.counter_j;
      w.counter_j = p->watts * w.window_s;
      w.counter_updates = p->intervals;
      w.source = fmt::format("NVML nvmlDeviceGetTotalEnergyConsumption (mJ): its power between its first and last update "
                             "inside the window ({} updates over {:.3f} s) × the window (read at the window's ends, a "
                             "counter that moves every ~{:.0f} ms is up to one update stale at each: ends_j)",
                             p->intervals, p->span_s, 1e3 * p->span_s / p->intervals);
    }
  } else {
    std::string why;
    (void)energy_mj(why);
    w.note = why.empty() ? "not available (the counter was unreadable at one end of the window)" : why;
  }
  if (available()) {
    // The cross-check integrates the instantaneous power where NVML has it: the 1 s average of
    // nvmlDeviceGetPowerUsage lags the window by up to a second (on the H200 it read
    // −25…+13 % against the counter over 1 s windows).
    const auto in_window = samples(a.t_s - period_s_, b.t_s + period_s_);
    const bool instant = std::any_of(in_window.begin(), in_window.end(),
                                     [&](const telemetry_sample& s) { return s.instant_power_w && s.t_s >= a.t_s && s.t_s <= b.t_s; });
    std::vector<power_point> pts;
    for (const auto& s : in_window) {
      const std::optional<double> p = instant ? s.instant_power_w : s.power_w;
      if (!p) continue;
      pts.push_back({s.t_s, *p});
      if (s.t_s >= a.t_s && s.t_s <= b.t_s) ++w.power_samples;
    }
    w.integrated_j = integrate_power(pts, a.t_s, b.t_s);
    double t_sum = 0;
    int t_n = 0;
    for (const auto& s : in_window)
      if (s.temperature_c && s.t_s >= a.t_s && s.t_s <= b.t_s) t_sum += *s.temperature_c, ++t_n;
    if (t_n > 0) w.temperature_c = t_sum / t_n;
    w.source += instant ? "; cross-check: NVML instantaneous power samples (nvmlDeviceGetFieldValues, "
                          "NVML_FI_DEV_POWER_INSTANT) integrated over it"
                        : "; cross-check: NVML power samples (nvmlDeviceGetPowerUsage, a 1 s average on Ampere and "
                          "newer) integrated over it";
  }
  if (!w.integrated_j) w.note += std::string(w.note.empty() ? "" : "; ") + "integrated power: no power sample in the window";
  return w;
}

void telemetry_sampler::loop() {
  using clock = std::chrono::steady_clock;
  const auto period = std::chrono::duration_cast<clock::duration>(std::chrono::duration<double>(period_s_));
  auto next = clock::now();
  while (!stop_.load()) {
    telemetry_sample s = read_now();
    {
      std::lock_guard<std::mutex> lock(mu_);
      samples_.push_back(s);
    }
    next += period;
    const auto now = clock::now();
    if (next < now) next = now;  // a slow NVML call: do not burst to catch up
    std::this_thread::sleep_until(next);
  }
}

std::vector<telemetry_sample> telemetry_sampler::samples(double t0, double t1) const {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<telemetry_sample> out;
  for (const auto& s : samples_)
    if (s.t_s >= t0 && s.t_s <= t1) out.push_back(s);
  return out;
}

std::optional<telemetry_summary> telemetry_sampler::summary(double t0, double t1) const {
  if (!available()) return std::nullopt;
  // Include one period either side so a window shorter than a period still finds its nearest sample.
  const auto xs = samples(t0 - period_s_, t1 + period_s_);
  std::vector<telemetry_sample> in;
  for (const auto& s : xs)
    if (s.t_s >= t0 && s.t_s <= t1) in.push_back(s);
  return summarize_telemetry(in.empty() ? xs : in, t0, t1);
}

std::vector<std::string> telemetry_sampler::query_errors() const {
  std::lock_guard<std::mutex> lock(mu_);
  return errors_;
}

json telemetry_sampler::device_json() const {
  json j;
  if (!available()) {
    j["nvml"] = "unavailable (" + why_ + ")";
    j["sampler_hz"] = nullptr;
    return j;
  }
  j["nvml"] = "available";
  if (!device_note_.empty()) j["nvml_device_note"] = device_note_;
  j["sampler_period_s"] = period_s_;
  {
    std::lock_guard<std::mutex> lock(mu_);
    j["samples"] = samples_.size();
    if (samples_.size() > 1 && samples_.back().t_s > samples_.front().t_s)
      j["sampler_hz"] = (samples_.size() - 1) / (samples_.back().t_s - samples_.front().t_s);
    else
      j["sampler_hz"] = nullptr;
    if (updates_.size() > 2) {  // the energy counter's cadence: the median time between its updates
      std::vector<double> gaps;
      for (std::size_t i = 1; i < updates_.size(); ++i) gaps.push_back(updates_[i].t_s - updates_[i - 1].t_s);
      std::nth_element(gaps.begin(), gaps.begin() + static_cast<std::ptrdiff_t>(gaps.size() / 2), gaps.end());
      j["energy_counter_update_s"] = gaps[gaps.size() / 2];
    }
  }
  j["reasons_api"] = lib_->reasons_symbol.empty() ? "unavailable (neither clocks-event nor throttle reasons exported)"
                                                  : lib_->reasons_symbol;
  const nvml_device d = *device_;
  if (lib_->ecc_mode) {
    int cur = 0, pend = 0;
    const nvml_return r = lib_->ecc_mode(d, &cur, &pend);
    if (r == nvml_success) j["ecc"] = cur == nvml_feature_enabled;
    else j["ecc"] = "unknown (" + lib_->describe("nvmlDeviceGetEccMode", r) + ")";
  } else {
    j["ecc"] = "unknown (nvmlDeviceGetEccMode not exported)";
  }
  if (lib_->enforced_power_limit) {
    unsigned mw = 0;
    const nvml_return r = lib_->enforced_power_limit(d, &mw);
    if (r == nvml_success) j["power_limit_w"] = mw / 1000.0;
    else j["power_limit_w"] = "unknown (" + lib_->describe("nvmlDeviceGetEnforcedPowerLimit", r) + ")";
  } else {
    j["power_limit_w"] = "unknown (nvmlDeviceGetEnforcedPowerLimit not exported)";
  }
  const auto errs = query_errors();
  if (!errs.empty()) j["query_errors"] = errs;
  return j;
}

}  // namespace roofline::cuda
