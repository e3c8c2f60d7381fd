// Properties of binding preemption beyond Karmada (preemption_fleetwide.h) over random fleets: a
// few clusters of 20 cpus, running bindings of 1 cpu per replica on one or two clusters (some of
// them gangs), and preemptors arriving one after another in either mode, each preemption's victims
// put into graceful eviction before the next arrives (as Karmada's scheduler patches them):
//   - no victim has a priority at or above its preemptor's;
//   - victim sets are minimal: without any one victim on the chosen cluster, the replicas freed
//     there no longer make the preemptor fit;
//   - two preemptors never evict for the same capacity: no binding is evicted twice from one
//     cluster, and a cluster never holds two live claims;
//   - no work item preempts on two clusters: a preemptor that tries again while its claim lives
//     preempts (if at all) on the same cluster in the fleet-wide mode, and the claim store holds
//     one claim per work item;
//   - no gang is partially evicted: a gang victim leaves every cluster it ran on;
//   - the fleet-wide early exit (weigh_every_cluster = false) chooses the same cluster, victims and
//     reprieved as weighing every cluster.
// And of Phase 2's selection (SelectVictimsBySimulation) over random nodes: the preemptor fits
// without the victims, and with any one victim back it does not.
#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include "corral/api/well_known.h"
#include "corral/fleet/preemption_fleetwide.h"

