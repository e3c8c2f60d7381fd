// WorkloadManager's index of CompositePodGroup hierarchies (KEP-6012): parents, children in load
// order, roots and readiness as kube's GangScheduling HierarchyTracker counts it (PodGroups ready
// once the scheduler knows minCount of their pods, CompositePodGroups once minGroupCount of their
// children are ready), computed on demand from the group states instead of kept incrementally.

#include "corral/scheduler/workload_manager.h"

namespace corral::scheduler {

namespace {
// kube's WorkloadMaxTreeDepth: a hierarchy has at most 4 levels.
constexpr int kMaxTreeDepth = 4;
}  // namespace

void WorkloadManager::IndexComposites(const api::ObjectSet& objects) {
  for (const auto& c : objects.composite_pod_groups) {
    composites_[{c.meta.namespace_, c.meta.name}] = &c;
  }
  for (const auto& c : objects.composite_pod_groups) {
    if (c.parent_name.empty()) continue;
    if (const api::CompositePodGroup* p = GetCompositePodGroup(c.meta.namespace_, c.parent_name))
      children_[p].push_back({nullptr, &c});
  }
  for (const auto& g : objects.pod_groups) {
    if (g.parent_name.empty()) continue;
    if (const api::CompositePodGroup* p = GetCompositePodGroup(g.meta.namespace_, g.parent_name))
      children_[p].push_back({&g, nullptr});
  }
}

const api::CompositePodGroup* WorkloadManager::GetCompositePodGroup(Symbol ns, Symbol name) const {
  auto it = composites_.find(std::make_pair(ns, name));
  return it == composites_.end() ? nullptr : it->second;
}

const std::vector<WorkloadManager::CompositeChild>& WorkloadManager::ChildrenOf(
    const api::CompositePodGroup& cpg) const {
  static const std::vector<CompositeChild> kNone;
  auto it = children_.find(&cpg);
  return it == children_.end() ? kNone : it->second;
}

const api::CompositePodGroup* WorkloadManager::RootComposite(Symbol ns, Symbol name,
                                                             Symbol* root_name) const {
  Symbol current = name;
  // The PodGroup (or CompositePodGroup) below `name` is one level of the tree already.
  for (int depth = 0; depth < kMaxTreeDepth - 1; ++depth) {
    *root_name = current;
    const api::CompositePodGroup* c = GetCompositePodGroup(ns, current);
    if (c == nullptr) return nullptr;
    if (c->parent_name.empty()) return c;
    current = c->parent_name;
  }
  return nullptr;  // a cycle, or more levels than kube allows
}

bool WorkloadManager::IsReady(const CompositeChild& child) const {
  if (child.composite != nullptr) {
    return ReadyChildren(*child.composite) >= child.composite->MinGroupCount();
  }
  const api::PodGroup& g = *child.pod_group;
  const int32_t min = g.policy.kind == api::PodGroupPolicyKind::kGang ? g.policy.min_count : 1;
  auto it = by_key_.find(framework::PodGroupKey{g.meta.namespace_, Symbol(), g.meta.name, Symbol(),
                                                /*legacy=*/false});
  const size_t known = it == by_key_.end() ? 0 : it->second->all.size();
  return known >= static_cast<size_t>(min);
}

int32_t WorkloadManager::ReadyChildren(const api::CompositePodGroup& cpg) const {
  int32_t ready = 0;
  for (const CompositeChild& c : ChildrenOf(cpg)) ready += IsReady(c) ? 1 : 0;
  return ready;
}

}  // namespace corral::scheduler
