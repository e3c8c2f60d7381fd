#include "corral/fleet/dispatch_loop.h"

#include <set>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "corral/api/well_known.h"
#include "corral/fleet/kueue_dispatcher.h"

namespace corral::fleet {
namespace {

constexpr int64_t kS = kQueueSecond;

// The world as the loop sees it: live copies and the records, in order.
class FakeWorld final : public DispatchActions {
 public:
  void CreateCopy(uint32_t work, uint32_t cluster, int32_t replicas) override {
    copies.insert({work, cluster});
    log.push_back("create " + std::to_string(work) + "@" + std::to_string(cluster) + " x" +
                  std::to_string(replicas));
  }
  void DeleteCopy(uint32_t work, uint32_t cluster) override {
    copies.erase({work, cluster});
    log.push_back("delete " + std::to_string(work) + "@" + std::to_string(cluster));
  }
  void Record(const DispatchRecord& r) override { records.push_back(r); }
  std::set<std::pair<uint32_t, uint32_t>> copies;
  std::vector<std::string> log;
  std::vector<DispatchRecord> records;
};

class DispatchLoopTest : public ::testing::Test {
 protected:
  api::Cluster Cluster(const std::string& name) {
    api::Cluster c;
    c.source_kind = api::ClusterSourceKind::kMultiKueueCluster;
    c.meta.name = in_.Intern(name);
    c.resource_summary.emplace();
    c.resource_summary->allocatable = {{api::wk::kPods, api::Quantity::FromInt(100)}};
    c.api_enablements = {{in_.Intern("apps/v1"), {in_.Intern("Deployment")}}};
    return c;
  }
  std::vector<api::Cluster> Clusters(std::initializer_list<const char*> names) {
    std::vector<api::Cluster> out;
    for (const char* n : names) out.push_back(Cluster(n));
    return out;
  }
  api::FleetWork Work(api::DispatchMode mode = api::DispatchMode::kBestEffort) {
    api::FleetWork w;
    w.source_kind = api::FleetWorkSourceKind::kKueue;
    w.replicas = 2;
    w.dispatch_mode = mode;
    w.resource.api_version = in_.Intern("apps/v1");
    w.resource.kind = in_.Intern("Deployment");
    return w;
  }
  DispatchLoopConfig Kueue(KueueDispatcherKind kind = KueueDispatcherKind::kComposable,
                           int32_t top_k = 1) {
    DispatchLoopConfig c;
    c.kind = FleetKind::kKueue;
    c.dispatcher = kind;
    c.profile = DefaultDispatcherProfile(in_);
    if (top_k > 1) {
      c.profile.nomination = api::NominationMode::kTopK;
      c.profile.top_k = top_k;
    }
    return c;
  }
  // The loop's dispatches until the active queue is empty.
  static void Drain(DispatchLoop& loop, int64_t now) {
    while (loop.DispatchOne(now)) {
    }
  }
  Interner in_ = api::NewInterner();
  FakeWorld world_;
};

// KEP-8692 BestEffort (top-1): Ready once the copy exists; an eviction on the member sends the item
// back to the queue, and it is dispatched again.
TEST_F(DispatchLoopTest, BestEffortEvictionRetries) {
  DispatchLoop loop(Kueue(), Clusters({"a", "b"}), {}, in_, world_);
  const uint32_t id = loop.AddWork(Work(), 0);
  Drain(loop, 0);
  EXPECT_EQ(loop.item(id).phase, WorkPhase::kReady);
  EXPECT_EQ(loop.item(id).placed_ns, 0);
  EXPECT_EQ(world_.copies, (std::set<std::pair<uint32_t, uint32_t>>{{0, 0}}));
  loop.OnEvicted(id, 0, 10 * kS);
  EXPECT_EQ(loop.item(id).phase, WorkPhase::kQueued);
  EXPECT_EQ(loop.item(id).last_error,
            "Workload evicted on worker cluster: \"a\", resetting for re-admission");
  EXPECT_TRUE(world_.copies.empty());
  Drain(loop, 10 * kS);
  EXPECT_EQ(loop.item(id).retries, 1);
  EXPECT_EQ(loop.item(id).phase, WorkPhase::kReady);
}

// MustBeAdmitted: no admission within workerLostTimeout withdraws the copy and retries the
// next-best cluster; admission there makes it Ready.
TEST_F(DispatchLoopTest, MustBeAdmittedTimesOutToTheNextBest) {
  DispatchLoopConfig cfg = Kueue();
  cfg.worker_lost_timeout_ns = 60 * kS;
  DispatchLoop loop(cfg, Clusters({"a", "b"}), {}, in_, world_);
  const uint32_t id = loop.AddWork(Work(api::DispatchMode::kMustBeAdmitted), 0);
  Drain(loop, 0);
  EXPECT_EQ(loop.item(id).phase, WorkPhase::kPending);
  EXPECT_EQ(loop.NextTimerDeadline(0), 1 * kS * 60);
  loop.FireTimers(60 * kS);
  EXPECT_EQ(loop.item(id).last_error, "not admitted within workerLostTimeout (1m0s) on \"a\"");
  EXPECT_TRUE(world_.copies.empty());
  Drain(loop, 60 * kS);
  EXPECT_EQ(world_.copies, (std::set<std::pair<uint32_t, uint32_t>>{{0, 1}}));
  EXPECT_EQ(loop.item(id).why_not[0].reason,
            "not admitted within workerLostTimeout when nominated");
  loop.OnAdmitted(id, 1, 70 * kS);
  EXPECT_EQ(loop.item(id).phase, WorkPhase::kReady);
  EXPECT_EQ(loop.item(id).placed_ns, 70 * kS);
  EXPECT_EQ(loop.NextTimerDeadline(70 * kS), INT64_MAX);
}

// Top-K: K copies; the first to admit wins and the others are withdrawn at once.
TEST_F(DispatchLoopTest, TopKFirstAdmissionWithdrawsTheOthers) {
  DispatchLoop loop(Kueue(KueueDispatcherKind::kComposable, 2), Clusters({"a", "b", "c"}), {}, in_,
                    world_);
  const uint32_t id = loop.AddWork(Work(), 0);
  Drain(loop, 0);
  EXPECT_EQ(world_.copies, (std::set<std::pair<uint32_t, uint32_t>>{{0, 0}, {0, 1}}));
  EXPECT_EQ(loop.item(id).phase, WorkPhase::kPending);
  loop.OnAdmitted(id, 1, 5 * kS);
  EXPECT_EQ(world_.copies, (std::set<std::pair<uint32_t, uint32_t>>{{0, 1}}));
  EXPECT_EQ(loop.item(id).phase, WorkPhase::kReady);
  // A late admission of the withdrawn copy changes nothing.
  loop.OnAdmitted(id, 0, 6 * kS);
  EXPECT_EQ(world_.copies, (std::set<std::pair<uint32_t, uint32_t>>{{0, 1}}));
}

// AllAtOnce: every connected worker, by name.
TEST_F(DispatchLoopTest, AllAtOnceNominatesEveryConnectedWorker) {
  std::vector<api::Cluster> cs = Clusters({"c", "a", "b"});
  cs[2].active = false;
  DispatchLoop loop(Kueue(KueueDispatcherKind::kAllAtOnce), cs, {}, in_, world_);
  loop.AddWork(Work(), 0);
  Drain(loop, 0);
  ASSERT_FALSE(world_.records.empty());
  EXPECT_EQ(world_.records[0].clusters, (std::vector<uint32_t>{1, 0}));
}

// Incremental: rounds of 5 minutes, each appending the next step of workers in config order.
TEST_F(DispatchLoopTest, IncrementalRoundsAppendTheNextBatch) {
  DispatchLoopConfig cfg = Kueue(KueueDispatcherKind::kIncremental);
  cfg.step_size = 2;
  DispatchLoop loop(cfg, Clusters({"e", "d", "c", "b", "a"}), {}, in_, world_);
  const uint32_t id = loop.AddWork(Work(), 0);
  Drain(loop, 0);
  EXPECT_EQ(loop.item(id).nominated, (std::vector<uint32_t>{0, 1}));
  EXPECT_EQ(loop.NextTimerDeadline(0), 300 * kS);
  loop.FireTimers(300 * kS);
  EXPECT_EQ(loop.item(id).nominated, (std::vector<uint32_t>{0, 1, 2, 3}));
  loop.OnAdmitted(id, 2, 320 * kS);
  EXPECT_EQ(world_.copies, (std::set<std::pair<uint32_t, uint32_t>>{{0, 2}}));
}

// kueue TestIncrementalDispatcherNominateWorkers (getNextNominatedWorkers): remotes in config
// order, prior nominations, step size and the RespectConfigOrder gate. The round timing rows
// ("round in progress, keep current") are IncrementalRoundsAppendTheNextBatch above; "config gate
// disabled — ignores stepSize=10" has no counterpart (Corral has no
// MultiKueueIncrementalDispatcher- Config gate: the step size is always honoured).
TEST(NextNominatedWorkersTest, KueueTable) {
  struct Case {
    std::string name;
    std::string remote;     // one letter per cluster, config order
    std::string nominated;  // prior nomination
    int32_t step;
    bool ordering_off;
    std::string want;  // the new batch (empty: ErrNoMoreWorkers)
  };
  const Case cases[] = {
      {"one remote", "A", "", 3, false, "A"},
      {"two remotes", "BA", "", 3, false, "BA"},
      {"three remotes", "CBA", "", 3, false, "CBA"},
      {"fifteen remotes", "ONMLKJIHGFEDCBA", "", 3, false, "ONM"},
      {"all already nominated (3)", "CBA", "CBA", 3, false, ""},
      {"all already nominated (1)", "A", "A", 3, false, ""},
      {"round expired, next set nominated", "FEDCBA", "FED", 3, false, "CBA"},
      {"round expired, nominate all", "HGFEDCBA", "HGFEDC", 3, false, "BA"},
      {"no remotes", "", "", 3, false, ""},
      {"stepSize=2, five remotes — first batch is exactly 2", "EDCBA", "", 2, false, "ED"},
      {"stepSize=2, round expired — second batch is next 2", "EDCBA", "ED", 2, false, "CB"},
      {"ordering gate off: three remotes nominated alphabetically", "CBA", "", 3, true, "ABC"},
      {"ordering gate off: first batch of fifteen is alphabetical", "ONMLKJIHGFEDCBA", "", 3, true,
       "ABC"},
      {"ordering gate off: prior nomination retained, remainder alphabetical", "FEDCBA", "FED", 3,
       true, "ABC"},
      {"ordering gate off: stepSize=2 first batch is alphabetical", "EDCBA", "", 2, true, "AB"},
  };
  for (const Case& c : cases) {
    // Cluster ids are the letters' codes; names are the letters.
    std::vector<uint32_t> remote, nominated;
    for (char ch : c.remote) remote.push_back(static_cast<uint32_t>(ch));
    for (char ch : c.nominated) nominated.push_back(static_cast<uint32_t>(ch));
    std::vector<std::string> names(128);
    for (int ch = 'A'; ch <= 'Z'; ++ch) names[ch] = std::string(1, static_cast<char>(ch));
    std::vector<uint32_t> got =
        NextNominatedWorkers(remote, nominated, c.step, !c.ordering_off,
                             [&](uint32_t id) { return std::string_view(names[id]); });
    std::string s;
    for (uint32_t id : got) s += static_cast<char>(id);
    EXPECT_EQ(s, c.want) << c.name;
  }
}

// workerLostTimeout: an admitted copy on a member unreachable that long is given up and retried
// elsewhere; the loss shows in the dispatcher's view only at the next status refresh.
TEST_F(DispatchLoopTest, WorkerLostRetriesAfterTheTimeout) {
  DispatchLoopConfig cfg = Kueue();
  cfg.worker_lost_timeout_ns = 120 * kS;
  std::vector<api::Cluster> cs = Clusters({"a", "b"});
  DispatchLoop loop(cfg, cs, {}, in_, world_);
  const uint32_t id = loop.AddWork(Work(api::DispatchMode::kMustBeAdmitted), 0);
  Drain(loop, 0);
  loop.OnAdmitted(id, 0, 1 * kS);
  loop.SetReachable(0, false, 10 * kS);
  EXPECT_TRUE(loop.clusters()[0].active);  // stale until the refresh
  loop.RefreshClusters(cs, 20 * kS);
  EXPECT_FALSE(loop.clusters()[0].active);
  EXPECT_EQ(loop.NextTimerDeadline(20 * kS), 130 * kS);
  loop.FireTimers(130 * kS);
  EXPECT_EQ(loop.item(id).last_error, "Admitting remote lost");
  Drain(loop, 130 * kS);
  EXPECT_EQ(world_.copies, (std::set<std::pair<uint32_t, uint32_t>>{{0, 1}}));
}

// Karmada: a divided binding's copies follow the assignment; a lost cluster is failed over.
TEST_F(DispatchLoopTest, KarmadaDividesAndFailsOver) {
  DispatchLoopConfig cfg;
  cfg.kind = FleetKind::kKarmada;
  cfg.worker_lost_timeout_ns = 60 * kS;
  std::vector<api::Cluster> cs = Clusters({"a", "b"});
  for (api::Cluster& c : cs) c.source_kind = api::ClusterSourceKind::kKarmadaCluster;
  GeneralEstimator general(in_);
  DispatchLoop loop(cfg, cs, {&general}, in_, world_);
  api::FleetWork w = Work();
  w.source_kind = api::FleetWorkSourceKind::kResourceBinding;
  w.replicas = 4;
  w.placement.replica_scheduling.emplace();
  w.placement.replica_scheduling->type = api::ReplicaSchedulingType::kDivided;
  w.placement.replica_scheduling->division_preference = api::ReplicaDivisionPreference::kWeighted;
  const uint32_t id = loop.AddWork(w, 0);
  Drain(loop, 0);
  EXPECT_EQ(world_.log, (std::vector<std::string>{"create 0@0 x2", "create 0@1 x2"}));
  EXPECT_EQ(loop.item(id).phase, WorkPhase::kReady);
  loop.SetReachable(1, false, 5 * kS);
  loop.RefreshClusters(cs, 10 * kS);
  loop.FireTimers(65 * kS);
  Drain(loop, 65 * kS);
  EXPECT_EQ(world_.copies, (std::set<std::pair<uint32_t, uint32_t>>{{0, 0}}));
  EXPECT_EQ(world_.log.back(), "create 0@0 x4");
  EXPECT_EQ(loop.item(id).retries, 1);
}

// No feasible cluster: the unschedulable pool, moved back when a cluster becomes healthy.
TEST_F(DispatchLoopTest, UnschedulableWaitsForAClusterEvent) {
  std::vector<api::Cluster> cs = Clusters({"a"});
  cs[0].active = false;
  DispatchLoop loop(Kueue(), cs, {}, in_, world_);
  const uint32_t id = loop.AddWork(Work(), 0);
  Drain(loop, 0);
  EXPECT_EQ(loop.queue().state(id), QueueState::kUnschedulable);
  EXPECT_EQ(loop.item(id).last_error, "0/1 clusters are available: 1 cluster(s) were not active.");
  cs[0].active = true;
  loop.RefreshClusters(cs, 10 * kS);
  EXPECT_EQ(loop.queue().state(id), QueueState::kActive);
  Drain(loop, 10 * kS);
  EXPECT_EQ(loop.item(id).phase, WorkPhase::kReady);
}

}  // namespace
}  // namespace corral::fleet
