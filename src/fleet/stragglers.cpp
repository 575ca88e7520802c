// Spread of each roof over the fleet, and the devices below its median by more than a threshold.
#include <algorithm>
#include <map>

#include "roofline/fleet.hpp"
#include "roofline/measure.hpp"

namespace roofline::fleet {

namespace {

struct column {
  std::string unit;
  std::vector<double> values;
  std::vector<const device_roofs*> devices;
};

/// Roof name → values over the devices that measured it, in first-seen order of roof names.
std::vector<std::pair<std::string, column>> columns(const std::vector<device_roofs>& devices) {
  std::vector<std::pair<std::string, column>> cols;
  std::map<std::string, std::size_t> index;
  for (const auto& d : devices)
    for (const auto& rv : named_roofs(d)) {
      auto [it, fresh] = index.try_emplace(rv.roof, cols.size());
      if (fresh) cols.push_back({rv.roof, column{rv.unit, {}, {}}});
      auto& c = cols[it->second].second;
      c.values.push_back(rv.value);
      c.devices.push_back(&d);
    }
  return cols;
}

}  // namespace

std::vector<roof_spread> fleet_spread(const std::vector<device_roofs>& devices) {
  std::vector<roof_spread> out;
  for (const auto& [roof, c] : columns(devices)) out.push_back({roof, c.unit, summarize(c.values)});
  return out;
}

bool below_median(double value, double median, double threshold) {
  return median > 0 && (median - value) / median > threshold;
}

std::vector<straggler> find_stragglers(const std::vector<device_roofs>& devices, double threshold) {
  std::vector<straggler> out;
  for (const auto& [roof, c] : columns(devices)) {
    if (c.values.size() < 2) continue;
    const double med = median(c.values);
    for (std::size_t i = 0; i < c.values.size(); ++i)
      if (below_median(c.values[i], med, threshold)) {
        const device_roofs& d = *c.devices[i];
        out.push_back({d.rank, d.host, d.id, roof, c.unit, c.values[i], med, (med - c.values[i]) / med});
      }
  }
  std::stable_sort(out.begin(), out.end(), [](const straggler& a, const straggler& b) { return a.rank < b.rank; });
  return out;
}

}  // namespace roofline::fleet
