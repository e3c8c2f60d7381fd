// Karmada binding preemption over time in `corral simulate`, end to end on small scenarios: the
// worked example (one victim, the older job reprieved, the preemptor placed once its victims'
// capacity shows), the claim's lifecycle on the virtual clock (cleared on success, TTL expiry and
// a new preemption after it, deduction from lower priorities, blocking an equal-priority
// preemptor), the failure paths (eviction on an unreachable member, the preemptor deleted while it
// waits) and the scenario's strict fields.
#include <string>

#include <gtest/gtest.h>

#include "corral/sim/fleet_spec.h"

#include "sim_test_util.h"

namespace corral::sim::testing {
namespace {

constexpr int64_t kS = 1'000'000'000;

// One 8-GPU member (two nodes of 4) and the preemption gates; `extra` is added to `fleet:`.
std::string Cluster(const std::string& extra = "") {
  return R"(
apiVersion: corral.dev/v1alpha1
kind: Scenario
metadata: {name: fleet-preemption-test}
duration: 2h
clusters:
- name: gpu
  nodePools:
  - {name: gpu-pool, count: 2, resources: {cpu: "32", memory: 128Gi, pods: "110", nvidia.com/gpu: "4"}}
fleet:
  scheduler: karmada
  featureGates: {PriorityBasedScheduling: true, PriorityBasedPreemptiveScheduling: true}
)" + extra +
         "workloads:\n";
}

// A Job of `parallelism` replicas × `gpus` GPUs arriving at `start`, running `duration`.
std::string Job(const std::string& name, int priority, int parallelism, int gpus,
                const std::string& start, const std::string& duration,
                const std::string& extra_fleet = "") {
  return "- name: " + name + "\n  namespace: ml\n  kind: Job\n  count: 1\n  parallelism: " +
         std::to_string(parallelism) + "\n  start: " + start + "\n  duration: " + duration +
         "\n  resources: {cpu: \"" + std::to_string(gpus) +
         "\", memory: " + std::to_string(4 * gpus) + "Gi, nvidia.com/gpu: \"" +
         std::to_string(gpus) + "\"}\n  fleet:\n    priority: " + std::to_string(priority) +
         "\n    preemptionPolicy: PreemptLowerPriority\n" + extra_fleet +
         "    placement:\n      clusterAffinity: {clusterNames: [gpu]}\n"
         "      replicaScheduling: {replicaSchedulingType: Divided, replicaDivisionPreference: "
         "Aggregated}\n";
}

const FleetResult& Fleet(const Ran& r) {
  static const FleetResult kEmpty;
  return r.out.result.fleet != nullptr ? *r.out.result.fleet : kEmpty;
}

Ran RunScenario(const std::string& text, Interner& in) {
  Diagnostics diags;
  auto spec = ParseScenario(text, "fleet.yaml", "", in, diags);
  EXPECT_TRUE(spec.ok()) << DiagnosticsMessage(diags);
  if (!spec.ok()) return {};
  return RunSpec(*spec, in);
}

int64_t Attempts(const FleetResult& f, const std::string& result) {
  for (const auto& [name, n] : f.preemption_attempts) {
    if (name == result) return n;
  }
  return 0;
}

const FleetItemResult* Item(const FleetResult& f, const std::string& name) {
  for (const FleetItemResult& it : f.items_detail) {
    if (it.name == name) return &it;
  }
  return nullptr;
}

// Karmada's worked example (proposal PR #7327): the younger batch job is the one victim, the older
// is reprieved, and the training job runs once the member reports the freed GPUs.
TEST(FleetPreemptionSimTest, WorkedExamplePreemptsTheYoungerJob) {
  Interner in = api::NewInterner();
  Ran r = RunScenario(
      Cluster("  preemptionGracePeriod: 30s\n") + Job("batch-a", 100, 1, 4, "0s", "90m") +
          Job("batch-b", 100, 1, 4, "1m", "90m") + Job("training", 1000, 2, 2, "10m", "30m"),
      in);
  const FleetResult& f = Fleet(r);
  ASSERT_TRUE(f.preemption_enabled);
  ASSERT_EQ(f.preemptions.size(), 1U);
  const FleetPreemptionResult& p = f.preemptions[0];
  EXPECT_EQ(p.preemptor, "ml/training-0");
  EXPECT_EQ(p.priority, 1000);
  EXPECT_EQ(p.cluster, "gpu");
  EXPECT_EQ(p.at_ns, 600 * kS);
  EXPECT_EQ(p.deficit, 2);
  ASSERT_EQ(p.victims.size(), 1U);
  EXPECT_EQ(p.victims[0].name, "ml/batch-b-0");
  EXPECT_EQ(p.victims[0].priority, 100);
  EXPECT_EQ(p.victims[0].gone_ns, 630 * kS);  // the grace period
  EXPECT_EQ(p.victims[0].gone_how, "grace period ended");
  ASSERT_EQ(p.reprieved.size(), 1U);
  EXPECT_EQ(p.reprieved[0].name, "ml/batch-a-0");
  EXPECT_EQ(p.claim_set_ns, 600 * kS);
  EXPECT_EQ(p.claim_end_ns, 630 * kS);  // the refresh at 10m30s shows the GPUs: scheduled
  EXPECT_EQ(p.claim_end, "scheduled");
  EXPECT_EQ(f.preemption_victims, 1);
  EXPECT_EQ(Attempts(f, "preempting"), 1);
  const FleetItemResult* training = Item(f, "training-0");
  ASSERT_NE(training, nullptr);
  EXPECT_EQ(training->placed_ns, 630 * kS);
  EXPECT_NE(r.log.find("fleet-event Warning Preempted: ResourceBinding ml/batch-b-0 was preempted "
                       "by higher-priority ResourceBinding ml/training-0 on cluster \"gpu\""),
            std::string::npos);
  EXPECT_NE(r.log.find("fleet-preempting training-0 cluster=gpu victims=1 \"preemption initiated "
                       "on cluster \\\"gpu\\\" for 1 victim(s)\""),
            std::string::npos);
}

// A victim whose pods finish within the grace period is gone when they finish; its job is done.
TEST(FleetPreemptionSimTest, VictimThatFinishesWithinTheGracePeriod) {
  Interner in = api::NewInterner();
  Ran r = RunScenario(
      Cluster("  preemptionGracePeriod: 5m\n") + Job("batch-a", 100, 1, 4, "0s", "90m") +
          Job("batch-b", 100, 1, 4, "1m", "11m") + Job("training", 1000, 2, 2, "10m", "30m"),
      in);
  const FleetResult& f = Fleet(r);
  ASSERT_EQ(f.preemptions.size(), 1U);
  const FleetVictimResult& v = f.preemptions[0].victims.at(0);
  EXPECT_EQ(v.name, "ml/batch-b-0");
  EXPECT_EQ(v.gone_how, "finished");
  EXPECT_EQ(v.gone_ns, 12 * 60 * kS);
  const FleetItemResult* b = Item(f, "batch-b-0");
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(b->phase, "finished");
}

// TTL expiry: the only candidate is evicted with a grace period longer than the claim's TTL, so the
// preemptor cannot be placed within it; retried, it finds no other candidate (the victim is in
// graceful eviction) and its claim expires 10 minutes after it was set. Once the victim's pods are
// gone the preemptor is placed.
TEST(FleetPreemptionSimTest, ClaimExpiresAfterItsTtl) {
  Interner in = api::NewInterner();
  Ran r =
      RunScenario(Cluster("  preemptionGracePeriod: 15m\n") + Job("batch", 100, 2, 4, "0s", "90m") +
                      Job("training", 1000, 2, 2, "10m", "30m"),
                  in);
  const FleetResult& f = Fleet(r);
  ASSERT_EQ(f.preemptions.size(), 1U);
  const FleetPreemptionResult& p = f.preemptions[0];
  EXPECT_EQ(p.victims.at(0).name, "ml/batch-0");
  EXPECT_EQ(p.claim_end, "expired");
  EXPECT_EQ(p.claim_end_ns, p.claim_set_ns + 600 * kS);
  EXPECT_EQ(p.victims.at(0).gone_ns, 25 * 60 * kS);
  EXPECT_GE(Attempts(f, "no_victims"), 1);
  const FleetItemResult* training = Item(f, "training-0");
  ASSERT_NE(training, nullptr);
  EXPECT_GE(training->placed_ns, 25 * 60 * kS);
}

// Replacement: as PR #7832's tryPreempt does it, a preemptor's own claim never blocks it; retried
// at the unschedulable pool's flush while its first victim is still in its grace period (the
// summary still shows the GPUs taken), it preempts again — the older job, the younger being in
// graceful eviction — and the new claim replaces the first.
TEST(FleetPreemptionSimTest, ARetriedPreemptorReplacesItsClaim) {
  Interner in = api::NewInterner();
  Ran r = RunScenario(
      Cluster("  preemptionGracePeriod: 15m\n") + Job("batch-a", 100, 1, 4, "0s", "90m") +
          Job("batch-b", 100, 1, 4, "1m", "90m") + Job("training", 1000, 2, 2, "10m", "30m"),
      in);
  const FleetResult& f = Fleet(r);
  ASSERT_EQ(f.preemptions.size(), 2U);
  const FleetPreemptionResult& first = f.preemptions[0];
  const FleetPreemptionResult& second = f.preemptions[1];
  EXPECT_EQ(first.victims.at(0).name, "ml/batch-b-0");
  EXPECT_EQ(first.claim_end, "replaced");
  EXPECT_EQ(first.claim_end_ns, second.claim_set_ns);
  EXPECT_LT(second.at_ns, first.claim_set_ns + 600 * kS);
  EXPECT_EQ(second.preemptor, "ml/training-0");
  EXPECT_EQ(second.victims.at(0).name, "ml/batch-a-0");
}

// Migration: the preemptor's cluster becomes unfit (lost, then tainted at the next refresh) while
// it waits; retried, it preempts on the other cluster and the new claim replaces the first.
TEST(FleetPreemptionSimTest, ClaimIsReplacedWhenThePreemptorMigrates) {
  Interner in = api::NewInterner();
  std::string text = R"(
apiVersion: corral.dev/v1alpha1
kind: Scenario
metadata: {name: fleet-preemption-migration}
duration: 2h
clusters:
- name: a
  nodePools:
  - {name: a-pool, count: 1, resources: {cpu: "32", memory: 128Gi, pods: "110", nvidia.com/gpu: "4"}}
- name: b
  nodePools:
  - {name: b-pool, count: 1, resources: {cpu: "32", memory: 128Gi, pods: "110", nvidia.com/gpu: "4"}}
fleet:
  scheduler: karmada
  featureGates: {PriorityBasedScheduling: true, PriorityBasedPreemptiveScheduling: true}
  preemptionGracePeriod: 5m
  outages:
  - {cluster: a, at: 10m30s}
workloads:
)";
  auto job = [](const std::string& name, int priority, const std::string& clusters,
                const std::string& start) {
    return "- name: " + name + "\n  namespace: ml\n  kind: Job\n  count: 1\n  parallelism: 1\n" +
           "  start: " + start + "\n  duration: 90m\n" +
           "  resources: {cpu: \"4\", memory: 16Gi, nvidia.com/gpu: \"4\"}\n  fleet:\n" +
           "    priority: " + std::to_string(priority) +
           "\n    preemptionPolicy: PreemptLowerPriority\n    placement:\n" +
           "      clusterAffinity: {clusterNames: [" + clusters + "]}\n" +
           "      spreadConstraints:\n      - {spreadByField: cluster, maxGroups: 1, minGroups: "
           "1}\n" +
           "      replicaScheduling: {replicaSchedulingType: Divided, "
           "replicaDivisionPreference: Aggregated}\n";
  };
  text += job("low-a", 100, "a", "0s") + job("low-b", 100, "b", "0s") +
          job("training", 1000, "a, b", "10m");
  Ran r = RunScenario(text, in);
  const FleetResult& f = Fleet(r);
  ASSERT_EQ(f.preemptions.size(), 2U);
  const FleetPreemptionResult& first = f.preemptions[0];
  const FleetPreemptionResult& second = f.preemptions[1];
  EXPECT_EQ(first.cluster, "a");
  EXPECT_EQ(first.victims.at(0).name, "ml/low-a-0");
  EXPECT_EQ(second.preemptor, first.preemptor);
  EXPECT_EQ(second.cluster, "b");
  EXPECT_EQ(second.victims.at(0).name, "ml/low-b-0");
  EXPECT_EQ(first.claim_end, "replaced");
  EXPECT_EQ(first.claim_end_ns, second.claim_set_ns);
  EXPECT_GE(second.at_ns, 10 * 60 * kS + 30 * kS);  // from the refresh that shows `a` lost
  EXPECT_EQ(second.claim_end, "scheduled");
}

