#pragma once
// Small helpers shared by plugin implementations: event masks, pod identity for queueing hints, and
// the factory check for plugins that take no args.

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "corral/core/result.h"
#include "corral/framework/handle.h"
#include "corral/framework/plugin.h"

namespace corral::plugins {

// a | b as an ActionType mask.
constexpr framework::ActionType Actions(framework::ActionType a, framework::ActionType b) {
  return static_cast<framework::ActionType>(static_cast<uint8_t>(a) | static_cast<uint8_t>(b));
}

// The subject of a queueing hint, as the scheduler passes it (scheduler.cc FireEvent): node events
// carry the added/updated `const api::Node*`, pod events the added/updated/deleted `const
// api::Pod*`; either may be null. Update events carry no old object, so hints that kube computes
// from an old/new pair treat every update like an add (they may queue where kube skips, never
// the reverse). The one exception is a pending pod's own update (UnscheduledPod/Update,
// Scheduler::UpdatePendingPod): there the hint's `pod` is the object before the update and the
// subject the object after, so a hint compares them as kube's (pod, oldObj, newObj) do.
inline const api::Node* NodeSubject(const void* subject) {
  return static_cast<const api::Node*>(subject);
}
inline const api::Pod* PodSubject(const void* subject) {
  return static_cast<const api::Pod*>(subject);
}
// Whether a pod event's subject is an assigned pod. An AssignedPod event's subject always is: the
// scheduler binds a pod in its cache and leaves the pod object as it arrived (without nodeName),
// so the object's own nodeName says so only for pods that arrived bound.
inline bool SubjectIsAssigned(const framework::ClusterEvent& event, const api::Pod& subject) {
  return event.resource == framework::EventResource::kAssignedPod || subject.IsBound();
}

// Whether two objects describe the same pod (an updated pod is a new object): equal UIDs when both
// have one, else the same namespace and name.
inline bool SamePod(const api::Pod& a, const api::Pod& b) {
  const api::ObjectMeta& ma = a.meta;
  const api::ObjectMeta& mb = b.meta;
  if (!ma.uid.empty() && !mb.uid.empty()) return ma.uid == mb.uid;
  return ma.namespace_ == mb.namespace_ && ma.name == mb.name;
}

// Whether the pod has a volume that needs volume scheduling, which Corral does not model: a
// PersistentVolumeClaim or a generic ephemeral volume (which becomes a claim).
inline bool HasClaimVolumes(const api::Pod& pod) {
  for (const auto& v : pod.volumes) {
    if (v.kind == api::VolumeKind::kPersistentVolumeClaim || v.kind == api::VolumeKind::kEphemeral)
      return true;
  }
  return false;
}

// For factories of plugins without args: kube has no args type for them, so any args are foreign.
inline Result<void> NoArgs(std::string_view plugin, const framework::PluginArgs* args) {
  if (args != nullptr) return Error::Invalid(std::string(plugin) + " takes no args");
  return {};
}

}  // namespace corral::plugins
