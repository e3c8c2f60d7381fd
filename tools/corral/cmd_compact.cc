// `corral compact SCENARIO --objective OBJ ... [--pool NAME ... | --clusters [NAME,...]]
// [--variant NAME:OPT;...] [--seeds N]`: the smallest node count per pool, or the fewest member
// clusters of a fleet, on which the workload still meets the objectives (Borg's cell compaction).

#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "corral/compare/compact.h"
#include "corral/compare/plan.h"

#include "cmd_analysis.h"
#include "command.h"

namespace corral::cli {

namespace {

struct CompactFlags {
  std::string scenario;
  std::vector<std::string> objectives;
  std::vector<std::string> pools;
  bool compact_clusters = false;  // --clusters given
  std::vector<std::string> clusters;
  std::string variant = "scenario";
  int seeds = 3;
  RunFlags run;
};

int Run(const CompactFlags& flags) {
  compare::CompactRequest req;
  req.scenario_path = flags.scenario;
  auto v = compare::ParseVariantFlag(flags.variant);
  if (!v.ok()) {
    fmt::print(stderr, "corral compact: --variant: {}\n", v.error().message);
    return kExitBadInput;
  }
  req.variant = std::move(v).value();
  for (const auto& o : flags.objectives) {
    auto parsed = compare::ParseObjective(o);
    if (!parsed.ok()) {
      fmt::print(stderr, "corral compact: {}\n", parsed.error().message);
      return kExitBadInput;
    }
    req.objectives.push_back(std::move(parsed).value());
  }
  req.pools = flags.pools;
  req.compact_clusters = flags.compact_clusters;
  req.clusters = flags.clusters;
  // `--clusters` given alone reads as one empty value: every member.
  if (req.clusters.size() == 1 && req.clusters.front().empty()) req.clusters.clear();
  auto seeds = compare::SeedsFrom(flags.scenario, flags.seeds);
  if (!seeds.ok()) {
    fmt::print(stderr, "corral compact: {}\n", seeds.error().message);
    return ExitCodeOf(seeds.error());
  }
  req.seeds = *seeds;
  RunProgressLine line("compact", flags.run.quiet);
  req.run.jobs = flags.run.jobs;
  req.run.progress = [&](const compare::RunProgress& p) { line.Update(p); };
  auto res = compare::Compact(req);
  line.Clear();
  if (!res.ok()) {
    fmt::print(stderr, "corral compact: {}\n", res.error().message);
    return ExitCodeOf(res.error());
  }
  std::string text = flags.run.output == "json" ? compare::FormatCompactJson(*res)
                                                : compare::FormatCompactText(*res);
  std::fwrite(text.data(), 1, text.size(), stdout);
  return res->met_at_start ? kExitOk : kExitFailure;
}

}  // namespace

Command AddCompactCommand(CLI::App& root) {
  auto flags = std::make_shared<CompactFlags>();
  CLI::App* app = root.add_subcommand(
      "compact",
      "Cell compaction (Borg, EuroSys'15 §5.1): find by bisection, pool by pool, the smallest node "
      "count (or, with --clusters, the fewest member clusters) on which the scenario still meets "
      "every objective on every seed. Objectives: "
      "no-pending (no pod pending at the end), gang-wait<=DURATION (no gang waits longer), "
      "p99-wait<=DURATION (pods' p99 wait, pending pods included).");
  app->add_option("scenario", flags->scenario, "Scenario file")->required();
  app->add_option("--objective", flags->objectives, "An objective (repeatable; all must hold)")
      ->required();
  app->add_option("--pool", flags->pools,
                  "Pool to compact, in order (repeatable; default: every pool that starts with "
                  "nodes, in scenario order)");
  app->add_option("--clusters", flags->clusters,
                  "Compact member clusters instead of pools (a scenario with clusters:): how many "
                  "of these clusters the run keeps, removed from the end of the list "
                  "(NAME,NAME,...; given alone: every member, in scenario order). A removed "
                  "cluster is absent from the run, as the variant option clusters.NAME=absent")
      ->expected(0, -1)
      ->delimiter(',');
  app->add_option("--variant", flags->variant,
                  "The policy to compact under: NAME[:OPT;...] as in corral compare (default: "
                  "the scenario as written)");
  app->add_option("--seeds", flags->seeds,
                  "Seeds: the scenario's seed and the next ones (default 3)");
  AddRunFlags(app, flags->run, "1", 256);
  Command cmd;
  cmd.app = app;
  cmd.run = [flags, app]() {
    flags->compact_clusters = app->count("--clusters") > 0;
    return Run(*flags);
  };
  return cmd;
}

}  // namespace corral::cli
