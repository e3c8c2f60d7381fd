#pragma once
// Usage errors of the command line, named with a suggestion: an unknown subcommand ("corral
// schedul") and an unknown flag of a subcommand ("--explian"). Both exit 2.

#include <optional>
#include <string>

#include <CLI/CLI.hpp>

namespace corral::cli {

// The error for argv's subcommand when it names none of `root`'s subcommands (the first argument
// that is not a flag), or nullopt when it names one or there is none.
std::optional<std::string> UnknownCommandError(const CLI::App& root, int argc,
                                               const char* const* argv);

// The message for a parse error of `root`: CLI11's own, except that arguments it did not expect
// are named with the closest flag of the subcommand that was given.
std::string ParseErrorMessage(const CLI::App& root, const CLI::ParseError& e, int argc,
                              const char* const* argv);

}  // namespace corral::cli
