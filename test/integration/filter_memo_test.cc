// The failed-filter memo (CorralFilterMemo, scheduler/filter_memo.h) through the whole scheduler:
//   scenario tests  which verdicts are reused (hit) and which are recomputed (node change,
//                   nomination change, node replaced, non-local filters, gate off);
//   property        random clusters and event streams (pods of a few templates and priorities,
//                   preemption and nominations, pod deletions, nodes added, removed, cordoned and
//                   uncordoned) give identical placements, failure messages, preemptions and
//                   metrics with the gate on and off.

#include "corral/scheduler/filter_memo.h"

#include <deque>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include "corral/api/types.h"
#include "corral/api/well_known.h"
#include "corral/plugins/registry.h"
#include "corral/scheduler/scheduler.h"

#include "test/testing/builders.h"

namespace corral {
namespace {

class Recorder : public scheduler::SchedulerObserver {
 public:
  explicit Recorder(const Interner& in) : in_(in) {}
  void OnScheduled(const api::Pod& pod, Symbol node, std::string_view profile) override {
    log.push_back(fmt::format("scheduled {} {} {}", S(pod.meta.name), S(node), profile));
  }
  void OnUnschedulable(const api::Pod& pod, const std::string& message) override {
    log.push_back(fmt::format("unschedulable {} {}", S(pod.meta.name), message));
  }
  void OnPreempted(const scheduler::PreemptionRecord& p) override {
    std::string line = fmt::format("preempted by {} on {}:", S(p.preemptor->meta.name), S(p.node));
    for (const auto& v : p.victims) line += " " + std::string(S(v.pod->meta.name));
    log.push_back(std::move(line));
  }
  std::vector<std::string> log;

 private:
  std::string_view S(Symbol s) const { return in_.Str(s); }
  const Interner& in_;
};

struct World {
  Interner in = api::NewInterner();
  std::deque<api::Node> nodes;
  std::deque<api::Pod> pods;

  api::Node& NewNode(int index, int cpu_milli, int max_pods, bool unschedulable = false) {
    api::Node& n = nodes.emplace_back();
    testing::MakeCpuNode(n, in, "node-" + std::to_string(index), cpu_milli, max_pods);
    n.unschedulable = unschedulable;
    return n;
  }
  // `anti_affinity`: required pod anti-affinity to pods labelled app=x by hostname (a filter that
  // is not node-local).
  api::Pod& NewPod(std::string_view name, int cpu_milli, int priority, bool anti_affinity = false,
                   Symbol nominated = Symbol()) {
    api::Pod& p = pods.emplace_back();
    p.meta.name = in.Intern(name);
    p.meta.namespace_ = api::wk::kDefaultNamespace;
    p.meta.labels.Set(in.Intern("app"), in.Intern("x"));
    p.scheduler_name = api::wk::kDefaultScheduler;
    p.priority = priority;
    p.nominated_node_name = nominated;
    api::Container c;
    c.name = in.Intern("c");
    c.resources.requests.push_back({api::wk::kCpu, api::Quantity::FromMilli(cpu_milli)});
    p.containers.push_back(std::move(c));
    if (anti_affinity) {
      api::PodAffinityTerm term;
      term.label_selector.emplace().match_labels.Set(in.Intern("app"), in.Intern("x"));
      term.topology_key = api::wk::kHostnameLabel;
      p.affinity.emplace().pod_anti_affinity.emplace().required.push_back(std::move(term));
    }
    return p;
  }
};

std::unique_ptr<scheduler::Scheduler> NewScheduler(World& w, const Clock& clock, bool memo,
                                                   bool batching = false) {
  scheduler::Scheduler::Options opts;
  opts.gates.Set("CorralFilterMemo", memo).ok();
  opts.gates.Set("OpportunisticBatching", batching).ok();
  auto registry = plugins::NewInTreeRegistry();
  auto s = scheduler::Scheduler::New(w.in, clock, std::move(opts), registry);
  EXPECT_TRUE(s.ok());
  return std::move(s).value();
}

class FilterMemoTest : public ::testing::Test {
 protected:
  // Three 1-cpu nodes, each holding a 600m pod of priority 10: a 500m pod fits nowhere and
  // cannot preempt.
  void SetUp() override {
    s_ = NewScheduler(w_, clock_, /*memo=*/true);
    for (int i = 0; i < 3; ++i) s_->AddNode(&w_.NewNode(i, 1000, 10));
    for (int i = 0; i < 3; ++i) {
      api::Pod& p = w_.NewPod("filler-" + std::to_string(i), 600, 10);
      p.node_name = w_.in.Intern("node-" + std::to_string(i));
      s_->AddPod(&p);
    }
  }
  const scheduler::FilterMemo::Stats& stats() { return s_->filter_memo()->stats(); }
  void Schedule(api::Pod& p) {
    s_->AddPod(&p);
    s_->RunUntilIdle();
  }

