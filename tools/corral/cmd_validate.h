#pragma once
// `corral validate FILE|DIR... [--strict] [-o table|json]`: load Kubernetes manifests, report every
// problem (file:line: path: message) on stderr, and print a summary of what was loaded.
//
// Exit codes: 0 valid (warnings allowed, printed on stderr); 2 errors in the input (or warnings
// under --strict), usage errors; 1 runtime failures.

#include <CLI/CLI.hpp>

#include "command.h"

namespace corral::cli {

Command AddValidateCommand(CLI::App& root);

}  // namespace corral::cli
