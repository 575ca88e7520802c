// PLACEHOLDER until `roofline ops` lands (delete this file; implement src/app/cmd_ops.cpp).
#include "app/commands.hpp"
namespace roofline::app {
void add_ops(CLI::App& app, context&) { app.add_subcommand("ops", "(not yet implemented)"); }
}
