// Opportunistic batching (batch.h) through the Scheduler: each GetNodeHint check and flush reason,
// the rescoring steps in order, and the metrics.

#include "corral/scheduler/batch.h"

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "corral/api/types.h"
#include "corral/api/well_known.h"
#include "corral/plugins/registry.h"
#include "corral/scheduler/scheduler.h"

namespace corral::scheduler {
namespace {

// A Score plugin that can be told to fail at PreScore, Score (on rescoring) or NormalizeScore.
struct Faults {
  bool prescore = false;
  bool score = false;
  bool normalize = false;
};
Faults g_faults;

class FaultPlugin final : public framework::PreScorePlugin,
                          public framework::ScorePlugin,
                          public framework::ScoreExtensions,
                          public framework::SignPlugin {
 public:
  std::string_view Name() const override { return "Fault"; }
  framework::Status PreScore(framework::CycleState&, size_t, const framework::PodInfo&,
                             std::span<const framework::NodeInfo* const>) override {
    return g_faults.prescore ? framework::Status::Error("prescore fault") : framework::Status();
  }
  framework::Status Score(const framework::CycleState&, size_t, const framework::PodInfo&,
                          const framework::NodeInfo&, int64_t* score) const override {
    *score = 1;
    return g_faults.score ? framework::Status::Error("score fault") : framework::Status();
  }
  const framework::ScoreExtensions* ScoreExtensions() const override { return this; }
  framework::Status NormalizeScore(const framework::CycleState&, size_t, const framework::PodInfo&,
                                   std::span<framework::NodeScore>) const override {
    return g_faults.normalize ? framework::Status::Error("normalize fault") : framework::Status();
  }
  framework::Status Sign(const framework::PodInfo&,
                         std::vector<framework::SignFragment>*) const override {
    return {};
  }
};

class Env {
 public:
  explicit Env(int num_nodes, bool fault_plugin = false, int cpu_per_node = 4000,
               std::vector<std::pair<std::string, bool>> gates = {},
               std::vector<int> zone_of = {}) {
    zone_of_ = std::move(zone_of);
    g_faults = {};
    registry_ = plugins::NewInTreeRegistry();
    Scheduler::Options opts;
    for (const auto& [name, on] : gates) EXPECT_TRUE(opts.gates.Set(name, on).ok()) << name;
    opts.config.percentage_of_nodes_to_score = 100;
    framework::ProfileConfig a;
    a.scheduler_name = "a";
    if (fault_plugin) {
      EXPECT_TRUE(registry_
                      .Register("Fault",
                                [](const framework::PluginArgs*, framework::Handle&)
                                    -> Result<std::unique_ptr<framework::Plugin>> {
                                  return std::unique_ptr<framework::Plugin>(
                                      std::make_unique<FaultPlugin>());
                                })
                      .ok());
      a.plugins.multi_point.enabled.push_back({"Fault", 1});
    }
    framework::ProfileConfig b;
    b.scheduler_name = "b";
    opts.config.profiles = {a, b};
    auto s = Scheduler::New(in_, clock_, std::move(opts), registry_);
    EXPECT_TRUE(s.ok()) << (s.ok() ? "" : s.error().message);
    s_ = std::move(s).value();
    nodes_.reserve(64);
    pods_.reserve(256);
    for (int i = 0; i < num_nodes; ++i) AddNode(cpu_per_node);
  }

  Scheduler& s() { return *s_; }
  ManualClock& clock() { return clock_; }
  Interner& in() { return in_; }

  Symbol AddNode(int cpu_milli) {
    api::Node& n = nodes_.emplace_back();
    n.meta.name = in_.Intern("node-" + std::to_string(nodes_.size() - 1));
    n.meta.labels.Set(api::wk::kHostnameLabel, n.meta.name);
    if (nodes_.size() <= zone_of_.size()) {
      n.meta.labels.Set(api::wk::kZoneLabel,
                        in_.Intern("zone-" + std::to_string(zone_of_[nodes_.size() - 1])));
    }
    n.capacity = {{api::wk::kCpu, api::Quantity::FromMilli(cpu_milli)},
                  {api::wk::kMemory, api::Quantity::FromInt(int64_t{32} << 30)},
                  {api::wk::kPods, api::Quantity::FromInt(110)}};
    std::sort(n.capacity.begin(), n.capacity.end(),
              [](auto& x, auto& y) { return x.first < y.first; });
    n.allocatable = n.capacity;
    s_->AddNode(&n);
    return n.meta.name;
  }

