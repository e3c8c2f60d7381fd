#pragma once
// ObjectBuilder: validates Kubernetes objects that are embedded in (or synthesized from) another
// input format — scenario pod/node templates, priority classes, scheduler_perf templates — with the
// manifest loader, so that they get exactly the validation and defaults of `corral schedule`, and
// maps every loader diagnostic back to the file, line and field path of the source the object
// came from.
//
// Each object is given as JSON text plus a list of path mappings: "JSON path prefix → source node
// and its path". A loader diagnostic at `spec.containers[0].resources.requests.cpu` whose longest
// mapped prefix is `spec.containers[0].resources.requests` ↦ (node N, "workloads[2].resources") is
// reported at `workloads[2].resources.cpu`, on the line of N's `cpu` entry.
//
// Plain manifest files and directories can be added too; their diagnostics keep their own file and
// line. The doc::Nodes referred to by mappings must stay alive until Finish().

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "corral/api/controllers.h"
#include "corral/api/types.h"
#include "corral/core/diagnostics.h"
#include "corral/core/interner.h"
#include "corral/doc/node.h"

namespace corral::sim {

struct PathMapping {
  std::string json_prefix;  // "" maps the whole object
  const doc::Node* source = nullptr;
  std::string source_path;
};

class ObjectBuilder {
 public:
  // `controllers`: workload controllers (Deployments, ...) in the files are decoded for
  // TakeControllers (loader::LoadOptions::controllers).
  ObjectBuilder(Interner& interner, std::string file, bool strict, bool controllers = false);
  ~ObjectBuilder();
  ObjectBuilder(const ObjectBuilder&) = delete;
  ObjectBuilder& operator=(const ObjectBuilder&) = delete;

  // Adds one object (a JSON document); returns its piece index. `fallback_line` is used when no
  // mapping applies.
  size_t Add(std::string json, std::vector<PathMapping> mappings, uint32_t fallback_line);
  // Like Add; messages that mention `internal_name` (a placeholder object name) show
  // `display` instead.
  size_t Add(std::string json, std::vector<PathMapping> mappings, uint32_t fallback_line,
             std::string internal_name, std::string display);
  // The piece index of an object loaded from Add(), or nullopt for objects from files.
  static std::optional<size_t> PieceOf(const Interner& interner, const api::ObjectMeta& meta);
  // Adds Kubernetes manifest files or directories (recursive), reported with their own paths.
  void AddPath(const std::string& path);
  // Loads everything; diagnostics (remapped) are appended to `diags`.
  api::ObjectSet Finish(Diagnostics& diags);
  // The workload controllers loaded by Finish (with `controllers` set).
  std::vector<api::Controller> TakeControllers();

 private:
  class Impl;
  std::unique_ptr<Impl> impl_;
};

// Minimal JSON text building for synthesized objects.
std::string JsonString(std::string_view s);
// A doc subtree as JSON (scalars by their resolved kind: YAML `yes` becomes true, `0x1f`
// becomes 31).
std::string NodeToJson(const doc::Node& n);

// The node reached from `root` by a loader-style relative path (".a.b[2][key]"), or the deepest
// node found on the way.
const doc::Node* WalkPath(const doc::Node* root, std::string_view path);

}  // namespace corral::sim