// Deduction: while training's claim is active, a lower-priority job that fits the summary's free
// GPUs does not see them (the claim hides 4 GPUs = 2 of its replicas); the claim's owner does.
TEST(FleetPreemptionSimTest, ClaimHidesItsCapacityFromLowerPriorities) {
  Interner in = api::NewInterner();
  // 2 GPUs stay free: batch (4) + small (2); training needs 4 → deficit 1 replica → batch evicted.
  Ran r = RunScenario(
      Cluster("  preemptionGracePeriod: 2m\n") + Job("batch", 100, 1, 4, "0s", "90m") +
          Job("small", 100, 1, 2, "0s", "90m") + Job("training", 1000, 2, 2, "10m", "30m") +
          Job("filler", 50, 1, 2, "10m30s", "5m"),
      in);
  const FleetResult& f = Fleet(r);
  ASSERT_EQ(f.preemptions.size(), 1U);
  // batch and small tie (priority, creation): batch ranks first by name and is reprieved.
  EXPECT_EQ(f.preemptions[0].victims.at(0).name, "ml/small-0");
  EXPECT_EQ(f.preemptions[0].cluster_available, 1);
  EXPECT_EQ(f.preemptions[0].claim_end, "scheduled");
  const FleetItemResult* filler = Item(f, "filler-0");
  const FleetItemResult* training = Item(f, "training-0");
  ASSERT_NE(filler, nullptr);
  ASSERT_NE(training, nullptr);
  // The filler arrived while the claim held the 2 free GPUs: it waits for the training job.
  EXPECT_GT(filler->placed_ns, training->placed_ns);
  EXPECT_GE(training->placed_ns, 12 * 60 * kS);
}

