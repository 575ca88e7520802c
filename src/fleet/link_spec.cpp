// The nominal per-GPU link bandwidth from the device table: links × per-link rate (one direction).
// The figure nccl-tests' busbw is compared with (NVIDIA/nccl-tests doc/PERFORMANCE.md, "Summary": "The
// bus bandwidth should reflect the speed of the hardware bottleneck : NVLink, PCI, QPI, or network";
// the measurement is unidirectional, so the nominal figure is per direction, not the bidirectional sum).
#include <filesystem>
#include <fmt/format.h>

#include "roofline/fleet.hpp"
#include "roofline/io.hpp"
#include "roofline/spec.hpp"

namespace roofline::fleet {

namespace {

std::string lower(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

/// Depth-first search of a table file for the object whose "name" (or one of its "aliases") is `name`.
const json* find_entry(const json& j, const std::string& name) {
  if (j.is_object()) {
    if (j.contains("name") && j["name"].is_string() && lower(j["name"].get<std::string>()) == name) return &j;
    if (j.contains("aliases") && j["aliases"].is_array())
      for (const auto& a : j["aliases"])
        if (a.is_string() && lower(a.get<std::string>()) == name) return &j;
    for (const auto& [k, v] : j.items())
      if (const json* e = find_entry(v, name)) return e;
  } else if (j.is_array()) {
    for (const auto& v : j)
      if (const json* e = find_entry(v, name)) return e;
  }
  return nullptr;
}

std::string source_of(const json& o) { return o.contains("source") && o["source"].is_string() ? o["source"].get<std::string>() : ""; }

bool positive_number(const json& o, const char* key) {
  return o.is_object() && o.contains(key) && o[key].is_number() && o[key].get<double>() > 0;
}

}  // namespace

link_nominal nominal_link_from_entry(const json& entry) {
  link_nominal n;
  const json* ic = entry.is_object() && entry.contains("interconnect") ? &entry["interconnect"] : nullptr;
  if (!ic || !ic->is_object()) {
    n.reason = "unknown (the device table has no interconnect entry for this GPU)";
    return n;
  }
  if (ic->contains("nvlink")) {
    const json& nv = (*ic)["nvlink"];
    if (positive_number(nv, "links") && positive_number(nv, "bytes_per_s_per_link")) {
      const double links = nv["links"].get<double>(), rate = nv["bytes_per_s_per_link"].get<double>();
      n.bytes_per_s = links * rate;
      n.formula = fmt::format("{:g} NVLink links × {:g} GB/s per link, one direction", links, rate / 1e9);
      n.source = source_of(nv);
      return n;
    }
  }
  if (ic->contains("pcie")) {
    const json& p = (*ic)["pcie"];
    if (positive_number(p, "bytes_per_s")) {
      n.bytes_per_s = p["bytes_per_s"].get<double>();
      n.formula = fmt::format("PCIe, {:g} GB/s one direction", *n.bytes_per_s / 1e9);
      n.source = source_of(p);
      return n;
    }
  }
  n.reason = "unknown (the interconnect entry has neither nvlink {links, bytes_per_s_per_link} nor pcie {bytes_per_s})";
  return n;
}

link_nominal nominal_link(const std::string& device_name) {
  const std::string dir = device_table_dir();
  std::error_code ec;
  if (!std::filesystem::is_directory(dir, ec)) return {std::nullopt, "", "", "unknown (no device table at " + dir + ")"};
  const std::string want = lower(device_name);
  for (const auto& f : std::filesystem::directory_iterator(dir, ec)) {
    if (f.path().extension() != ".json") continue;
    json j;
    try {
      j = json::parse(read_file(f.path().string()));
    } catch (const std::exception&) {
      continue;  // the spec module reports a broken table; here it only means "not found"
    }
    if (const json* e = find_entry(j, want)) {
      link_nominal n = nominal_link_from_entry(*e);
      if (n.source.empty() && n.bytes_per_s) n.source = "table: " + f.path().filename().string();
      return n;
    }
  }
  return {std::nullopt, "", "", "unknown (" + device_name + " is not in the device table)"};
}

}  // namespace roofline::fleet
