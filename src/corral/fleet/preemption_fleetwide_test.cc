// Table tests of binding preemption beyond Karmada's Phase 1: the fleet-wide cluster choice in
// kube-scheduler's node-pick order (cases translated from TestPickOneNodeForPreemption in
// kubernetes' default_preemption_test.go, under pkg/scheduler/framework/plugins/, each cluster
// standing for a machine and each victim pod for one evicted replica), the gang annotations, one
// claim cluster per work item, spreading Divided preemptors, and Phase 2 victim selection by
// simulation (the proposal PR #7327's "Estimator-Based Preemption": remove all, add back while the
// preemptor fits).
#include "corral/fleet/preemption_fleetwide.h"

#include <map>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "corral/api/well_known.h"

namespace corral::fleet {
namespace {

TimePoint At(int64_t seconds) {
  return TimePoint{} + std::chrono::seconds(seconds);
}

// ---- pickOneNodeForPreemption's order

// TestPickOneNodeForPreemption's priorities.
constexpr int32_t kNeg = -100, kLow = 0, kMid = 100, kHigh = 1000;

struct PodVictim {
  int32_t priority;
  int64_t start = 0;
};

PreemptionCost CostOf(const char* cluster, std::vector<PodVictim> victims) {
  PreemptionCost c;
  c.cluster = cluster;
  for (const PodVictim& v : victims) AddVictimCost(c, v.priority, 1, At(v.start));
  return c;
}

std::string Pick(std::vector<PreemptionCost> costs) {
  const PreemptionCost* best = nullptr;
  for (const PreemptionCost& c : costs) {
    if (best == nullptr || CheaperPreemption(c, *best)) best = &c;
  }
  return best->cluster;
}

TEST(PickClusterForPreemption, KubeNodePickOrder) {
  struct Case {
    const char* name;  // TestPickOneNodeForPreemption's case
    std::vector<PreemptionCost> costs;
    const char* want;
  } cases[] = {
      {"machine with min highest priority pod is picked",
       {CostOf("machine1", {{kMid}, {kMid}}), CostOf("machine2", {{kMid}, {kLow}}),
        CostOf("machine3", {{kLow}, {kLow}})},
       "machine3"},
      {"when highest priorities are the same, minimum sum of priorities is picked",
       {CostOf("machine1", {{kMid}, {kMid}}), CostOf("machine2", {{kMid}, {kLow}}),
        CostOf("machine3", {{kMid}, {kMid}})},
       "machine2"},
      {"when highest priority and sum are the same, minimum number of pods is picked",
       {CostOf("machine1", {{kMid}, {kNeg}, {kMid}, {kNeg}}), CostOf("machine2", {{kMid}, {kNeg}}),
        CostOf("machine3", {{kMid}, {kNeg}, {kLow}})},
       "machine2"},
      {"sum of adjusted priorities is considered",
       {CostOf("machine1", {{kMid}, {kNeg}, {kNeg}}), CostOf("machine2", {{kMid}, {kNeg}}),
        CostOf("machine3", {{kMid}, {kNeg}, {kLow}})},
       "machine2"},
      {"non-overlapping lowest high priority, sum priorities, and number of pods",
       {CostOf("machine1", {{kMid}, {kLow}, {kLow}}), CostOf("machine2", {{kHigh}}),
        CostOf("machine3", {{kMid}, {kLow}, {kLow}, {kLow}}),
        CostOf("machine4", {{kMid}, {kMid}, {kMid}, {kNeg}})},
       "machine1"},
      {"same priority, same number of victims, different start time for each machine's pod",
       {CostOf("machine1", {{kMid, 3}, {kMid, 3}}), CostOf("machine2", {{kMid, 2}, {kMid, 2}}),
        CostOf("machine3", {{kMid, 1}, {kMid, 1}})},
       "machine1"},
      {"same priority, same number of victims, different start time for all pods",
       {CostOf("machine1", {{kMid, 4}, {kMid, 5}}), CostOf("machine2", {{kMid, 2}, {kMid, 1}}),
        CostOf("machine3", {{kMid, 3}, {kMid, 6}})},
       "machine1"},
      {"different priority, same number of victims, different start time for all pods",
       {CostOf("machine1", {{kLow, 4}, {kMid, 5}}), CostOf("machine2", {{kMid, 2}, {kLow, 1}}),
        CostOf("machine3", {{kLow, 3}, {kMid, 6}})},
       "machine3"},
      // Corral's last tie-break: the cluster name (kube keeps the first candidate found).
      {"everything equal: the first name",
       {CostOf("b", {{kMid, 1}}), CostOf("a", {{kMid, 1}})},
       "a"},
  };
  for (const Case& c : cases) EXPECT_EQ(Pick(c.costs), c.want) << c.name;
}

TEST(PickClusterForPreemption, FewerPdbViolationsFirst) {
  PreemptionCost a = CostOf("a", {{kHigh}}), b = CostOf("b", {{kLow}});
  a.pdb_violations = 0;
  b.pdb_violations = 1;
  EXPECT_TRUE(CheaperPreemption(a, b));
}

TEST(PreemptionMode, Parse) {
  EXPECT_EQ(*ParsePreemptionMode("karmada"), PreemptionMode::kKarmada);
  EXPECT_EQ(*ParsePreemptionMode("fleetwide"), PreemptionMode::kFleetwide);
  auto bad = ParsePreemptionMode("Fleetwide");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().message, "\"Fleetwide\": must be karmada or fleetwide");
  EXPECT_EQ(PreemptionModeName(PreemptionMode::kFleetwide), "fleetwide");
}

// ---- The fixture: clusters with 100 cpus and bindings of 1 cpu per replica

class FleetwideTest : public ::testing::Test {
 protected:
  api::Cluster Cluster(const char* name, int64_t free_cpu) {
    api::Cluster c;
    c.meta.name = in_.Intern(name);
    c.resource_summary.emplace();
    c.resource_summary->allocatable = {{api::wk::kCpu, api::Quantity::FromInt(100)},
                                       {api::wk::kPods, api::Quantity::FromInt(110)}};
    c.resource_summary->allocated = {{api::wk::kCpu, api::Quantity::FromInt(100 - free_cpu)}};
    c.api_enablements = {{in_.Intern("apps/v1"), {in_.Intern("Deployment")}}};
    return c;
  }
  api::FleetWork Preemptor(const char* name, int32_t replicas, int32_t priority,
                           std::vector<const char*> clusters, bool one_cluster = true) {
    api::FleetWork w;
    w.meta.name = in_.Intern(name);
    w.meta.namespace_ = in_.Intern("default");
    w.resource = {in_.Intern("apps/v1"),
                  in_.Intern("Deployment"),
                  in_.Intern("default"),
                  in_.Intern(name),
                  {}};
    w.replicas = replicas;
    w.replica_requirements.emplace();
    w.replica_requirements->resource_request = {{api::wk::kCpu, api::Quantity::FromInt(1)}};
    w.placement.cluster_affinity.emplace();
    for (const char* c : clusters)
      w.placement.cluster_affinity->cluster_names.push_back(in_.Intern(c));
    if (one_cluster) w.placement.spread_constraints = {{api::SpreadByField::kCluster, {}, 1, 1}};
    w.placement.replica_scheduling = api::ReplicaSchedulingStrategy{
        api::ReplicaSchedulingType::kDivided, api::ReplicaDivisionPreference::kAggregated, {}};
    w.priority = priority;
    w.preemption_policy = api::PreemptionPolicy::kPreemptLowerPriority;
    return w;
  }
  api::FleetWork Running(const char* name, int32_t priority,
                         std::vector<std::pair<const char*, int32_t>> clusters,
                         int64_t created = 0) {
    api::FleetWork w;
    w.meta.name = in_.Intern(name);
    w.meta.namespace_ = in_.Intern("default");
    w.meta.creation_timestamp = At(created);
    w.replica_requirements.emplace();
    w.replica_requirements->resource_request = {{api::wk::kCpu, api::Quantity::FromInt(1)}};
    w.priority = priority;
    for (const auto& [c, r] : clusters) {
      w.clusters.push_back({in_.Intern(c), r});
      w.replicas += r;
    }
    return w;
  }
  void Annotate(api::FleetWork& w, std::string_view key, std::string value) {
    w.meta.annotations.push_back({in_.Intern(key), std::move(value)});
  }
  PreemptionOutcome Try(const api::FleetWork& w, const std::vector<api::Cluster>& clusters,
                        const std::vector<api::FleetWork>& bindings, PreemptionOptions options) {
    const ReplicaEstimator* est[] = {&general_};
    ClaimDeductingEstimator deducting(general_, claims_, BindingKey(w, in_), w.priority, in_);
    const ReplicaEstimator* with_claims[] = {&deducting};
    BindingSchedule s = ScheduleBinding(w, clusters, with_claims, in_);
    return TryPreempt(w, s, clusters, est, bindings, claims_, gates_, in_, options);
  }
  static std::vector<std::string> Names(const std::vector<Victim>& v) {
    std::vector<std::string> out;
    for (const Victim& x : v) out.push_back(x.name);
    return out;
  }
  Interner in_ = api::NewInterner();
  GeneralEstimator general_{in_};
  ManualClock clock_;
  ClaimStore claims_{clock_};
  FeatureGates gates_{true, true};
  PreemptionOptions fleetwide_{PreemptionMode::kFleetwide, nullptr};
};

// Three full clusters: the cheapest is chosen in the fleet-wide mode; Karmada's mode takes the one
// cluster the placement selects with capacity ignored.
TEST_F(FleetwideTest, CheapestClusterIsChosen) {
  std::vector<api::Cluster> clusters = {Cluster("east", 0), Cluster("north", 0),
                                        Cluster("west", 0)};
  std::vector<api::FleetWork> bindings = {
      Running("serving", 500, {{"east", 100}}),
      Running("batch-n", 100, {{"north", 100}}),
      Running("batch-w1", 100, {{"west", 4}}),
      Running("batch-w2", 200, {{"west", 96}}),
  };
  api::FleetWork w = Preemptor("training", 4, 1000, {"east", "north", "west"});
  PreemptionOutcome karmada = Try(w, clusters, bindings, {});
  ASSERT_TRUE(karmada.preempting) << karmada.skipped;
  EXPECT_EQ(karmada.cluster, "east");
  EXPECT_TRUE(karmada.considered.empty());
  claims_.Clear(BindingKey(w, in_));

  PreemptionOutcome p = Try(w, clusters, bindings, fleetwide_);
  ASSERT_TRUE(p.preempting) << p.skipped;
  EXPECT_EQ(p.cluster, "west");
  EXPECT_EQ(Names(p.victims), std::vector<std::string>{"default/batch-w1"});
  ASSERT_EQ(p.considered.size(), 3u);
  EXPECT_EQ(p.considered[0].highest_victim_priority, 500);
  EXPECT_EQ(p.considered[1].victim_replicas, 100);
  EXPECT_EQ(p.considered[2].victim_replicas, 4);
  EXPECT_TRUE(p.considered[2].chosen);
  EXPECT_EQ(p.claim_replicas, 4);
  ASSERT_TRUE(claims_.Get(BindingKey(w, in_)).has_value());
  EXPECT_EQ(claims_.Get(BindingKey(w, in_))->cluster, "west");
}

// A cluster where even every candidate together cannot make room is not weighed.
TEST_F(FleetwideTest, ClusterWithoutEnoughVictimsIsSkipped) {
  std::vector<api::Cluster> clusters = {Cluster("a", 0), Cluster("b", 0)};
  std::vector<api::FleetWork> bindings = {Running("high", 2000, {{"a", 100}}),
                                          Running("low", 900, {{"b", 100}})};
  PreemptionOutcome p = Try(Preemptor("p", 4, 1000, {"a", "b"}), clusters, bindings, fleetwide_);
  ASSERT_TRUE(p.preempting) << p.skipped;
  EXPECT_EQ(p.cluster, "b");
  EXPECT_FALSE(p.considered[0].feasible);
  EXPECT_EQ(p.considered[0].reason,
            "on cluster \"a\": candidate resources are not enough to cover deficit resources");
}

// Claims: an equal-or-higher claim blocks a cluster, the fleet-wide mode goes elsewhere; a
// preemptor with a live claim weighs only its claim's cluster (one cluster per work item).
TEST_F(FleetwideTest, ClaimsSerializePreemption) {
  std::vector<api::Cluster> clusters = {Cluster("a", 0), Cluster("b", 0)};
  std::vector<api::FleetWork> bindings = {Running("va", 100, {{"a", 100}}, 1),
                                          Running("vb", 200, {{"b", 100}}, 1)};
  claims_.Set({"resourcebinding/default/other", "a", 1000, 4, {}, {}});
  api::FleetWork w = Preemptor("p", 4, 1000, {"a", "b"});
  PreemptionOutcome p = Try(w, clusters, bindings, fleetwide_);
  ASSERT_TRUE(p.preempting) << p.skipped;
  EXPECT_EQ(p.cluster, "b");
  EXPECT_EQ(p.considered[0].reason, "an equal-or-higher-priority active preemption claim");
  // The other claim goes away; p still holds b, so a (now cheaper) is not weighed.
  claims_.Clear("resourcebinding/default/other");
  PreemptionOutcome again = Try(w, clusters, bindings, fleetwide_);
  ASSERT_TRUE(again.preempting) << again.skipped;
  EXPECT_EQ(again.cluster, "b");
  EXPECT_FALSE(again.considered[0].feasible);
  EXPECT_EQ(again.considered[0].reason,
            "the preemptor's live claim is on cluster \"b\"; one cluster preempts for a work item "
            "at a time");
  // Once the claim expires, the cheapest cluster is weighed again.
  clock_.Advance(kClaimTtl);
  PreemptionOutcome later = Try(w, clusters, bindings, fleetwide_);
  ASSERT_TRUE(later.preempting) << later.skipped;
  EXPECT_EQ(later.cluster, "a");
}

// A Divided binding that may spread asks the chosen cluster only for what the others cannot take.
TEST_F(FleetwideTest, SpreadingPreemptorCountsOtherClusters) {
  std::vector<api::Cluster> clusters = {Cluster("a", 0), Cluster("b", 3)};
  std::vector<api::FleetWork> bindings = {Running("v1", 100, {{"a", 2}}, 2),
                                          Running("v2", 100, {{"a", 98}}, 1)};
  PreemptionOutcome p = Try(Preemptor("p", 5, 1000, {"a", "b"}, /*one_cluster=*/false), clusters,
                            bindings, fleetwide_);
  ASSERT_TRUE(p.preempting) << p.skipped;
  EXPECT_EQ(p.cluster, "a");
  EXPECT_EQ(p.deficit, 2);  // 5 replicas, 3 free on b
  EXPECT_EQ(p.claim_replicas, 2);
  EXPECT_EQ(Names(p.victims), std::vector<std::string>{"default/v1"});
}

// The fleet-wide division rule: Divided with Aggregated or dynamic weights; static weights and
// Duplicated are not eligible.
TEST_F(FleetwideTest, DivisionEligibility) {
  std::vector<api::Cluster> clusters = {Cluster("a", 0)};
  std::vector<api::FleetWork> bindings = {Running("v", 100, {{"a", 100}})};
  api::FleetWork w = Preemptor("p", 2, 1000, {"a"}, false);
  w.placement.replica_scheduling->division_preference = api::ReplicaDivisionPreference::kWeighted;
  w.placement.replica_scheduling->weight_preference.emplace();
  w.placement.replica_scheduling->weight_preference->dynamic_weight_by_available_replicas = true;
  EXPECT_TRUE(Try(w, clusters, bindings, fleetwide_).preempting);
  claims_.Clear(BindingKey(w, in_));
  // Karmada's mode keeps its Aggregated-only rule.
  EXPECT_EQ(Try(w, clusters, bindings, {}).skipped,
            "replicaScheduling is not Divided with Aggregated division");
  // Static weights fix each cluster's share (the failure is given: a static division never
  // consults capacity).
  w.placement.replica_scheduling->weight_preference->dynamic_weight_by_available_replicas = false;
  BindingSchedule failed;
  failed.error = "no enough resource";
  failed.failure = FailureKind::kInsufficientCapacity;
  const ReplicaEstimator* est[] = {&general_};
  EXPECT_EQ(
      TryPreempt(w, failed, clusters, est, bindings, claims_, gates_, in_, fleetwide_).skipped,
      "replicaScheduling is not Divided with Aggregated division or weights by available "
      "replicas");
}

// ---- Gangs

TEST_F(FleetwideTest, GangAnnotations) {
  struct Case {
    std::vector<std::pair<std::string_view, std::string>> annotations;
    bool gang, whole;
    const char* error;
  } cases[] = {
      {{}, false, false, nullptr},
      {{{kMinMemberAnnotation, "3"}}, true, true, nullptr},
      {{{kDisruptionModeAnnotation, "All"}}, false, true, nullptr},
      {{{kDisruptionModeAnnotation, "Single"}}, false, false, nullptr},
      {{{kMinMemberAnnotation, "x"}},
       false,
       false,
       "metadata.annotations[corral.dev/min-member]: \"x\" is not an integer"},
      {{{kMinMemberAnnotation, "2"}},
       false,
       false,
       "metadata.annotations[corral.dev/min-member]: 2 must equal spec.replicas (3): a gang is "
       "the whole binding, all its replicas run together"},
      {{{kDisruptionModeAnnotation, "all"}},
       false,
       false,
       "metadata.annotations[corral.dev/disruption-mode]: \"all\" must be All or Single"},
      {{{kMinMemberAnnotation, "3"}, {kDisruptionModeAnnotation, "Single"}},
       false,
       false,
       "metadata.annotations[corral.dev/disruption-mode]: Single contradicts "
       "corral.dev/min-member: a gang is disrupted whole"},
  };
  for (const Case& c : cases) {
    api::FleetWork w = Running("g", 100, {{"a", 3}});
    for (const auto& [k, v] : c.annotations) Annotate(w, k, v);
    auto g = ReadGang(w, in_);
    if (c.error != nullptr) {
      ASSERT_FALSE(g.ok());
      EXPECT_EQ(g.error().message, c.error);
      continue;
    }
    ASSERT_TRUE(g.ok()) << g.error().message;
    EXPECT_EQ(g->gang, c.gang);
    EXPECT_EQ(g->evict_whole, c.whole);
  }
}

// A gang victim leaves every cluster it runs on; its cost counts every replica.
TEST_F(FleetwideTest, GangVictimEvictedWhole) {
  std::vector<api::Cluster> clusters = {Cluster("a", 0)};
  api::FleetWork gang = Running("gang", 100, {{"a", 100}, {"b", 20}});
  Annotate(gang, kMinMemberAnnotation, "120");
  for (PreemptionOptions o : {PreemptionOptions{}, fleetwide_}) {
    claims_.Clear("resourcebinding/default/p");
    PreemptionOutcome p = Try(Preemptor("p", 4, 1000, {"a"}), clusters, {gang}, o);
    ASSERT_TRUE(p.preempting) << p.skipped;
    ASSERT_EQ(p.gang_evictions.size(), 1u);
    EXPECT_EQ(p.gang_evictions[0].cluster, "b");
    EXPECT_EQ(p.gang_evictions[0].victim, (Victim{"default/gang", 20, 100}));
    EXPECT_EQ(p.events.back(),
              "Warning Preempted: ResourceBinding default/gang was preempted by higher-priority "
              "ResourceBinding default/p on cluster \"b\" (its gang leaves whole)");
  }
  EXPECT_EQ(Try(Preemptor("q", 4, 1000, {"a"}), clusters, {gang}, fleetwide_).considered.size(),
            1u);
}

// A gang preemptor asks one cluster for all its replicas even when its division could spread.
TEST_F(FleetwideTest, GangPreemptorNeedsOneCluster) {
  std::vector<api::Cluster> clusters = {Cluster("a", 0), Cluster("b", 3)};
  std::vector<api::FleetWork> bindings = {Running("v1", 100, {{"a", 2}}, 1),
                                          Running("v2", 100, {{"a", 98}}, 2)};
  api::FleetWork w = Preemptor("p", 5, 1000, {"a", "b"}, /*one_cluster=*/false);
  Annotate(w, kMinMemberAnnotation, "5");
  PreemptionOutcome p = Try(w, clusters, bindings, fleetwide_);
  ASSERT_TRUE(p.preempting) << p.skipped;
  // b holds only 3 and has no candidates; on a all five must fit, so both jobs leave.
  EXPECT_EQ(p.cluster, "a");
  EXPECT_EQ(p.deficit, 5);
  EXPECT_EQ(p.claim_replicas, 5);
  EXPECT_EQ(p.considered[1].reason,
            "on cluster \"b\": candidate resources are not enough to cover deficit resources");
}

// ---- Phase 2

// A member on which the preemptor never fits, or which is not simulated at all.
class NeverFits final : public VictimSimulator {
 public:
  bool simulates = true;
  mutable int trials = 0;
  bool Simulates(const api::Cluster&, std::span<const api::FleetWork* const>) const override {
    return simulates;
  }
  Result<bool> FitsWithout(const api::Cluster&, const api::FleetWork&, int32_t,
                           std::span<const api::FleetWork* const>) const override {
    ++trials;
    return false;
  }
};

TEST_F(FleetwideTest, Phase2VictimsBySimulation) {
  // Two 4-cpu nodes; four 2-cpu jobs, a and c on node 0, b and d on node 1; the preemptor needs
  // 4 cpus on one node. The summary keeps the two oldest (a, b) and evicts c and d, one per node;
  // the simulation keeps a and c and evicts b and d, freeing node 1.
  std::vector<api::Cluster> clusters = {Cluster("m", 0)};
  std::vector<api::FleetWork> bindings = {
      Running("a", 100, {{"m", 1}}, 1), Running("b", 100, {{"m", 1}}, 2),
      Running("c", 100, {{"m", 1}}, 3), Running("d", 100, {{"m", 1}}, 4)};
  for (api::FleetWork& b : bindings) {
    b.replica_requirements->resource_request = {{api::wk::kCpu, api::Quantity::FromInt(2)}};
  }
  class Member final : public VictimSimulator {
   public:
    explicit Member(const Interner& in) : in_(in) {}
    bool Simulates(const api::Cluster&, std::span<const api::FleetWork* const>) const override {
      return true;
    }
    Result<bool> FitsWithout(const api::Cluster&, const api::FleetWork&, int32_t replicas,
                             std::span<const api::FleetWork* const> removed) const override {
      int64_t free[2] = {0, 0};
      for (const api::FleetWork* b : removed) {
        const std::string_view n = in_.Str(b->meta.name);
        free[(n == "a" || n == "c") ? 0 : 1] += 2;
      }
      return (free[0] / 4) + (free[1] / 4) >= replicas;
    }
    const Interner& in_;
  } member(in_);
  // The summary sees 0 free of 100 cpus: give the cluster exactly the jobs' 8 cpus.
  clusters[0].resource_summary->allocatable = {{api::wk::kCpu, api::Quantity::FromInt(8)},
                                               {api::wk::kPods, api::Quantity::FromInt(110)}};
  clusters[0].resource_summary->allocated = {{api::wk::kCpu, api::Quantity::FromInt(8)}};
  api::FleetWork w = Preemptor("p", 1, 1000, {"m"});
  w.replica_requirements->resource_request = {{api::wk::kCpu, api::Quantity::FromInt(4)}};
  PreemptionOutcome summary = Try(w, clusters, bindings, {});
  ASSERT_TRUE(summary.preempting) << summary.skipped;
  EXPECT_EQ(Names(summary.victims), (std::vector<std::string>{"default/c", "default/d"}));
  EXPECT_FALSE(summary.simulated);
  claims_.Clear(BindingKey(w, in_));
  PreemptionOutcome sim = Try(w, clusters, bindings, {PreemptionMode::kKarmada, &member});
  ASSERT_TRUE(sim.preempting) << sim.skipped;
  EXPECT_TRUE(sim.simulated);
  EXPECT_EQ(Names(sim.victims), (std::vector<std::string>{"default/b", "default/d"}));
  EXPECT_EQ(Names(sim.reprieved), (std::vector<std::string>{"default/a", "default/c"}));
}

// The simulator's "does not fit" is trusted: no fallback to the summary.
TEST_F(FleetwideTest, Phase2InfeasibleIsTrusted) {
  NeverFits member;
  std::vector<api::Cluster> clusters = {Cluster("m", 0)};
  std::vector<api::FleetWork> bindings = {Running("v", 100, {{"m", 100}})};
  PreemptionOutcome p =
      Try(Preemptor("p", 1, 1000, {"m"}), clusters, bindings, {PreemptionMode::kKarmada, &member});
  EXPECT_FALSE(p.preempting);
  EXPECT_EQ(p.skipped,
            "on cluster \"m\": preemptor does not fit on cluster \"m\" even with every "
            "candidate's pods removed");
  EXPECT_EQ(member.trials, 1);
  // A cluster the simulator does not simulate falls back to the summary.
  member.simulates = false;
  claims_.Clear("resourcebinding/default/p");
  PreemptionOutcome fallback =
      Try(Preemptor("p", 1, 1000, {"m"}), clusters, bindings, {PreemptionMode::kKarmada, &member});
  EXPECT_TRUE(fallback.preempting);
  EXPECT_FALSE(fallback.simulated);
}

}  // namespace
}  // namespace corral::fleet
