// The corral CLI: parses flags, calls the library, maps errors to exit codes
// (0 ok, 1 runtime failure, 2 bad input or usage). No scheduling logic lives here.

#include <vector>

#include <CLI/CLI.hpp>

#include "cmd_validate.h"
#include "command.h"

int main(int argc, char** argv) {
  using namespace corral::cli;  // NOLINT(google-build-using-namespace): main only
  CLI::App app{"corral: a workload-aware cluster scheduler and fleet simulator"};
  app.set_version_flag("--version", std::string("corral ") + CORRAL_VERSION);
  app.require_subcommand(1);
  std::vector<Command> commands;
  commands.push_back(AddScheduleCommand(app));
  commands.push_back(AddSimulateCommand(app));
  commands.push_back(AddPerfCommand(app));
  commands.push_back(AddValidateCommand(app));
  commands.push_back(AddDispatchCommand(app));
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int rc = app.exit(e);
    return rc == 0 ? kExitOk : kExitBadInput;
  }
  for (auto& c : commands) {
    if (c.app->parsed()) return c.run();
  }
  return kExitBadInput;
}
