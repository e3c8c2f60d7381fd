#pragma once
// A CLI subcommand: its CLI11 app (flags bound to locals it owns) and the function that runs it,
// returning the exit code (0 ok, 1 runtime failure, 2 bad input or usage).

#include <functional>

#include <CLI/CLI.hpp>

namespace corral::cli {

struct Command {
  CLI::App* app = nullptr;
  std::function<int()> run;
};

inline constexpr int kExitOk = 0;
inline constexpr int kExitFailure = 1;
inline constexpr int kExitBadInput = 2;

Command AddScheduleCommand(CLI::App& root);
Command AddSimulateCommand(CLI::App& root);
Command AddPerfCommand(CLI::App& root);
Command AddDispatchCommand(CLI::App& root);

}  // namespace corral::cli
