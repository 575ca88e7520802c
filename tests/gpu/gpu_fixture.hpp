// Shared by the GPU tests: skip when no CUDA device is visible; one quick-mode backend on cuda:0.
#pragma once
#include <gtest/gtest.h>

#include <memory>

#include "roofline/backend.hpp"
#include "roofline/measure.hpp"

namespace roofline::test {

#define ROOFLINE_REQUIRE_GPU()                                                  \
  do {                                                                          \
    if (::roofline::cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device"; \
  } while (0)

inline probe_options quick_options() {
  probe_options o;
  o.quick = true;
  o.timing = quick_timing();
  return o;
}

/// Runs every probe of `group` (and, if given, only the one named `name`) and returns the results.
inline measured_roofs run_group(backend& be, const std::string& group, const std::string& name = "") {
  measured_roofs m;
  for (const auto& p : be.probes(quick_options())) {
    if (p.group != group || (!name.empty() && p.name != name)) continue;
    p.run(m);
  }
  return m;
}

}  // namespace roofline::test
