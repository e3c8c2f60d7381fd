#include "corral/scheduler/nominator.h"

#include <algorithm>

namespace corral::scheduler {

namespace {
bool IsGroupMember(const framework::PodInfo* pod) {
  return pod->pod->scheduling_group.has_value() || pod->pod->workload_ref.has_value();
}
}  // namespace

void Nominator::Add(const framework::PodInfo* pod, Symbol node) {
  Delete(pod);
  if (node.empty()) return;
  node_of_[pod] = node;
  Entry(node).pods.push_back(pod);
  if (IsGroupMember(pod)) ++num_group_members_;
  Touch(node);
}

Symbol Nominator::Delete(const framework::PodInfo* pod) {
  auto it = node_of_.find(pod);
  if (it == node_of_.end()) return {};
  Symbol node = it->second;
  node_of_.erase(it);
  if (IsGroupMember(pod)) --num_group_members_;
  auto& v = Entry(node).pods;
  v.erase(std::find(v.begin(), v.end(), pod));
  Touch(node);
  return node;
}

}  // namespace corral::scheduler
