// The model's parsed config as results.json stores it (model.config): every field of model_config
// (roofline/model.hpp), weight scheme included, written by `run` and read back typed, so that the
// analysis rebuilds the model's op catalogue from the file alone, on any machine (the config.json it
// was read from, model.source, is a path of the machine that ran it). Keys: docs/results-schema.md
// "model".
#pragma once
#include <optional>
#include <string>

#include "roofline/json_fwd.hpp"
#include "roofline/model.hpp"

namespace roofline {

struct results;

/// model.config: every field of `c` under its member name ("hidden", "kv_heads", "weights": {…}).
json model_config_json(const model_config& c);
/// True when `config` (a results.json model.config) is a stored parsed config, i.e. has "hidden". Files
/// written before it was stored hold an 8-key summary with HuggingFace names ("hidden_size", …): false.
bool is_stored_model_config(const json& config);
/// The model's main sizes under their HuggingFace names: hidden_size, intermediate_size,
/// num_hidden_layers, num_attention_heads, num_key_value_heads, head_dim, vocab_size,
/// tie_word_embeddings (the report's device section lists them). From a stored config; an older file's
/// 8-key summary (those very keys) as it is.
json model_sizes(const json& config);
/// Reads a model.config written by model_config_json; a field it lacks keeps model_config's default.
/// Throws input_error(file, "model.config.<key>", …) for a value of the wrong type, an integer that is
/// not whole or out of range, a number that is not finite, or an unknown weights.linear.layout.
model_config model_config_from_json(const json& config, const std::string& file);

/// The model of a results file, rebuilt from its stored model.config alone (the file is never
/// re-read, nor model.source: a pure function of the results). nullopt with `why` when the results
/// have no model, or no stored config (a file written before it was stored, whose loader could not
/// rebuild it: attach_model_config), or a malformed one.
std::optional<model_config> stored_model_config(const results& r, std::string* why = nullptr);

/// For a results file written before model.config stored the parsed config: reads its model.source,
/// else the shipped models/ copy of the same name (a shipped model is recorded relative to the tree it
/// ran in), with the weights the run executed (runnable_weights: a quantization_config is not what
/// ran), and stores it in r.model->config. Called by the commands that load a file (`report`), never
/// by the analysis. Returns true when r now stores a parsed config (it did already, or it was
/// rebuilt); false (r unchanged) when there is no model or its config is not readable here, `why`
/// saying which. A stored config that is malformed throws input_error naming `file` and the field.
bool attach_model_config(results& r, const std::string& file, std::string* why = nullptr);

/// What `roofline report` reads: load_results(path), then attach_model_config (an older file's model
/// rebuilt where its config is readable here). Throws input_error as load_results does, and for a
/// malformed model.config.
results load_results_with_model(const std::string& path);

}  // namespace roofline
