// Properties of summary-based victim selection (SelectVictims) over random candidates:
//   - no victim has a priority at or above its preemptor's;
//   - the victim set is minimal: it covers the deficit, and without any one victim the remaining
//     freed requests no longer cover it (the preemptor stays unplaceable on that cluster by
//     the summary);
//   - infeasible exactly when all eligible candidates together do not cover the deficit.
#include <algorithm>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include "corral/api/well_known.h"
#include "corral/fleet/preemption.h"

namespace corral::fleet {
namespace {

// Freed milli-cpu and GPUs of a set of victims.
struct Freed {
  int64_t cpu = 0;
  int64_t gpu = 0;
};

RC_GTEST_PROP(PreemptionProperty, VictimsAreLowerPriorityAndMinimal, ()) {
  Interner in = api::NewInterner();
  const Symbol gpu = in.Intern("nvidia.com/gpu");
  const int32_t preemptor_priority = *rc::gen::inRange(0, 10);
  const int32_t replicas = *rc::gen::inRange(1, 8);
  const int64_t req_cpu = *rc::gen::element<int64_t>(0, 250, 1000, 2000);
  const int64_t req_gpu = *rc::gen::inRange<int64_t>(req_cpu == 0 ? 1 : 0, 3);
  const int64_t available = *rc::gen::inRange<int64_t>(0, replicas + 1);
  api::ResourceList preq;
  if (req_cpu > 0) preq.push_back({api::wk::kCpu, api::Quantity::FromMilli(req_cpu)});
  if (req_gpu > 0) preq.push_back({gpu, api::Quantity::FromInt(req_gpu)});

  const int n = *rc::gen::inRange(0, 9);
  std::vector<VictimCandidate> candidates;
  std::vector<Freed> per;
  for (int i = 0; i < n; ++i) {
    VictimCandidate c;
    c.name = "default/c" + std::to_string(i);
    c.priority = *rc::gen::inRange(0, 12);
    c.created = TimePoint{} + std::chrono::seconds(*rc::gen::inRange(0, 4));
    c.replicas = *rc::gen::inRange(0, 4);
    const int64_t cpu = *rc::gen::element<int64_t>(0, 500, 1000, 3000);
    const int64_t g = *rc::gen::inRange<int64_t>(0, 3);
    if (cpu > 0) c.request.push_back({api::wk::kCpu, api::Quantity::FromMilli(cpu)});
    if (g > 0) c.request.push_back({gpu, api::Quantity::FromInt(g)});
    candidates.push_back(c);
  }
  auto freed_by = [&](const std::string& name) {
    for (const VictimCandidate& c : candidates) {
      if (c.name != name) continue;
      Freed f;
      for (const auto& [r, q] : c.request) {
        (r == gpu ? f.gpu : f.cpu) += q.MilliValue() * c.replicas;
      }
      return f;
    }
    RC_FAIL("victim not among the candidates");
  };
  const int64_t deficit = replicas - available;
  auto covers = [&](Freed f) {
    return f.cpu >= req_cpu * deficit && f.gpu >= req_gpu * 1000 * deficit;
  };

  auto got = SelectVictims(preq, replicas, preemptor_priority, candidates, available);
  // Everything eligible together.
  Freed all;
  for (const VictimCandidate& c : candidates) {
    if (c.priority >= preemptor_priority || c.replicas <= 0 || c.request.empty()) continue;
    Freed f = freed_by(c.name);
    all.cpu += f.cpu;
    all.gpu += f.gpu;
  }
  if (deficit <= 0) {
    RC_ASSERT(got.ok());
    RC_ASSERT(got->empty());
    return;
  }
  RC_ASSERT(got.ok() == covers(all));
  if (!got.ok()) return;
  Freed sum;
  for (const Victim& v : *got) {
    RC_ASSERT(v.priority < preemptor_priority);
    Freed f = freed_by(v.name);
    sum.cpu += f.cpu;
    sum.gpu += f.gpu;
  }
  RC_ASSERT(covers(sum));
  for (const Victim& v : *got) {
    Freed f = freed_by(v.name);
    RC_ASSERT(!covers({sum.cpu - f.cpu, sum.gpu - f.gpu}));
  }
}

}  // namespace
}  // namespace corral::fleet
