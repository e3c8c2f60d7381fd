#pragma once
// Member clusters given to `corral dispatch` as folders of their own nodes and pods, and the
// accurate estimator that asks each member's own scheduler (corral/scheduler/estimate.h).
//
// A member folder is a directory, among the inputs or below one, that directly holds a manifest
// with a `kind: Node` (or NodeList) document. Everything under it is read by the manifest loader
// (strict, as `corral schedule --strict` reads a cluster) and belongs to that member; its name is
// the directory's name. The member backs the Karmada Cluster and the MultiKueueCluster of that
// name when the fleet inputs have them; without either it is a Karmada Cluster of that name, Ready,
// with the built-in APIs enabled (v1, apps/v1, batch/v1). Its status.resourceSummary is computed
// from the folder as Karmada's cluster status controller computes it (getResourceSummary): the
// nodes' allocatable summed; allocated = the requests of the pods bound to a node and not
// Succeeded or Failed, and their count as "pods"; allocating = the same for pods without a node.
// A Cluster object that also gives a resourceSummary or resourceModels for a member is an error.
//
// Each member has its own scheduler with kube's default feature gates (seed 1): its nodes and bound
// pods are added, its pending pods are not scheduled. Its profiles are kube's default unless the
// member has a KubeSchedulerConfiguration of its own: the file given for it by name
// (`--member-config NAME=PATH`), else `scheduler-config.yaml` directly in its folder (which is then
// not read as a manifest). The accurate estimator asks that scheduler, so a member's filters, their
// arguments and (for trial placements of several pods) its scoring strategy bear on the answer.

#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include <absl/container/flat_hash_map.h>

#include "corral/api/cluster.h"
#include "corral/core/clock.h"
#include "corral/core/diagnostics.h"
#include "corral/core/result.h"
#include "corral/doc/decoder.h"
#include "corral/fleet/estimator.h"
#include "corral/framework/registry.h"
#include "corral/scheduler/estimate.h"
#include "corral/scheduler/scheduler.h"

namespace corral::app {

struct MemberCluster {
  Symbol name;
  std::string path;  // the folder
  api::ObjectSet objects;
  std::string config_path;  // its KubeSchedulerConfiguration ("" for kube's default profile)
  scheduler::Scheduler::Options options;
  std::unique_ptr<scheduler::Scheduler> scheduler;
};

// The inputs split into fleet files (for the fleet loader) and member folders.
struct DispatchInputs {
  std::vector<std::string> fleet_files;
  std::vector<std::string> member_dirs;
};
// Errors: a missing input path.
Result<DispatchInputs> SplitDispatchInputs(std::span<const std::string> inputs);

class Members {
 public:
  explicit Members(Interner& interner);
  ~Members();
  Members(const Members&) = delete;
  Members& operator=(const Members&) = delete;

  // Loads each folder as a member. `configs` are "NAME=PATH" KubeSchedulerConfiguration files for
  // the members of those names. Errors: the loader's diagnostics of any folder (every one), a
  // configuration's diagnostics, two folders with one name, a config for no member or a member
  // named twice in `configs`, a malformed entry. `unknown_fields` (kubectl's --validate) relaxes
  // unknown fields only: their warnings go to `warnings` (when given); every other loader warning
  // stays an error.
  Result<void> Load(std::span<const std::string> dirs, std::span<const std::string> configs = {},
                    doc::FieldValidation unknown_fields = doc::FieldValidation::kStrict,
                    Diagnostics* warnings = nullptr);
  // Adds a member built from `objects` (its nodes, pods and cluster objects); `path` names it in
  // messages; `config` its scheduler's profiles (kube's default without). Errors: a member of that
  // name exists, or its scheduler cannot be built.
  Result<MemberCluster*> Add(Symbol name, std::string path, api::ObjectSet objects,
                             std::optional<framework::SchedulerConfig> config = {});
  // Attaches the members to `clusters` (computed summaries) and appends a Karmada Cluster for each
  // member no cluster names. Errors: a Cluster that gives its own summary or resource models.
  Result<void> Attach(std::vector<api::Cluster>& clusters) const;

  const MemberCluster* Find(Symbol name) const;
  MemberCluster* Find(Symbol name);
  size_t size() const { return members_.size(); }
  Interner& interner() const { return interner_; }
  const framework::Registry& registry() const { return registry_; }

 private:
  Interner& interner_;
  framework::Registry registry_;
  ManualClock clock_;
  std::vector<std::unique_ptr<MemberCluster>> members_;
};

// getResourceSummary over a member's objects.
api::ResourceSummary MemberResourceSummary(const api::ObjectSet& objects, const Interner& interner);

// The pod the accurate estimator places for one replica of a work item: the work item's pod
// template when it has one, else a pod with one container requesting requirements.resource_request;
// in requirements.namespace_, named after the work item, default-scheduler, priority from the
// member's PriorityClass of that name (0 when the member has none).
api::Pod ReplicaPod(const api::ReplicaRequirements& requirements, Symbol name,
                    const api::ObjectSet& member, Interner& interner);

// The accurate estimator (Karmada's scheduler-estimator, answered by the member's own scheduler):
// for a cluster backed by a member, the replicas its scheduler can place now; for any other
// cluster kUnauthenticReplica, so that the general estimator's answer stands (calAvailableReplicas
// takes the minimum of the authentic answers). Answers are memoized per member and replica pod
// for the estimator's lifetime: one dispatch pass is one instant (ClearMemo when a member changed).
class AccurateEstimator final : public fleet::ReplicaEstimator, public fleet::WorkloadEstimator {
 public:
  explicit AccurateEstimator(Members& members) : members_(members) {}

  std::vector<int32_t> MaxAvailableReplicas(
      std::span<const api::Cluster* const> clusters,
      const api::ReplicaRequirements* requirements) const override;
  // Whether every pod set of `work` fits at once (scheduler::GangFits); nullopt without a member.
  std::optional<bool> FitsWhole(const api::Cluster& cluster,
                                const api::FleetWork& work) const override;

  void ClearMemo() { memo_.clear(); }
  // Estimates answered from the memo, and computed.
  int64_t memo_hits() const { return hits_; }
  int64_t computed() const { return computed_; }

 private:
  Members& members_;
  mutable absl::flat_hash_map<std::string, int32_t> memo_;
  mutable int64_t hits_ = 0;
  mutable int64_t computed_ = 0;
};

}  // namespace corral::app
