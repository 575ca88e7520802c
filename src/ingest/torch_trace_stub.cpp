// TEMPORARY link stub until src/ingest/torch_trace.cpp lands: delete this file on merge.
#include "roofline/error.hpp"
#include "roofline/ingest.hpp"

namespace roofline::ingest {

ingest_result read_torch_trace(const std::string& path) { throw input_error(path, "", "PyTorch traces: not yet (reader not merged)"); }

}  // namespace roofline::ingest
