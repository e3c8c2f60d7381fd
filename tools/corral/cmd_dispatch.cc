// `corral dispatch FILE|DIR... [-o table|json|yaml] [--explain NAME]...`
// `    [--estimator general|accurate] [--member-config NAME=PATH]... [--feature-gates G=bool,...]`
// `    [--preemption karmada|fleetwide] [--preemption-victims summary|simulation]`
// `    [--validate strict|warn|ignore]`

#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "corral/app/dispatch.h"

#include "command.h"
#include "flags.h"

namespace corral::cli {

namespace {
struct DispatchFlags {
  std::vector<std::string> inputs;
  std::string output = "table";
  std::vector<std::string> explain;
  std::string feature_gates;
  std::string estimator = "general";
  std::string preemption = "karmada";
  std::string preemption_victims = "summary";
  std::vector<std::string> member_configs;
  std::string validate = "strict";
};
}  // namespace

Command AddDispatchCommand(CLI::App& root) {
  auto flags = std::make_shared<DispatchFlags>();
  CLI::App* app = root.add_subcommand(
      "dispatch",
      "Load member clusters and work items (Karmada Clusters and ResourceBindings; Kueue "
      "MultiKueueClusters and Workloads) and show, read-only, where each work item would go and "
      "why, as Karmada's scheduler and Kueue's composable MultiKueue dispatcher decide.");
  app->add_option("inputs", flags->inputs, "YAML/JSON files or directories (recursive)")
      ->required();
  app->add_option("-o,--output", flags->output,
                  "Output format: table, json, or yaml (the bindings and workloads as the "
                  "schedulers write them back)")
      ->check(CLI::IsMember({"table", "json", "yaml"}));
  app->add_option("--estimator", flags->estimator,
                  "general: Karmada's general estimator over the clusters' resource summaries; "
                  "accurate: also ask the scheduler of each member given as a folder of its nodes "
                  "and pods")
      ->check(CLI::IsMember({"general", "accurate"}));
  app->add_option("--member-config", flags->member_configs,
                  "NAME=PATH: the KubeSchedulerConfiguration of the member folder NAME (default: "
                  "its scheduler-config.yaml, else kube's default profile); repeatable");
  app->add_option("--explain", flags->explain,
                  "Explain this work item (NS/NAME or NAME): every cluster's filter verdict, "
                  "scores and replicas; repeatable");
  app->add_option("--feature-gates", flags->feature_gates,
                  "Karmada scheduler feature gates, Name=true|false,...: PriorityBasedScheduling "
                  "(default true), PriorityBasedPreemptiveScheduling (default false); both on "
                  "enable binding preemption");
  app->add_option("--preemption", flags->preemption,
                  "Binding preemption's cluster choice: karmada (default: the one cluster the "
                  "placement selects with capacity ignored) or fleetwide (every feasible cluster "
                  "weighed, the cheapest in kube's node-pick order; gangs evicted whole)")
      ->check(CLI::IsMember({"karmada", "fleetwide"}));
  app->add_option("--preemption-victims", flags->preemption_victims,
                  "summary (default: Karmada's Phase 1 over resource summaries) or simulation "
                  "(Phase 2: on each member given as a folder, through its own scheduler)")
      ->check(CLI::IsMember({"summary", "simulation"}));
  AddValidateOption(app, flags->validate);
  Command cmd;
  cmd.app = app;
  cmd.run = [flags]() {
    app::DispatchRequest req;
    req.inputs = flags->inputs;
    req.explain = flags->explain;
    req.feature_gates = flags->feature_gates;
    req.estimator = flags->estimator;
    req.preemption = flags->preemption;
    req.preemption_victims = flags->preemption_victims;
    req.member_configs = flags->member_configs;
    req.unknown_fields = ParseValidate(flags->validate);
    auto out = app::RunDispatch(req);
    if (!out.ok()) {
      fmt::print(stderr, "{}\n", out.error().message);
      return out.error().code == ErrorCode::kInternal ? kExitFailure : kExitBadInput;
    }
    for (const auto& d : out->diagnostics.items()) fmt::print(stderr, "{}\n", d.ToString());
    std::string text = flags->output == "json"   ? app::FormatDispatchJson(*out)
                       : flags->output == "yaml" ? app::FormatDispatchYaml(*out)
                                                 : app::FormatDispatchTable(*out);
    std::fwrite(text.data(), 1, text.size(), stdout);
    return kExitOk;
  };
  return cmd;
}

}  // namespace corral::cli
