// The fleet report as a report::document (src/report/document.hpp): fleet.md is its Markdown
// rendering, fleet.html its HTML rendering with the figures (private to src/fleet).
#pragma once
#include "report/document.hpp"
#include "roofline/fleet.hpp"

namespace roofline::fleet {

/// Sections: Devices, Spread over the fleet, Stragglers, Interconnect (NCCL), the tensor-parallel
/// all-reduce (when planned), Errors (when any).
report::document fleet_document(const fleet_report& f);

}  // namespace roofline::fleet