  // Schedules one pod now; returns its node (empty if unschedulable).
  Symbol Schedule(int cpu_milli, std::string_view profile = "a", bool anti_affinity = false,
                  std::string_view nominated = "") {
    api::Pod& p = pods_.emplace_back();
    p.meta.name = in_.Intern("pod-" + std::to_string(pods_.size()));
    p.meta.namespace_ = api::wk::kDefaultNamespace;
    p.scheduler_name = in_.Intern(profile);
    p.meta.labels.Set(in_.Intern("app"), in_.Intern("x"));
    if (!nominated.empty()) p.nominated_node_name = in_.Intern(nominated);
    api::Container c;
    c.name = in_.Intern("c");
    c.resources.requests = {{api::wk::kCpu, api::Quantity::FromMilli(cpu_milli)}};
    p.containers.push_back(std::move(c));
    if (anti_affinity) {
      api::PodAffinityTerm t;
      t.label_selector.emplace().match_labels.Set(in_.Intern("app"), in_.Intern("other"));
      t.topology_key = api::wk::kHostnameLabel;
      p.affinity.emplace().pod_anti_affinity.emplace().required.push_back(std::move(t));
    }
    struct Obs : SchedulerObserver {
      Symbol node;
      void OnScheduled(const api::Pod&, Symbol n, std::string_view) override { node = n; }
    } obs;
    s_->set_observer(&obs);
    EXPECT_TRUE(s_->AddPod(&p));
    EXPECT_TRUE(s_->ScheduleOne());
    s_->set_observer(nullptr);
    return obs.node;
  }

  // Cross-node scoring pods: 500m, labelled app=x, with a preferred anti-affinity to app=x by
  // hostname (kAntiAffinity) or a ScheduleAnyway spread of app=x by hostname (kSpread).
  enum class Cross { kAntiAffinity, kSpread, kZoneSpread };
  Symbol ScheduleCross(Cross kind) {
    api::Pod& p = pods_.emplace_back();
    p.meta.name = in_.Intern("pod-" + std::to_string(pods_.size()));
    p.meta.namespace_ = api::wk::kDefaultNamespace;
    p.scheduler_name = in_.Intern("a");
    p.meta.labels.Set(in_.Intern("app"), in_.Intern("x"));
    api::Container c;
    c.name = in_.Intern("c");
    c.resources.requests = {{api::wk::kCpu, api::Quantity::FromMilli(500)}};
    p.containers.push_back(std::move(c));
    api::LabelSelector own;
    own.match_labels.Set(in_.Intern("app"), in_.Intern("x"));
    if (kind == Cross::kAntiAffinity) {
      api::WeightedPodAffinityTerm t;
      t.weight = 50;
      t.pod_affinity_term.label_selector = own;
      t.pod_affinity_term.topology_key = api::wk::kHostnameLabel;
      p.affinity.emplace().pod_anti_affinity.emplace().preferred.push_back(std::move(t));
    } else {
      api::TopologySpreadConstraint t;
      t.max_skew = 1;
      t.topology_key = kind == Cross::kZoneSpread ? api::wk::kZoneLabel : api::wk::kHostnameLabel;
      t.when_unsatisfiable = api::WhenUnsatisfiable::kScheduleAnyway;
      t.label_selector = own;
      p.topology_spread_constraints.push_back(std::move(t));
    }
    struct Obs : SchedulerObserver {
      Symbol node;
      void OnScheduled(const api::Pod&, Symbol n, std::string_view) override { node = n; }
    } obs;
    s_->set_observer(&obs);
    EXPECT_TRUE(s_->AddPod(&p));
    EXPECT_TRUE(s_->ScheduleOne());
    s_->set_observer(nullptr);
    return obs.node;
  }

  const api::Pod& AddBound(Symbol node, int cpu_milli) {
    api::Pod& p = pods_.emplace_back();
    p.meta.name = in_.Intern("bound-" + std::to_string(pods_.size()));
    p.meta.namespace_ = api::wk::kDefaultNamespace;
    p.node_name = node;
    api::Container c;
    c.name = in_.Intern("c");
    c.resources.requests = {{api::wk::kCpu, api::Quantity::FromMilli(cpu_milli)}};
    p.containers.push_back(std::move(c));
    s_->AddPod(&p);
    return p;
  }

  double Flushed(std::string_view reason) const {
    return s_->metrics().CounterSum("scheduler_batch_cache_flushed_total",
                                    {{"reason", std::string(reason)}});
  }
  double Attempts(std::string_view result) const {
    return s_->metrics().CounterSum("scheduler_batch_attempts_total",
                                    {{"result", std::string(result)}});
  }
  const OpportunisticBatch& batch() { return *s_->batch("a"); }

