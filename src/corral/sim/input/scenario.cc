#include "corral/sim/input/scenario.h"

#include <filesystem>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "corral/doc/decoder.h"
#include "corral/doc/parse.h"
#include "corral/sim/input/scenario_input.h"

namespace corral::sim {

using doc::Decoder;

namespace fs = std::filesystem;

std::string DiagnosticsMessage(const Diagnostics& diags) {
  std::string msg;
  for (const auto& d : diags.items()) {
    if (d.severity != Severity::kError) continue;
    if (!msg.empty()) msg += '\n';
    msg += d.ToString();
  }
  return msg;
}

Result<SimSpec> ParseScenario(std::string_view text, std::string_view file,
                              const std::string& base_dir, Interner& interner, Diagnostics& diags,
                              const ScenarioOptions& opts) {
  doc::Stream stream = doc::ParseYaml(text, file, diags);
  if (diags.has_errors()) return Error::Invalid(DiagnosticsMessage(diags));
  auto docs = stream.documents();
  if (docs.empty() || docs[0].is_null()) {
    diags.Error(std::string(file), 1, "", "empty scenario");
    return Error::Invalid(DiagnosticsMessage(diags));
  }
  if (docs.size() > 1)
    diags.Error(std::string(file), docs[1].line(), "", "a scenario file holds one document");
  Decoder d(file, diags, &interner, {.strict = opts.strict});
  scenario_internal::ScenarioIn in;
  scenario_internal::DecodeScenario(d, docs[0], in);
  if (docs[0].is_map() && docs[0].Find("kind") == nullptr) d.Required(docs[0], "kind", "Scenario");
  if (!docs[0].is_map()) return Error::Invalid(DiagnosticsMessage(diags));
  // Compile even after decoding errors, so that one run reports the template and cross-reference
  // problems too (contract 1).
  return scenario_internal::CompileScenario(in, file, base_dir, interner, diags, opts);
}

Result<SimSpec> LoadScenarioFile(const std::string& path, Interner& interner, Diagnostics& diags,
                                 const ScenarioOptions& opts) {
  std::ifstream f(path, std::ios::binary);
  if (!f) {
    diags.Error(path, 0, "", "cannot read file");
    return Error::NotFound(fmt::format("{}: cannot read file", path));
  }
  std::stringstream ss;
  ss << f.rdbuf();
  std::string base = fs::path(path).parent_path().string();
  return ParseScenario(ss.str(), path, base, interner, diags, opts);
}

}  // namespace corral::sim