// Blocking: two training jobs of equal priority arrive together; the first preempts, the second
// finds the first's claim (equal priority) on the cluster and does not preempt for that capacity.
TEST(FleetPreemptionSimTest, AnEqualPriorityClaimBlocksASecondPreemptor) {
  Interner in = api::NewInterner();
  Ran r = RunScenario(
      Cluster() + Job("batch-a", 100, 1, 4, "0s", "90m") + Job("batch-b", 100, 1, 4, "1m", "90m") +
          Job("train-x", 1000, 2, 2, "10m", "30m") + Job("train-y", 1000, 2, 2, "10m", "30m"),
      in);
  const FleetResult& f = Fleet(r);
  ASSERT_GE(f.preemptions.size(), 1U);
  EXPECT_EQ(f.preemptions[0].preemptor, "ml/train-x-0");
  EXPECT_GE(Attempts(f, "blocked"), 1);
  // Never two claims on the cluster at once.
  for (size_t i = 1; i < f.preemptions.size(); ++i) {
    EXPECT_GE(f.preemptions[i].at_ns, f.preemptions[i - 1].claim_end_ns);
  }
}

// Failed eviction: the member is lost just before the preemption (the dispatcher's view still shows
// it ready until the next status refresh): the victim cannot be evicted, the claim is cleared.
TEST(FleetPreemptionSimTest, EvictionOnAnUnreachableMemberFailsAndClearsTheClaim) {
  Interner in = api::NewInterner();
  Ran r = RunScenario(Cluster("  outages:\n  - {cluster: gpu, at: 10m01s, duration: 20m}\n") +
                          Job("batch-a", 100, 1, 4, "0s", "90m") +
                          Job("batch-b", 100, 1, 4, "1m", "90m") +
                          Job("training", 1000, 2, 2, "10m02s", "30m"),
                      in);
  const FleetResult& f = Fleet(r);
  ASSERT_GE(f.preemptions.size(), 1U);
  const FleetPreemptionResult& p = f.preemptions[0];
  EXPECT_EQ(p.result, "eviction failed");
  EXPECT_EQ(p.message, "cluster \"gpu\" is not reachable");
  EXPECT_EQ(p.claim_end, "eviction failed");
  EXPECT_EQ(p.claim_end_ns, p.claim_set_ns);
  EXPECT_EQ(p.victims.at(0).gone_ns, -1);  // never evicted
  EXPECT_GE(Attempts(f, "eviction_failed"), 1);
  EXPECT_EQ(Attempts(f, "eviction_failed") + Attempts(f, "preempting"),
            static_cast<int64_t>(f.preemptions.size()));
  // Nothing was evicted while the member was unreachable.
  for (const FleetPreemptionResult& q : f.preemptions) {
    if (q.at_ns < 30 * 60 * kS) {
      EXPECT_EQ(q.result, "eviction failed");
    }
  }
}

