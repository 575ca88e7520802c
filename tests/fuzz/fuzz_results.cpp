// libFuzzer: results.json parsing + validation never crashes; bad input is an input_error only.
#include <cstddef>
#include <cstdint>
#include <string>

#include "roofline/error.hpp"
#include "roofline/report.hpp"
#include "roofline/results.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    const roofline::results r = roofline::parse_results(text, "fuzz.json");
    // A file that validates must also render: every view is a pure function of the results.
    (void)roofline::render_markdown(r);
    (void)roofline::render_svg(r);
    (void)roofline::render_html(r);
  } catch (const roofline::input_error&) {
  }
  return 0;
}
