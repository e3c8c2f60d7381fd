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
#include "usage.h"

int main(int argc, char** argv) {
  using namespace corral::cli;  // NOLINT(google-build-using-namespace): main only
  // Named "corral" whatever path it was started by, so that usage lines say `corral`.
  CLI::App app{"corral: a workload-aware cluster scheduler and fleet simulator", "corral"};
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
  if (auto unknown = UnknownCommandError(app, argc, argv)) {
    std::fprintf(stderr, "%s\n", unknown->c_str());
    return kExitBadInput;
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::fprintf(stderr, "%s\n", ParseErrorMessage(app, e, argc, argv).c_str());
    return kExitBadInput;
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
