// Properties of the fleet-wide, gang-aware binding preemption over time (fleet.preemption: {mode:
// fleetwide, victims: summary|simulation}), over random fleets: one to three GPU members, jobs of
// random priorities, sizes, arrival times, durations, placements, some of them gangs (minMember)
// or disrupted whole (disruptionMode: All). After each run, from the FLEET PREEMPTION records:
//   - no victim, on the preemption's cluster or a gang victim's other cluster, has a priority at
//     or above its preemptor's;
//   - no gang or disruptionMode-All work item is partially evicted: one preemption evicts all its
//     replicas, over every cluster it runs on;
//   - no work item preempts on two clusters at once (one preemptor's claims never overlap in time);
//   - claims on one cluster never overlap in time (two preemptors never evict for one capacity).
#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include "corral/fleet/claims.h"
#include "corral/sim/fleet_spec.h"

#include "sim_test_util.h"

namespace corral::sim::testing {
namespace {

constexpr int64_t kS = 1'000'000'000;
constexpr int64_t kRunNs = 2 * 3600 * kS;

struct Fleet {
  std::string text;
  std::map<std::string, int> whole;  // "ml/jN-0" of a work item evicted whole → its replicas
};

Fleet RandomFleet() {
  Fleet f;
  const int clusters = *rc::gen::inRange(1, 4);
  std::string& s = f.text;
  s = R"(
apiVersion: corral.dev/v1alpha1
kind: Scenario
metadata: {name: fleet-preemption-fleetwide-property}
duration: 2h
clusters:
)";
  for (int c = 0; c < clusters; ++c) {
    s += "- name: c" + std::to_string(c) + "\n  nodePools:\n  - {name: p" + std::to_string(c) +
         ", count: 1" +
         ", resources: {cpu: \"32\", memory: 128Gi, pods: \"110\", nvidia.com/gpu: \"4\"}}\n";
  }
  const bool simulation = *rc::gen::arbitrary<bool>();
  s += "fleet:\n  scheduler: karmada\n  featureGates: {PriorityBasedScheduling: true, "
       "PriorityBasedPreemptiveScheduling: true}\n  preemptionGracePeriod: " +
       std::to_string(*rc::gen::element(10, 30, 120)) +
       "s\n  preemption: {mode: fleetwide, victims: " + (simulation ? "simulation" : "summary") +
       "}\nworkloads:\n";
  const int jobs = *rc::gen::inRange(4, 12);
  for (int j = 0; j < jobs; ++j) {
    const int gpus = *rc::gen::element(1, 2, 4);
    const int parallelism = *rc::gen::inRange(1, 5);
    const int priority = *rc::gen::element(10, 100, 500, 1000);
    const bool preempts = *rc::gen::inRange(0, 4) != 0;
    const int kind = *rc::gen::inRange(0, 4);  // 0: gang, 1: disruptionMode All, else plain
    std::string names;
    for (int c = 0; c < clusters; ++c) {
      if (*rc::gen::inRange(0, 2) == 1 || (c == clusters - 1 && names.empty()))
        names += (names.empty() ? "c" : ", c") + std::to_string(c);
    }
    std::string extra;
    if (kind == 0) extra = "    minMember: " + std::to_string(parallelism) + "\n";
    if (kind == 1) extra = "    disruptionMode: All\n";
    if (kind <= 1) f.whole["ml/j" + std::to_string(j) + "-0"] = parallelism;
    s += "- name: j" + std::to_string(j) + "\n  namespace: ml\n  kind: Job\n  count: 1\n" +
         "  parallelism: " + std::to_string(parallelism) +
         "\n  start: " + std::to_string(*rc::gen::inRange(0, 20)) + "m\n" +
         "  duration: " + std::to_string(*rc::gen::inRange(10, 90)) + "m\n" +
         "  resources: {cpu: \"" + std::to_string(gpus) +
         "\", memory: " + std::to_string(4 * gpus) + "Gi, nvidia.com/gpu: \"" +
         std::to_string(gpus) + "\"}\n" + "  fleet:\n    priority: " + std::to_string(priority) +
         "\n    preemptionPolicy: " + (preempts ? "PreemptLowerPriority" : "Never") + "\n" + extra +
         "    placement:\n" + "      clusterAffinity: {clusterNames: [" + names + "]}\n" +
         "      replicaScheduling: {replicaSchedulingType: Divided, "
         "replicaDivisionPreference: Aggregated}\n";
  }
  return f;
}

// The claim's lifetime [set, end): cut at the TTL, and at the end of the run when still active.
std::pair<int64_t, int64_t> Life(const FleetPreemptionResult& p) {
  const int64_t end = p.claim_end_ns >= 0
                          ? p.claim_end_ns
                          : std::min(kRunNs, p.claim_set_ns + fleet::kClaimTtl.count());
  return {p.claim_set_ns, end};
}

void NoOverlap(std::vector<std::pair<int64_t, int64_t>> lives, const std::string& what) {
  std::sort(lives.begin(), lives.end());
  for (size_t i = 1; i < lives.size(); ++i) {
    if (lives[i].first < lives[i - 1].second) {
      RC_FAIL(what + ": two claims at once " + std::to_string(lives[i - 1].first) + ".." +
              std::to_string(lives[i - 1].second) + " and " + std::to_string(lives[i].first));
    }
  }
}

RC_GTEST_PROP(FleetwidePreemptionProperty, GangsClaimsAndVictimsOverTime, ()) {
  const Fleet fleet = RandomFleet();
  Interner in = api::NewInterner();
  Diagnostics diags;
  auto spec = ParseScenario(fleet.text, "fleet.yaml", "", in, diags);
  if (!spec.ok()) RC_FAIL(DiagnosticsMessage(diags) + "\n" + fleet.text);
  Ran r = RunSpec(*spec, in);
  RC_ASSERT(r.out.result.fleet != nullptr);
  const FleetResult& f = *r.out.result.fleet;
  RC_ASSERT(f.preemption_mode == "fleetwide");
  std::map<std::string, std::vector<std::pair<int64_t, int64_t>>> by_cluster, by_preemptor;
  bool gang_evicted = false;
  for (const FleetPreemptionResult& p : f.preemptions) {
    RC_ASSERT(!p.victims.empty());
    RC_ASSERT(p.mode == "fleetwide");
    std::map<std::string, int> evicted;
    for (const auto* list : {&p.victims, &p.gang_victims}) {
      for (const FleetVictimResult& v : *list) {
        RC_ASSERT(v.priority < p.priority);
        evicted[v.name] += v.replicas;
      }
    }
    for (const auto& [name, replicas] : evicted) {
      auto whole = fleet.whole.find(name);
      if (whole == fleet.whole.end()) continue;
      gang_evicted = true;
      if (replicas != whole->second) {
        RC_FAIL(name + " partially evicted: " + std::to_string(replicas) + " of " +
                std::to_string(whole->second) + " replicas\n" + fleet.text);
      }
    }
    // Only the chosen cluster is marked chosen, and it is the record's.
    int chosen = 0;
    for (const FleetClusterCost& c : p.considered) {
      if (c.chosen) {
        ++chosen;
        RC_ASSERT(c.cluster == p.cluster);
      }
    }
    RC_ASSERT(chosen == 1);
    by_cluster[p.cluster].push_back(Life(p));
    by_preemptor[p.preemptor].push_back(Life(p));
  }
  for (const auto& [cluster, lives] : by_cluster) NoOverlap(lives, "cluster " + cluster);
  for (const auto& [who, lives] : by_preemptor) NoOverlap(lives, "preemptor " + who);
  RC_CLASSIFY(!f.preemptions.empty(), "preempted");
  RC_CLASSIFY(gang_evicted, "gang evicted");
}

}  // namespace
}  // namespace corral::sim::testing
