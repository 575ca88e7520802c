// PLACEHOLDER until `roofline mfu` / `place` land (delete this file; implement cmd_mfu.cpp, cmd_place.cpp).
#include "app/commands.hpp"
namespace roofline::app {
void add_mfu(CLI::App& app, context&) { app.add_subcommand("mfu", "(not yet implemented)"); }
void add_place(CLI::App& app, context&) { app.add_subcommand("place", "(not yet implemented)"); }
}
