// The corral CLI: parses flags, calls the library, maps errors to exit codes
// (0 ok, 1 runtime failure, 2 bad input or usage). No scheduling logic lives here.

#include <CLI/CLI.hpp>
#include <fmt/format.h>

int main(int argc, char** argv) {
  CLI::App app{"corral: a workload-aware cluster scheduler and fleet simulator"};
  app.set_version_flag("--version", std::string("corral ") + CORRAL_VERSION);
  app.require_subcommand(1);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int rc = app.exit(e);
    return rc == 0 ? 0 : 2;
  }
  return 0;
}
