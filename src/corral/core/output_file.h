#pragma once
// Output files written whole or not at all: every command that writes a report, a run file or a
// log checks its paths before it starts and writes through a temporary file beside the target,
// renamed over it only when complete (a stopped or failed run never leaves a truncated file).

#include <cstdio>
#include <string>
#include <string_view>

#include "corral/core/result.h"

namespace corral {

// Why `path` cannot be written as an output file (it names no file, its directory is missing, not
// a directory or not writable, or it is a directory), or "" when it can. The text starts with
// `flag` and ": " (e.g. `--report: directory "out" does not exist`).
std::string CheckOutputPath(std::string_view flag, const std::string& path);

// "<dir>/.<name>.tmp-<pid>": beside `path`, so that the rename stays in one file system.
std::string TempPathFor(const std::string& path);

// Opens a new temporary file (mode 0666 less the umask, as the target would get); null on failure.
std::FILE* OpenTemp(const std::string& tmp);

// Closes `f` and renames `tmp` over `path`; removes `tmp` on any failure. True on success.
bool CommitTemp(std::FILE* f, const std::string& tmp, const std::string& path);

// Writes `content` to `path` whole or not at all.
Result<void> WriteFileAtomically(const std::string& path, std::string_view content);

}  // namespace corral
