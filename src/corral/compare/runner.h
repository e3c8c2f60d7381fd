#pragma once
// RunPlans: makes the runs of a comparison or a sweep, on several local cores, and returns their
// records in plan order.
//
// Contract:
//  (1) With jobs = 1 the runs are made one after the other in this process. With jobs > 1 each run
//      is made in a child process (fork), at most `jobs` at a time; a run is deterministic, so the
//      records do not depend on the number of jobs or on the order in which runs finish.
//  (2) With a results directory, each run's record is a file there (RunFileName), written to a
//      temporary name and renamed when complete, so a file that exists is a whole record. A run
//      whose file exists, parses, and names the same matrix (digest, index, variant, seed) is not
//      made again (resume); a file from another matrix is an error. Without a directory, children
//      write to a private temporary directory removed afterwards.
//  (3) The first run that fails stops the launching of new runs; the runs under way finish, and
//      the error names the failed run.
//
// `progress` (optional) is called after every completed run with the counts so far.

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "corral/compare/record.h"
#include "corral/core/result.h"

namespace corral::compare {

struct RunProgress {
  size_t done = 0;     // completed runs, skipped ones included
  size_t skipped = 0;  // found complete in the results directory
  size_t total = 0;
  double elapsed_s = 0;
  double eta_s = -1;  // -1 until a run was made
};

struct RunOptions {
  int jobs = 1;
  std::string dir;  // results directory ("" = none)
  std::function<void(const RunProgress&)> progress;
};

// "run-00007-binpack-seed4.json".
std::string RunFileName(const RunPlan& plan);

Result<std::vector<RunRecord>> RunPlans(const std::vector<RunPlan>& plans, const RunOptions& opts);

// Reads every run file of a results directory (files named run-*.json), in name order.
Result<std::vector<RunRecord>> ReadRunFiles(const std::string& dir);

}  // namespace corral::compare
