// `corral compare SCENARIO --variant NAME[:OPT;...] ... [--seeds N] [-o text|json] [--report
// FILE]`: runs the scenario under every variant over the same seeds and prints the comparison
// (metric deltas with their seed spread, what changed); writes the HTML report on request.

#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "corral/compare/compare_report.h"
#include "corral/compare/plan.h"
#include "corral/compare/runner.h"
#include "corral/core/output_file.h"

#include "cmd_analysis.h"
#include "command.h"

namespace corral::cli {

namespace {

struct CompareFlags {
  std::string scenario;
  std::vector<std::string> variants;
  int seeds = compare::kDefaultSeeds;
  RunFlags run;
  std::string report;
};

int Run(const CompareFlags& flags) {
  std::vector<compare::Variant> variants;
  for (const auto& v : flags.variants) {
    auto parsed = compare::ParseVariantFlag(v);
    if (!parsed.ok()) {
      fmt::print(stderr, "corral compare: --variant: {}\n", parsed.error().message);
      return kExitBadInput;
    }
    variants.push_back(std::move(parsed).value());
  }
  auto seeds = compare::SeedsFrom(flags.scenario, flags.seeds);
  if (!seeds.ok()) {
    fmt::print(stderr, "corral compare: {}\n", seeds.error().message);
    return ExitCodeOf(seeds.error());
  }
  auto plans = compare::PlanCompare(flags.scenario, variants, *seeds);
  if (!plans.ok()) {
    fmt::print(stderr, "corral compare: {}\n", plans.error().message);
    return kExitBadInput;
  }
  if (!flags.report.empty()) {
    if (std::string err = CheckOutputPath("--report", flags.report); !err.empty()) {
      fmt::print(stderr, "corral compare: {}\n", err);
      return kExitBadInput;
    }
  }
  RunProgressLine line("compare", flags.run.quiet);
  compare::RunOptions opts;
  opts.jobs = flags.run.jobs;
  opts.progress = [&](const compare::RunProgress& p) { line.Update(p); };
  auto records = compare::RunPlans(*plans, opts);
  line.Clear();
  if (!records.ok()) {
    fmt::print(stderr, "corral compare: {}\n", records.error().message);
    return ExitCodeOf(records.error());
  }
  return PrintComparison("compare", std::move(records).value(), flags.run.output, flags.report);
}

}  // namespace

Command AddCompareCommand(CLI::App& root) {
  auto flags = std::make_shared<CompareFlags>();
  CLI::App* app = root.add_subcommand(
      "compare",
      "Run one scenario under several variants (scheduler configurations, feature gates, node pool "
      "sizes, arrival rates, fleet dispatchers and their profiles), each over the same seeds, and "
      "compare them: metric deltas with "
      "their spread over seeds, and the workloads and gangs that changed most. A variant is NAME "
      "or NAME:OPT;OPT;... with OPT one of config=FILE, config.CLUSTER=FILE, "
      "feature-gates=A=true,..., pools=FILE, pools.CLUSTER=FILE, nodes.POOL=N, rate.WORKLOAD=RATE, "
      "and for a fleet fleet.scheduler=, fleet.dispatcher=, fleet.nomination=, fleet.topK=, "
      "fleet.profile=FILE; the first variant is the baseline.");
  app->add_option("scenario", flags->scenario, "Scenario file (or a Kubernetes manifest file)")
      ->required();
  app->add_option("--variant", flags->variants, "A variant: NAME[:OPT;OPT;...] (repeatable)")
      ->required();
  app->add_option("--seeds", flags->seeds,
                  "Seeds per variant: the scenario's seed and the next ones (default 5)");
  AddRunFlags(app, flags->run, "1", 256);
  app->add_option("--report", flags->report, "Write the HTML comparison report to FILE");
  Command cmd;
  cmd.app = app;
  cmd.run = [flags]() { return Run(*flags); };
  return cmd;
}

}  // namespace corral::cli
