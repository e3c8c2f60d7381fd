#include "corral/plugins/node_ports/node_ports.h"

#include <optional>
#include <string>
#include <utility>

#include "corral/plugins/common/plugin_util.h"
#include "corral/plugins/common/signers.h"

namespace corral::plugins {

namespace {

constexpr std::string_view kBindAllHostIP = "0.0.0.0";

// kube's util.GetHostPorts: ports with hostPort > 0 of restartable (sidecar) init containers, then
// of containers. (Init containers that run to completion release their ports before the pod runs.)
std::vector<framework::HostPort> GetHostPorts(const api::Pod& pod) {
  std::vector<framework::HostPort> out;
  for (const auto& c : pod.init_containers) {
    if (c.restart_policy != api::ContainerRestartPolicy::kAlways) continue;
    for (const auto& p : c.ports) {
      if (p.host_port > 0) out.push_back({p.protocol, p.host_ip, p.host_port});
    }
  }
  for (const auto& c : pod.containers) {
    for (const auto& p : c.ports) {
      if (p.host_port > 0) out.push_back({p.protocol, p.host_ip, p.host_port});
    }
  }
  return out;
}

// The host ports a pod wants, with the wildcard IP resolved once per cycle.
struct PreFilterState final : framework::StateData {
  std::vector<framework::HostPort> want;
  // The symbol of "0.0.0.0" if it was ever interned (else only the empty IP is the wildcard).
  std::optional<Symbol> bind_all;
  std::unique_ptr<framework::StateData> Clone() const override {
    return std::make_unique<PreFilterState>(*this);
  }
};

// kube's HostPortInfo.CheckConflict for one wanted triple against a list of used triples.
// `is_wildcard` tells whether an IP means 0.0.0.0.
template <class IsWildcard>
bool Conflicts(const framework::HostPort& want, const std::vector<framework::HostPort>& used,
               const IsWildcard& is_wildcard) {
  if (want.port <= 0) return false;
  const bool want_all = is_wildcard(want.ip);
  for (const auto& u : used) {
    if (u.port != want.port || u.protocol != want.protocol) continue;
    if (want_all || is_wildcard(u.ip) || u.ip == want.ip) return true;
  }
  return false;
}

}  // namespace

Result<std::unique_ptr<framework::Plugin>> NodePorts::New(const framework::PluginArgs* args,
                                                          framework::Handle& handle) {
  if (auto ok = NoArgs(kName, args); !ok) return ok.error();
  return std::unique_ptr<framework::Plugin>(std::make_unique<NodePorts>(handle.interner()));
}

framework::Status NodePorts::PreFilter(framework::CycleState& state, size_t slot,
                                       const framework::PodInfo& pod,
                                       const framework::Snapshot& snapshot,
                                       framework::PreFilterResult* result) {
  (void)snapshot;
  (void)result;
  auto s = std::make_unique<PreFilterState>();
  s->want = GetHostPorts(*pod.pod);
  if (s->want.empty()) return framework::Status::Skip();
  s->bind_all = interner_.Find(kBindAllHostIP);
  state.Write(slot, std::move(s));
  return {};
}

framework::Status NodePorts::Filter(const framework::CycleState& state, size_t slot,
                                    const framework::PodInfo& pod,
                                    const framework::NodeInfo& node) const {
  (void)pod;
  const auto* s = state.Get<PreFilterState>(slot);
  if (s == nullptr) {
    return framework::Status::Error("reading \"PreFilterNodePorts\" from cycleState: not found");
  }
  const auto is_wildcard = [bind_all = s->bind_all](Symbol ip) {
    return ip.empty() || (bind_all.has_value() && ip == *bind_all);
  };
  const std::vector<framework::HostPort>& used = node.used_ports();
  for (const auto& want : s->want) {
    if (Conflicts(want, used, is_wildcard)) return framework::Status::Unschedulable(kErrReason);
  }
  return {};
}

std::vector<framework::ClusterEvent> NodePorts::EventsToRegister() const {
  using framework::ActionType;
  using framework::EventResource;
  return {{EventResource::kAssignedPod, ActionType::kDelete},
          {EventResource::kNode, ActionType::kAdd}};
}

framework::QueueingHint NodePorts::Hint(const framework::PodInfo& pod,
                                        const framework::ClusterEvent& event,
                                        const void* subject) const {
  using framework::QueueingHint;
  if (event.resource == framework::EventResource::kNode || subject == nullptr)
    return QueueingHint::kQueue;
  const api::Pod& deleted = *PodSubject(subject);
  // An unscheduled pod held no ports.
  if (deleted.node_name.empty() && deleted.nominated_node_name.empty())
    return QueueingHint::kQueueSkip;
  const std::vector<framework::HostPort> freed = GetHostPorts(deleted);
  if (freed.empty()) return QueueingHint::kQueueSkip;
  const auto is_wildcard = [this](Symbol ip) {
    return ip.empty() || interner_.Str(ip) == kBindAllHostIP;
  };
  for (const auto& want : GetHostPorts(*pod.pod)) {
    if (Conflicts(want, freed, is_wildcard)) return QueueingHint::kQueue;
  }
  return QueueingHint::kQueueSkip;
}

framework::Status NodePorts::Sign(const framework::PodInfo& pod,
                                  std::vector<framework::SignFragment>* fragments) const {
  fragments->push_back({std::string(signers::kHostPortsKey), signers::HostPorts(*pod.pod)});
  return {};
}

}  // namespace corral::plugins
