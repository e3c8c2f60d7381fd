#pragma once
// The manifest loader: Kubernetes YAML/JSON files in, validated and defaulted api::ObjectSet out.
//
// Inputs: files and directories (recursive, sorted by path); `.yaml`, `.yml`, `.json` (other
// extensions in a directory are skipped with a note; a file named explicitly is sniffed);
// multi-document YAML; single objects, `kind: List` and typed lists (NodeList, PodList, ...) as
// `kubectl get -o yaml|json` prints them.
//
// Kinds: v1 Node, Pod, Namespace, Service, ReplicationController; apps/v1 ReplicaSet, StatefulSet;
// scheduling.k8s.io/v1 PriorityClass; policy/v1 PodDisruptionBudget; scheduling.k8s.io/v1alpha1
// Workload; scheduling.k8s.io/v1alpha2|v1beta1 Workload and PodGroup; resource.k8s.io/v1|v1beta2
// DeviceClass, ResourceSlice, ResourceClaim, ResourceClaimTemplate (the claims that pods' claim
// templates stand for are generated at Finish). docs/formats.md lists every field.
//
// Contract:
//  (1) Every problem becomes a Diagnostic with file, line and field path; all problems of all files
//      are reported. An object with an error is left out of the ObjectSet (and the error says why);
//      nothing is dropped without a diagnostic.
//  (2) Unknown fields are errors naming them (with a suggestion), as kubectl's --validate=strict;
//      LoadOptions::unknown_fields makes them warnings or ignores them. Unknown kinds are warnings;
//      with `strict` they and every other warning are errors. Fields of real objects that Corral
//      does not model (status.containerStatuses, managedFields, ...) are accepted silently.
//  (3) Defaults are those the API server applies (namespace "default", schedulerName, requests from
//      limits, terminationGracePeriodSeconds 30, ...), and priority admission runs after all inputs
//      are read, so the result does not depend on file order.
//  (4) Every Symbol is interned in the caller's Interner, which must outlive the ObjectSet.
//  (5) The result is deterministic: same inputs, same objects in the same order, same diagnostics.

#include <cstddef>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "corral/api/controllers.h"
#include "corral/api/types.h"
#include "corral/core/diagnostics.h"
#include "corral/core/interner.h"
#include "corral/doc/decoder.h"

namespace corral::loader {

struct LoadOptions {
  bool strict = false;  // unknown kinds/fields and all warnings are errors
  // Decode apps/v1 Deployment, ReplicaSet, StatefulSet, DaemonSet and batch/v1 Job into
  // LoadResult::controllers (the simulator runs them); otherwise Deployments, DaemonSets and Jobs
  // are unknown kinds.
  bool controllers = false;
  // Unknown fields of an object (kubectl's --validate): errors by default.
  doc::FieldValidation unknown_fields = doc::FieldValidation::kStrict;
};

enum class Format { kAuto, kYaml, kJson };

struct LoadCounts {
  size_t files = 0;      // files read
  size_t documents = 0;  // non-empty documents
  size_t objects = 0;    // objects loaded into the ObjectSet (after List expansion)
  std::map<std::string, size_t> per_kind;       // "Node" -> 3, for loaded objects
  std::map<std::string, size_t> skipped_kinds;  // "apps/v1 Deployment" -> 2, unknown kinds skipped
  size_t unknown_fields = 0;
  size_t rejected = 0;  // objects left out because of errors (including duplicates)
};

struct LoadResult {
  api::ObjectSet objects;
  Diagnostics diagnostics;
  LoadCounts counts;
  // With LoadOptions::controllers: the workload controllers, in input order, their pod templates
  // admitted like pods.
  std::vector<api::Controller> controllers;

  bool ok() const { return !diagnostics.has_errors(); }
};

// Incremental form: add inputs, then Finish() once (runs the cross-object checks and admission).
class Loader {
 public:
  Loader(Interner& interner, LoadOptions opts = {});
  ~Loader();
  Loader(const Loader&) = delete;
  Loader& operator=(const Loader&) = delete;

  // A file or a directory (recursive). Missing or unreadable paths are errors in the diagnostics.
  void AddPath(const std::string& path);
  // In-memory content; `filename` names it in messages and picks the format when `format` is kAuto
  // (".json" → JSON, else sniffed: `{`/`[` → JSON, otherwise YAML).
  void AddString(std::string_view content, std::string_view filename,
                 Format format = Format::kAuto);

  // REQUIRES: called once.
  LoadResult Finish();

 private:
  class Impl;
  std::unique_ptr<Impl> impl_;
};

LoadResult LoadPaths(std::span<const std::string> paths, Interner& interner,
                     const LoadOptions& opts = {});
LoadResult LoadString(std::string_view content, std::string_view filename, Interner& interner,
                      const LoadOptions& opts = {}, Format format = Format::kAuto);

}  // namespace corral::loader
