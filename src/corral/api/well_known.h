#pragma once
// Well-known strings as compile-time Symbols. api::NewInterner() pre-interns them in this exact
// order, so the constants below are valid for every Interner made by it (and only for those).

#include <string_view>

#include "corral/core/interner.h"

namespace corral::api {

namespace wk {
// Order matters: kWellKnown[i] is Symbol(i + 1).
inline constexpr std::string_view kWellKnown[] = {
    "cpu",
    "memory",
    "ephemeral-storage",
    "pods",
    "default",
    "default-scheduler",
    "kubernetes.io/hostname",
    "topology.kubernetes.io/zone",
    "topology.kubernetes.io/region",
    "metadata.name",
    "node.kubernetes.io/unschedulable",
    "True",
    "False",
};
inline constexpr Symbol kCpu{1};
inline constexpr Symbol kMemory{2};
inline constexpr Symbol kEphemeralStorage{3};
inline constexpr Symbol kPods{4};
inline constexpr Symbol kDefaultNamespace{5};
inline constexpr Symbol kDefaultScheduler{6};
inline constexpr Symbol kHostnameLabel{7};
inline constexpr Symbol kZoneLabel{8};
inline constexpr Symbol kRegionLabel{9};
inline constexpr Symbol kMetadataName{10};
inline constexpr Symbol kUnschedulableTaintKey{11};
inline constexpr Symbol kTrue{12};
inline constexpr Symbol kFalse{13};
}  // namespace wk

// A fresh interner with the well-known strings pre-interned (C++17 guaranteed elision: Interner is
// not movable, so bind the result directly: `Interner in = api::NewInterner();`).
inline Interner NewInterner() {
  return Interner(std::span<const std::string_view>(wk::kWellKnown));
}

}  // namespace corral::api