// The preemptor deleted while it waits (its deadline passes): its claim is cleared at once; the
// victim already evicted stays evicted and, its graceful eviction over, is placed again and runs.
TEST(FleetPreemptionSimTest, PreemptorDeletedWhileItWaitsClearsItsClaim) {
  Interner in = api::NewInterner();
  Ran r = RunScenario(Cluster("  preemptionGracePeriod: 1m\n") +
                          Job("batch-a", 100, 1, 4, "0s", "90m") +
                          Job("batch-b", 100, 1, 4, "1m", "90m") +
                          Job("training", 1000, 2, 2, "10m", "30m", "    deadline: 20s\n"),
                      in);
  const FleetResult& f = Fleet(r);
  ASSERT_EQ(f.preemptions.size(), 1U);
  const FleetPreemptionResult& p = f.preemptions[0];
  EXPECT_EQ(p.claim_end, "deleted");
  EXPECT_EQ(p.claim_end_ns, 620 * kS);
  EXPECT_EQ(p.victims.at(0).gone_ns, 660 * kS);
  EXPECT_EQ(f.deleted, 1);
  const FleetItemResult* b = Item(f, "batch-b-0");
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(b->retries, 1);
  EXPECT_EQ(b->phase, "finished");  // placed again once its graceful eviction ended
  EXPECT_GT(b->attempts, 1);
  EXPECT_NE(r.log.find("fleet-delete training-0 reason=deadline"), std::string::npos);
}

