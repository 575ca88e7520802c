// Private to the trace reader: a streaming scanner of Kineto / Chrome trace JSON that hands over one
// traceEvents entry at a time with the fields the reader uses, as views into its buffer. Kineto's raw
// keys live here, in one table (kineto_keys), and nowhere else. Why not nlohmann::json's SAX parser
// (which the reader used before): measured 45–52 MB/s on a 2-vCPU guest, where this scanner's design
// (one pass that finds the event's end, one that reads its fields, skipping every value the reader does
// not use) reads several times faster; the numbers are in bench/results (trace read speed).
#pragma once
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace roofline::ingest::detail {

/// The top-level keys and the event keys the reader uses (Kineto's chrome trace, PyTorch 2.x;
/// Chrome Trace Event Format for ph/cat/name/ts/dur/pid/tid/id).
struct kineto_keys {
  static constexpr std::string_view trace_events = "traceEvents";
  static constexpr std::string_view device_properties = "deviceProperties";
  static constexpr std::string_view schema_version = "schemaVersion";
  static constexpr std::string_view cuda_runtime_version = "cuda_runtime_version";
  static constexpr std::string_view cupti_version = "cupti_version";
  // event
  static constexpr std::string_view ph = "ph", cat = "cat", name = "name", ts = "ts", dur = "dur", tid = "tid", id = "id",
                                    args = "args";
  // args
  static constexpr std::string_view external_id = "External id", correlation = "correlation", device = "device",
                                    stream = "stream", bytes = "bytes", grid = "grid", block = "block",
                                    input_dims = "Input Dims", input_type = "Input type", input_strides = "Input Strides",
                                    concrete_inputs = "Concrete Inputs";
};

/// One traceEvents entry: the fields the reader uses. String views point into the scanner's buffer and
/// are valid only during the callback; `raw_*` are still-escaped JSON string contents (decode with
/// json_unescape when `*_escaped`), the shape arguments whole JSON values (parse with parse_* below).
struct kineto_event {
  std::string_view ph, cat, name;
  bool name_escaped = false;
  std::optional<double> ts, dur;
  std::int64_t tid = 0;
  std::string_view tid_name;  ///< a named lane ("tid": "stream 7") instead of a number
  std::optional<std::int64_t> id;
  std::string_view id_name;
  std::optional<std::int64_t> ext, corr, device, stream;
  std::optional<double> bytes;
  std::optional<std::int64_t> grid, block;  ///< products of the three dimensions
  std::string_view dims, types, strides, concrete;  ///< JSON arrays as written ("" when absent)
};

/// Top-level values the reader keeps.
struct kineto_meta {
  std::optional<std::int64_t> schema, cuda_runtime, cupti;
  std::vector<std::string> devices;  ///< deviceProperties[].name
  bool top_object = false;           ///< the document is an object (else a bare array of events)
  bool saw_events = false;           ///< a traceEvents array was found
};

/// Reads `path` (plain or gzip, by its magic bytes) and calls `on_event` for every entry of
/// traceEvents, in file order. Throws input_error naming the file: not JSON (with the byte offset),
/// empty, cannot open, a gzip stream that breaks before any event. A file that ends early (a cut
/// trace, a truncated gzip stream) after at least one whole event returns normally with `cut` set to
/// where and why it stopped; the events before the cut were all delivered.
kineto_meta scan_kineto(const std::string& path, const std::function<void(const kineto_event&)>& on_event,
                        std::string& cut);

/// JSON string contents (without the quotes) with escapes resolved to UTF-8.
std::string json_unescape(std::string_view raw);

/// A JSON value that is a (nested) array of integers, strings and nulls, parsed: each leaf as its
/// text (numbers as written, strings unescaped, null as ""), with the nesting kept. Used for the
/// record_shapes arguments (Input Dims: [[512, 2048], [[1, 2], [3]]]; Input type: ["float", …]).
struct json_tree {
  std::string leaf;
  bool is_array = false, is_string = false, is_number = false;
  std::vector<json_tree> items;
};
json_tree parse_json_tree(std::string_view text);

}  // namespace roofline::ingest::detail
