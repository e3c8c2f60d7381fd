// The corral CLI: parses flags, calls the library, maps errors to exit codes
// (0 ok, 1 runtime failure, 2 bad input or usage). No scheduling logic lives here.

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <vector>

#include <CLI/CLI.hpp>

#include "cmd_analysis.h"
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
  commands.push_back(AddCompareCommand(app));
  commands.push_back(AddSweepCommand(app));
  commands.push_back(AddCompactCommand(app));
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int rc = app.exit(e);
    return rc == 0 ? kExitOk : kExitBadInput;
  }
  for (auto& c : commands) {
    if (!c.app->parsed()) continue;
    int rc = c.run();
    // Output that could not be written (a full device, a closed pipe) is a failure, not a success.
    if (std::fflush(stdout) != 0 || std::ferror(stdout) != 0) {
      std::fprintf(stderr, "corral: cannot write the standard output: %s\n", std::strerror(errno));
      if (rc == kExitOk) rc = kExitFailure;
    }
    return rc;
  }
  return kExitBadInput;
}