// schedulePriority from a PriorityClass (Karmada's KubePriorityClass source): the class's value
// and its preemptionPolicy (absent: PreemptLowerPriority, the API server's default).
TEST(FleetPreemptionSimTest, SchedulePriorityFromAPriorityClass) {
  Interner in = api::NewInterner();
  std::string training =
      "- name: training\n  namespace: ml\n  kind: Job\n  count: 1\n  parallelism: 2\n"
      "  start: 10m\n  duration: 30m\n  resources: {cpu: \"2\", memory: 8Gi, nvidia.com/gpu: "
      "\"2\"}\n  fleet:\n    schedulePriority: {priorityClassSource: KubePriorityClass, "
      "priorityClassName: training}\n    placement:\n      clusterAffinity: {clusterNames: "
      "[gpu]}\n      replicaScheduling: {replicaSchedulingType: Divided, "
      "replicaDivisionPreference: Aggregated}\n";
  std::string text = Cluster() + Job("batch-a", 100, 1, 4, "0s", "90m") +
                     Job("batch-b", 100, 1, 4, "1m", "90m") + training;
  text.replace(text.find("clusters:"), 0, "priorityClasses:\n- {name: training, value: 1000}\n");
  Ran r = RunScenario(text, in);
  const FleetResult& f = Fleet(r);
  ASSERT_EQ(f.preemptions.size(), 1U);
  EXPECT_EQ(f.preemptions[0].priority, 1000);
  EXPECT_EQ(f.preemptions[0].victims.at(0).name, "ml/batch-b-0");

  std::string never = text;
  never.replace(never.find("{name: training, value: 1000}"),
                std::string_view("{name: training, value: 1000}").size(),
                "{name: training, value: 1000, preemptionPolicy: Never}");
  Interner in2 = api::NewInterner();
  Ran r2 = RunScenario(never, in2);
  EXPECT_TRUE(Fleet(r2).preemptions.empty());
}

