// libFuzzer: HuggingFace config.json parsing never crashes; bad input is an input_error only, and a
// config that parses gives a catalogue whose every op has finite, non-negative FLOPs and bytes.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "roofline/error.hpp"
#include "roofline/model.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    const roofline::model_config cfg = roofline::parse_model_config(text, "config.json");
    (void)cfg.parameters();
    roofline::catalogue_options o;
    o.seq = 128;
    o.context = 128;
    for (auto ph : {roofline::phase::decode, roofline::phase::prefill}) {
      o.ph = ph;
      for (const auto& op : roofline::build_catalogue(cfg, o))
        if (!std::isfinite(op.flops) || !std::isfinite(op.bytes()) || op.flops < 0 || op.bytes() < 0) std::abort();
    }
  } catch (const roofline::input_error&) {
  }
  return 0;
}
