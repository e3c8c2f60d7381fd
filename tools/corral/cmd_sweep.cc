// `corral sweep SPEC.yaml [--out DIR] [--shard I/N] [-j N] [-o text|json] [--report FILE]`: runs a
// matrix of variants × parameters × seeds (one result file per run in DIR; completed runs are
// skipped) and prints the comparison. `corral sweep SPEC --emit-job ...` writes a Kubernetes
// Indexed Job that runs the shards; `corral sweep merge DIR` builds the comparison from the
// result files.

#include <cstdio>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include <fmt/format.h>

#include "corral/compare/runner.h"
#include "corral/compare/sweep.h"
#include "corral/core/output_file.h"

#include "cmd_analysis.h"
#include "command.h"

namespace corral::cli {

namespace {

struct SweepFlags {
  std::vector<std::string> args;  // SPEC, or "merge" DIR
  std::string out;
  std::string shard;
  RunFlags run{.jobs = 0};  // jobs 0: every local core
  std::string report;
  bool emit_job = false;
  std::string image = std::string("corral:") + CORRAL_VERSION;
  std::string results_claim;
  std::string job_name;
  size_t shards = 0;
  int cpus = 1;
};

int Merge(const SweepFlags& flags, const std::string& dir) {
  if (!flags.report.empty()) {
    if (std::string err = CheckOutputPath("--report", flags.report); !err.empty()) {
      fmt::print(stderr, "corral sweep merge: {}\n", err);
      return kExitBadInput;
    }
  }
  auto records = compare::ReadRunFiles(dir);
  if (!records.ok()) {
    fmt::print(stderr, "corral sweep merge: {}\n", records.error().message);
    return ExitCodeOf(records.error());
  }
  if (auto st = compare::CheckComplete(*records); !st.ok()) {
    fmt::print(stderr, "corral sweep merge: {}: {}\n", dir, st.error().message);
    return ExitCodeOf(st.error());
  }
  return PrintComparison("sweep merge", std::move(records).value(), flags.run.output, flags.report);
}

int EmitJob(const SweepFlags& flags, const compare::SweepSpec& spec) {
  if (flags.results_claim.empty()) {
    fmt::print(stderr,
               "corral sweep: --emit-job needs --results-claim NAME (the "
               "PersistentVolumeClaim the shards write their results to)\n");
    return kExitBadInput;
  }
  if (flags.shards == 0) {
    fmt::print(stderr, "corral sweep: --emit-job needs --shards N\n");
    return kExitBadInput;
  }
  compare::JobOptions o;
  o.spec_path = spec.file;
  o.image = flags.image;
  o.results_claim = flags.results_claim;
  o.job_name = flags.job_name;
  o.shards = flags.shards;
  o.cpus = flags.cpus;
  auto job = compare::EmitJob(spec, o);
  if (!job.ok()) {
    fmt::print(stderr, "corral sweep: {}\n", job.error().message);
    return kExitBadInput;
  }
  std::fwrite(job->data(), 1, job->size(), stdout);
  return kExitOk;
}

int Run(const SweepFlags& flags) {
  if (!flags.args.empty() && flags.args[0] == "merge") {
    if (flags.args.size() != 2) {
      fmt::print(stderr,
                 "corral sweep merge: want one results directory: corral sweep merge DIR\n");
      return kExitBadInput;
    }
    return Merge(flags, flags.args[1]);
  }
  if (flags.args.size() != 1) {
    fmt::print(stderr,
               "corral sweep: want one sweep file: corral sweep SPEC.yaml (or corral sweep "
               "merge DIR)\n");
    return kExitBadInput;
  }
  Diagnostics diags;
  auto spec = compare::LoadSweepSpec(flags.args[0], diags);
  if (!spec.ok()) {
    fmt::print(stderr, "{}\n", spec.error().message);
    return ExitCodeOf(spec.error());
  }
  if (flags.emit_job) return EmitJob(flags, *spec);
  auto plans = compare::PlanSweep(*spec);
  if (!plans.ok()) {
    fmt::print(stderr, "corral sweep: {}\n", plans.error().message);
    return kExitBadInput;
  }
  compare::Shard shard;
  if (!flags.shard.empty()) {
    auto s = compare::ParseShard(flags.shard);
    if (!s.ok()) {
      fmt::print(stderr, "corral sweep: {}\n", s.error().message);
      return kExitBadInput;
    }
    shard = *s;
    if (flags.out.empty()) {
      fmt::print(stderr,
                 "corral sweep: --shard needs --out DIR (where the shards' results meet)\n");
      return kExitBadInput;
    }
  }
  if (!flags.report.empty()) {
    if (std::string err = CheckOutputPath("--report", flags.report); !err.empty()) {
      fmt::print(stderr, "corral sweep: {}\n", err);
      return kExitBadInput;
    }
  }
  std::vector<compare::RunPlan> mine = compare::ShardOf(*plans, shard);
  RunProgressLine line("sweep", flags.run.quiet);
  compare::RunOptions opts;
  opts.jobs = flags.run.jobs > 0
                  ? flags.run.jobs
                  : static_cast<int>(std::max(1U, std::thread::hardware_concurrency()));
  opts.dir = flags.out;
  opts.progress = [&](const compare::RunProgress& p) { line.Update(p); };
  auto records = compare::RunPlans(mine, opts);
  line.Clear();
  if (!records.ok()) {
    fmt::print(stderr, "corral sweep: {}\n", records.error().message);
    return ExitCodeOf(records.error());
  }
  if (shard.count > 1) {
    fmt::print(
        "corral sweep: shard {}/{}: {} of {} runs done in {}; `corral sweep merge {}` builds "
        "the comparison once every shard is done\n",
        shard.index, shard.count, records->size(), plans->size(), flags.out, flags.out);
    return kExitOk;
  }
  return PrintComparison("sweep", std::move(records).value(), flags.run.output, flags.report);
}

}  // namespace

Command AddSweepCommand(CLI::App& root) {
  auto flags = std::make_shared<SweepFlags>();
  CLI::App* app = root.add_subcommand(
      "sweep",
      "Run a sweep file's matrix (variants × scenario parameters × seeds) on every local core and "
      "print the comparison. Resumable (--out DIR keeps one result file per run; completed runs "
      "are skipped) and shardable (--shard I/N); --emit-job writes a Kubernetes Indexed Job that "
      "runs the shards, and `corral sweep merge DIR` compares the shards' results.");
  app->add_option("spec", flags->args, "SPEC.yaml, or: merge DIR")->required();
  CLI::Option* out =
      app->add_option("--out", flags->out, "Results directory: one file per run (resume, shards)");
  CLI::Option* shard = app->add_option("--shard", flags->shard,
                                       "Run only shard I of N: runs whose index mod N is I");
  AddRunFlags(app, flags->run, "every core", 1024);
  CLI::Option* report =
      app->add_option("--report", flags->report, "Write the HTML comparison report to FILE");
  CLI::Option* emit =
      app->add_flag("--emit-job", flags->emit_job,
                    "Print a Kubernetes Indexed Job (batch/v1) that runs the sweep's shards");
  emit->excludes(out)->excludes(shard)->excludes(report);
  // The Job's settings mean nothing without --emit-job: an error, not ignored.
  app->add_option("--shards", flags->shards, "--emit-job: the number of shards (pods)")
      ->check(CLI::Range(1, 100000))
      ->needs(emit);
  app->add_option("--results-claim", flags->results_claim,
                  "--emit-job: the PersistentVolumeClaim mounted at /results for the result files")
      ->needs(emit);
  app->add_option("--image", flags->image,
                  "--emit-job: the Corral image (built with the repository's Dockerfile)")
      ->needs(emit);
  app->add_option("--job-name", flags->job_name, "--emit-job: the Job's name")->needs(emit);
  app->add_option("--cpus", flags->cpus, "--emit-job: cores per shard (cpu request and --jobs)")
      ->check(CLI::Range(1, 256))
      ->needs(emit);
  Command cmd;
  cmd.app = app;
  cmd.run = [flags]() { return Run(*flags); };
  return cmd;
}

}  // namespace corral::cli
