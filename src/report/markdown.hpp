// The report as a document (shared by report.md and report.html).
#pragma once
#include "report/document.hpp"
#include "roofline/results.hpp"

namespace roofline::report {

/// Every section of the report, in reading order.
document build_document(const results& r);

}  // namespace roofline::report
