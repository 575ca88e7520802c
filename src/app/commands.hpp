// The CLI's subcommands. Each add_* registers one subcommand on the CLI11 app; its callback sets
// ctx.exit_code (0 ok, 1 a measurement failed). Bad input throws input_error (main: exit 2).
#pragma once
#include <CLI/CLI.hpp>

namespace roofline::app {

struct context {
  int exit_code = 0;
};

void add_run(CLI::App& app, context& ctx);      // src/app/cmd_run.cpp
void add_measure(CLI::App& app, context& ctx);  // src/app/cmd_run.cpp
void add_spec(CLI::App& app, context& ctx);     // src/app/cmd_spec.cpp
void add_ops(CLI::App& app, context& ctx);      // src/app/cmd_ops.cpp
void add_mfu(CLI::App& app, context& ctx);      // src/app/cmd_mfu.cpp
void add_place(CLI::App& app, context& ctx);    // src/app/cmd_place.cpp
void add_report(CLI::App& app, context& ctx);   // src/app/cmd_report.cpp
void add_compare(CLI::App& app, context& ctx);  // src/app/cmd_report.cpp
void add_export(CLI::App& app, context& ctx);   // src/app/cmd_report.cpp

/// main() minus the process exit: parses argv, runs the subcommand, returns the exit code
/// (0 ok, 1 measurement failed, 2 bad input). Errors go to stderr as one line.
int run_cli(int argc, char** argv);

}  // namespace roofline::app
