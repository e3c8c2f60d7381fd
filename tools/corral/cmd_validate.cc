#include "cmd_validate.h"

#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "corral/api/well_known.h"
#include "corral/loader/loader.h"
#include "corral/loader/summary.h"

#include "flags.h"

namespace corral::cli {

namespace {
struct ValidateFlags {
  std::vector<std::string> inputs;
  std::string output = "table";
  bool strict = false;
  std::string validate = "strict";
};
}  // namespace

Command AddValidateCommand(CLI::App& root) {
  auto flags = std::make_shared<ValidateFlags>();
  CLI::App* app =
      root.add_subcommand("validate",
                          "Load Kubernetes manifests (YAML or JSON files, directories, kubectl "
                          "List dumps), report every problem "
                          "with file, line and field path, and summarize what was loaded.");
  app->add_option("inputs", flags->inputs, "YAML/JSON files or directories (recursive)")
      ->required();
  app->add_option("-o,--output", flags->output, "Output format: table or json")
      ->check(CLI::IsMember({"table", "json"}));
  app->add_flag("--strict", flags->strict,
                "Treat unknown kinds/fields and other warnings as errors");
  AddValidateOption(app, flags->validate);
  Command cmd;
  cmd.app = app;
  cmd.run = [flags]() {
    Interner interner = api::NewInterner();
    loader::LoadResult result = loader::LoadPaths(
        flags->inputs, interner,
        {.strict = flags->strict, .unknown_fields = ParseValidate(flags->validate)});
    for (const auto& d : result.diagnostics.items()) fmt::print(stderr, "{}\n", d.ToString());
    loader::Summary summary = loader::Summarize(result, interner);
    if (flags->output == "json") {
      std::string text = loader::RenderJson(summary, result.diagnostics);
      std::fwrite(text.data(), 1, text.size(), stdout);
    } else if (result.ok()) {
      std::string text = loader::RenderTable(summary);
      std::fwrite(text.data(), 1, text.size(), stdout);
    } else {
      fmt::print(stderr, "corral validate: {} errors, {} warnings\n",
                 result.diagnostics.error_count(), result.diagnostics.warning_count());
    }
    return result.ok() ? kExitOk : kExitBadInput;
  };
  return cmd;
}

}  // namespace corral::cli
