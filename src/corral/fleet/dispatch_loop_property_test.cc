// Properties of the dispatch loop over random runs (random fleets, dispatch modes, arrivals,
// admissions, evictions, lost and returning members, status refreshes and the passage of time):
//   - a work item never runs in two clusters: at most one copy is admitted, and an admitted Kueue
//     item has no other copy (top-K never leaves a stale copy);
//   - every copy the loop created is either still held by its item or was deleted (every
//     dispatched replica is placed by its member or returned), and the world's copies are exactly
//     the items' copies;
//   - nothing waits past MustBeAdmitted's timeout without a retry: after the timers of an instant
//     fire, no composable MustBeAdmitted item holds an unadmitted copy older than the timeout;
//   - termination: once every member admits what it is given, the loop places every item within a
//     bounded number of steps and leaves no timer but the queue's own.
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include "corral/api/well_known.h"
#include "corral/fleet/dispatch_loop.h"
#include "corral/fleet/kueue_dispatcher.h"

namespace corral::fleet {
namespace {

constexpr int64_t kS = kQueueSecond;

class World final : public DispatchActions {
 public:
  void CreateCopy(uint32_t work, uint32_t cluster, int32_t) override {
    RC_ASSERT(copies.insert({work, cluster}).second);
  }
  void DeleteCopy(uint32_t work, uint32_t cluster) override {
    RC_ASSERT(copies.erase({work, cluster}) == 1u);
  }
  void Record(const DispatchRecord&) override {}
  std::set<std::pair<uint32_t, uint32_t>> copies;
};

void CheckInvariants(const DispatchLoop& loop, const World& world, int64_t now, bool timers_fired) {
  std::set<std::pair<uint32_t, uint32_t>> held;
  for (uint32_t id = 0; id < loop.items(); ++id) {
    const WorkItem& it = loop.item(id);
    int admitted = 0;
    for (const WorkCopy& c : it.copies) {
      admitted += c.admitted ? 1 : 0;
      RC_ASSERT(held.insert({id, c.cluster}).second);
    }
    // A Karmada binding is divided over its clusters by design; a Kueue workload runs whole in one.
    if (loop.config().kind == FleetKind::kKueue) {
      RC_ASSERT(admitted <= 1);
      if (admitted == 1) RC_ASSERT(it.copies.size() == 1u);
    }
    // A Karmada binding being rescheduled keeps its replicas on the clusters that did not fail.
    if (it.phase == WorkPhase::kFinished ||
        (it.phase == WorkPhase::kQueued && loop.config().kind == FleetKind::kKueue))
      RC_ASSERT(it.copies.empty());
    const bool must = it.work.dispatch_mode == api::DispatchMode::kMustBeAdmitted;
    if (timers_fired && must && loop.config().kind == FleetKind::kKueue &&
        loop.config().dispatcher == KueueDispatcherKind::kComposable &&
        it.phase == WorkPhase::kPending) {
      for (const WorkCopy& c : it.copies) {
        RC_ASSERT(c.admitted || now - c.created_ns < loop.config().worker_lost_timeout_ns);
      }
    }
  }
  RC_ASSERT(held == world.copies);
}

RC_GTEST_PROP(DispatchLoopProperty, NeverTwoClustersNoStaleCopiesRetriesAndTermination, ()) {
  Interner in = api::NewInterner();
  const int nclusters = *rc::gen::inRange(1, 6);
  const int mode = *rc::gen::inRange(0, 4);  // composable top-1, top-K, AllAtOnce, Incremental
  const bool karmada = *rc::gen::inRange(0, 5) == 0;
  std::vector<api::Cluster> clusters;
  for (int i = 0; i < nclusters; ++i) {
    api::Cluster c;
    c.meta.name = in.Intern("c" + std::to_string(i));
    c.resource_summary.emplace();
    c.resource_summary->allocatable = {{api::wk::kPods, api::Quantity::FromInt(50)}};
    c.api_enablements = {{in.Intern("apps/v1"), {in.Intern("Deployment")}}};
    clusters.push_back(c);
  }
  DispatchLoopConfig cfg;
  cfg.kind = karmada ? FleetKind::kKarmada : FleetKind::kKueue;
  cfg.dispatcher = mode == 2   ? KueueDispatcherKind::kAllAtOnce
                   : mode == 3 ? KueueDispatcherKind::kIncremental
                               : KueueDispatcherKind::kComposable;
  cfg.profile = DefaultDispatcherProfile(in);
  if (mode == 1) {
    cfg.profile.nomination = api::NominationMode::kTopK;
    cfg.profile.top_k = *rc::gen::inRange(2, 4);
  }
  cfg.step_size = *rc::gen::inRange(1, 4);
  cfg.worker_lost_timeout_ns = *rc::gen::inRange<int64_t>(1, 20) * 10 * kS;
  cfg.round_timeout_ns = *rc::gen::inRange<int64_t>(1, 10) * 10 * kS;
  World world;
  GeneralEstimator general(in);
  DispatchLoop loop(cfg, clusters, {&general}, in, world);

  int64_t now = 0;
  std::vector<uint8_t> reachable(nclusters, 1);
  const int steps = *rc::gen::inRange(1, 120);
  for (int s = 0; s < steps; ++s) {
    const int op = *rc::gen::inRange(0, 10);
    if (op == 0 || loop.items() == 0) {
      api::FleetWork w;
      w.replicas = *rc::gen::inRange(1, 5);
      w.priority = *rc::gen::inRange(0, 3);
      w.resource.api_version = in.Intern("apps/v1");
      w.resource.kind = in.Intern("Deployment");
      w.dispatch_mode = *rc::gen::arbitrary<bool>() ? api::DispatchMode::kMustBeAdmitted
                                                    : api::DispatchMode::kBestEffort;
      if (karmada) {
        w.placement.replica_scheduling.emplace();
        w.placement.replica_scheduling->type = api::ReplicaSchedulingType::kDivided;
        w.placement.replica_scheduling->division_preference =
            api::ReplicaDivisionPreference::kWeighted;
      }
      loop.AddWork(std::move(w), now);
    } else if (op <= 2) {
      loop.DispatchOne(now);
    } else if (op == 3 || op == 4) {
      // A member admits (or evicts) one of the copies it holds.
      if (!world.copies.empty()) {
        auto it = world.copies.begin();
        std::advance(it, *rc::gen::inRange<size_t>(0, world.copies.size()));
        const auto [work, cluster] = *it;
        if (op == 3) {
          loop.OnAdmitted(work, cluster, now);
        } else {
          loop.OnEvicted(work, cluster, now);
        }
      }
    } else if (op == 5) {
      const int c = *rc::gen::inRange(0, nclusters);
      reachable[c] = !reachable[c];
      loop.SetReachable(c, reachable[c] != 0, now);
    } else if (op == 6) {
      loop.RefreshClusters(clusters, now);
    } else if (op == 7) {
      const uint32_t id = *rc::gen::inRange<uint32_t>(0, static_cast<uint32_t>(loop.items()));
      if (loop.item(id).phase == WorkPhase::kReady) {
        for (const WorkCopy& c : loop.item(id).copies) world.copies.erase({id, c.cluster});
        loop.OnFinished(id, now);
      }
    } else {
      // Time passes to the next timer (or by a random step), and the timers of that instant fire.
      const int64_t next = loop.NextTimerDeadline(now);
      const int64_t step = *rc::gen::inRange<int64_t>(1, 400) * kS;
      now = std::min(next, now + step);
      loop.FireTimers(now);
      CheckInvariants(loop, world, now, true);
      continue;
    }
    CheckInvariants(loop, world, now, false);
  }

  // Termination: every member comes back and admits what it holds.
  for (int c = 0; c < nclusters; ++c) loop.SetReachable(c, true, now);
  loop.RefreshClusters(clusters, now);
  for (int round = 0; round < 10000; ++round) {
    while (loop.DispatchOne(now)) {
    }
    for (const auto& [work, cluster] : std::set(world.copies)) loop.OnAdmitted(work, cluster, now);
    CheckInvariants(loop, world, now, false);
    bool done = true;
    for (uint32_t id = 0; id < loop.items(); ++id) {
      const WorkPhase p = loop.item(id).phase;
      done &= p == WorkPhase::kReady || p == WorkPhase::kFinished;
    }
    if (done) break;
    const int64_t next = loop.NextTimerDeadline(now);
    RC_ASSERT(next != INT64_MAX);  // something still waits: a timer must be armed
    now = next;
    loop.FireTimers(now);
    CheckInvariants(loop, world, now, true);
  }
  for (uint32_t id = 0; id < loop.items(); ++id) {
    const WorkPhase p = loop.item(id).phase;
    RC_ASSERT(p == WorkPhase::kReady || p == WorkPhase::kFinished);
  }
}

}  // namespace
}  // namespace corral::fleet
