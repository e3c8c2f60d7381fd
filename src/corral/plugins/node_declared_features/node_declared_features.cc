#include "corral/plugins/node_declared_features/node_declared_features.h"

#include <algorithm>
#include <optional>
#include <string>

#include <fmt/format.h>

#include "corral/plugins/common/plugin_util.h"

namespace corral::plugins {

namespace {

// The pod's required features as symbols. A name that was never interned is declared by no node:
// `missing` is set and Filter rejects every node.
struct PreFilterState final : framework::StateData {
  std::vector<Symbol> required;
  bool missing = false;
  std::unique_ptr<framework::StateData> Clone() const override {
    return std::make_unique<PreFilterState>(*this);
  }
};

}  // namespace

Result<std::unique_ptr<framework::Plugin>> NodeDeclaredFeatures::New(
    const framework::PluginArgs* args, framework::Handle& handle) {
  if (const auto* a = dynamic_cast<const NodeDeclaredFeaturesArgs*>(args); a != nullptr) {
    std::vector<Symbol> declared;
    for (const std::string& n : a->every_node_declares) {
      // A name never interned is declared by no object Corral holds, so no node declares it.
      if (std::optional<Symbol> sym = handle.interner().Find(n); sym.has_value()) {
        declared.push_back(*sym);
      }
    }
    return std::unique_ptr<framework::Plugin>(std::make_unique<NodeDeclaredFeatures>(
        handle.interner(), a->registry, std::move(declared)));
  }
  if (auto ok = NoArgs(kName, args); !ok) return ok.error();
  return std::unique_ptr<framework::Plugin>(
      std::make_unique<NodeDeclaredFeatures>(handle.interner(), ndf::DefaultRegistry()));
}

framework::Status NodeDeclaredFeatures::PreFilter(framework::CycleState& state, size_t slot,
                                                  const framework::PodInfo& pod,
                                                  const framework::Snapshot& snapshot,
                                                  framework::PreFilterResult* result) {
  (void)snapshot;
  (void)result;
  const std::vector<std::string> names = registry_.InferForPodScheduling(*pod.pod, version_);
  if (names.empty()) return framework::Status::Skip();
  auto s = std::make_unique<PreFilterState>();
  for (const std::string& n : names) {
    if (std::optional<Symbol> sym = interner_.Find(n); sym.has_value()) {
      s->required.push_back(*sym);
    } else {
      s->missing = true;
    }
  }
  state.Write(slot, std::move(s));
  return {};
}

framework::Status NodeDeclaredFeatures::Filter(const framework::CycleState& state, size_t slot,
                                               const framework::PodInfo& pod,
                                               const framework::NodeInfo& node) const {
  (void)pod;
  const auto* s = state.Get<PreFilterState>(slot);
  if (s == nullptr) {
    return framework::Status::Error(
        "error reading \"PreFilterNodeDeclaredFeatures\" from cycle-state: not found");
  }
  (void)node;
  bool ok = !s->missing;
  for (size_t i = 0; ok && i < s->required.size(); ++i) {
    ok = std::find(declared_.begin(), declared_.end(), s->required[i]) != declared_.end();
  }
  if (ok) return {};
  return framework::Status::Unresolvable(kErrReasonUnsatisfiedRequirements);
}

bool NodeDeclaredFeatures::NodeDeclaresAll(const std::vector<std::string>& required) const {
  for (const std::string& n : required) {
    std::optional<Symbol> sym = interner_.Find(n);
    if (!sym.has_value() || std::find(declared_.begin(), declared_.end(), *sym) == declared_.end())
      return false;
  }
  return true;
}

std::vector<framework::ClusterEvent> NodeDeclaredFeatures::EventsToRegister() const {
  using framework::ActionType;
  using framework::EventResource;
  return {{EventResource::kNode, Actions(ActionType::kAdd, ActionType::kUpdate)},
          {EventResource::kPod, ActionType::kUpdate}};
}

framework::QueueingHint NodeDeclaredFeatures::Hint(const framework::PodInfo& pod,
                                                   const framework::ClusterEvent& event,
                                                   const void* subject) const {
  using framework::QueueingHint;
  if (subject == nullptr) return QueueingHint::kQueue;
  if (event.resource == framework::EventResource::kNode) {
    return NodeDeclaresAll(registry_.InferForPodScheduling(*pod.pod, version_))
               ? QueueingHint::kQueue
               : QueueingHint::kQueueSkip;
  }
  return SamePod(*pod.pod, *PodSubject(subject)) ? QueueingHint::kQueue : QueueingHint::kQueueSkip;
}

framework::Status NodeDeclaredFeatures::Sign(
    const framework::PodInfo& pod, std::vector<framework::SignFragment>* fragments) const {
  const std::vector<std::string> names = registry_.InferForPodScheduling(*pod.pod, version_);
  std::string value;
  for (const std::string& n : names) value += fmt::format("{}{:?}", value.empty() ? "" : ",", n);
  fragments->push_back({"v1.Pod.Spec.RequiredFeatures()", "[" + value + "]"});
  return {};
}

}  // namespace corral::plugins
