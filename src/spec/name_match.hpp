// Forgiving GPU name matching against the device table. Private to src/spec.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "spec/device_table.hpp"

namespace roofline::spec_detail {

/// Lower-case alphanumerics with the vendor/brand words ("nvidia", "tesla", "geforce", "amd", "instinct") and any
/// " MIG ..." suffix dropped: "Tesla V100-SXM2-32GB" -> "v100sxm232gb".
std::string normalize_gpu_name(const std::string& name);

/// Levenshtein distance (insert, delete, substitute each cost 1).
std::size_t edit_distance(const std::string& a, const std::string& b);

/// The table row whose name or alias normalizes exactly to `name`'s normal form, or nullptr.
const sku_row* match_exact(const device_table& t, const std::string& name);

/// Lower-case alphanumeric tokens of a name, vendor/brand words and a " MIG ..." suffix dropped:
/// "NVIDIA A100-SXM4-80GB" -> {"a100", "sxm4", "80gb"}.
std::vector<std::string> name_tokens(const std::string& name);

/// The short key a user types for a table GPU: its shortest alias (else its name), lower case,
/// spaces as '-' ("t4", "h100-sxm"); match_forgiving resolves it to exactly this row.
std::string gpu_key(const sku_row& s);

/// Exact (normalized name or alias), else the one row with a spelling whose tokens include every
/// token of the query; throws input_error listing the candidates, each as the key to type and its
/// name ("a100 80gb": "a100-80gb-sxm (NVIDIA A100 80GB SXM), …"), when several rows match, or the three closest names (edit distance) when none does
/// ("L40" never resolves to the L40S).
const sku_row& match_forgiving(const device_table& t, const std::string& name, const std::string& field = "NAME");

}  // namespace roofline::spec_detail