// Without the gates nothing preempts and the outputs have no preemption part.
TEST(FleetPreemptionSimTest, GatesOffNeverPreempt) {
  Interner in = api::NewInterner();
  std::string text = Cluster() + Job("batch-a", 100, 1, 4, "0s", "90m") +
                     Job("batch-b", 100, 1, 4, "1m", "90m") +
                     Job("training", 1000, 2, 2, "10m", "30m");
  text.replace(text.find("PriorityBasedPreemptiveScheduling: true"),
               std::string_view("PriorityBasedPreemptiveScheduling: true").size(),
               "PriorityBasedPreemptiveScheduling: false");
  Ran r = RunScenario(text, in);
  const FleetResult& f = Fleet(r);
  EXPECT_FALSE(f.preemption_enabled);
  EXPECT_TRUE(f.preemptions.empty());
  const FleetItemResult* training = Item(f, "training-0");
  ASSERT_NE(training, nullptr);
  EXPECT_GE(training->placed_ns, 90 * 60 * kS);  // waits for a batch job to finish
}

std::string Errors(const std::string& text) {
  Interner in = api::NewInterner();
  Diagnostics diags;
  auto spec = ParseScenario(text, "bad.yaml", "", in, diags);
  EXPECT_FALSE(spec.ok());
  return DiagnosticsMessage(diags);
}

TEST(FleetPreemptionSimTest, StrictPositionedErrors) {
  std::string unknown_gate = Cluster() + Job("a", 1, 1, 1, "0s", "1m");
  unknown_gate.replace(unknown_gate.find("PriorityBasedScheduling: true"),
                       std::string_view("PriorityBasedScheduling: true").size(),
                       "PriorityBasedSchedulin: true");
  EXPECT_NE(Errors(unknown_gate).find("bad.yaml:12: fleet.featureGates.PriorityBasedSchedulin"),
            std::string::npos)
      << Errors(unknown_gate);
  std::string bad_policy = Cluster() + Job("a", 1, 1, 1, "0s", "1m");
  bad_policy.replace(bad_policy.find("PreemptLowerPriority"),
                     std::string_view("PreemptLowerPriority").size(), "Always");
  EXPECT_NE(Errors(bad_policy).find("workloads[0].fleet.preemptionPolicy"), std::string::npos)
      << Errors(bad_policy);
  std::string kueue = Cluster() + "- name: a\n  kind: Gang\n  parallelism: 1\n  count: 1\n";
  kueue.replace(kueue.find("karmada"), 7, "kueue");
  EXPECT_NE(Errors(kueue).find("fleet.featureGates: applies to scheduler karmada"),
            std::string::npos)
      << Errors(kueue);
  std::string unknown_class = Cluster() + Job("a", 1, 1, 1, "0s", "1m");
  const std::string direct = "    priority: 1\n    preemptionPolicy: PreemptLowerPriority\n";
  unknown_class.replace(unknown_class.find(direct), direct.size(),
                        "    schedulePriority: {priorityClassSource: KubePriorityClass, "
                        "priorityClassName: nope}\n");
  EXPECT_NE(Errors(unknown_class)
                .find("workloads[0].fleet.schedulePriority.priorityClassName: priority class "
                      "\"nope\" not found"),
            std::string::npos)
      << Errors(unknown_class);
  std::string grace_without_gates =
      Cluster("  preemptionGracePeriod: 1m\n") + Job("a", 1, 1, 1, "0s", "1m");
  grace_without_gates.replace(grace_without_gates.find("PriorityBasedPreemptiveScheduling: true"),
                              std::string_view("PriorityBasedPreemptiveScheduling: true").size(),
                              "PriorityBasedPreemptiveScheduling: false");
  EXPECT_NE(Errors(grace_without_gates).find("fleet.preemptionGracePeriod: applies when"),
            std::string::npos)
      << Errors(grace_without_gates);
}

}  // namespace
}  // namespace corral::sim::testing
