#pragma once
// Small helpers shared by plugin implementations: event masks, pod identity for queueing hints, and the
// factory check for plugins that take no args.

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

// The subject of a queueing hint. Convention assumed by these plugins (framework/plugin.h leaves the type
// of `subject` open): node events carry the new (or deleted) `const api::Node*`, pod events the new (or
// deleted) `const framework::PodInfo*`. Update events carry no old object, so hints that kube computes
// from an old/new pair treat every update like an add (they may queue where kube skips, never the reverse).
inline const api::Node* NodeSubject(const void* subject) { return static_cast<const api::Node*>(subject); }
inline const framework::PodInfo* PodSubject(const void* subject) {
  return static_cast<const framework::PodInfo*>(subject);
}

// Whether two PodInfos describe the same pod (an updated pod is a new object): equal UIDs when both have
// one, else the same namespace and name.
inline bool SamePod(const framework::PodInfo& a, const framework::PodInfo& b) {
  const api::ObjectMeta& ma = a.pod->meta;
  const api::ObjectMeta& mb = b.pod->meta;
  if (!ma.uid.empty() && !mb.uid.empty()) return ma.uid == mb.uid;
  return ma.namespace_ == mb.namespace_ && ma.name == mb.name;
}

// For factories of plugins without args: kube has no args type for them, so any args are foreign.
inline Result<void> NoArgs(std::string_view plugin, const framework::PluginArgs* args) {
  if (args != nullptr) return Error::Invalid(std::string(plugin) + " takes no args");
  return {};
}

}  // namespace corral::plugins
