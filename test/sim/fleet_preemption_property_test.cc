// Properties of Karmada binding preemption over time, over random fleets: one or two GPU members,
// jobs of random priorities, sizes, arrival times, durations, preemption policies and placements,
// and a random grace period. After each run, from the FLEET PREEMPTION records:
//   - no victim has a priority at or above its preemptor's;
//   - two preemptors never both hold capacity on one cluster at once (claims on a cluster never
//     overlap in time), so they never both evict for the same capacity;
//   - no work item preempts on two clusters (one preemptor's claims never overlap in time);
//   - every claim is cleared or expires: it ends within its TTL, or the run ended first;
//   - the attempts counted as preempting or eviction_failed are the records.
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

std::string RandomFleet() {
  const int clusters = *rc::gen::inRange(1, 3);
  std::string s = R"(
apiVersion: corral.dev/v1alpha1
kind: Scenario
metadata: {name: fleet-preemption-property}
duration: 2h
clusters:
)";
  for (int c = 0; c < clusters; ++c) {
    s += "- name: c" + std::to_string(c) + "\n  nodePools:\n  - {name: p" + std::to_string(c) +
         ", count: " + std::to_string(*rc::gen::inRange(1, 3)) +
         ", resources: {cpu: \"32\", memory: 128Gi, pods: \"110\", nvidia.com/gpu: \"4\"}}\n";
  }
  const int grace_s = *rc::gen::element(10, 30, 120, 900);
  s += "fleet:\n  scheduler: karmada\n  featureGates: {PriorityBasedScheduling: true, "
       "PriorityBasedPreemptiveScheduling: true}\n  preemptionGracePeriod: " +
       std::to_string(grace_s) + "s\nworkloads:\n";
  const int jobs = *rc::gen::inRange(3, 11);
  for (int j = 0; j < jobs; ++j) {
    const int gpus = *rc::gen::element(1, 2, 4);
    const int parallelism = *rc::gen::inRange(1, 4);
    const int priority = *rc::gen::element(10, 100, 500, 1000);
    const bool preempts = *rc::gen::inRange(0, 4) != 0;
    const bool single = *rc::gen::inRange(0, 5) != 0;
    std::string names;
    for (int c = 0; c < clusters; ++c) {
      if (*rc::gen::inRange(0, 2) == 1 || (c == clusters - 1 && names.empty()))
        names += (names.empty() ? "c" : ", c") + std::to_string(c);
    }
    s += "- name: j" + std::to_string(j) + "\n  namespace: ml\n  kind: Job\n  count: 1\n" +
         "  parallelism: " + std::to_string(parallelism) +
         "\n  start: " + std::to_string(*rc::gen::inRange(0, 20)) + "m\n" +
         "  duration: " + std::to_string(*rc::gen::inRange(10, 90)) + "m\n" +
         "  resources: {cpu: \"" + std::to_string(gpus) +
         "\", memory: " + std::to_string(4 * gpus) + "Gi, nvidia.com/gpu: \"" +
         std::to_string(gpus) + "\"}\n" + "  fleet:\n    priority: " + std::to_string(priority) +
         "\n    preemptionPolicy: " + (preempts ? "PreemptLowerPriority" : "Never") +
         "\n    placement:\n" + "      clusterAffinity: {clusterNames: [" + names + "]}\n" +
         (single ? "      spreadConstraints:\n      - {spreadByField: cluster, maxGroups: 1, "
                   "minGroups: 1}\n"
                 : "") +
         "      replicaScheduling: {replicaSchedulingType: Divided, "
         "replicaDivisionPreference: Aggregated}\n";
  }
  return s;
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

RC_GTEST_PROP(FleetPreemptionProperty, ClaimsAndVictimsOverTime, ()) {
  const std::string text = RandomFleet();
  Interner in = api::NewInterner();
  Diagnostics diags;
  auto spec = ParseScenario(text, "fleet.yaml", "", in, diags);
  if (!spec.ok()) RC_FAIL(DiagnosticsMessage(diags) + "\n" + text);
  Ran r = RunSpec(*spec, in);
  RC_ASSERT(r.out.result.fleet != nullptr);
  const FleetResult& f = *r.out.result.fleet;
  RC_ASSERT(f.preemption_enabled);
  std::map<std::string, std::vector<std::pair<int64_t, int64_t>>> by_cluster, by_preemptor;
  int64_t counted = 0;
  for (const auto& [result, n] : f.preemption_attempts) {
    if (result == "preempting" || result == "eviction_failed") counted += n;
  }
  RC_ASSERT(counted == static_cast<int64_t>(f.preemptions.size()));
  for (const FleetPreemptionResult& p : f.preemptions) {
    RC_ASSERT(!p.victims.empty());
    for (const FleetVictimResult& v : p.victims) RC_ASSERT(v.priority < p.priority);
    RC_ASSERT(p.claim_end_ns < 0 || p.claim_end_ns <= p.claim_set_ns + fleet::kClaimTtl.count());
    if (p.claim_end.empty()) RC_ASSERT(kRunNs < p.claim_set_ns + fleet::kClaimTtl.count());
    by_cluster[p.cluster].push_back(Life(p));
    by_preemptor[p.preemptor].push_back(Life(p));
  }
  for (const auto& [cluster, lives] : by_cluster) NoOverlap(lives, "cluster " + cluster);
  for (const auto& [who, lives] : by_preemptor) NoOverlap(lives, "preemptor " + who);
  RC_CLASSIFY(!f.preemptions.empty(), "preempted");
}

}  // namespace
}  // namespace corral::sim::testing
