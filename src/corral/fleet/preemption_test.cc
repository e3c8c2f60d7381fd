// Table tests of Karmada's binding preemption (Phase 1), translated from Karmada PR #7832
// pkg/scheduler/core/preemption_test.go, pkg/features/features_test.go and
// pkg/detector/detector_test.go (test names cited per test), plus Corral's cases for each
// eligibility rule, trigger typing and the proposal's worked example.
#include "corral/fleet/preemption.h"

#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "corral/api/well_known.h"
#include "corral/loader/fleet_loader.h"

namespace corral::fleet {
namespace {

TimePoint At(int64_t seconds) {
  return TimePoint{} + std::chrono::seconds(seconds);
}

class PreemptionTest : public ::testing::Test {
 protected:
  api::ResourceList Cpu(int64_t milli) {
    return {{api::wk::kCpu, api::Quantity::FromMilli(milli)}};
  }
  // A member with `free_cpu` cpus left (allocatable 100, the rest allocated) and 110 pods.
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
  // newApplicablePreemptionTestSpec: a Deployment's binding, 1 cpu per replica, clusterAffinity
  // {member1}, spread by cluster 1..1, Divided/Aggregated, PreemptLowerPriority.
  api::FleetWork Applicable(const char* name, int32_t replicas, int32_t priority) {
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
    w.replica_requirements->resource_request = Cpu(1000);
    w.placement.cluster_affinity.emplace();
    w.placement.cluster_affinity->cluster_names = {in_.Intern("member1")};
    w.placement.spread_constraints = {{api::SpreadByField::kCluster, {}, 1, 1}};
    w.placement.replica_scheduling = api::ReplicaSchedulingStrategy{
        api::ReplicaSchedulingType::kDivided, api::ReplicaDivisionPreference::kAggregated, {}};
    w.priority = priority;
    w.preemption_policy = api::PreemptionPolicy::kPreemptLowerPriority;
    return w;
  }
  // newPreemptionTestBinding: a running binding assigned `clusters`, 1 cpu per replica.
  api::FleetWork Running(const char* name, int32_t priority,
                         std::vector<std::pair<const char*, int32_t>> clusters, TimePoint created) {
    api::FleetWork w;
    w.meta.name = in_.Intern(name);
    w.meta.namespace_ = in_.Intern("default");
    w.meta.creation_timestamp = created;
    w.replica_requirements.emplace();
    w.replica_requirements->resource_request = Cpu(1000);
    w.priority = priority;
    for (const auto& [c, r] : clusters) w.clusters.push_back({in_.Intern(c), r});
    return w;
  }
  VictimCandidate Candidate(const char* name, int32_t replicas, int32_t priority,
                            int64_t request_milli, int64_t created) {
    return {std::string("default/") + name, priority, At(created), replicas, Cpu(request_milli)};
  }
  // Schedule, then tryPreempt on failure, as Karmada's Schedule does.
  PreemptionOutcome Schedule(const api::FleetWork& w, const std::vector<api::Cluster>& clusters,
                             const std::vector<api::FleetWork>& bindings,
                             BindingSchedule* schedule = nullptr) {
    const ReplicaEstimator* est[] = {&general_};
    ClaimDeductingEstimator deducting(general_, claims_, BindingKey(w, in_), w.priority, in_);
    const ReplicaEstimator* with_claims[] = {&deducting};
    BindingSchedule s = ScheduleBinding(w, clusters, with_claims, in_);
    if (schedule != nullptr) *schedule = s;
    return TryPreempt(w, s, clusters, est, bindings, claims_, gates_, in_);
  }
  Interner in_ = api::NewInterner();
  GeneralEstimator general_{in_};
  ManualClock clock_;
  ClaimStore claims_{clock_};
  FeatureGates gates_{true, true};
};

// ---- Feature gates

// TestPreemptionEnabled.
TEST_F(PreemptionTest, PreemptionEnabled) {
  struct Case {
    const char* spec;
    bool want;
  } cases[] = {
      {"PriorityBasedScheduling=false,PriorityBasedPreemptiveScheduling=false", false},
      {"PriorityBasedScheduling=true,PriorityBasedPreemptiveScheduling=false", false},
      {"PriorityBasedScheduling=false,PriorityBasedPreemptiveScheduling=true", false},
      {"PriorityBasedScheduling=true,PriorityBasedPreemptiveScheduling=true", true},
      {"PriorityBasedPreemptiveScheduling=true", true},  // PriorityBasedScheduling on by default
      {"", false},                                       // the alpha gate off by default
  };
  for (const Case& c : cases) {
    auto g = ParseFeatureGates(c.spec);
    ASSERT_TRUE(g.ok()) << c.spec;
    EXPECT_EQ(g->PreemptionEnabled(), c.want) << c.spec;
  }
}

TEST_F(PreemptionTest, FeatureGateErrors) {
  struct Case {
    const char* spec;
    const char* error;
  } cases[] = {
      {"PriorityBasedPreemption=true", "unrecognized feature gate: PriorityBasedPreemption"},
      {"PriorityBasedScheduling=yes",
       "invalid value of PriorityBasedScheduling=yes, err: strconv.ParseBool: parsing \"yes\": "
       "invalid syntax"},
      {"PriorityBasedScheduling", "missing bool value for PriorityBasedScheduling"},
  };
  for (const Case& c : cases) {
    auto g = ParseFeatureGates(c.spec);
    ASSERT_FALSE(g.ok()) << c.spec;
    EXPECT_EQ(g.error().message, c.error);
  }
}

// ---- Eligibility

// TestIsPreemptionApplicable, TestIsPreemptionApplicableRequiresResourceBindingIdentity,
// TestIsPreemptionApplicableFeatureGateDisabled, and one case per rule Corral adds.
TEST_F(PreemptionTest, IsPreemptionApplicable) {
  using R = EligibilityRule;
  struct Case {
    const char* name;
    void (*mutate)(api::FleetWork&, Interner&);
    R want;
    FeatureGates gates = {true, true};
  };
  const Case cases[] = {
      {"applicable", [](api::FleetWork&, Interner&) {}, R::kEligible},
      {"non workload",
       [](api::FleetWork& w, Interner&) {
         w.replicas = 0;
         w.replica_requirements.reset();
       },
       R::kNotWorkload},
      {"cluster affinities path",
       [](api::FleetWork& w, Interner& in) {
         w.placement.cluster_affinity.reset();
         w.placement.cluster_affinities = {{in.Intern("primary"), {}, {}}};
       },
       R::kNoClusterAffinity},
      {"cluster affinity and affinities both set (the loader rejects it; the rule still holds)",
       [](api::FleetWork& w, Interner& in) {
         w.placement.cluster_affinities = {{in.Intern("primary"), {}, {}}};
       },
       R::kClusterAffinities},
      {"missing cluster affinity",
       [](api::FleetWork& w, Interner&) { w.placement.cluster_affinity.reset(); },
       R::kNoClusterAffinity},
      {"multi cluster spread is applicable but skipped when multiple targets are selected",
       [](api::FleetWork& w, Interner&) { w.placement.spread_constraints[0].max_groups = 2; },
       R::kEligible},
      {"missing cluster spread",
       [](api::FleetWork& w, Interner&) { w.placement.spread_constraints.clear(); }, R::kEligible},
      {"duplicated scheduling",
       [](api::FleetWork& w, Interner&) {
         w.placement.replica_scheduling->type = api::ReplicaSchedulingType::kDuplicated;
       },
       R::kNotAggregated},
      {"static weight scheduling",
       [](api::FleetWork& w, Interner&) {
         w.placement.replica_scheduling->division_preference =
             api::ReplicaDivisionPreference::kWeighted;
         w.placement.replica_scheduling->weight_preference.emplace();
       },
       R::kNotAggregated},
      {"dynamic weight scheduling (Corral)",
       [](api::FleetWork& w, Interner&) {
         w.placement.replica_scheduling->division_preference =
             api::ReplicaDivisionPreference::kWeighted;
         w.placement.replica_scheduling->weight_preference.emplace();
         w.placement.replica_scheduling->weight_preference->dynamic_weight_by_available_replicas =
             true;
       },
       R::kNotAggregated},
      {"no replicaScheduling: Duplicated (Corral)",
       [](api::FleetWork& w, Interner&) { w.placement.replica_scheduling.reset(); },
       R::kNotAggregated},
      {"missing schedule priority",
       [](api::FleetWork& w, Interner&) {
         w.priority = 0;
         w.preemption_policy.reset();
       },
       R::kPolicyNotPreempting},
      {"missing resource request",
       [](api::FleetWork& w, Interner&) { w.replica_requirements.reset(); }, R::kNoResourceRequest},
      {"zero resource request (Corral)",
       [](api::FleetWork& w, Interner&) {
         w.replica_requirements->resource_request = {{api::wk::kCpu, api::Quantity::FromInt(0)}};
       },
       R::kNoResourceRequest},
      {"preemption policy unset", [](api::FleetWork& w, Interner&) { w.preemption_policy.reset(); },
       R::kPolicyNotPreempting},
      {"preemption policy Never (Corral)",
       [](api::FleetWork& w, Interner&) { w.preemption_policy = api::PreemptionPolicy::kNever; },
       R::kPolicyNotPreempting},
      {"ClusterResourceBinding identity",
       [](api::FleetWork& w, Interner&) {
         w.source_kind = api::FleetWorkSourceKind::kClusterResourceBinding;
       },
       R::kNotResourceBinding},
      {"Kueue workload (Corral)",
       [](api::FleetWork& w, Interner&) { w.source_kind = api::FleetWorkSourceKind::kKueue; },
       R::kNotResourceBinding},
      {"template claimed by a policy is a ResourceBinding (Corral)",
       [](api::FleetWork& w, Interner&) { w.source_kind = api::FleetWorkSourceKind::kPolicyMatch; },
       R::kEligible},
      {"feature gates disabled", [](api::FleetWork&, Interner&) {}, R::kGatesOff, {false, false}},
      {"only PriorityBasedScheduling (Corral)",
       [](api::FleetWork&, Interner&) {},
       R::kGatesOff,
       {true, false}},
      {"only PriorityBasedPreemptiveScheduling (Corral)",
       [](api::FleetWork&, Interner&) {},
       R::kGatesOff,
       {false, true}},
  };
  for (const Case& c : cases) {
    api::FleetWork w = Applicable("preemptor", 10, 100);
    c.mutate(w, in_);
    Eligibility e = CheckEligibility(w, c.gates);
    EXPECT_EQ(e.rule, c.want) << c.name << ": " << e.reason;
    EXPECT_EQ(e.reason.empty(), c.want == R::kEligible) << c.name;
  }
}

// ---- Candidates

// TestListPreemptionVictimCandidates.
TEST_F(PreemptionTest, ListPreemptionVictimCandidates) {
  std::vector<api::FleetWork> bindings = {
      Running("lower-on-target", 50, {{"member1", 3}}, At(1)),
      Running("lower-on-other", 50, {{"member2", 3}}, At(2)),
      Running("equal-priority", 100, {{"member1", 3}}, At(3)),
      Running("higher-priority", 200, {{"member1", 3}}, At(4)),
      Running("zero-replicas", 50, {{"member1", 0}}, At(5)),
      Running("already-evicting", 50, {{"member1", 3}}, At(6)),
  };
  bindings.back().graceful_eviction_clusters = {in_.Intern("member1")};
  auto got = ListVictimCandidates(bindings, "member1", 100, in_);
  ASSERT_TRUE(got.ok());
  ASSERT_EQ(got->size(), 1u);
  EXPECT_EQ((*got)[0].name, "default/lower-on-target");
  EXPECT_EQ((*got)[0].replicas, 3);
  EXPECT_EQ((*got)[0].priority, 50);
  EXPECT_EQ((*got)[0].created, At(1));
}

// TestListPreemptionVictimCandidatesCapsCandidates: 1001 bindings on the cluster is an error; 1000
// is not.
TEST_F(PreemptionTest, ListPreemptionVictimCandidatesCapsCandidates) {
  std::vector<api::FleetWork> bindings;
  for (int i = 0; i < 1000; ++i) {
    bindings.push_back(
        Running(("victim-" + std::to_string(i)).c_str(), 50, {{"member1", 1}}, At(i)));
  }
  EXPECT_TRUE(ListVictimCandidates(bindings, "member1", 100, in_).ok());
  bindings.push_back(Running("victim-1000", 50, {{"member1", 1}}, At(1000)));
  auto got = ListVictimCandidates(bindings, "member1", 100, in_);
  ASSERT_FALSE(got.ok());
  EXPECT_EQ(got.error().message,
            "too many preemption victim candidates on cluster \"member1\": 1001 exceeds cap 1000");
}

// ---- Victims

// TestSelectVictimsByReplicaCount, TestSelectVictimsByReplicaCountUsesResourceRequests, and
// Corral's cases.
// The victim order on pipeline/reprieve.h (SortByImportance) is MoreImportantCandidate's:
// priority descending, creation ascending, name ascending.
TEST_F(PreemptionTest, SortByImportanceIsMoreImportantCandidate) {
  std::vector<VictimCandidate> candidates = {
      Candidate("b", 1, 50, 1000, 2), Candidate("a", 1, 50, 1000, 2),
      Candidate("c", 1, 90, 1000, 9), Candidate("d", 1, 50, 1000, 1),
      Candidate("e", 1, 10, 1000, 0), Candidate("f", 1, 90, 1000, 3)};
  std::vector<VictimCandidate> want = candidates;
  std::stable_sort(want.begin(), want.end(), MoreImportantCandidate);
  SortByImportance(candidates);
  std::vector<std::string> got_names, want_names;
  for (const VictimCandidate& c : candidates) got_names.push_back(c.name);
  for (const VictimCandidate& c : want) want_names.push_back(c.name);
  EXPECT_EQ(got_names, want_names);
  EXPECT_EQ(got_names, (std::vector<std::string>{"default/f", "default/c", "default/d", "default/a",
                                                 "default/b", "default/e"}));
}

TEST_F(PreemptionTest, SelectVictimsByReplicaCount) {
  struct Case {
    const char* name;
    int32_t replicas;
    std::vector<VictimCandidate> candidates;
    int64_t available;
    std::vector<Victim> want;
    const char* error = nullptr;
  };
  const Case cases[] = {
      {"no deficit returns no victims", 5, {}, 5, {}},
      {"reprieves higher-priority candidates first",
       10,
       {Candidate("highest-lower", 4, 90, 1000, 1), Candidate("middle", 5, 70, 1000, 2),
        Candidate("lowest", 5, 60, 1000, 3)},
       2,
       {{"default/middle", 5, 70}, {"default/lowest", 5, 60}}},
      {"uses creation timestamp as reprieve tiebreaker",
       10,
       {Candidate("younger", 5, 50, 1000, 2), Candidate("older", 5, 50, 1000, 1)},
       5,
       {{"default/younger", 5, 50}}},
      {"candidates at or above preemptor priority are ignored",
       10,
       {Candidate("equal", 10, 100, 1000, 1), Candidate("higher", 10, 200, 1000, 2),
        Candidate("lower", 6, 50, 1000, 3)},
       4,
       {{"default/lower", 6, 50}}},
      {"infeasible returns error",
       10,
       {Candidate("small", 3, 50, 1000, 1)},
       2,
       {},
       "candidate resources are not enough to cover deficit resources"},
      {"uses resource requests",
       1,
       {Candidate("small", 1, 40, 100, 1), Candidate("exact", 1, 50, 1000, 2)},
       0,
       {{"default/exact", 1, 50}}},
      {"name breaks a tie of priority and creation time (Corral)",
       10,
       {Candidate("b", 5, 50, 1000, 1), Candidate("a", 5, 50, 1000, 1)},
       5,
       {{"default/b", 5, 50}}},
      {"candidate without a request is ignored (Corral)",
       2,
       {Candidate("empty", 5, 50, 0, 1), Candidate("real", 2, 50, 1000, 2)},
       0,
       {{"default/real", 2, 50}}},
      {"several small victims when no one covers the deficit (Corral)",
       4,
       {Candidate("a", 1, 50, 1000, 1), Candidate("b", 1, 50, 1000, 2),
        Candidate("c", 1, 50, 1000, 3), Candidate("d", 1, 50, 1000, 4),
        Candidate("e", 1, 50, 1000, 5)},
       1,
       {{"default/c", 1, 50}, {"default/d", 1, 50}, {"default/e", 1, 50}}},
  };
  for (const Case& c : cases) {
    auto got = SelectVictims(Cpu(1000), c.replicas, 100, c.candidates, c.available);
    if (c.error != nullptr) {
      ASSERT_FALSE(got.ok()) << c.name;
      EXPECT_EQ(got.error().message, c.error) << c.name;
      continue;
    }
    ASSERT_TRUE(got.ok()) << c.name << ": " << got.error().message;
    EXPECT_EQ(*got, c.want) << c.name;
  }
  auto empty = SelectVictims({}, 2, 100, {Candidate("a", 5, 50, 1000, 1)}, 0);
  ASSERT_FALSE(empty.ok());
  EXPECT_EQ(empty.error().message, "preemptor resource request is empty");
}

// Every resource of the deficit must be covered (Corral: cpu and a GPU).
TEST_F(PreemptionTest, SelectVictimsCoversEveryResource) {
  const Symbol gpu = in_.Intern("nvidia.com/gpu");
  api::ResourceList two_gpu = {{api::wk::kCpu, api::Quantity::FromInt(1)},
                               {gpu, api::Quantity::FromInt(2)}};
  std::vector<VictimCandidate> candidates = {
      {"default/cpu-only", 50, At(1), 4, Cpu(4000)},
      {"default/gpu", 40, At(2), 1, two_gpu},
  };
  auto got = SelectVictims(two_gpu, 1, 100, candidates, 0);
  ASSERT_TRUE(got.ok());
  EXPECT_EQ(*got, (std::vector<Victim>{{"default/gpu", 1, 40}}));
}

// ---- The attempt

// TestScheduleReturnsPreemptionResult.
TEST_F(PreemptionTest, ScheduleReturnsPreemptionResult) {
  std::vector<api::Cluster> clusters = {Cluster("member1", 2)};
  std::vector<api::FleetWork> bindings = {Running("lower-priority", 50, {{"member1", 5}}, At(1))};
  BindingSchedule s;
  PreemptionOutcome got = Schedule(Applicable("preemptor-binding", 5, 100), clusters, bindings, &s);
  EXPECT_EQ(s.failure, FailureKind::kInsufficientCapacity);
  ASSERT_TRUE(got.preempting) << got.skipped;
  EXPECT_EQ(got.cluster, "member1");
  EXPECT_EQ(got.victims, (std::vector<Victim>{{"default/lower-priority", 5, 50}}));
  EXPECT_EQ(got.condition_message, "preemption initiated on cluster \"member1\" for 1 victim(s)");
  auto claim = claims_.Get("resourcebinding/default/preemptor-binding");
  ASSERT_TRUE(claim.has_value());
  EXPECT_EQ(claim->cluster, "member1");
  EXPECT_EQ(claim->priority, 100);
  EXPECT_EQ(claim->replicas, 5);
}

// TestScheduleHandlesActiveClaimsByPriority.
TEST_F(PreemptionTest, ScheduleHandlesActiveClaimsByPriority) {
  struct Case {
    const char* name;
    int32_t claim_priority;
    bool want_preempt;
  } cases[] = {
      {"lower priority claim does not block", 50, true},
      {"equal priority claim blocks", 100, false},
      {"higher priority claim blocks", 200, false},
  };
  for (const Case& c : cases) {
    claims_.Clear("default/other-preemptor");
    claims_.Clear("resourcebinding/default/preemptor");
    claims_.Set({"default/other-preemptor", "member1", c.claim_priority, 5, {}, {}});
    std::vector<api::Cluster> clusters = {Cluster("member1", 2)};
    std::vector<api::FleetWork> bindings = {Running("lower-priority", 40, {{"member1", 5}}, At(1))};
    PreemptionOutcome got = Schedule(Applicable("preemptor", 5, 100), clusters, bindings);
    EXPECT_EQ(got.preempting, c.want_preempt) << c.name << ": " << got.skipped;
    // A superseded lower-priority claim is gone; a blocking one stays.
    EXPECT_EQ(claims_.Get("default/other-preemptor").has_value(), !c.want_preempt) << c.name;
  }
}

// TestScheduleSkipsPreemptionWhenMultipleTargetsSelected.
TEST_F(PreemptionTest, ScheduleSkipsPreemptionWhenMultipleTargetsSelected) {
  std::vector<api::Cluster> clusters = {Cluster("member1", 2), Cluster("member2", 2)};
  std::vector<api::FleetWork> bindings = {Running("lower-on-member1", 50, {{"member1", 5}}, At(1)),
                                          Running("lower-on-member2", 50, {{"member2", 5}}, At(2))};
  api::FleetWork w = Applicable("preemptor", 5, 100);
  w.placement.cluster_affinity->cluster_names = {in_.Intern("member1"), in_.Intern("member2")};
  w.placement.spread_constraints[0].max_groups = 2;
  PreemptionOutcome got = Schedule(w, clusters, bindings);
  EXPECT_FALSE(got.preempting);
  EXPECT_EQ(got.skipped, "expected one target cluster, got 2");
  EXPECT_FALSE(claims_.Get("resourcebinding/default/preemptor").has_value());
}

// TestScheduleDoesNotPreemptNonUnschedulableSelectClusterError, and the trigger typing: filter
// failures (affinity, taint) and spread failures never preempt.
TEST_F(PreemptionTest, TriggerTyping) {
  struct Case {
    const char* name;
    void (*mutate)(api::FleetWork&, std::vector<api::Cluster>&, Interner&);
    FailureKind failure;
  } cases[] = {
      {"spread minGroups 2 over one cluster (upstream)",
       [](api::FleetWork& w, std::vector<api::Cluster>&, Interner&) {
         w.placement.spread_constraints[0].min_groups = 2;
         w.placement.spread_constraints[0].max_groups = 2;
       },
       FailureKind::kConstraint},
      {"cluster affinity matches no cluster",
       [](api::FleetWork& w, std::vector<api::Cluster>&, Interner& in) {
         w.placement.cluster_affinity->cluster_names = {in.Intern("member9")};
       },
       FailureKind::kNoFeasibleCluster},
      {"untolerated taint",
       [](api::FleetWork&, std::vector<api::Cluster>& c, Interner& in) {
         c[0].taints = {{in.Intern("k"), in.Intern("v"), api::TaintEffect::kNoSchedule, {}}};
       },
       FailureKind::kNoFeasibleCluster},
      {"already evicting from the cluster",
       [](api::FleetWork& w, std::vector<api::Cluster>&, Interner& in) {
         w.graceful_eviction_clusters = {in.Intern("member1")};
       },
       FailureKind::kNoFeasibleCluster},
      {"capacity (the one trigger)", [](api::FleetWork&, std::vector<api::Cluster>&, Interner&) {},
       FailureKind::kInsufficientCapacity},
  };
  for (const Case& c : cases) {
    std::vector<api::Cluster> clusters = {Cluster("member1", 2)};
    std::vector<api::FleetWork> bindings = {Running("lower-priority", 50, {{"member1", 5}}, At(1))};
    api::FleetWork w = Applicable("preemptor", 5, 100);
    c.mutate(w, clusters, in_);
    BindingSchedule s;
    PreemptionOutcome got = Schedule(w, clusters, bindings, &s);
    EXPECT_EQ(s.failure, c.failure) << c.name << ": " << s.error;
    EXPECT_EQ(got.preempting, c.failure == FailureKind::kInsufficientCapacity) << c.name;
    if (c.failure != FailureKind::kInsufficientCapacity) {
      EXPECT_EQ(got.skipped, "not a shortage of capacity on clusters that pass every filter")
          << c.name;
      EXPECT_FALSE(claims_.Get("resourcebinding/default/preemptor").has_value()) << c.name;
    }
  }
}

// An ineligible binding that is short of capacity reports the rule and sets no claim.
TEST_F(PreemptionTest, IneligibleBindingDoesNotPreempt) {
  std::vector<api::Cluster> clusters = {Cluster("member1", 2)};
  std::vector<api::FleetWork> bindings = {Running("lower-priority", 50, {{"member1", 5}}, At(1))};
  api::FleetWork w = Applicable("preemptor", 5, 100);
  w.preemption_policy = api::PreemptionPolicy::kNever;
  PreemptionOutcome got = Schedule(w, clusters, bindings);
  EXPECT_FALSE(got.preempting);
  EXPECT_EQ(got.skipped, "schedulePriority.preemptionPolicy is not PreemptLowerPriority");
  EXPECT_TRUE(claims_.List().empty());
}

// The claim deducts: after the preemptor claims member1, a lower-priority binding that would fit
// in the free capacity no longer does, and cannot preempt there (the claim blocks it only when of
// equal or higher priority than it — which it is).
TEST_F(PreemptionTest, ClaimHidesCapacityFromLaterBindings) {
  std::vector<api::Cluster> clusters = {Cluster("member1", 2)};
  std::vector<api::FleetWork> bindings = {Running("lower-priority", 50, {{"member1", 5}}, At(1))};
  ASSERT_TRUE(Schedule(Applicable("preemptor", 5, 100), clusters, bindings).preempting);
  BindingSchedule s;
  PreemptionOutcome later = Schedule(Applicable("later", 2, 60), clusters, bindings, &s);
  EXPECT_FALSE(s.ok());  // 2 free, 5 claimed → 0 available to it
  EXPECT_FALSE(later.preempting);
  EXPECT_EQ(later.skipped,
            "cluster \"member1\" already has an equal-or-higher-priority active preemption claim");
  // The owner is not hidden from its own claim; a higher-priority binding is not hidden either.
  EXPECT_TRUE(Schedule(Applicable("higher", 2, 1000), clusters, bindings).cluster.empty());
  // After the TTL the capacity is back.
  clock_.Advance(kClaimTtl);
  BindingSchedule after;
  Schedule(Applicable("later", 2, 60), clusters, bindings, &after);
  EXPECT_TRUE(after.ok()) << after.error;
}

// The proposal's worked example: one 8-GPU cluster full with two priority-100 4-GPU batch jobs; a
// priority-1000 training job of 2 × 2 GPUs preempts exactly one; the older is reprieved.
TEST_F(PreemptionTest, WorkedExample) {
  const Symbol gpu = in_.Intern("nvidia.com/gpu");
  api::Cluster c = Cluster("member1", 0);
  c.resource_summary->allocatable.push_back({gpu, api::Quantity::FromInt(8)});
  c.resource_summary->allocated.push_back({gpu, api::Quantity::FromInt(8)});
  std::vector<api::Cluster> clusters = {c};
  auto batch = [&](const char* name, int64_t created) {
    api::FleetWork w = Running(name, 100, {{"member1", 1}}, At(created));
    w.replica_requirements->resource_request = {{gpu, api::Quantity::FromInt(4)}};
    return w;
  };
  std::vector<api::FleetWork> bindings = {batch("batch-old", 1), batch("batch-new", 2)};
  api::FleetWork train = Applicable("training", 2, 1000);
  train.replica_requirements->resource_request = {{gpu, api::Quantity::FromInt(2)}};
  PreemptionOutcome got = Schedule(train, clusters, bindings);
  ASSERT_TRUE(got.preempting) << got.skipped;
  EXPECT_EQ(got.deficit, 2);
  EXPECT_EQ(got.victims, (std::vector<Victim>{{"default/batch-new", 1, 100}}));
  EXPECT_EQ(got.reprieved, (std::vector<Victim>{{"default/batch-old", 1, 100}}));
}

// ---- The loader

// TestBuildResourceBindingWithSchedulePriorityPreemptionPolicy: the binding's
// schedulePriority.preemptionPolicy as read.
TEST_F(PreemptionTest, LoaderReadsPreemptionPolicy) {
  struct Case {
    const char* field;
    std::optional<api::PreemptionPolicy> want;
  } cases[] = {
      {"preemptionPolicy: PreemptLowerPriority", api::PreemptionPolicy::kPreemptLowerPriority},
      {"preemptionPolicy: Never", api::PreemptionPolicy::kNever},
      {"", std::nullopt},
  };
  for (const Case& c : cases) {
    std::string yaml = std::string(R"(apiVersion: work.karmada.io/v1alpha2
kind: ResourceBinding
metadata: {name: b, namespace: default}
spec:
  resource: {apiVersion: apps/v1, kind: Deployment, namespace: default, name: b}
  replicas: 1
  schedulePriority:
    priority: 7
    )") + c.field + "\n";
    Interner in = api::NewInterner();
    loader::FleetLoadResult r = loader::LoadFleetString(yaml, "b.yaml", in);
    ASSERT_TRUE(r.ok()) << c.field;
    ASSERT_EQ(r.objects.works.size(), 1u);
    EXPECT_EQ(r.objects.works[0].priority, 7);
    EXPECT_EQ(r.objects.works[0].preemption_policy, c.want) << c.field;
  }
  Interner in = api::NewInterner();
  loader::FleetLoadResult bad = loader::LoadFleetString(R"(apiVersion: work.karmada.io/v1alpha2
kind: ResourceBinding
metadata: {name: b, namespace: default}
spec:
  resource: {apiVersion: apps/v1, kind: Deployment, namespace: default, name: b}
  schedulePriority: {priority: 7, preemptionPolicy: Sometimes}
)",
                                                        "b.yaml", in);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.diagnostics.items()[0].ToString().find("b.yaml:6:"), std::string::npos)
      << bad.diagnostics.items()[0].ToString();
  EXPECT_NE(bad.diagnostics.items()[0].ToString().find("preemptionPolicy"), std::string::npos)
      << bad.diagnostics.items()[0].ToString();
}

