#include "corral/app/dispatch_preemption.h"

#include <algorithm>
#include <vector>

#include <fmt/format.h>

namespace corral::app {

namespace {

// The binding's permanent id, or the empty symbol.
Symbol PermanentId(const api::ObjectMeta& meta, Symbol key) {
  const Symbol* v = meta.labels.Find(key);
  return v == nullptr ? Symbol() : *v;
}

}  // namespace

bool MemberVictimSimulator::Simulates(const api::Cluster& cluster,
                                      std::span<const api::FleetWork* const> candidates) const {
  const MemberCluster* m = members_.Find(cluster.meta.name);
  if (m == nullptr) return false;
  const Symbol key = members_.interner().Intern(kPermanentIdLabel);
  for (const api::FleetWork* b : candidates) {
    const Symbol id = PermanentId(b->meta, key);
    if (id.empty()) return false;
    if (std::none_of(m->objects.pods.begin(), m->objects.pods.end(),
                     [&](const api::Pod& p) { return PermanentId(p.meta, key) == id; })) {
      return false;
    }
  }
  return true;
}

Result<bool> MemberVictimSimulator::FitsWithout(
    const api::Cluster& cluster, const api::FleetWork& preemptor, int32_t replicas,
    std::span<const api::FleetWork* const> removed) const {
  const MemberCluster* m = members_.Find(cluster.meta.name);
  if (m == nullptr) {
    return Error::Internal(fmt::format("cluster {:?} is not a member given as a folder",
                                       members_.interner().Str(cluster.meta.name)));
  }
  Interner& in = members_.interner();
  const Symbol key = in.Intern(kPermanentIdLabel);
  std::vector<Symbol> gone;
  for (const api::FleetWork* b : removed) gone.push_back(PermanentId(b->meta, key));
  api::ObjectSet copy = m->objects;
  std::erase_if(copy.pods, [&](const api::Pod& p) {
    const Symbol id = PermanentId(p.meta, key);
    return !id.empty() && std::find(gone.begin(), gone.end(), id) != gone.end();
  });
  ++trials_;
  auto s = scheduler::Scheduler::New(in, clock_, m->options, members_.registry());
  if (!s.ok()) return s.error();
  scheduler::Scheduler& sched = **s;
  sched.SetClusterObjects(&copy);
  for (const api::Node& n : copy.nodes) sched.AddNode(&n);
  for (const api::Pod& p : copy.pods) {
    if (p.IsBound()) sched.AddPod(&p);
  }
  api::ReplicaRequirements none;
  const api::ReplicaRequirements& req =
      preemptor.replica_requirements ? *preemptor.replica_requirements : none;
  api::Pod pod = ReplicaPod(req, preemptor.meta.name, copy, in);
  const scheduler::PodSetRequest sets[] = {{&pod, replicas}};
  const scheduler::MemberSource source{&in, &copy, &m->options, &members_.registry()};
  return scheduler::GangFits(sched, source, sets);
}

}  // namespace corral::app
