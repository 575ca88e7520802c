// PLACEHOLDER until `roofline spec` lands (delete this file; implement src/app/cmd_spec.cpp).
#include "app/commands.hpp"
namespace roofline::app {
void add_spec(CLI::App& app, context&) { app.add_subcommand("spec", "(not yet implemented)"); }
}
