// Reads the measured all-reduce roof back from a fleet results file (roofline/fleet.hpp).
#include "roofline/error.hpp"
#include "roofline/fleet.hpp"
#include "roofline/io.hpp"
#include "roofline/json.hpp"

namespace roofline::fleet {

allreduce_roof read_allreduce_roof(const std::string& file) {
  json j;
  try {
    j = json::parse(read_file(file));
  } catch (const json::exception& e) {
    throw input_error(file, "", std::string("not valid JSON: ") + e.what());
  }
  const json* roofs = j.contains("interconnect") && j["interconnect"].is_object() && j["interconnect"].contains("roofs")
                          ? &j["interconnect"]["roofs"]
                          : nullptr;
  if (roofs && roofs->is_array())
    for (const auto& r : *roofs)
      if (r.is_object() && r.value("collective", "").find("all_reduce") != std::string::npos &&
          r.contains("latency_s") && r.contains("busbw_bytes_per_s") && r["latency_s"].is_number() &&
          r["busbw_bytes_per_s"].is_number() && r["busbw_bytes_per_s"].get<double>() > 0)
        return {r["latency_s"].get<double>(), r["busbw_bytes_per_s"].get<double>()};
  throw input_error(file, "interconnect.roofs", "no measured all_reduce roof (latency_s, busbw_bytes_per_s)");
}

}  // namespace roofline::fleet
