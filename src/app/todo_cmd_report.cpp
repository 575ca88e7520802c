// PLACEHOLDER until `roofline report` / `compare` land (delete this file; implement cmd_report.cpp).
#include "app/commands.hpp"
namespace roofline::app {
void add_report(CLI::App& app, context&) { app.add_subcommand("report", "(not yet implemented)"); }
void add_compare(CLI::App& app, context&) { app.add_subcommand("compare", "(not yet implemented)"); }
}
