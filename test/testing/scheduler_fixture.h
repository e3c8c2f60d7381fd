#pragma once
// A whole scheduler over a TestWorld, for integration tests of preemption (pod and workload-aware):
// the cluster (nodes_, running_ pods, objects_) is declared first, then Build() makes the scheduler
// once, with the default profile and percentageOfNodesToScore 100, and records what it schedules
// and preempts in rec_.

#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "corral/api/types.h"
#include "corral/api/well_known.h"
#include "corral/core/clock.h"
#include "corral/plugins/registry.h"
#include "corral/scheduler/scheduler.h"

#include "test/testing/builders.h"

namespace corral::testing {

// Bindings (pod → node, as last bound) and preemptions, in the order the scheduler reports them.
class PreemptionRecorder : public scheduler::SchedulerObserver {
 public:
  void OnScheduled(const api::Pod& pod, Symbol node, std::string_view) override {
    bound[&pod] = node;
  }
  void OnPreempted(const scheduler::PreemptionRecord& p) override { preemptions.push_back(p); }
  std::map<const api::Pod*, Symbol> bound;
  std::vector<scheduler::PreemptionRecord> preemptions;
};

class SchedulerFixture : public ::testing::Test {
 public:
  // Makes the scheduler (first call only) with rec_ as its observer and objects_ as its cluster
  // objects, adds nodes_, and, with `add_running`, the running_ pods.
  scheduler::Scheduler& Build(bool delete_victims_immediately, bool add_running) {
    if (!sched_) {
      scheduler::Scheduler::Options opts;
      opts.config.percentage_of_nodes_to_score = 100;
      opts.config.profiles.emplace_back();
      opts.delete_victims_immediately = delete_victims_immediately;
      auto registry = plugins::NewInTreeRegistry();
      auto s = scheduler::Scheduler::New(w_.in, clock_, std::move(opts), registry);
      EXPECT_TRUE(s.ok()) << s.error().message;
      sched_ = std::move(s).value();
      sched_->set_observer(&rec_);
      sched_->SetClusterObjects(&objects_);
      for (api::Node* n : nodes_) sched_->AddNode(n);
      if (add_running) {
        for (api::Pod* p : running_) sched_->AddPod(p);
      }
    }
    return *sched_;
  }
  // A PodDisruptionBudget "db" in the default namespace over the pods labelled app=db.
  void DbPdb(int32_t min_available) {
    api::PodDisruptionBudget& pdb = objects_.pod_disruption_budgets.emplace_back();
    pdb.meta.name = w_.S("db");
    pdb.meta.namespace_ = api::wk::kDefaultNamespace;
    pdb.selector = w_.Sel().Label("app", "db").Obj();
    pdb.min_available = api::IntOrPercent{min_available, false};
  }
  // The unschedulable message of a pending pod, or "<not pending>" (needs the scheduler built).
  std::string PendingMessage(const api::Pod* pod) {
    for (const auto& [p, m] : sched_->PendingPods()) {
      if (p == pod) return m;
    }
    return "<not pending>";
  }

  TestWorld w_;
  ManualClock clock_;
  api::ObjectSet objects_;
  PreemptionRecorder rec_;
  std::unique_ptr<scheduler::Scheduler> sched_;
  std::vector<api::Node*> nodes_;
  std::vector<api::Pod*> running_;
};

}  // namespace corral::testing
