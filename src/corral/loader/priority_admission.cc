#include "corral/loader/internal/priority_admission.h"

#include <algorithm>
#include <tuple>

namespace corral::loader::internal {

namespace {

constexpr int32_t kSystemClusterCritical = 2'000'000'000;
constexpr int32_t kSystemNodeCritical = kSystemClusterCritical + 1000;

}  // namespace

void PriorityAdmission::AdmitClasses(std::vector<api::PriorityClass>& pcs,
                                     std::span<const Origin> origins, Diagnostics& diags) {
  const api::PriorityClass* defaults = nullptr;
  size_t default_idx = 0;
  for (size_t i = 0; i < pcs.size(); ++i) {
    const auto& pc = pcs[i];
    const Origin& o = origins[i];
    std::string_view name = in_.Str(pc.meta.name);
    if (name == "system-node-critical" || name == "system-cluster-critical") {
      int32_t want = name == "system-node-critical" ? kSystemNodeCritical : kSystemClusterCritical;
      if (pc.value != want) {
        diags.Error(std::string(o.file), o.line, o.Field("value"),
                    fmt::format("{} is a built-in priority class with value {}, got {}", name, want,
                                pc.value));
      }
    }
    if (pc.global_default) {
      if (defaults != nullptr) {
        diags.Error(
            std::string(o.file), o.line, o.Field("globalDefault"),
            fmt::format(
                "PriorityClass {:?} is already marked as default (at {}:{}); only one default "
                "can exist",
                in_.Str(defaults->meta.name), origins[default_idx].file,
                origins[default_idx].line));
        if (pc.value < defaults->value) {  // kube uses the lowest of several defaults
          defaults = &pc;
          default_idx = i;
        }
      } else {
        defaults = &pc;
        default_idx = i;
      }
    }
  }
  for (auto [name, value, desc] :
       {std::tuple{"system-node-critical", kSystemNodeCritical,
                   "Used for system critical pods that must not be moved from their current node."},
        std::tuple{"system-cluster-critical", kSystemClusterCritical,
                   "Used for system critical pods that must run in the cluster, but can be moved "
                   "to another node "
                   "if necessary."}}) {
    Symbol sym = in_.Intern(name);
    bool present =
        std::any_of(pcs.begin(), pcs.end(), [&](const auto& pc) { return pc.meta.name == sym; });
    if (!present) {
      api::PriorityClass pc;
      pc.meta.name = sym;
      pc.value = value;
      pc.description = desc;
      pcs.push_back(std::move(pc));
    }
  }
  // Pointers into `pcs` are invalid after the push_backs above: take the default's name by index.
  if (defaults != nullptr) default_name_ = pcs[default_idx].meta.name;
  for (const auto& pc : pcs) by_name_.emplace(pc.meta.name, Class{pc.value, pc.preemption_policy});
}

PriorityAdmission::Computed PriorityAdmission::Compute(Symbol class_name) const {
  Computed c;
  if (class_name.empty()) {
    if (!default_name_.empty()) {
      const Class& pc = by_name_.at(default_name_);
      c.class_name = default_name_;
      c.priority = pc.value;
      c.preemption = pc.preemption;
    }
    return c;
  }
  auto it = by_name_.find(class_name);
  if (it == by_name_.end()) {
    c.found = false;
    return c;
  }
  c.class_name = class_name;
  c.priority = it->second.value;
  c.preemption = it->second.preemption;
  return c;
}

bool PriorityAdmission::Admit(const Admission& a, Symbol& class_name, int32_t& priority,
                              api::PreemptionPolicy* preemption, std::string_view kind, Symbol ns,
                              Symbol name, Diagnostics& diags) const {
  const Origin& o = a.origin;
  Computed c = Compute(class_name);
  if (!c.found) {
    if (a.prio.priority) {
      std::string msg = fmt::format(
          "no PriorityClass with name {} was found; keeping spec.priority {} from the input",
          in_.Str(class_name), *a.prio.priority);
      if (strict_) {
        diags.Error(std::string(o.file), a.prio.class_name_line, o.Field("spec.priorityClassName"),
                    std::move(msg));
        return false;
      }
      diags.Warning(std::string(o.file), a.prio.class_name_line, o.Field("spec.priorityClassName"),
                    std::move(msg));
      priority = *a.prio.priority;
      if (preemption != nullptr && a.prio.preemption) *preemption = *a.prio.preemption;
      return true;
    }
    diags.Error(std::string(o.file), a.prio.class_name_line, o.Field("spec.priorityClassName"),
                fmt::format("{} {}/{} rejected: no PriorityClass with name {} was found", kind,
                            in_.Str(ns), in_.Str(name), in_.Str(class_name)));
    return false;
  }
  if (a.prio.priority && *a.prio.priority != c.priority) {
    diags.Error(
        std::string(o.file), a.prio.class_name_line, o.Field("spec.priority"),
        fmt::format("the integer value of priority ({}) must not be provided in {} spec; priority "
                    "admission controller computed {} from the given PriorityClass name",
                    *a.prio.priority, kind == "Pod" ? "pod" : "pod group", c.priority));
    return false;
  }
  if (c.preemption && a.prio.preemption && *a.prio.preemption != *c.preemption &&
      preemption != nullptr) {
    auto policy_name = [](api::PreemptionPolicy p) {
      return p == api::PreemptionPolicy::kNever ? "Never" : "PreemptLowerPriority";
    };
    diags.Error(
        std::string(o.file), a.prio.class_name_line, o.Field("spec.preemptionPolicy"),
        fmt::format("the string value of PreemptionPolicy ({}) must not be provided in pod spec; "
                    "priority admission controller computed {} from the given PriorityClass name",
                    policy_name(*a.prio.preemption), policy_name(*c.preemption)));
    return false;
  }
  class_name = c.class_name;
  priority = c.priority;
  if (preemption != nullptr) {
    if (c.preemption) {
      *preemption = *c.preemption;
    } else if (a.prio.preemption) {
      *preemption = *a.prio.preemption;
    }
  }
  return true;
}

}  // namespace corral::loader::internal