namespace corral::fleet {
namespace {

constexpr int64_t kClusterCpu = 20;

struct Fleet {
  Interner in = api::NewInterner();
  std::vector<std::string> names;
  std::vector<api::FleetWork> bindings;
};

api::FleetWork Binding(Fleet& f, const std::string& name, int32_t priority) {
  api::FleetWork w;
  w.meta.name = f.in.Intern(name);
  w.meta.namespace_ = f.in.Intern("default");
  w.replica_requirements.emplace();
  w.replica_requirements->resource_request = {{api::wk::kCpu, api::Quantity::FromInt(1)}};
  w.priority = priority;
  w.resource = {
      f.in.Intern("apps/v1"), f.in.Intern("Deployment"), w.meta.namespace_, w.meta.name, {}};
  return w;
}

// The clusters' summaries from the bindings running there (graceful evictions still count: the
// victims have not left yet).
std::vector<api::Cluster> Clusters(Fleet& f) {
  std::vector<api::Cluster> out;
  for (const std::string& n : f.names) {
    int64_t used = 0;
    for (const api::FleetWork& b : f.bindings) {
      for (const api::TargetCluster& t : b.clusters) {
        if (f.in.Str(t.name) == n) used += t.replicas;
      }
    }
    api::Cluster c;
    c.meta.name = f.in.Intern(n);
    c.resource_summary.emplace();
    c.resource_summary->allocatable = {{api::wk::kCpu, api::Quantity::FromInt(kClusterCpu)},
                                       {api::wk::kPods, api::Quantity::FromInt(110)}};
    c.resource_summary->allocated = {{api::wk::kCpu, api::Quantity::FromInt(used)}};
    c.api_enablements = {{f.in.Intern("apps/v1"), {f.in.Intern("Deployment")}}};
    out.push_back(std::move(c));
  }
  return out;
}

RC_GTEST_PROP(FleetwidePreemptionProperty, VictimsClaimsAndGangs, ()) {
  Fleet f;
  const int nclusters = *rc::gen::inRange(1, 5);
  for (int i = 0; i < nclusters; ++i) f.names.push_back("c" + std::to_string(i));
  // Running bindings: fill each cluster with up to 20 replicas.
  std::vector<int64_t> free(nclusters, kClusterCpu);
  const int nrunning = *rc::gen::inRange(1, 16);
  for (int i = 0; i < nrunning; ++i) {
    api::FleetWork b = Binding(f, "r" + std::to_string(i), *rc::gen::inRange(0, 10));
    b.meta.creation_timestamp = TimePoint{} + std::chrono::seconds(*rc::gen::inRange(0, 5));
    const int first = *rc::gen::inRange(0, nclusters);
    const int second = *rc::gen::inRange(0, nclusters);
    for (int c : {first, second}) {
      if (free[c] <= 0 || b.TargetContains(f.in.Intern(f.names[c]))) continue;
      const auto r = static_cast<int32_t>(*rc::gen::inRange<int64_t>(1, free[c] + 1));
      free[c] -= r;
      b.clusters.push_back({f.in.Intern(f.names[c]), r});
      b.replicas += r;
    }
    if (b.clusters.empty()) continue;
    if (*rc::gen::inRange(0, 3) == 0) {
      b.meta.annotations.push_back({f.in.Intern(kMinMemberAnnotation), std::to_string(b.replicas)});
    }
    f.bindings.push_back(std::move(b));
  }
  const std::vector<api::FleetWork> running = f.bindings;

  ManualClock clock;
  ClaimStore claims(clock);
  GeneralEstimator general(f.in);
  const FeatureGates gates{true, true};
  std::set<std::pair<std::string, std::string>> evicted;  // (binding, cluster)
  int preemptions = 0, gang_evictions = 0;
  const int npreemptors = *rc::gen::inRange(1, 4);
  for (int i = 0; i < npreemptors; ++i) {
    api::FleetWork w = Binding(f, "p" + std::to_string(i), *rc::gen::inRange(4, 12));
    w.replicas = *rc::gen::inRange(1, 16);
    w.preemption_policy = api::PreemptionPolicy::kPreemptLowerPriority;
    w.placement.cluster_affinity.emplace();
    for (const std::string& n : f.names) {
      w.placement.cluster_affinity->cluster_names.push_back(f.in.Intern(n));
    }
    if (*rc::gen::arbitrary<bool>()) {
      w.placement.spread_constraints = {{api::SpreadByField::kCluster, {}, 1, 1}};
    }
    w.placement.replica_scheduling = api::ReplicaSchedulingStrategy{
        api::ReplicaSchedulingType::kDivided, api::ReplicaDivisionPreference::kAggregated, {}};
    if (*rc::gen::inRange(0, 3) == 0) {
      w.meta.annotations.push_back({f.in.Intern(kMinMemberAnnotation), std::to_string(w.replicas)});
    }
    const bool fleetwide = *rc::gen::arbitrary<bool>();
    const PreemptionOptions options{
        fleetwide ? PreemptionMode::kFleetwide : PreemptionMode::kKarmada, nullptr};
    const std::string key = BindingKey(w, f.in);
    std::string first_cluster;
    for (int attempt = 0; attempt < 2; ++attempt) {
      const std::vector<api::Cluster> clusters = Clusters(f);
      const ReplicaEstimator* raw[] = {&general};
      ClaimDeductingEstimator deducting(general, claims, key, w.priority, f.in);
      const ReplicaEstimator* with_claims[] = {&deducting};
      BindingSchedule s = ScheduleBinding(w, clusters, with_claims, f.in);
      // The early exit (weigh_every_cluster = false) chooses as weighing every cluster does.
      ClaimStore pruned_claims = claims;
      PreemptionOptions pruned_options = options;
      pruned_options.weigh_every_cluster = false;
      const PreemptionOutcome pruned =
          TryPreempt(w, s, clusters, raw, f.bindings, pruned_claims, gates, f.in, pruned_options);
      PreemptionOutcome p =
          TryPreempt(w, s, clusters, raw, f.bindings, claims, gates, f.in, options);
      RC_ASSERT(pruned.preempting == p.preempting);
      RC_ASSERT(pruned.cluster == p.cluster);
      RC_ASSERT(pruned.victims == p.victims);
      RC_ASSERT(pruned.reprieved == p.reprieved);
      RC_ASSERT(pruned.gang_evictions.size() == p.gang_evictions.size());
      if (!p.preempting) continue;
      ++preemptions;
      gang_evictions += static_cast<int>(p.gang_evictions.size());
      // One cluster per work item while its claim lives (fleet-wide mode).
      if (fleetwide && !first_cluster.empty()) RC_ASSERT(p.cluster == first_cluster);
      first_cluster = p.cluster;
      // Strictly lower priorities.
      for (const Victim& v : p.victims) RC_ASSERT(v.priority < w.priority);
      for (const GangEviction& g : p.gang_evictions) RC_ASSERT(g.victim.priority < w.priority);
      // Minimal: the victims free at least the deficit there, and none can be spared.
      int64_t freed = 0;
      for (const Victim& v : p.victims) freed += v.replicas;
      RC_ASSERT(freed >= p.deficit);
      for (const Victim& v : p.victims) RC_ASSERT(freed - v.replicas < p.deficit);
      // Never the same capacity twice; gangs leave whole.
      std::map<std::string, std::set<std::string>> left;  // binding -> clusters it leaves
      for (const Victim& v : p.victims) left[v.name].insert(p.cluster);
      for (const GangEviction& g : p.gang_evictions) left[g.victim.name].insert(g.cluster);
      for (const auto& [name, from] : left) {
        for (const std::string& c : from) RC_ASSERT(evicted.insert({name, c}).second);
        for (api::FleetWork& b : f.bindings) {
          if ("default/" + std::string(f.in.Str(b.meta.name)) != name) continue;
          auto gang = ReadGang(b, f.in);
          RC_ASSERT(gang.ok());
          if (gang->evict_whole) {
            for (const api::TargetCluster& t : b.clusters) {
              RC_ASSERT(from.count(std::string(f.in.Str(t.name))) == 1u);
            }
          }
          for (const std::string& c : from) b.graceful_eviction_clusters.push_back(f.in.Intern(c));
        }
      }
    }
    // At most one live claim per cluster and per work item.
    std::set<std::string> claimed_clusters, claimants;
    for (const PreemptionClaim& c : claims.List()) {
      RC_ASSERT(claimed_clusters.insert(c.cluster).second);
      RC_ASSERT(claimants.insert(c.binding).second);
    }
  }
  RC_TAG(preemptions > 0 ? "preempted" : "no preemption", gang_evictions > 0 ? "gang evicted" : "");
}

// Phase 2 over random nodes: `nodes` nodes of 4 cpus; each candidate has one pod of 1..4 cpus on
// one node; the preemptor needs `replicas` pods of `size` cpus.
RC_GTEST_PROP(FleetwidePreemptionProperty, SimulatedVictimsAreMinimal, ()) {
  Interner in = api::NewInterner();
  const int nodes = *rc::gen::inRange(1, 4);
  const int n = *rc::gen::inRange(0, 8);
  std::vector<api::FleetWork> candidates(n);
  std::vector<std::pair<int, int64_t>> pods(n);
  std::vector<int64_t> used(nodes, 0);
  for (int i = 0; i < n; ++i) {
    candidates[i].meta.name = in.Intern("c" + std::to_string(i));
    const int node = *rc::gen::inRange(0, nodes);
    const int64_t size = *rc::gen::inRange<int64_t>(1, 5);
    if (used[node] + size > 4) continue;
    used[node] += size;
    pods[i] = {node, size};
  }
  const int64_t size = *rc::gen::inRange<int64_t>(1, 5);
  const auto replicas = static_cast<int32_t>(*rc::gen::inRange(1, 4));
  class Member final : public VictimSimulator {
   public:
    Member(int nodes, const std::vector<api::FleetWork>& c,
           const std::vector<std::pair<int, int64_t>>& p, int64_t size)
        : nodes_(nodes), c_(c), p_(p), size_(size) {}
    bool Simulates(const api::Cluster&, std::span<const api::FleetWork* const>) const override {
      return true;
    }
    Result<bool> FitsWithout(const api::Cluster&, const api::FleetWork&, int32_t r,
                             std::span<const api::FleetWork* const> removed) const override {
      std::vector<int64_t> free(nodes_, 4);
      for (size_t i = 0; i < c_.size(); ++i) {
        if (std::find(removed.begin(), removed.end(), &c_[i]) == removed.end()) {
          free[p_[i].first] -= p_[i].second;
        }
      }
      int64_t fit = 0;
      for (int64_t f : free) fit += f / size_;
      return fit >= r;
    }

   private:
    int nodes_;
    const std::vector<api::FleetWork>& c_;
    const std::vector<std::pair<int, int64_t>>& p_;
    int64_t size_;
  } member(nodes, candidates, pods, size);
  std::vector<const api::FleetWork*> ordered;
  for (const api::FleetWork& c : candidates) ordered.push_back(&c);
  api::Cluster cluster;
  api::FleetWork preemptor;
  auto victim = SelectVictimsBySimulation(member, cluster, preemptor, replicas, ordered, "m");
  auto fits_without = [&](const std::vector<const api::FleetWork*>& removed) {
    return *member.FitsWithout(cluster, preemptor, replicas, removed);
  };
  if (!victim.ok()) {
    RC_ASSERT(!fits_without(ordered));
    return;
  }
  std::vector<const api::FleetWork*> victims;
  for (size_t i = 0; i < ordered.size(); ++i) {
    if ((*victim)[i]) victims.push_back(ordered[i]);
  }
  RC_ASSERT(fits_without(victims));
  for (size_t k = 0; k < victims.size(); ++k) {
    std::vector<const api::FleetWork*> fewer = victims;
    fewer.erase(fewer.begin() + static_cast<std::ptrdiff_t>(k));
    RC_ASSERT(!fits_without(fewer));
  }
}

}  // namespace
}  // namespace corral::fleet