 private:
  Interner in_ = api::NewInterner();
  ManualClock clock_;
  framework::Registry registry_;
  std::unique_ptr<Scheduler> s_;
  std::vector<api::Node> nodes_;
  std::vector<api::Pod> pods_;
  std::vector<int> zone_of_;
};

TEST(BatchTest, OnePodPerNodeUsesHintsWithoutFlushing) {
  Env e(4);
  std::vector<Symbol> placed;
  for (int i = 0; i < 4; ++i) placed.push_back(e.Schedule(3000));
  std::sort(placed.begin(), placed.end());
  EXPECT_EQ(std::unique(placed.begin(), placed.end()), placed.end());
  EXPECT_EQ(e.Attempts("no_hint"), 1);
  EXPECT_EQ(e.Attempts("hint_used"), 3);
  EXPECT_EQ(e.s().stats().batched, 3);
  EXPECT_EQ(e.batch().batched_pods(), 3);
  EXPECT_EQ(e.s().metrics().CounterSum("scheduler_batch_cache_flushed_total"), 0);
  EXPECT_EQ(e.s().metrics().CounterSum("scheduler_batch_rescore_attempts_total"), 0);
}

TEST(BatchTest, MultiPodPerNodeRescoresTheLastChosenNodeInOrder) {
  Env e(3);
  for (int i = 0; i < 6; ++i) e.Schedule(500);
  EXPECT_EQ(e.Attempts("hint_used"), 5);
  EXPECT_EQ(e.s().metrics().CounterSum("scheduler_batch_rescore_attempts_total"), 5);
  EXPECT_EQ(e.batch().last_rescore_steps(),
            (std::vector<std::string_view>{"prescore", "score", "normalize", "sort"}));
  // LeastAllocated spreads: 2 pods per node, the list still holds the two other nodes.
  EXPECT_EQ(e.batch().size(), 2u);
}

TEST(BatchTest, PodSkippedWhenAnotherProfileScheduledInBetween) {
  Env e(4);
  e.Schedule(3000);
  e.Schedule(3000, "b");
  e.Schedule(3000);
  EXPECT_EQ(e.Flushed("pod_skipped"), 1);
}

TEST(BatchTest, PodFailedAfterAnUnschedulableCycle) {
  // The batch survives a failed cycle of a pod with the same signature (its hint failed and no node
  // fits); the next pod flushes it with pod_failed.
  Env e(3);
  Symbol first = e.Schedule(3000);
  std::vector<const api::Pod*> fillers;
  for (int i = 0; i < 3; ++i) {
    Symbol n = e.in().Intern("node-" + std::to_string(i));
    if (n != first) fillers.push_back(&e.AddBound(n, 3000));
  }
  EXPECT_TRUE(e.Schedule(3000).empty());
  EXPECT_EQ(e.Flushed("pod_failed"), 0);
  e.s().DeletePod(fillers[0]);
  e.s().RunUntilIdle();
  EXPECT_EQ(e.Flushed("pod_failed"), 1);
}

TEST(BatchTest, PodNominated) {
  Env e(4);
  e.Schedule(3000);
  e.Schedule(3000, "a", false, "node-3");
  EXPECT_EQ(e.Flushed("pod_nominated"), 1);
}

TEST(BatchTest, PodIncompatibleOnAnotherSignature) {
  Env e(4);
  e.Schedule(3000);
  e.Schedule(2000);
  EXPECT_EQ(e.Flushed("pod_incompatible"), 1);
  EXPECT_EQ(e.Attempts("no_hint"), 2);
}

TEST(BatchTest, ExpiredAfter500msOnTheInjectedClock) {
  Env e(4);
  e.Schedule(3000);
  e.clock().Advance(std::chrono::milliseconds(500));
  e.Schedule(3000);  // exactly 500 ms: still valid
  EXPECT_EQ(e.Attempts("hint_used"), 1);
  e.clock().Advance(std::chrono::milliseconds(1));
  e.Schedule(3000);
  EXPECT_EQ(e.Flushed("expired"), 1);
}

TEST(BatchTest, NodeMissingWhenTheLastChosenNodeIsRemoved) {
  Env e(4);
  Symbol n = e.Schedule(3000);
  e.s().RemoveNode(n);
  e.Schedule(3000);
  EXPECT_EQ(e.Flushed("node_missing"), 1);
}

TEST(BatchTest, EmptyListWhenOnlyOneNodeWasFeasible) {
  Env e(1);
  e.Schedule(3000);
  EXPECT_EQ(e.Flushed("empty_list"), 1);
  EXPECT_FALSE(e.batch().has_state());
}

TEST(BatchTest, PodNotBatchableForUnsignablePods) {
  Env e(4);
  e.Schedule(3000, "a", /*anti_affinity=*/true);
  EXPECT_EQ(e.Flushed("pod_not_batchable"), 1);
}

TEST(BatchTest, HintNotUsedWhenTheHintedNodeNoLongerFits) {
  Env e(2, false, 4000);
  Symbol first = e.Schedule(3000);
  // Fill the other node behind the batch's back (a bound pod).
  Symbol other =
      first == e.in().Intern("node-0") ? e.in().Intern("node-1") : e.in().Intern("node-0");
  api::Pod bound;
  bound.meta.name = e.in().Intern("bound");
  bound.meta.namespace_ = api::wk::kDefaultNamespace;
  bound.node_name = other;
  api::Container c;
  c.resources.requests = {{api::wk::kCpu, api::Quantity::FromMilli(3000)}};
  bound.containers.push_back(std::move(c));
  e.s().AddPod(&bound);
  EXPECT_TRUE(e.Schedule(3000).empty());
  EXPECT_EQ(e.Attempts("hint_not_used"), 0);  // unschedulable: nothing stored
  EXPECT_EQ(e.s().stats().batched, 0);
}

TEST(BatchTest, PreScoreErrorOnRescore) {
  Env e(3, true);
  e.Schedule(500);
  g_faults.prescore = true;
  e.Schedule(500);
  EXPECT_EQ(e.Flushed("prescore_error"), 1);
}

TEST(BatchTest, RescoreErrorOnRescore) {
  Env e(3, true);
  e.Schedule(500);
  g_faults.score = true;
  e.Schedule(500);
  EXPECT_EQ(e.Flushed("rescore_error"), 1);
}

TEST(BatchTest, NormalizeErrorOnRescore) {
  Env e(3, true);
  e.Schedule(500);
  g_faults.normalize = true;
  e.Schedule(500);
  EXPECT_EQ(e.Flushed("normalize_error"), 1);
}

TEST(BatchTest, DisabledByTheFeatureGate) {
  Interner in = api::NewInterner();
  ManualClock clock;
  Scheduler::Options opts;
  ASSERT_TRUE(opts.gates.Set("OpportunisticBatching", false).ok());
  auto registry = plugins::NewInTreeRegistry();
  auto s = Scheduler::New(in, clock, std::move(opts), registry);
  ASSERT_TRUE(s.ok());
  EXPECT_EQ((*s)->batch("default-scheduler"), nullptr);
}

TEST(BatchTest, DurationMetricsOnlyWithAWallClock) {
  Env e(4);
  for (int i = 0; i < 3; ++i) e.Schedule(3000);
  auto j = e.s().metrics().ToJson();
  EXPECT_FALSE(j.contains("scheduler_get_node_hint_duration_seconds"));
  EXPECT_TRUE(j.contains("scheduler_batch_attempts_total"));
}

}  // namespace
}  // namespace corral::scheduler

