// The nominal per-GPU link bandwidth from the device table: links × per-link rate (one direction).
// The figure nccl-tests' busbw is compared with (NVIDIA/nccl-tests doc/PERFORMANCE.md, "Summary": "The
// bus bandwidth should reflect the speed of the hardware bottleneck : NVLink, PCI, QPI, or network";
// the measurement is unidirectional, so the nominal figure is per direction, not the bidirectional sum).
#include <fmt/format.h>

#include "roofline/error.hpp"
#include "roofline/fleet.hpp"
#include "roofline/spec.hpp"

namespace roofline::fleet {

link_nominal nominal_link_from_links(const gpu_link_info& links) {
  // The spec module's typed table row (src/spec/device_table.cpp, "links": {"pcie": {...}, "nvlink":
  // {...} | null}), both rates counting both directions (the datasheet convention: H100 SXM 18 ×
  // 50 GB/s = 900 GB/s).
  link_nominal n;
  if (links.nvlink_links && links.nvlink_bytes_per_s_per_link && *links.nvlink_links > 0 &&
      *links.nvlink_bytes_per_s_per_link > 0) {
    const double l = *links.nvlink_links, both = *links.nvlink_bytes_per_s_per_link / 1e9;
    n.bytes_per_s = l * both / 2 * 1e9;
    n.formula = fmt::format("{:g} NVLink links × {:g} GB/s per link per direction ({:g} GB/s both directions)", l, both / 2, both);
    n.source = "table: " + links.nvlink_source;
    return n;
  }
  if (links.pcie_bytes_per_s > 0) {
    const double both = links.pcie_bytes_per_s / 1e9;
    n.bytes_per_s = both / 2 * 1e9;
    n.formula = fmt::format("PCIe {:g} GB/s per direction ({:g} GB/s both directions); no NVLink", both / 2, both);
    n.source = "table: " + links.pcie_source;
    return n;
  }
  n.reason = "unknown (the device table gives this GPU neither NVLink links nor a PCIe rate)";
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
  try {
    return nominal_link_from_links(gpu_links(device_name));
  } catch (const input_error& e) {
    // no table, or a name the spec module's matcher does not know: the link rate is unknown, not an error
    return {std::nullopt, "", "", "unknown (" + device_name + " is not in the device table: " + e.what() + ")"};
  }
}

}  // namespace roofline::fleet
