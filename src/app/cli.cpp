#include <cstdio>
#include <fmt/format.h>
#include <exception>
#include <string>

#include "app/commands.hpp"
#include "roofline/error.hpp"

namespace roofline::app {

int run_cli(int argc, char** argv) {
  // named "roofline" (not argv[0]): the help reads the same from any path (docs/cli.md is generated from it)
  CLI::App app{"roofline: how fast this machine can go, how fast it goes, and why the two differ", "roofline"};
  app.set_version_flag("--version", std::string("roofline ") + ROOFLINE_VERSION);
  app.require_subcommand(1);
  context ctx;
  add_run(app, ctx);
  add_measure(app, ctx);
  add_spec(app, ctx);
  add_ops(app, ctx);
  add_mfu(app, ctx);
  add_place(app, ctx);
  add_report(app, ctx);
  add_compare(app, ctx);
  add_export(app, ctx);
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    fmt::print(stderr, "roofline: error: {} (see roofline --help)\n", e.what());
    return 2;
  } catch (const input_error& e) {
    fmt::print(stderr, "roofline: error: {}\n", e.what());
    return 2;
  } catch (const std::exception& e) {
    fmt::print(stderr, "roofline: failed: {}\n", e.what());
    return 1;
  }
  return ctx.exit_code;
}

}  // namespace roofline::app