namespace corral::scheduler {
namespace {

// ---- beyond kube: the Rescore hook and incremental PreScore -------------------------------------

std::vector<Symbol> PlaceCross(Env& e, Env::Cross kind, int n) {
  std::vector<Symbol> out;
  for (int i = 0; i < n; ++i) out.push_back(e.ScheduleCross(kind));
  return out;
}

TEST(BatchTest, PreferredAntiAffinityPodsAreBatchedThroughTheRescoreHook) {
  Env e(4);
  std::vector<Symbol> on = PlaceCross(e, Env::Cross::kAntiAffinity, 8);
  EXPECT_TRUE(e.batch().cross_node());
  // The first pod matches no pod: InterPodAffinity's PreScore Skips. Once it is placed the plugin
  // scores, which the cached list cannot absorb: the second pod flushes the batch (rescore_error)
  // and starts a new one; the six pods after it are batched.
  EXPECT_EQ(e.Flushed("rescore_error"), 1);
  EXPECT_EQ(e.Attempts("hint_used"), 6);
  EXPECT_EQ(e.s().stats().batched, 6);
  EXPECT_GT(e.batch().hook_rescored_nodes(), 0);
  // The first rescore of the batch runs PreScore, the next ones update the kept state.
  EXPECT_EQ(e.batch().incremental_prescores(), 5);
  EXPECT_EQ(e.batch().last_rescore_steps(),
            (std::vector<std::string_view>{"prescore_incremental", "score", "rescore_hook",
                                           "normalize", "sort"}));
  // Anti-affinity by hostname spreads the pods: two per node, as without batching.
  Env off(4, false, 4000, {{"OpportunisticBatching", false}});
  EXPECT_EQ(on, PlaceCross(off, Env::Cross::kAntiAffinity, 8));
  std::vector<Symbol> sorted = on;
  std::sort(sorted.begin(), sorted.end());
  for (size_t i = 0; i < sorted.size(); i += 2) EXPECT_EQ(sorted[i], sorted[i + 1]);
}

TEST(BatchTest, ScheduleAnywaySpreadPodsAreBatchedThroughTheRescoreHook) {
  Env e(4);
  std::vector<Symbol> on = PlaceCross(e, Env::Cross::kSpread, 8);
  EXPECT_TRUE(e.batch().cross_node());
  EXPECT_EQ(e.Attempts("hint_used"), 7);
  Env off(4, false, 4000, {{"OpportunisticBatching", false}});
  EXPECT_EQ(on, PlaceCross(off, Env::Cross::kSpread, 8));
}

TEST(BatchTest, RescoreHookGateOffKeepsCrossNodePodsUnsignable) {
  Env e(4, false, 4000, {{"CorralBatchingRescoreHook", false}});
  PlaceCross(e, Env::Cross::kAntiAffinity, 3);
  PlaceCross(e, Env::Cross::kSpread, 3);
  EXPECT_EQ(e.Attempts("hint_used"), 0);
  EXPECT_EQ(e.Flushed("pod_not_batchable"), 6);
}

TEST(BatchTest, IncrementalPreScoreGateOffRerunsPreScore) {
  Env e(4, false, 4000, {{"CorralIncrementalPreScore", false}});
  std::vector<Symbol> on = PlaceCross(e, Env::Cross::kSpread, 6);
  EXPECT_EQ(e.Attempts("hint_used"), 5);
  EXPECT_EQ(e.batch().incremental_prescores(), 0);
  EXPECT_EQ(
      e.batch().last_rescore_steps(),
      (std::vector<std::string_view>{"prescore", "score", "rescore_hook", "normalize", "sort"}));
  Env off(4, false, 4000, {{"OpportunisticBatching", false}});
  EXPECT_EQ(on, PlaceCross(off, Env::Cross::kSpread, 6));
}

TEST(BatchTest, IncrementalPreScoreOnlyWhenNothingElseChanged) {
  // A bound pod added between two batched pods is a second cluster event: the kept PreScore state
  // may be stale, so PreScore runs from scratch.
  Env e(4);
  PlaceCross(e, Env::Cross::kAntiAffinity, 4);
  EXPECT_EQ(e.batch().last_rescore_steps().front(), "prescore_incremental");
  e.AddBound(e.in().Intern("node-0"), 100);
  e.ScheduleCross(Env::Cross::kAntiAffinity);
  EXPECT_EQ(e.batch().last_rescore_steps().front(), "prescore");
  e.ScheduleCross(Env::Cross::kAntiAffinity);
  EXPECT_EQ(e.batch().last_rescore_steps().front(), "prescore_incremental");
}

TEST(BatchTest, CrossNodeRescoreCountsAsARescoreAttempt) {
  Env e(4);
  PlaceCross(e, Env::Cross::kSpread, 4);
  EXPECT_EQ(e.s().metrics().CounterSum("scheduler_batch_rescore_attempts_total"), 3);
}

}  // namespace
}  // namespace corral::scheduler

namespace corral::scheduler {
namespace {

TEST(BatchTest, ZoneSpreadCountsFollowEveryBatchedPod) {
  // Three nodes in zone 0, one in zone 1: the zone spread sends every other pod to the lone node,
  // which LeastAllocated alone would not. Batched pods must see the zone counts of the pods batched
  // before them (incremental PreScore adds each one).
  const std::vector<int> zones = {0, 0, 0, 1};
  Env e(4, false, 8000, {}, zones);
  std::vector<Symbol> on = PlaceCross(e, Env::Cross::kZoneSpread, 10);
  EXPECT_GT(e.batch().incremental_prescores(), 0);
  EXPECT_GT(e.s().stats().batched, 0);
  Env off(4, false, 8000, {{"OpportunisticBatching", false}}, zones);
  EXPECT_EQ(on, PlaceCross(off, Env::Cross::kZoneSpread, 10));
  EXPECT_GE(std::count(on.begin(), on.end(), e.in().Intern("node-3")), 4);
}

}  // namespace
}  // namespace corral::scheduler
