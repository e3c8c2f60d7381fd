#include "usage.h"

#include <cctype>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "corral/doc/decoder.h"

namespace corral::cli {

namespace {

// The subcommand `argv` names (the first argument that is not a flag), or empty.
std::string_view CommandArg(int argc, const char* const* argv) {
  for (int i = 1; i < argc; ++i) {
    std::string_view a = argv[i];
    if (!a.starts_with('-')) return a;
  }
  return {};
}

const CLI::App* GivenCommand(const CLI::App& root, int argc, const char* const* argv) {
  const std::string_view name = CommandArg(argc, argv);
  for (const CLI::App* sub : root.get_subcommands([](const CLI::App*) { return true; })) {
    if (sub->get_name() == name) return sub;
  }
  return nullptr;
}

}  // namespace

std::optional<std::string> UnknownCommandError(const CLI::App& root, int argc,
                                               const char* const* argv) {
  const std::string_view name = CommandArg(argc, argv);
  if (name.empty() || GivenCommand(root, argc, argv) != nullptr) return std::nullopt;
  std::vector<std::string> names;
  for (const CLI::App* sub : root.get_subcommands([](const CLI::App*) { return true; })) {
    names.push_back(sub->get_name());
  }
  std::vector<std::string_view> views(names.begin(), names.end());
  std::string msg = fmt::format("corral: unknown command {:?}", name);
  if (std::string_view s = doc::Suggest(name, views); !s.empty()) {
    msg += fmt::format(" (did you mean {:?}?)", s);
  }
  msg += fmt::format("; the commands are {}. Run 'corral --help' for more information.",
                     fmt::join(names, ", "));
  return msg;
}

std::string ParseErrorMessage(const CLI::App& root, const CLI::ParseError& e, int argc,
                              const char* const* argv) {
  const auto* extras = dynamic_cast<const CLI::ExtrasError*>(&e);
  const CLI::App* cmd = GivenCommand(root, argc, argv);
  const std::string prefix = cmd == nullptr ? "corral" : "corral " + cmd->get_name();
  if (extras == nullptr || cmd == nullptr) {
    return fmt::format("{}: {}\nRun '{} --help' for more information.", prefix, e.what(), prefix);
  }
  // The flags of the subcommand, by every long and short name.
  std::vector<std::string> flags;
  for (const CLI::Option* opt : cmd->get_options()) {
    for (const std::string& l : opt->get_lnames()) flags.push_back("--" + l);
    for (const std::string& s : opt->get_snames()) flags.push_back("-" + s);
  }
  std::vector<std::string_view> views(flags.begin(), flags.end());
  std::string msg;
  // CLI11 names the unexpected arguments after its fixed text; each is reported on its own line.
  for (int i = 1; i < argc; ++i) {
    std::string_view a = argv[i];
    // A negative number is a flag's value, not a flag.
    if (!a.starts_with('-') || (a.size() > 1 && std::isdigit(static_cast<unsigned char>(a[1]))))
      continue;
    std::string_view flag = a.substr(0, a.find('='));
    bool known = false;
    for (std::string_view f : views) known |= f == flag;
    if (known || flag == "-" || flag == "--") continue;
    if (!msg.empty()) msg += '\n';
    msg += fmt::format("{}: unknown flag {}", prefix, flag);
    if (std::string_view s = doc::Suggest(flag, views); !s.empty()) {
      msg += fmt::format(" (did you mean {}?)", s);
    }
  }
  if (msg.empty()) msg = fmt::format("{}: {}", prefix, e.what());
  return fmt::format("{}\nRun '{} --help' for the flags.", msg, prefix);
}

}  // namespace corral::cli
