// Fuzzes the sweep file reader (`corral sweep`, compare/sweep.h): decoding and checking the file,
// resolving the seeds, the digest, planning the matrix, sharding it and emitting the Indexed Job.
// The bytes are written as sweep.yaml into a private directory that also holds the scenario the
// seeds name (scenario.yaml) and a scheduler configuration (config.yaml), so relative paths resolve
// as they do for a user. Contracts checked:
//   1. Bad input only ever yields an error with a non-empty message; never a crash, a sanitizer
//      report or an allocation the machine cannot hold (the matrix size is bounded).
//   2. A loaded sweep plans exactly points × variants × seeds runs, indexed in order from 0, and
//      its shards partition the runs.

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <string>
#include <string_view>
#include <vector>

#include <unistd.h>

#include "corral/compare/sweep.h"
#include "corral/core/diagnostics.h"

namespace {

constexpr std::string_view kScenario = R"(apiVersion: corral.dev/v1alpha1
kind: Scenario
metadata: {name: fuzz}
seed: 7
duration: 1h
nodePools:
- name: gpu
  count: 2
  resources: {cpu: "8", memory: 32Gi, pods: "20", nvidia.com/gpu: "4"}
workloads:
- name: train
  arrival: {rate: 2/h}
  resources: {cpu: "1", memory: 1Gi}
)";

constexpr std::string_view kConfig = R"(apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
)";

void Write(const std::string& path, std::string_view text) {
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  f.write(text.data(), static_cast<std::streamsize>(text.size()));
}

// A private directory, made once per process, with the files a sweep may name.
const std::string& Dir() {
  static const std::string dir = [] {
    std::string tmpl = "/tmp/corral-sweep-fuzz-XXXXXX";
    if (mkdtemp(tmpl.data()) == nullptr) __builtin_trap();
    Write(tmpl + "/scenario.yaml", kScenario);
    Write(tmpl + "/config.yaml", kConfig);
    return tmpl;
  }();
  return dir;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view input(reinterpret_cast<const char*>(data), size);  // NOLINT
  // A sweep names files by path; a device or kernel file (/dev/stdin, /dev/zero, /proc/...) would
  // block or never end, which is the user's choice and not a reader bug.
  for (std::string_view special : {"/dev", "/proc", "/sys"}) {
    if (input.find(special) != std::string_view::npos) return 0;
  }
  const std::string path = Dir() + "/sweep.yaml";
  Write(path, input);
  corral::Diagnostics diags;
  auto spec = corral::compare::LoadSweepSpec(path, diags);
  for (const auto& d : diags.items()) {
    if (d.message.empty()) __builtin_trap();  // every diagnostic says something
  }
  if (!spec.ok()) {
    if (spec.error().message.empty()) __builtin_trap();
    return 0;
  }
  if (spec->variants.empty() || spec->seeds.empty()) __builtin_trap();
  auto plans = corral::compare::PlanSweep(*spec);
  if (!plans.ok()) {
    if (plans.error().message.empty()) __builtin_trap();
    return 0;
  }
  size_t points = 1;
  for (const auto& [key, values] : spec->parameters) points *= values.size();
  const size_t total = points * spec->variants.size() * spec->seeds.size();
  if (plans->size() != total) __builtin_trap();
  for (size_t i = 0; i < plans->size(); ++i) {
    if ((*plans)[i].index != i || (*plans)[i].total != total) __builtin_trap();
  }
  size_t sharded = 0;
  for (size_t i = 0; i < 3; ++i) {
    sharded += corral::compare::ShardOf(*plans, {.index = i, .count = 3}).size();
  }
  if (sharded != total) __builtin_trap();
  auto job = corral::compare::EmitJob(*spec, {.spec_path = "/work/sweep.yaml",
                                              .image = "corral:fuzz",
                                              .results_claim = "results",
                                              .shards = 2});
  if (!job.ok() && job.error().message.empty()) __builtin_trap();
  return 0;
}
