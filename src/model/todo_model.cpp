// PLACEHOLDER until the model module lands (delete this file when implementing src/model/).
#include "roofline/error.hpp"
#include "roofline/model.hpp"
namespace roofline {
std::int64_t model_config::parameters() const { return 0; }
model_config load_model_config(const std::string& path) { model_config c; c.name = path; return c; }
model_config parse_model_config(const std::string& text, const std::string& file) { return {}; }
std::string resolve_model_path(const std::string& name_or_path) { return name_or_path; }
std::vector<std::string> shipped_models() { return {}; }
std::string to_string(phase p) { return p == phase::decode ? "decode" : p == phase::prefill ? "prefill" : "train"; }
phase parse_phase(const std::string& s) { return phase::decode; }
std::string to_string(op_kind k) { return "op"; }
std::vector<op_desc> build_catalogue(const model_config& cfg, const catalogue_options& opt) { return {}; }
int dtype_bytes(const std::string& dtype) { return 2; }
}  // namespace roofline