  World w_;
  ManualClock clock_;
  std::unique_ptr<scheduler::Scheduler> s_;
};

TEST_F(FilterMemoTest, EquivalentPodReusesEveryVerdict) {
  Schedule(w_.NewPod("a", 500, 0));
  EXPECT_EQ(stats().hits, 0);
  EXPECT_EQ(stats().misses, 3);
  Schedule(w_.NewPod("b", 500, 0));
  EXPECT_EQ(stats().hits, 3);
  EXPECT_EQ(stats().misses, 3);
  // Another priority is another key (it selects other nominated pods): nothing shared.
  Schedule(w_.NewPod("c", 500, 1));
  EXPECT_EQ(stats().hits, 3);
  EXPECT_EQ(stats().misses, 6);
}

TEST_F(FilterMemoTest, ChangedNodeIsFilteredAgain) {
  Schedule(w_.NewPod("a", 500, 0));
  api::Pod& small = w_.NewPod("small", 100, 0);
  small.node_name = w_.in.Intern("node-1");
  s_->AddPod(&small);  // node-1's NodeInfo changes
  Schedule(w_.NewPod("b", 500, 0));
  EXPECT_EQ(stats().hits, 2);
  EXPECT_EQ(stats().misses, 4);
}

TEST_F(FilterMemoTest, ChangedNominationsAreFilteredAgain) {
  Schedule(w_.NewPod("a", 500, 0));
  // A pending pod that arrives nominated to node-2 (and fits nowhere itself) changes
  // node-2's nominations.
  Schedule(w_.NewPod("nominated", 2000, 5, false, w_.in.Intern("node-2")));
  const int64_t hits = stats().hits, misses = stats().misses;
  Schedule(w_.NewPod("b", 500, 0));
  EXPECT_EQ(stats().hits - hits, 2);
  EXPECT_EQ(stats().misses - misses, 1);
}

// Node events requeue "a" too, so these count over every pass after the change: each pass looks
// at all three nodes, and only the first pass that sees a changed node filters it again.
TEST_F(FilterMemoTest, ReplacedNodeIsFilteredAgain) {
  Schedule(w_.NewPod("a", 500, 0));
  const int64_t hits = stats().hits, misses = stats().misses;
  s_->RemoveNode(w_.in.Intern("node-0"));
  s_->AddNode(&w_.NewNode(0, 1000, 10));  // same name, fresh NodeInfo (possibly the same address)
  api::Pod& filler = w_.NewPod("filler-again", 600, 10);
  filler.node_name = w_.in.Intern("node-0");
  s_->AddPod(&filler);
  Schedule(w_.NewPod("b", 500, 0));
  EXPECT_EQ((stats().hits - hits + stats().misses - misses) % 3, 0);
  EXPECT_GE(stats().misses - misses, 1);
  EXPECT_EQ(s_->PendingPods().size(), 2u);
}

TEST_F(FilterMemoTest, CordonedNodeIsFilteredAgain) {
  Schedule(w_.NewPod("a", 500, 0));
  const int64_t hits = stats().hits, misses = stats().misses;
  s_->AddNode(&w_.NewNode(1, 1000, 10, /*unschedulable=*/true));  // update: SetNode
  Schedule(w_.NewPod("b", 500, 0));
  EXPECT_EQ(stats().misses - misses, 1);
  EXPECT_GE(stats().hits - hits, 2);
  EXPECT_EQ((stats().hits - hits + stats().misses - misses) % 3, 0);
}

// The table's previous pass is followed by more nomination changes than the nominator logs
// (LoggedNominator::kLogSize; more than a pass takes from it, too), all but the first on a node
// outside the cluster: every node's version is looked up, and node-2's change is still seen.
TEST_F(FilterMemoTest, NominationChangesBeyondTheLogAreFilteredAgain) {
  Schedule(w_.NewPod("a", 500, 0));
  Schedule(w_.NewPod("nominated", 2000, 5, false, w_.in.Intern("node-2")));
  for (size_t i = 0; i < scheduler::LoggedNominator::kLogSize + 1; ++i) {
    Schedule(w_.NewPod("ghost-" + std::to_string(i), 2000, 5, false, w_.in.Intern("ghost")));
  }
  const int64_t hits = stats().hits, misses = stats().misses;
  Schedule(w_.NewPod("b", 500, 0));
  EXPECT_EQ(stats().hits - hits, 2);
  EXPECT_EQ(stats().misses - misses, 1);
}

// A pass that finds a feasible node but rejects at least half of the nodes gets a table the second
// time its key is seen (a pod that fits at once and has no equivalent pays none), with its
// successes memoized as well; the nodes it did not reach are filtered by the next pass.
TEST(FilterMemoPartialPassTest, PassThatRejectsManyNodesGetsATable) {
  World w;
  ManualClock clock;
  scheduler::Scheduler::Options opts;
  opts.gates.Set("CorralFilterMemo", true).ok();
  opts.gates.Set("OpportunisticBatching", false).ok();
  auto registry = plugins::NewInTreeRegistry();
  auto made = scheduler::Scheduler::New(w.in, clock, std::move(opts), registry);
  ASSERT_TRUE(made.ok());
  auto s = std::move(made).value();
  // Three full nodes, then three with room for one 500m pod each; no Score plugin stops a pass
  // early, so a pass visits every node.
  for (int i = 0; i < 6; ++i) s->AddNode(&w.NewNode(i, 1000, 10));
  for (int i = 0; i < 3; ++i) {
    api::Pod& p = w.NewPod("filler-" + std::to_string(i), 600, 10);
    p.node_name = w.in.Intern("node-" + std::to_string(i));
    s->AddPod(&p);
  }
  s->AddPod(&w.NewPod("a", 500, 0));
  s->RunUntilIdle();
  const scheduler::FilterMemo::Stats& st = s->filter_memo()->stats();
  // The key's first pass: remembered, no table.
  EXPECT_EQ(s->filter_memo()->num_tables(), 0u);
  EXPECT_EQ(st.hits, 0);
  EXPECT_EQ(st.misses, 0);
  // Its second pass: a table of its six verdicts.
  s->AddPod(&w.NewPod("b", 500, 0));
  s->RunUntilIdle();
  EXPECT_EQ(s->filter_memo()->num_tables(), 1u);
  EXPECT_EQ(st.hits, 0);
  EXPECT_EQ(st.misses, 6);
  // "b" is on one of the free nodes (changed since); the other five verdicts are reused.
  s->AddPod(&w.NewPod("c", 500, 0));
  s->RunUntilIdle();
  EXPECT_EQ(st.hits, 5);
  EXPECT_EQ(st.misses, 7);
  EXPECT_EQ(s->PendingPods().size(), 0u);
}

TEST(LoggedNominatorTest, ChangedSinceListsTheChangedNodesWhileTheLogReachesBack) {
  World w;
  std::deque<framework::PodInfo> pods;
  auto pod = [&](std::string_view name) {
    framework::PodInfo& p = pods.emplace_back();
    p.pod = &w.NewPod(name, 100, 0);
    return &p;
  };
  const Symbol n1 = w.in.Intern("n1"), n2 = w.in.Intern("n2"), n3 = w.in.Intern("n3");
  scheduler::LoggedNominator nom;
  std::vector<Symbol> out;
  EXPECT_TRUE(nom.ChangedSince(0, 8, &out));
  EXPECT_TRUE(out.empty());
  const framework::PodInfo* a = pod("a");
  const framework::PodInfo* b = pod("b");
  nom.Add(a, n1);
  const uint64_t t1 = nom.clock();
  nom.Add(a, n2);  // moves: n1 and n2 change
  nom.Add(b, n3);
  EXPECT_EQ(nom.Version(n3), nom.clock());
  ASSERT_TRUE(nom.ChangedSince(t1, 8, &out));
  EXPECT_EQ(out, (std::vector<Symbol>{n3, n2, n1}));
  ASSERT_TRUE(nom.ChangedSince(nom.clock(), 8, &out));
  EXPECT_TRUE(out.empty());
  EXPECT_FALSE(nom.ChangedSince(t1, 2, &out));  // more than `max`
  nom.Unique();                                 // no node changes
  const uint64_t t2 = nom.clock();
  EXPECT_EQ(nom.Delete(b), n3);
  ASSERT_TRUE(nom.ChangedSince(t2, 8, &out));
  EXPECT_EQ(out, (std::vector<Symbol>{n3}));
  // Beyond the log's size, older points are no longer answered.
  for (size_t i = 0; i < scheduler::LoggedNominator::kLogSize; ++i) {
    nom.Add(b, i % 2 == 0 ? n1 : n2);
  }
  EXPECT_FALSE(nom.ChangedSince(t2, SIZE_MAX, &out));
  EXPECT_TRUE(nom.ChangedSince(nom.clock() - 1, 8, &out));
  EXPECT_EQ(out.size(), 1u);
}

TEST_F(FilterMemoTest, NonLocalFilterIsNeverMemoized) {
  Schedule(w_.NewPod("a", 500, 0, /*anti_affinity=*/true));
  Schedule(w_.NewPod("b", 500, 0, /*anti_affinity=*/true));
  EXPECT_EQ(stats().hits, 0);
  EXPECT_EQ(stats().misses, 0);
  EXPECT_EQ(s_->filter_memo()->num_tables(), 0u);
}

TEST(FilterMemoGateTest, OffMeansNoMemo) {
  World w;
  ManualClock clock;
  auto s = NewScheduler(w, clock, /*memo=*/false);
  EXPECT_EQ(s->filter_memo(), nullptr);
  s->AddNode(&w.NewNode(0, 1000, 10));
  s->AddPod(&w.NewPod("a", 5000, 0));
  s->RunUntilIdle();
  EXPECT_EQ(s->PendingPods().size(), 1u);
}

TEST(FilterMemoTableTest, LeastRecentlyUsedTablesAreEvictedBeyondTheBudget) {
  scheduler::FilterMemo memo(/*slot_budget=*/20);
  EXPECT_EQ(memo.Get({nullptr, "sig", 0, 0}, 10, /*create=*/false), nullptr);
  for (int i = 0; i < 5; ++i) memo.Get({nullptr, "sig", i, 0}, 10, /*create=*/true);
  EXPECT_EQ(memo.num_tables(), 2u);
  EXPECT_NE(memo.Get({nullptr, "sig", 3, 0}, 10, false), nullptr);  // among the two most recent
  EXPECT_EQ(memo.Get({nullptr, "sig", 1, 0}, 10, false), nullptr);  // evicted
  EXPECT_EQ(memo.num_tables(), 2u);
}

// ---- equivalence property ----

struct Op {
  enum Kind { kAddPod, kDeletePod, kAddNode, kRemoveNode, kCordon, kUncordon, kFlush } kind;
  int a = 0;  // template / node index / pod index
  int b = 0;
};

struct Template {
  int cpu_milli;
  int priority;
  bool anti_affinity;
};

std::vector<std::string> Run(const std::vector<std::pair<int, int>>& node_specs,
                             const std::vector<Template>& templates, const std::vector<Op>& ops,
                             bool memo, bool batching, int percentage,
                             int64_t* memo_hits = nullptr) {
  World w;
  ManualClock clock;
  scheduler::Scheduler::Options opts;
  opts.gates.Set("CorralFilterMemo", memo).ok();
  opts.gates.Set("OpportunisticBatching", batching).ok();
  if (percentage > 0) opts.config.percentage_of_nodes_to_score = percentage;
  auto registry = plugins::NewInTreeRegistry();
  auto made = scheduler::Scheduler::New(w.in, clock, std::move(opts), registry);
  RC_ASSERT(made.ok());
  auto s = std::move(made).value();
  Recorder rec(w.in);
  s->set_observer(&rec);
  std::vector<bool> present(node_specs.size() + ops.size(), false);
  for (size_t i = 0; i < node_specs.size(); ++i) {
    s->AddNode(&w.NewNode(static_cast<int>(i), node_specs[i].first, node_specs[i].second));
    present[i] = true;
  }
  int next_node = static_cast<int>(node_specs.size());
  std::vector<api::Pod*> live;
  int pod_counter = 0;
  for (const Op& op : ops) {
    switch (op.kind) {
      case Op::kAddPod: {
        const Template& t = templates[static_cast<size_t>(op.a) % templates.size()];
        api::Pod& p =
            w.NewPod("p" + std::to_string(pod_counter++), t.cpu_milli, t.priority, t.anti_affinity);
        if (s->AddPod(&p)) live.push_back(&p);
        break;
      }
      case Op::kDeletePod:
        if (!live.empty()) {
          const size_t i = static_cast<size_t>(op.a) % live.size();
          s->DeletePod(live[i]);
          live.erase(live.begin() + static_cast<std::ptrdiff_t>(i));
        }
        break;
      case Op::kAddNode: {
        const auto& spec = node_specs[static_cast<size_t>(op.a) % node_specs.size()];
        present[static_cast<size_t>(next_node)] = true;
        s->AddNode(&w.NewNode(next_node++, spec.first, spec.second));
        break;
      }
      case Op::kRemoveNode:
      case Op::kCordon:
      case Op::kUncordon: {
        const int i = op.a % next_node;
        if (!present[static_cast<size_t>(i)]) break;
        if (op.kind == Op::kRemoveNode) {
          // Pods on it are deleted first (as a node controller would).
          s->RemoveNode(w.in.Intern("node-" + std::to_string(i)));
          present[static_cast<size_t>(i)] = false;
          // Re-add at once half of the time: a replaced node (possibly at a reused address).
          if (op.b % 2 == 0) {
            const auto& spec = node_specs[static_cast<size_t>(i) % node_specs.size()];
            s->AddNode(&w.NewNode(i, spec.first, spec.second));
            present[static_cast<size_t>(i)] = true;
          }
        } else {
          const auto& spec = node_specs[static_cast<size_t>(i) % node_specs.size()];
          s->AddNode(&w.NewNode(i, spec.first, spec.second, op.kind == Op::kCordon));
        }
        break;
      }
      case Op::kFlush:
        clock.Advance(scheduler::Scheduler::kPodMaxInUnschedulablePodsDuration +
                      std::chrono::seconds(1));
        s->FlushUnschedulableLeftover();
        break;
    }
    s->RunUntilIdle();
  }
  for (const auto& [pod, msg] : s->PendingPods())
    rec.log.push_back(fmt::format("pending {} {}", w.in.Str(pod->meta.name), msg));
  const auto& st = s->stats();
  rec.log.push_back(fmt::format("stats {} {} {} {} {}", st.cycles, st.scheduled,
                                st.unschedulable_attempts, st.errors, st.batched));
  rec.log.push_back(s->metrics().PrometheusText());
  if (memo_hits != nullptr && s->filter_memo() != nullptr)
    *memo_hits = s->filter_memo()->stats().hits;
  return rec.log;
}

rc::Gen<Op> GenOp() {
  return rc::gen::weightedOneOf<Op>({
      {8, rc::gen::construct<Op>(rc::gen::just(Op::kAddPod), rc::gen::inRange(0, 100),
                                 rc::gen::just(0))},
      {4, rc::gen::construct<Op>(rc::gen::just(Op::kDeletePod), rc::gen::inRange(0, 100),
                                 rc::gen::just(0))},
      {1, rc::gen::construct<Op>(rc::gen::just(Op::kAddNode), rc::gen::inRange(0, 100),
                                 rc::gen::just(0))},
      {1, rc::gen::construct<Op>(rc::gen::just(Op::kRemoveNode), rc::gen::inRange(0, 100),
                                 rc::gen::inRange(0, 2))},
      {1, rc::gen::construct<Op>(rc::gen::just(Op::kCordon), rc::gen::inRange(0, 100),
                                 rc::gen::just(0))},
      {1, rc::gen::construct<Op>(rc::gen::just(Op::kUncordon), rc::gen::inRange(0, 100),
                                 rc::gen::just(0))},
      {1, rc::gen::construct<Op>(rc::gen::just(Op::kFlush), rc::gen::just(0), rc::gen::just(0))},
  });
}

RC_GTEST_PROP(FilterMemoProperty, GateOnEqualsGateOff, ()) {
  const auto node_specs = *rc::gen::container<std::vector<std::pair<int, int>>>(
      static_cast<size_t>(*rc::gen::inRange(1, 12)),
      rc::gen::pair(rc::gen::element(1000, 2000, 4000), rc::gen::inRange(1, 6)));
  const auto templates = *rc::gen::container<std::vector<Template>>(
      static_cast<size_t>(*rc::gen::inRange(1, 5)),
      rc::gen::construct<Template>(
          rc::gen::element(300, 700, 1500, 2500, 5000), rc::gen::inRange(0, 3),
          rc::gen::weightedOneOf<bool>({{4, rc::gen::just(false)}, {1, rc::gen::just(true)}})));
  const auto ops =
      *rc::gen::container<std::vector<Op>>(static_cast<size_t>(*rc::gen::inRange(1, 60)), GenOp());
  const bool batching = *rc::gen::arbitrary<bool>();
  const int percentage = *rc::gen::element(0, 30, 100);
  const auto off = Run(node_specs, templates, ops, /*memo=*/false, batching, percentage);
  int64_t hits = 0;
  const auto on = Run(node_specs, templates, ops, /*memo=*/true, batching, percentage, &hits);
  RC_CLASSIFY(hits > 0, "memo hits");
  RC_ASSERT(on == off);
}

}  // namespace
}  // namespace corral
