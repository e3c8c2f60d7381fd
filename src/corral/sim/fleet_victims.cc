#include "corral/sim/fleet_victims.h"

#include <algorithm>
#include <array>
#include <limits>
#include <vector>

#include <fmt/format.h>

#include "corral/api/selectors.h"
#include "corral/sim/member.h"
#include "corral/sim/pods.h"
#include "corral/sim/world.h"

namespace corral::sim {

namespace {

int64_t Value(const api::Quantity& q, bool milli) {
  return milli ? q.MilliValue() : q.Value();
}

// Whether the template's pods may land on the node (filters other than resources).
bool Admits(const api::Pod& pod, const api::Node& node, const Interner& in) {
  if (node.unschedulable) return false;
  for (const api::Taint& t : node.taints) {
    if (!api::kDoNotScheduleTaints.Contains(t.effect)) continue;
    if (!api::TolerationsTolerateTaint(pod.tolerations, t)) return false;
  }
  for (const auto& [k, v] : pod.node_selector.items()) {
    const Symbol* have = node.meta.labels.Find(k);
    if (have == nullptr || *have != v) return false;
  }
  if (pod.affinity && pod.affinity->node_affinity && pod.affinity->node_affinity->required) {
    if (!api::MatchesNodeSelector(*pod.affinity->node_affinity->required, node.meta.labels,
                                  node.meta.name, in)) {
      return false;
    }
  }
  return true;
}

}  // namespace

SimVictimSimulator::SimVictimSimulator(
    World& w, std::function<uint32_t(const api::FleetWork*, uint32_t)> group_of)
    : w_(w), group_of_(std::move(group_of)) {
  for (uint32_t i = 0; i < w_.spec.clusters.size(); ++i) {
    member_of_.emplace(w_.in.Intern(w_.spec.clusters[i].name), i);
  }
}

uint32_t SimVictimSimulator::MemberOf(const api::Cluster& cluster) const {
  auto it = member_of_.find(cluster.meta.name);
  if (it == member_of_.end() || it->second >= w_.members.size()) return kNone;
  return it->second;
}

bool SimVictimSimulator::Simulates(const api::Cluster& cluster,
                                   std::span<const api::FleetWork* const>) const {
  return MemberOf(cluster) != kNone;
}

Result<bool> SimVictimSimulator::FitsWithout(const api::Cluster& cluster,
                                             const api::FleetWork& preemptor, int32_t replicas,
                                             std::span<const api::FleetWork* const> removed) const {
  const uint32_t m = MemberOf(cluster);
  if (m == kNone) {
    return Error::Internal(fmt::format("cluster {:?} is not a member of the simulation",
                                       w_.in.Str(cluster.meta.name)));
  }
  ++trials_;
  const Member& member = *w_.members[m];
  const size_t nr = w_.tracked.size();
  // The preemptor's request per replica, in the tracked units.
  std::array<int64_t, kMaxTracked> need{};
  if (preemptor.replica_requirements) {
    for (const auto& [sym, q] : preemptor.replica_requirements->resource_request) {
      size_t r = 0;
      while (r < nr && w_.tracked[r].sym != sym) ++r;
      if (r == nr) {
        if (q.MilliValue() == 0) continue;
        return Error::Invalid(fmt::format(
            "the preemptor requests {}, which the simulation does not track", w_.in.Str(sym)));
      }
      need[r] = Value(q, w_.tracked[r].milli);
    }
  }
  if (w_.pods_res < nr) need[w_.pods_res] = 1;
  // The pods that leave in the trial: every pod of the removed work items' copies here.
  std::vector<uint32_t> gone_groups;
  for (const api::FleetWork* b : removed) {
    const uint32_t g = group_of_(b, m);
    if (g != kNone) gone_groups.push_back(g);
  }
  std::vector<std::array<int64_t, kMaxTracked>> freed(member.node_slots());
  for (uint32_t g : gone_groups) {
    for (uint32_t slot : w_.pods->group(g).members) {
      const PodSlot& p = w_.pods->Pod(slot);
      if (p.node == kNone) continue;
      for (size_t r = 0; r < nr; ++r) freed[p.node][r] += p.req[r];
    }
  }
  const api::Pod* tmpl =
      preemptor.replica_requirements ? preemptor.replica_requirements->pod_template.get() : nullptr;
  int64_t copies = 0;
  for (uint32_t i = 0; i < member.node_slots() && copies < replicas; ++i) {
    const NodeSlot& n = member.node(i);
    if (!n.alive) continue;
    if (tmpl != nullptr && !Admits(*tmpl, n.node, w_.in)) continue;
    int64_t here = std::numeric_limits<int64_t>::max();
    for (size_t r = 0; r < nr; ++r) {
      if (need[r] <= 0) continue;
      const int64_t free = n.alloc[r] - n.req[r] + freed[i][r];
      here = std::min(here, std::max<int64_t>(free, 0) / need[r]);
    }
    if (here == std::numeric_limits<int64_t>::max()) here = replicas;
    copies += here;
  }
  return copies >= replicas;
}

}  // namespace corral::sim
