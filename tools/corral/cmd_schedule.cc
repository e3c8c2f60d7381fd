// `corral schedule FILE|DIR... [--config FILE] [--seed N] [-o table|json] [--explain NS/NAME]...
//  [--explain-all] [--gang-mode workload-cycle|permit] [--validate strict|warn|ignore]`

#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "corral/app/schedule.h"

#include "command.h"
#include "flags.h"

namespace corral::cli {

namespace {
struct ScheduleFlags {
  std::vector<std::string> inputs;
  std::string output = "table";
  std::string feature_gates;
  std::string emulated_version;
  std::string config;
  std::string metrics;
  uint64_t seed = 1;
  std::vector<std::string> explain;
  bool explain_all = false;
  bool strict = false;
  std::string validate = "strict";
  std::string gang_mode = "workload-cycle";
};
}  // namespace

Command AddScheduleCommand(CLI::App& root) {
  auto flags = std::make_shared<ScheduleFlags>();
  CLI::App* app =
      root.add_subcommand("schedule",
                          "Load a cluster from Kubernetes manifests and schedule every pending pod "
                          "as kube-scheduler v1.37 "
                          "would. Pods with spec.nodeName are bound; the rest are pending.");
  app->add_option("inputs", flags->inputs, "YAML/JSON files or directories (recursive)")
      ->required();
  app->add_option("-o,--output", flags->output, "Output format: table or json")
      ->check(CLI::IsMember({"table", "json"}));
  app->add_option(
      "--config", flags->config,
      "KubeSchedulerConfiguration file (kubescheduler.config.k8s.io/v1); default: kube's defaults");
  AddSeedOption(app, flags->seed, "Seed for tie-breaking among equally scored nodes (default 1)");
  app->add_option("--feature-gates", flags->feature_gates,
                  "Feature gates by kube's names: Name=true|false,...");
  AddEmulatedVersionOption(app, flags->emulated_version);
  app->add_option("--explain", flags->explain,
                  "Explain the decision for this pod (NS/NAME); repeatable");
  app->add_flag("--explain-all", flags->explain_all, "Explain every pod's decision");
  app->add_option("--metrics", flags->metrics,
                  "Write the scheduler's metrics (Prometheus text) to FILE");
  app->add_option("--gang-mode", flags->gang_mode,
                  "How pod groups are scheduled: workload-cycle (kube's beta: one all-or-nothing "
                  "attempt per "
                  "group; default) or permit (kube's alpha: members one by one, held at Permit)")
      ->check(CLI::IsMember({"workload-cycle", "permit"}));
  app->add_flag("--strict", flags->strict,
                "Treat unknown kinds/fields and other warnings as errors");
  AddValidateOption(app, flags->validate);
  Command cmd;
  cmd.app = app;
  cmd.run = [flags]() {
    app::ScheduleRequest req;
    req.inputs = flags->inputs;
    req.config_path = flags->config;
    req.seed = flags->seed;
    req.explain = flags->explain;
    req.explain_all = flags->explain_all;
    req.strict = flags->strict;
    req.unknown_fields = ParseValidate(flags->validate);
    req.workload_cycle = flags->gang_mode == "workload-cycle";
    req.gates = framework::FeatureGates(EmulatedVersion(flags->emulated_version));
    if (auto st = req.gates.ParseFlag(flags->feature_gates); !st.ok()) {
      fmt::print(stderr, "corral schedule: --feature-gates: {}\n", st.error().message);
      return kExitBadInput;
    }
    auto out = app::RunSchedule(req);
    if (!out.ok()) {
      fmt::print(stderr, "{}\n", out.error().message);
      return out.error().code == ErrorCode::kInternal ? kExitFailure : kExitBadInput;
    }
    for (const auto& d : out->diagnostics.items()) fmt::print(stderr, "{}\n", d.ToString());
    if (!flags->metrics.empty()) {
      std::FILE* f = std::fopen(flags->metrics.c_str(), "wb");
      if (f == nullptr) {
        fmt::print(stderr, "corral schedule: --metrics: cannot write {}\n", flags->metrics);
        return kExitFailure;
      }
      std::fwrite(out->metrics_text.data(), 1, out->metrics_text.size(), f);
      std::fclose(f);
    }
    std::string text =
        flags->output == "json" ? app::FormatScheduleJson(*out) : app::FormatScheduleTable(*out);
    std::fwrite(text.data(), 1, text.size(), stdout);
    return kExitOk;
  };
  return cmd;
}

}  // namespace corral::cli
