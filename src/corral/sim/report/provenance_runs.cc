#include "corral/sim/report/provenance_runs.h"

#include <map>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace corral::sim {

namespace {

bool Ran(const NamedRun& r) {
  return r.provenance != nullptr && !r.provenance->empty();
}

// The lines that tell one run's scheduler setup apart: its seed and schedulers, without the
// inputs and the version that every run shares.
std::vector<std::string> SetupLines(const Provenance& p) {
  Provenance setup = p;
  setup.inputs.clear();
  setup.builtin_scenario = false;
  std::vector<std::string> out;
  for (auto& line : ProvenanceLines(setup)) {
    if (!line.starts_with("corral ")) out.push_back(std::move(line));
  }
  return out;
}

}  // namespace

std::string AddRunsProvenance(std::string_view output, bool json, const Provenance& common,
                              const std::vector<NamedRun>& runs) {
  if (json) {
    auto doc = nlohmann::ordered_json::parse(output);
    nlohmann::ordered_json prov = ProvenanceJson(common);
    nlohmann::ordered_json workloads = nlohmann::ordered_json::array();
    for (const auto& r : runs) {
      nlohmann::ordered_json w = {{"name", r.name}, {"seed", nullptr}, {"schedulers", nullptr}};
      if (Ran(r)) {
        w["seed"] = r.provenance->seed;
        w["schedulers"] = ProvenanceJson(*r.provenance)["schedulers"];
      }
      workloads.push_back(std::move(w));
    }
    prov["workloads"] = std::move(workloads);
    doc["provenance"] = std::move(prov);
    return doc.dump(2) + "\n";
  }
  std::string s(output);
  s += "\nINPUTS\n";
  for (const auto& line : ProvenanceLines(common)) s += "  " + line + "\n";
  // Groups of runs with the same setup, in order of first appearance.
  std::vector<std::vector<std::string>> setups;
  std::vector<std::vector<std::string>> names;
  std::vector<std::string> not_run;
  for (const auto& r : runs) {
    if (!Ran(r)) {
      not_run.push_back(r.name);
      continue;
    }
    std::vector<std::string> lines = SetupLines(*r.provenance);
    size_t g = 0;
    while (g < setups.size() && setups[g] != lines) ++g;
    if (g == setups.size()) {
      setups.push_back(std::move(lines));
      names.emplace_back();
    }
    names[g].push_back(r.name);
  }
  auto join = [](const std::vector<std::string>& v) {
    std::string out;
    for (const auto& x : v) out += (out.empty() ? "" : ", ") + x;
    return out;
  };
  for (size_t g = 0; g < setups.size(); ++g) {
    s += fmt::format("  {:<18}{}\n", names[g].size() == 1 ? "workload" : "workloads",
                     join(names[g]));
    for (const auto& line : setups[g]) s += "    " + line + "\n";
  }
  if (!not_run.empty()) s += fmt::format("  {:<18}{}\n", "not run", join(not_run));
  return s;
}

}  // namespace corral::sim
