#pragma once
// What `corral compare`, `corral sweep` and `corral compact` share on the command line: their
// registration, the progress line with its ETA, output-path checks and printing a comparison.

#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "corral/compare/record.h"
#include "corral/compare/runner.h"
#include "corral/core/result.h"

#include "command.h"

namespace corral::cli {

Command AddCompareCommand(CLI::App& root);
Command AddSweepCommand(CLI::App& root);
Command AddCompactCommand(CLI::App& root);

// The flags every analysis command has: -j/--jobs (runs at once, each in its own process),
// -o/--output (text or json) and -q/--quiet (no progress line).
struct RunFlags {
  int jobs = 1;  // compare and compact: 1; sweep: 0, every local core
  std::string output = "text";
  bool quiet = false;
};

// Registers -j, -o and -q on `app`. `jobs_default` completes the help text ("1", "every core");
// a --jobs value outside 1..max_jobs is a usage error.
void AddRunFlags(CLI::App* app, RunFlags& flags, std::string_view jobs_default, int max_jobs);

// 2 for input errors, 1 for runtime failures.
int ExitCodeOf(const Error& e);

// "compare: 7/20 runs (2 skipped) · 0:12 elapsed · ETA 0:31" on stderr, redrawn at most every
// 100 ms, only when stderr is a terminal and not quiet.
class RunProgressLine {
 public:
  RunProgressLine(std::string what, bool quiet);
  void Update(const compare::RunProgress& p);
  void Clear();

 private:
  std::string what_;
  bool enabled_ = false;
  bool drawn_ = false;
  double last_ = -1;
};

// Compares the records and prints the text or JSON comparison; writes the HTML report when
// `report` is set. Returns the exit code.
int PrintComparison(std::string_view command, std::vector<compare::RunRecord> records,
                    const std::string& output, const std::string& report);

}  // namespace corral::cli
