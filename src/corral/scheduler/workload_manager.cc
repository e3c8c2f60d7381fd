#include "corral/scheduler/workload_manager.h"

#include <algorithm>

#include <fmt/format.h>

namespace corral::scheduler {

void WorkloadManager::SetObjects(const api::ObjectSet* objects) {
  workloads_.clear();
  pod_groups_.clear();
  composites_.clear();
  children_.clear();
  has_all_mode_ = false;
  if (objects == nullptr) return;
  IndexComposites(*objects);
  for (const auto& w : objects->workloads) workloads_[{w.meta.namespace_, w.meta.name}] = &w;
  for (const auto& g : objects->pod_groups) {
    pod_groups_[{g.meta.namespace_, g.meta.name}] = &g;
    has_all_mode_ = has_all_mode_ || g.disruption_mode == api::DisruptionMode::kAll;
  }
}

const api::Workload* WorkloadManager::GetWorkload(Symbol ns, Symbol name) const {
  auto it = workloads_.find(std::make_pair(ns, name));
  return it == workloads_.end() ? nullptr : it->second;
}

const api::PodGroup* WorkloadManager::GetPodGroup(Symbol ns, Symbol name) const {
  auto it = pod_groups_.find(std::make_pair(ns, name));
  return it == pod_groups_.end() ? nullptr : it->second;
}

framework::PodGroupState* WorkloadManager::Get(const framework::PodGroupKey& key) {
  auto it = by_key_.find(key);
  return it == by_key_.end() ? nullptr : it->second;
}

framework::PodGroupState* WorkloadManager::GroupOf(const framework::PodInfo& pod) {
  auto key = framework::PodGroupKeyOf(*pod.pod);
  return key.has_value() ? Get(*key) : nullptr;
}

framework::PodGroupState& WorkloadManager::GetOrCreate(const framework::PodGroupKey& key,
                                                       Symbol scheduler_name) {
  framework::PodGroupState*& g = by_key_[key];
  if (g == nullptr) {
    groups_.push_back(std::make_unique<framework::PodGroupState>());
    g = groups_.back().get();
    g->key = key;
    g->scheduler_name = scheduler_name;
  }
  if (g->scheduler_name != scheduler_name) g->mixed_scheduler_names = true;
  return *g;
}

framework::PodGroupState* WorkloadManager::AddPod(const framework::PodInfo* pod, bool bound) {
  auto key = framework::PodGroupKeyOf(*pod->pod);
  if (!key.has_value()) return nullptr;
  framework::PodGroupState& g = GetOrCreate(*key, pod->pod->scheduler_name);
  g.all.push_back(pod);
  if (bound) g.assigned.insert(pod);
  return &g;
}

void WorkloadManager::NoteForeignMember(const framework::PodGroupKey& key, Symbol scheduler_name) {
  GetOrCreate(key, scheduler_name);
}

void WorkloadManager::DeletePod(const framework::PodInfo* pod) {
  framework::PodGroupState* g = GroupOf(*pod);
  if (g == nullptr) return;
  g->all.erase(std::remove(g->all.begin(), g->all.end(), pod), g->all.end());
  g->assumed.erase(pod);
  g->assigned.erase(pod);
}

void WorkloadManager::MarkBound(const framework::PodInfo* pod) {
  framework::PodGroupState* g = GroupOf(*pod);
  if (g == nullptr) return;
  g->assumed.erase(pod);
  g->assigned.insert(pod);
}

std::string WorkloadManager::KeyString(const Interner& in, const framework::PodGroupKey& key) {
  if (!key.legacy) return fmt::format("{}/{}", in.Str(key.namespace_), in.Str(key.pod_group));
  std::string s =
      fmt::format("{}/{}/{}", in.Str(key.namespace_), in.Str(key.workload), in.Str(key.pod_group));
  if (!key.replica_key.empty()) s += fmt::format("/{}", in.Str(key.replica_key));
  return s;
}

}  // namespace corral::scheduler
