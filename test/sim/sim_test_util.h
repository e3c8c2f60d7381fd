#pragma once
// Helpers for the simulator tests: run a scenario (text or file) with an in-memory event log, read
// and compare golden files (UPDATE_GOLDEN=1 rewrites them).

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include <gtest/gtest.h>

#include "corral/api/well_known.h"
#include "corral/app/simulate.h"
#include "corral/sim/input/scenario.h"
#include "corral/sim/report/output.h"

#include "test/testing/read_file.h"

namespace corral::sim::testing {

using app::RunOutput;
using app::RunRequest;
using app::RunSimulation;

// A missing file reads as empty.
inline std::string ReadFileOrEmpty(const std::string& path) {
  return corral::testing::ReadFile(path);
}

inline bool UpdateGolden() {
  const char* v = std::getenv("UPDATE_GOLDEN");
  return v != nullptr && std::string(v) == "1";
}

// Compares `actual` with the golden file (relative to the repository root, the tests'
// working directory).
inline void ExpectGolden(const std::string& path, const std::string& actual) {
  if (UpdateGolden()) {
    std::ofstream(path, std::ios::binary) << actual;
    return;
  }
  std::string want = ReadFileOrEmpty(path);
  ASSERT_FALSE(want.empty()) << path << " is missing; run with UPDATE_GOLDEN=1";
  if (want != actual) {
    // Show the first differing line.
    std::istringstream a(actual), w(want);
    std::string la, lw;
    int line = 0;
    while (true) {
      ++line;
      bool ga = static_cast<bool>(std::getline(a, la));
      bool gw = static_cast<bool>(std::getline(w, lw));
      if (!ga && !gw) break;
      if (la != lw || ga != gw) {
        ADD_FAILURE() << path << ":" << line << ": differs\n  want: " << lw << "\n  got:  " << la
                      << "\n(UPDATE_GOLDEN=1 regenerates)";
        return;
      }
    }
    ADD_FAILURE() << path << ": differs";
  }
}

struct Ran {
  RunOutput out;
  std::string log;
};

// Runs a compiled spec with an event log. Fails the test on errors.
inline Ran RunSpec(SimSpec& spec, Interner& in) {
  Diagnostics diags;
  StringEventLog log;
  RunRequest req;
  req.log = &log;
  auto out = RunSimulation(spec, in, diags, req);
  EXPECT_TRUE(out.ok()) << (out.ok() ? "" : out.error().message);
  Ran r;
  if (out.ok()) r.out = std::move(out).value();
  r.log = log.text();
  return r;
}

}  // namespace corral::sim::testing