// The detector's KubePriorityClass mapping (TestBuildResourceBindingWithSchedulePriority-
// PreemptionPolicy, from a policy): a claimed template's binding gets the PriorityClass's value and
// mapPreemptionPolicy of its preemptionPolicy (absent: the API server's
// default, PreemptLowerPriority).
TEST_F(PreemptionTest, LoaderMapsPriorityClassThroughPolicy) {
  const std::string tmpl = R"(apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: default}
spec:
  replicas: 2
  template:
    spec:
      containers:
      - name: c
        resources: {requests: {cpu: "1"}}
---
apiVersion: policy.karmada.io/v1alpha1
kind: PropagationPolicy
metadata: {name: p, namespace: default}
spec:
  resourceSelectors:
  - {apiVersion: apps/v1, kind: Deployment}
  schedulePriority:
    priorityClassSource: KubePriorityClass
    priorityClassName: high
---
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: {name: high}
value: 1000
)";
  struct Case {
    const char* field;
    api::PreemptionPolicy want;
  } cases[] = {
      {"preemptionPolicy: PreemptLowerPriority\n", api::PreemptionPolicy::kPreemptLowerPriority},
      {"preemptionPolicy: Never\n", api::PreemptionPolicy::kNever},
      {"", api::PreemptionPolicy::kPreemptLowerPriority},
  };
  for (const Case& c : cases) {
    Interner in = api::NewInterner();
    loader::FleetLoadResult r = loader::LoadFleetString(tmpl + c.field, "t.yaml", in);
    ASSERT_TRUE(r.ok()) << c.field;
    ASSERT_EQ(r.objects.works.size(), 1u);
    EXPECT_EQ(r.objects.works[0].priority, 1000);
    EXPECT_EQ(r.objects.works[0].preemption_policy, c.want) << c.field;
  }
  // A missing PriorityClass is an error at the name.
  Interner in = api::NewInterner();
  std::string missing = tmpl.substr(0, tmpl.find("---\napiVersion: scheduling"));
  loader::FleetLoadResult r = loader::LoadFleetString(missing, "t.yaml", in);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.diagnostics.items()[0].ToString(),
            "t.yaml:20: spec.schedulePriority.priorityClassName: PriorityClass \"high\" not found "
            "(give it as a scheduling.k8s.io/v1 PriorityClass)");
}

}  // namespace
}  // namespace corral::fleet
