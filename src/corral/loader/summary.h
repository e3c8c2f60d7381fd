#pragma once
// What `corral validate` prints: a summary of a LoadResult as an aligned table or as JSON (schema
// in docs/formats.md, "corral validate -o json"). Deterministic for a given LoadResult.

#include <cstddef>
#include <string>
#include <vector>

#include "corral/api/quantity.h"
#include "corral/core/interner.h"
#include "corral/loader/loader.h"

namespace corral::loader {

struct Summary {
  LoadCounts counts;
  size_t errors = 0;
  size_t warnings = 0;

  size_t nodes = 0;
  size_t unschedulable_nodes = 0;
  size_t tainted_nodes = 0;
  struct Resource {
    std::string name;
    api::Quantity allocatable;  // summed over nodes
  };
  std::vector<Resource> allocatable;  // cpu, memory, ephemeral-storage, pods first, then by name

  size_t pods = 0;
  size_t bound = 0;        // spec.nodeName set, not finished
  size_t pending = 0;      // unbound and not finished
  size_t gated = 0;        // pending with schedulingGates
  size_t finished = 0;     // phase Succeeded or Failed
  size_t terminating = 0;  // deletionTimestamp set

  struct PriorityClassRow {
    std::string name;
    int32_t value = 0;
    bool global_default = false;
    bool builtin = false;
    size_t pods = 0;  // pods resolved to this class
  };
  std::vector<PriorityClassRow> priority_classes;  // by value, descending
  size_t pods_without_class = 0;  // no priorityClassName and no globalDefault class: priority 0

  struct Group {
    std::string workload;  // "namespace/name" (Workload rows) or "namespace/name" of the PodGroup
    std::string
        api;  // "v1alpha1" or "current" (Workload rows); template "workload/template" (PodGroup)
    std::string group;   // pod group (template) name (Workload rows)
    std::string policy;  // "gang" or "basic"
    int32_t min_count = 0;
    size_t pods = 0;  // pods that reference the group
  };
  std::vector<Group> workload_groups;  // one row per Workload pod group
  std::vector<Group> pod_groups;       // one row per PodGroup object
};

Summary Summarize(const LoadResult& result, const Interner& interner);

// Human-readable, aligned table (ends with a newline).
std::string RenderTable(const Summary& s);
// A JSON document (pretty-printed, ends with a newline) including every diagnostic.
std::string RenderJson(const Summary& s, const Diagnostics& diags);

}  // namespace corral::loader
