#pragma once
// kube's Priority admission plugin over one load: the PriorityClasses read (with the two built-in
// classes added when the input lacks them) give each pod, pod group and controller pod template its
// priority and preemption policy. Internal to corral/loader.

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <absl/container/flat_hash_map.h>
#include <fmt/format.h>

#include "corral/api/types.h"
#include "corral/core/diagnostics.h"
#include "corral/core/interner.h"
#include "corral/loader/internal/decode.h"

namespace corral::loader::internal {

// Where an object came from, for messages emitted after decoding.
struct Origin {
  std::string_view file;  // interned
  uint32_t line = 0;
  std::string path;  // the object's path prefix, "" or "items[3]"

  std::string Field(std::string_view f) const {
    return path.empty() ? std::string(f) : fmt::format("{}.{}", path, f);
  }
};

// An object's priority fields as the input gave them, and where the object came from.
struct Admission {
  PriorityInput prio;
  Origin origin;
};

class PriorityAdmission {
 public:
  // `strict`: a missing class is an error even when the object gives spec.priority (otherwise a
  // warning, and the given priority is kept).
  PriorityAdmission(Interner& in, bool strict) : in_(in), strict_(strict) {}

  // Checks the classes as read (`origins` is parallel to them): the built-in classes keep their
  // fixed values, and at most one class is the global default (of several, the one with the
  // lowest value applies, as in kube). Appends the built-in classes the input lacks. Call once,
  // before Admit.
  void AdmitClasses(std::vector<api::PriorityClass>& pcs, std::span<const Origin> origins,
                    Diagnostics& diags);

  // Applies the admission plugin to one object: resolves `class_name` (the global default when
  // empty) into `class_name`, `priority` and, when `preemption` is not null, the preemption
  // policy. Returns false, with the error in `diags`, when kube would reject the object.
  bool Admit(const Admission& a, Symbol& class_name, int32_t& priority,
             api::PreemptionPolicy* preemption, std::string_view kind, Symbol ns, Symbol name,
             Diagnostics& diags) const;

  // True when a global default class exists (an object without a class name gets it).
  bool has_default() const { return !default_name_.empty(); }

 private:
  struct Class {
    int32_t value = 0;
    api::PreemptionPolicy preemption{};
  };
  struct Computed {
    Symbol class_name;
    int32_t priority = 0;
    std::optional<api::PreemptionPolicy> preemption;  // nullopt: no class
    bool found = true;
  };
  Computed Compute(Symbol class_name) const;

  Interner& in_;
  bool strict_;
  absl::flat_hash_map<Symbol, Class> by_name_;
  Symbol default_name_;
};

}  // namespace corral::loader::internal
