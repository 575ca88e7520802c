// What ops, mfu and place share: CLI11 validators of option values, the --device/--results pair,
// and the one resolution of the roofs a command places work against.
#pragma once
#include <CLI/CLI.hpp>
#include <optional>
#include <string>

#include "roofline/command_roofs.hpp"

namespace roofline::app {

/// Validators wrapping the library's one parser of each value (parse_phase, dtype_bytes,
/// known_precisions): CLI11 refuses a bad value while parsing, before anything runs, in one line
/// naming the flag ("--phase: 'sideways' is not a phase (decode, prefill, train)").
CLI::Validator phase_value();
CLI::Validator dtype_value();
CLI::Validator weights_value();  ///< a row of weight_formats() (--weights)
/// Adds --weights FORMAT and --group-size N|channel|tensor (the linear layers' weights; activations
/// stay --dtype): the same flags with the same words in every command that takes them.
void add_weights_options(CLI::App* sub, std::string& weights, std::string& group_size);
CLI::Validator precision_value();
CLI::Validator finite_positive();  ///< a finite number > 0 (CLI::PositiveNumber lets "nan" through)

/// A duration with its unit: "25ms", "25 ms", "0.025", "0.025s", "25000us", "25000µs", "2.5e-2", "40ns";
/// a bare number is seconds. Throws input_error naming `flag` for anything else or a value that is
/// not finite and > 0.
double parse_duration(const std::string& text, const std::string& flag);
/// True when `text` is a number without a unit.
bool duration_is_bare(const std::string& text);

/// Adds --device NAME (the spec table's nominal roofs) and --results FILE, each excluding the other.
void add_roofs_options(CLI::App* sub, std::string& device, std::string& results_file);
/// Adds --ecc on|off: a GDDR part's bandwidth and capacity with ECC on or off (default: as the part
/// ships, the table row's; resolve_roofs applies it and says which bandwidth is used).
void add_ecc_option(CLI::App* sub, std::string& ecc);
/// Adds --gpu-memory-utilization F: the share of device memory the step may use (vLLM's flag; 1 = all).
void add_memory_utilization_option(CLI::App* sub, double& share);

// The roofs a command places work against (command_roofs, placement_roofs and their resolution)
// are computed in the analysis layer: roofline/command_roofs.hpp, src/analysis/command_roofs.cpp.
using roofline::command_roofs;
using roofline::placement_roofs;
using roofline::resolve_placement_roofs;
using roofline::resolve_roofs;
using roofline::roofs_request;

}  // namespace roofline::app
