// The nominal per-GPU link bandwidth from the device table: links × per-link rate (one direction).
// The figure nccl-tests' busbw is compared with (NVIDIA/nccl-tests doc/PERFORMANCE.md, "Summary": "The
// bus bandwidth should reflect the speed of the hardware bottleneck : NVLink, PCI, QPI, or network";
// the measurement is unidirectional, so the nominal figure is per direction, not the bidirectional sum).
#include <filesystem>
#include <fmt/format.h>

#include "roofline/fleet.hpp"
#include "roofline/io.hpp"
#include "roofline/spec.hpp"

#include "roofline/text.hpp"

namespace roofline::fleet {

namespace {


/// Depth-first search of a table file for the object whose "name" (or one of its "aliases") is `name`.
const json* find_entry(const json& j, const std::string& name) {
  if (j.is_object()) {
    if (j.contains("name") && j["name"].is_string() && lowercase(j["name"].get<std::string>()) == name) return &j;
    if (j.contains("aliases") && j["aliases"].is_array())
      for (const auto& a : j["aliases"])
        if (a.is_string() && lowercase(a.get<std::string>()) == name) return &j;
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
  // The device table's SKU entry (src/spec/device_table.cpp): "links": {"pcie": {"generation",
  // "lanes", "gb_per_s", "source"}, "nvlink": {"links", "gb_per_s_per_link", "source"} | null}, both
  // rates counting both directions (the datasheet convention: H100 SXM 18 × 50 GB/s = 900 GB/s).
  link_nominal n;
  const json* links = entry.is_object() && entry.contains("links") ? &entry["links"] : nullptr;
  if (!links || !links->is_object()) {
    n.reason = "unknown (the device table has no links entry for this GPU)";
    return n;
  }
  if (links->contains("nvlink")) {
    const json& nv = (*links)["nvlink"];
    if (positive_number(nv, "links") && positive_number(nv, "gb_per_s_per_link")) {
      const double l = nv["links"].get<double>(), both = nv["gb_per_s_per_link"].get<double>();
      n.bytes_per_s = l * both / 2 * 1e9;
      n.formula = fmt::format("{:g} NVLink links × {:g} GB/s per link per direction ({:g} GB/s both directions)", l, both / 2, both);
      n.source = "table: " + source_of(nv);
      return n;
    }
  }
  if (links->contains("pcie")) {
    const json& p = (*links)["pcie"];
    if (positive_number(p, "gb_per_s")) {
      const double both = p["gb_per_s"].get<double>();
      n.bytes_per_s = both / 2 * 1e9;
      n.formula = fmt::format("PCIe {:g} GB/s per direction ({:g} GB/s both directions); no NVLink", both / 2, both);
      n.source = "table: " + source_of(p);
      return n;
    }
  }
  n.reason = "unknown (the links entry has neither nvlink {links, gb_per_s_per_link} nor pcie {gb_per_s})";
  return n;
}

link_nominal nominal_link_from_factors(const nominal_roofs& nominal) {
  // The factors the spec module derives from the same table row (src/spec/gpu_derivation.cpp):
  // "NVLink links", "NVLink bandwidth per link (both directions)" [GB/s], "PCIe bandwidth (… both directions)".
  const factor *links = nullptr, *per_link = nullptr, *pcie = nullptr;
  for (const auto& f : nominal.factors) {
    if (f.name == "NVLink links") links = &f;
    else if (f.name.rfind("NVLink bandwidth per link", 0) == 0) per_link = &f;
    else if (f.name.rfind("PCIe bandwidth", 0) == 0) pcie = &f;
  }
  auto per_direction = [](const factor& f) {
    const double gb = f.unit == "GB/s" ? f.value : f.value / 1e9;
    return f.name.find("both directions") != std::string::npos ? gb / 2 : gb;
  };
  link_nominal n;
  if (links && per_link && links->value > 0 && per_link->value > 0) {
    n.bytes_per_s = links->value * per_direction(*per_link) * 1e9;
    n.formula = fmt::format("{:g} NVLink links × {:g} GB/s per link per direction", links->value, per_direction(*per_link));
    n.source = per_link->source;
  } else if (pcie && pcie->value > 0) {
    n.bytes_per_s = per_direction(*pcie) * 1e9;
    n.formula = fmt::format("PCIe {:g} GB/s per direction; no NVLink", per_direction(*pcie));
    n.source = pcie->source;
  } else {
    n.reason = "unknown (the nominal roofs carry no NVLink or PCIe factors)";
  }
  return n;
}

link_nominal nominal_link(const std::string& device_name) {
  const std::string dir = device_table_dir();
  std::error_code ec;
  if (!std::filesystem::is_directory(dir, ec)) return {std::nullopt, "", "", "unknown (no device table at " + dir + ")"};
  const std::string want = lowercase(device_name);
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
      if (n.bytes_per_s && n.source == "table: ") n.source = "table: " + f.path().filename().string();
      return n;
    }
  }
  return {std::nullopt, "", "", "unknown (" + device_name + " is not in the device table)"};
}

}  // namespace roofline::fleet
