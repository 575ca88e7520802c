// The report's views format numbers with roofline/units.hpp (the one formatter of the project).
#pragma once
#include "roofline/units.hpp"

namespace roofline::report {
using namespace roofline::units;
}  // namespace roofline::report
