#pragma once
// Provenance: what a run was made of, so that every output of `corral simulate` and `corral perf`
// names its inputs — the scenario or input files with a content hash, the seed, the Corral version,
// and per scheduler (one, or one per member cluster) its configuration file with a content hash,
// the profiles with the plugins in effect at each extension point, and the feature gates.
//
// Contract: a Provenance is a pure function of the inputs as given on the command line and of the
// build. It never holds wall-clock time or an absolute path the user did not type (paths are kept
// as given, and a scenario's configPath as resolved against the scenario's own path), so the same
// checkout, command and files give the same bytes.
//
// Content hashes are FNV-1a 64 (Fowler–Noll–Vo, offset basis 0xcbf29ce484222325, prime
// 0x100000001b3), written "fnv1a64:" followed by 16 lowercase hex digits. A file's hash is over its
// bytes. A directory's hash is over its regular files, recursively, in byte order of their paths
// relative to the directory: for each, the relative path ('/'-separated), a NUL byte, the file's
// bytes and a NUL byte. It identifies content; it is not a cryptographic digest.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "corral/core/interner.h"
#include "corral/core/result.h"

namespace corral::sim {

struct FleetSpec;  // fleet_spec.h

inline constexpr uint64_t kFnv1a64Offset = 0xcbf29ce484222325ULL;
inline constexpr uint64_t kFnv1a64Prime = 0x100000001b3ULL;

// FNV-1a 64 of `bytes`, continuing from `h` (the offset basis for a fresh hash).
uint64_t Fnv1a64(std::string_view bytes, uint64_t h = kFnv1a64Offset);
// "fnv1a64:%016x".
std::string FormatFnv1a64(uint64_t h);
// The content hash of a file or directory (rules above). Errors: the path cannot be read.
Result<std::string> HashPath(const std::string& path);

// The Corral version: the project version, plus `+<git describe>` of the checkout when CMake was
// configured in a git work tree (cmake/corral_version.cmake).
std::string CorralVersion();

// The plugins one profile runs at one extension point, in order (Score entries as "Name:weight").
struct ExtensionPointPlugins {
  std::string point;  // kube's name: "PreEnqueue", "QueueSort", "PreFilter", ..., "PostBind"
  std::vector<std::string> plugins;
  bool operator==(const ExtensionPointPlugins&) const = default;
};

struct ProfileProvenance {
  std::string scheduler_name;
  std::vector<ExtensionPointPlugins> points;  // every extension point in kube's order
  bool operator==(const ProfileProvenance&) const = default;
};

// One scheduler of a run (the only one, or one member cluster's).
struct SchedulerProvenance {
  std::string cluster;      // empty for a run of one cluster
  std::string config_path;  // empty: no configuration file (kube-scheduler's defaults)
  std::string config_hash;  // of config_path's bytes
  std::vector<ProfileProvenance> profiles;
  std::vector<std::string> gates_explicit;     // "Name=true" as set by the input and flags
  std::vector<std::string> gates_non_default;  // effective gates that differ from the defaults
  // kube-scheduler's --emulated-version ("1.36") when it is not the binary's v1.37; empty otherwise
  // (the defaults above are then that version's).
  std::string emulated_version;
};

// One input as given on the command line, with its content hash.
struct InputProvenance {
  std::string path;
  std::string hash;
};

// The fleet level of a run that has one (a scenario's `fleet:`): the fleet scheduler, MultiKueue's
// dispatcher, and the plugins it runs — the composable dispatcher's ClusterDispatcherProfile
// (built in, or a file with its content hash) and nomination, or Karmada's default plugin set.
struct DispatcherProvenance {
  std::string scheduler;    // "karmada", "kueue"
  std::string dispatcher;   // kueue: "composable", "AllAtOnce", "Incremental"; karmada: empty
  std::string profile;      // the profile's name ("default" for the KEP's); karmada: "default"
  std::string config_path;  // empty: built-in profile
  std::string config_hash;
  std::vector<std::string> filters;  // in order
  std::vector<std::string> scores;   // "Name:weight" (Karmada's are unweighted: "Name")
  std::string nomination;            // composable: "Top1", "TopK 2"; else empty
  std::string detail;                // incremental: "step 3, round 5m0s"; else empty
};

struct Provenance {
  std::string command;                     // "simulate", "perf"
  std::string corral_version;              // CorralVersion()
  bool builtin_scenario = false;           // the built-in default scenario (no input files)
  std::vector<InputProvenance> inputs;     // the scenario, manifests, trace CSVs or perf config
  std::vector<InputProvenance> manifests;  // the manifests a scenario lists (`manifests:`)
  uint64_t seed = 0;
  bool has_seed = true;                          // false for outputs that have no single seed
  std::vector<DispatcherProvenance> dispatcher;  // at most one; empty without a dispatcher
  std::vector<SchedulerProvenance> schedulers;   // one, or one per member cluster

  bool empty() const { return command.empty(); }
};

// The fleet level of `fleet` (see DispatcherProvenance). Errors: the profile file cannot be read.
Result<DispatcherProvenance> DescribeDispatcher(const FleetSpec& fleet, const Interner& interner);

// Hashes each input path. Errors: an input cannot be read.
Result<std::vector<InputProvenance>> DescribeInputs(const std::vector<std::string>& paths);

// "A=true,B=0" (already accepted by FeatureGates::ParseFlag) as "Name=true|false" items, in order.
std::vector<std::string> GateFlagItems(std::string_view flag);

// The provenance as text lines without a trailing newline: "key  value" pairs aligned in one
// column, with profiles and clusters as indented blocks. Member clusters whose scheduler blocks
// are identical (configuration, gates, profiles) share one block, headed "clusters a, b, c" at the
// place of the first of them. The summary prints them under INPUTS; the
// CSV and Prometheus outputs print them as '#' comments; the HTML report shows them in its header.
std::vector<std::string> ProvenanceLines(const Provenance& p);

// The `provenance` object of the JSON outputs (docs/output-schema.md).
nlohmann::ordered_json ProvenanceJson(const Provenance& p);

}  // namespace corral::sim
