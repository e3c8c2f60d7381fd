#include "corral/plugins/volume_binding/volume_binding.h"

#include <cmath>
#include <string>

#include <absl/container/flat_hash_map.h>
#include <fmt/format.h>

#include "corral/api/well_known.h"
#include "corral/plugins/common/plugin_util.h"
#include "corral/plugins/common/signers.h"
#include "corral/plugins/helper/field_errors.h"

namespace corral::plugins {

namespace vb = volume_binding;
using framework::Code;
using framework::QueueingHint;
using framework::Status;

namespace {

constexpr int64_t kMaxCustomPriorityScore = 10;
constexpr int64_t kMaxUtilization = 100;

// kube's GetLocalPersistentVolumeNodeNames: the union over the volume's terms of the intersection
// of each term's `kubernetes.io/hostname In` values.
absl::flat_hash_set<Symbol> LocalVolumeNodeNames(const api::PersistentVolume& pv) {
  absl::flat_hash_set<Symbol> result;
  if (!pv.node_affinity.has_value()) return result;
  for (const auto& term : pv.node_affinity->node_selector_terms) {
    std::optional<absl::flat_hash_set<Symbol>> nodes;
    for (const auto& r : term.match_expressions) {
      if (r.key != api::wk::kHostnameLabel || r.op != api::NodeSelectorOp::kIn) continue;
      absl::flat_hash_set<Symbol> values(r.values.begin(), r.values.end());
      if (!nodes.has_value()) {
        nodes = std::move(values);
      } else {
        absl::erase_if(*nodes, [&](Symbol s) { return !values.contains(s); });
      }
    }
    if (nodes.has_value()) result.insert(nodes->begin(), nodes->end());
  }
  return result;
}

}  // namespace

// The state PreFilter writes: the pod's claims, and what Filter found per node (Filter is const
// and fills `by_node` through `mutable`; nodes are filtered one at a time).
struct VolumeBinding::CycleData final : framework::StateData {
  vb::PodVolumeClaims claims;
  mutable absl::flat_hash_map<Symbol, vb::PodVolumes> by_node;
  mutable bool has_static_bindings = false;
  bool all_bound = false;
  std::unique_ptr<framework::StateData> Clone() const override {
    return std::make_unique<CycleData>(*this);
  }
};

Result<void> VolumeBindingArgs::Validate(std::string_view path, bool capacity_scoring) const {
  helper::FieldPath root = path.empty() ? helper::FieldPath() : helper::FieldPath(path);
  helper::FieldErrors errs;
  if (bind_timeout_seconds < 0) {
    errs.Invalid(root.Child("bindTimeoutSeconds"), bind_timeout_seconds,
                 "invalid BindTimeoutSeconds, should not be a negative value");
  }
  if (capacity_scoring && has_shape) {
    helper::FieldPath p = root.Child("shape");
    if (shape.empty()) {
      errs.Required(p, "at least one point must be specified");
    } else {
      for (size_t i = 1; i < shape.size(); ++i) {
        if (shape[i - 1].utilization >= shape[i].utilization) {
          errs.Invalid(p.Index(i).Child("utilization"), shape[i].utilization,
                       "values must be sorted in increasing order");
          break;
        }
      }
      for (size_t i = 0; i < shape.size(); ++i) {
        if (shape[i].utilization < 0 || shape[i].utilization > 100) {
          errs.Invalid(p.Index(i).Child("utilization"), shape[i].utilization,
                       "not in valid range [0, 100]");
        }
        if (shape[i].score < 0 || shape[i].score > kMaxCustomPriorityScore) {
          errs.Invalid(p.Index(i).Child("score"), shape[i].score,
                       fmt::format("not in valid range [0, {}]", kMaxCustomPriorityScore));
        }
      }
    }
  } else if (!capacity_scoring && has_shape) {
    errs.Invalid(root.Child("shape"), "",
                 "unsupported when StorageCapacityScoring feature is disabled");
  }
  return errs.ToResult();
}

Result<std::unique_ptr<framework::Plugin>> VolumeBinding::New(const framework::PluginArgs* args,
                                                              framework::Handle& handle) {
  VolumeBindingArgs defaults;
  const VolumeBindingArgs* typed = &defaults;
  if (args != nullptr) {
    typed = dynamic_cast<const VolumeBindingArgs*>(args);
    if (typed == nullptr) return Error::Invalid("args are not of type VolumeBindingArgs");
  }
  bool capacity_scoring = handle.features().Enabled(framework::Feature::kStorageCapacityScoring);
  if (auto ok = typed->Validate("", capacity_scoring); !ok) return ok.error();
  std::vector<helper::FunctionShapePoint> shape;
  if (capacity_scoring) {
    // kube's SetDefaults_VolumeBindingArgs under StorageCapacityScoring: empty utilization scores
    // highest (prefer the node with the most free capacity).
    std::vector<VolumeBindingArgs::ShapePoint> points = typed->shape;
    if (points.empty()) points = {{0, static_cast<int32_t>(kMaxCustomPriorityScore)}, {100, 0}};
    for (const auto& p : points) {
      shape.push_back({p.utilization, p.score * (100 / kMaxCustomPriorityScore)});
    }
  }
  return std::unique_ptr<framework::Plugin>(
      std::make_unique<VolumeBinding>(handle, std::move(shape), capacity_scoring));
}

VolumeBinding::VolumeBinding(framework::Handle& handle,
                             std::vector<helper::FunctionShapePoint> shape, bool capacity_scoring)
    : handle_(handle),
      interner_(handle.interner()),
      shape_(std::move(shape)),
      capacity_scoring_(capacity_scoring) {}

framework::Status VolumeBinding::PreFilter(framework::CycleState& state, size_t slot,
                                           const framework::PodInfo& pod,
                                           const framework::Snapshot& snapshot,
                                           framework::PreFilterResult* result) {
  (void)snapshot;
  slot_ = slot;
  const api::Pod& p = *pod.pod;
  state::VolumeCache* cache = handle_.volumes();
  if (!HasClaimVolumes(p)) {
    state.Write(slot, std::make_unique<CycleData>());
    return Status::Skip();
  }
  if (cache == nullptr) {
    // No storage objects at all: the first claim is missing.
    for (const auto& v : p.volumes) {
      std::string name = vb::ClaimNameOf(p, v, interner_);
      if (v.kind == api::VolumeKind::kEphemeral) {
        return Status::WithOwnedReason(
            Code::kUnschedulableAndUnresolvable,
            fmt::format("waiting for ephemeral volume controller to create the "
                        "persistentvolumeclaim \"{}\"",
                        name));
      }
      if (v.kind == api::VolumeKind::kPersistentVolumeClaim) {
        return Status::WithOwnedReason(Code::kUnschedulableAndUnresolvable,
                                       fmt::format("persistentvolumeclaim \"{}\" not found", name));
      }
    }
  }
  bool has = false;
  if (Status st = vb::PodHasPVCs(p, *cache, &has); !st.ok()) return st;
  auto data = std::make_unique<CycleData>();
  if (Status st = vb::GetPodVolumeClaims(p, *cache, &data->claims); !st.ok()) return st;
  if (!data->claims.unbound_immediate.empty()) {
    return Status::Unresolvable(vb::kErrUnboundImmediate);
  }
  // Local volumes of bound claims narrow the candidate nodes (kube's GetEligibleNodes).
  std::optional<absl::flat_hash_set<Symbol>> eligible;
  bool missing = false;
  for (const api::PersistentVolumeClaim* c : data->claims.bound) {
    const api::PersistentVolume* pv = cache->GetVolume(c->volume_name);
    if (pv == nullptr) {
      missing = true;
      break;
    }
    absl::flat_hash_set<Symbol> names = LocalVolumeNodeNames(*pv);
    if (names.empty()) continue;
    if (!eligible.has_value()) {
      eligible = std::move(names);
    } else {
      absl::erase_if(*eligible, [&](Symbol s) { return !names.contains(s); });
    }
  }
  if (!missing && eligible.has_value() && result != nullptr)
    result->node_names = std::move(eligible);
  state.Write(slot, std::move(data));
  return {};
}

framework::Status VolumeBinding::Filter(const framework::CycleState& state, size_t slot,
                                        const framework::PodInfo& pod,
                                        const framework::NodeInfo& node) const {
  (void)pod;
  const auto* data = state.Get<CycleData>(slot);
  if (data == nullptr) return Status::Error("reading \"VolumeBinding\" from cycleState: not found");
  state::VolumeCache* cache = handle_.volumes();
  if (cache == nullptr) return {};  // PreFilter skipped: no claims
  vb::PodVolumes volumes;
  std::vector<std::string_view> reasons;
  if (Status st = vb::FindPodVolumes(data->claims, *node.node(), *cache, &volumes, &reasons);
      !st.ok()) {
    return st;
  }
  if (!reasons.empty()) {
    Status st(Code::kUnschedulableAndUnresolvable, reasons[0]);
    for (size_t i = 1; i < reasons.size(); ++i) st.AddReason(reasons[i]);
    return st;
  }
  data->has_static_bindings = data->has_static_bindings || !volumes.static_bindings.empty();
  data->by_node[node.name()] = std::move(volumes);
  return {};
}

bool VolumeBinding::FilterIsNodeLocal(const framework::PodInfo& pod) const {
  return !HasClaimVolumes(*pod.pod);
}

framework::Status VolumeBinding::PreScore(framework::CycleState& state, size_t slot,
                                          const framework::PodInfo& pod,
                                          std::span<const framework::NodeInfo* const> nodes) {
  (void)pod;
  (void)nodes;
  if (shape_.empty()) return Status::Skip();
  const auto* data = state.Get<CycleData>(slot);
  if (data == nullptr) return Status::Error("reading \"VolumeBinding\" from cycleState: not found");
  // kube scores a pod without claims too (0 on every node); skipping it is equivalent and keeps
  // the score loop and batching as they are for such pods.
  if (data->claims.bound.empty() && data->claims.unbound_delay_binding.empty()) {
    return Status::Skip();
  }
  if (data->has_static_bindings || capacity_scoring_) return {};
  return Status::Skip();
}

framework::Status VolumeBinding::Score(const framework::CycleState& state, size_t slot,
                                       const framework::PodInfo& pod,
                                       const framework::NodeInfo& node, int64_t* score) const {
  (void)pod;
  *score = 0;
  if (shape_.empty()) return {};
  const auto* data = state.Get<CycleData>(slot);
  if (data == nullptr) return Status::Error("reading \"VolumeBinding\" from cycleState: not found");
  auto it = data->by_node.find(node.name());
  if (it == data->by_node.end()) return {};
  const vb::PodVolumes& v = it->second;
  // Requested and capacity per storage class (kube's classResourceMap).
  struct Use {
    int64_t requested = 0;
    int64_t capacity = 0;
  };
  std::vector<std::pair<Symbol, Use>> classes;
  auto at = [&](Symbol cls) -> Use& {
    for (auto& [c, u] : classes) {
      if (c == cls) return u;
    }
    return classes.emplace_back(cls, Use{}).second;
  };
  if (!v.static_bindings.empty() || !capacity_scoring_) {
    for (const auto& b : v.static_bindings) {
      Use& u = at(b.pv->storage_class_name);
      u.requested += b.claim->storage_request.Value();
      u.capacity += b.pv->capacity.Value();
    }
  } else {
    for (const auto& p : v.dynamic_provisions) {
      if (p.capacity == nullptr || !p.capacity->capacity.has_value()) continue;
      Use& u = at(p.claim->storage_class_name);
      u.capacity = p.capacity->capacity->Value();  // the node's capacity, not a sum
      u.requested += p.claim->storage_request.Value();
    }
  }
  if (classes.empty()) return {};
  int64_t sum = 0;
  for (const auto& [cls, u] : classes) {
    int64_t utilization = (u.capacity == 0 || u.requested > u.capacity)
                              ? kMaxUtilization
                              : u.requested * kMaxUtilization / u.capacity;
    sum += helper::BrokenLinear(shape_, utilization);
  }
  *score = static_cast<int64_t>(
      std::round(static_cast<double>(sum) / static_cast<double>(classes.size())));
  return {};
}

framework::Status VolumeBinding::Reserve(framework::CycleState& state,
                                         const framework::PodInfo& pod, Symbol node) {
  if (slot_ == SIZE_MAX) return {};
  auto* data = state.Get<CycleData>(slot_);
  if (data == nullptr) return {};
  auto it = data->by_node.find(node);
  if (it == data->by_node.end()) {
    data->all_bound = true;  // the pod has no claims
    return {};
  }
  state::VolumeCache* cache = handle_.volumes();
  // Nothing to assume when every claim is already fully bound.
  data->all_bound = vb::ArePodVolumesBound(*pod.pod, *cache);
  if (data->all_bound) return {};
  vb::PodVolumes& volumes = it->second;
  for (auto& b : volumes.static_bindings) b.pv = cache->AssumeVolumeBound(b.pv, b.claim);
  for (auto& p : volumes.dynamic_provisions) p.claim = cache->AssumeClaimProvisioned(p.claim, node);
  return {};
}

void VolumeBinding::Unreserve(framework::CycleState& state, const framework::PodInfo& pod,
                              Symbol node) {
  (void)pod;
  if (slot_ == SIZE_MAX) return;
  auto* data = state.Get<CycleData>(slot_);
  if (data == nullptr) return;
  auto it = data->by_node.find(node);
  state::VolumeCache* cache = handle_.volumes();
  if (it == data->by_node.end() || cache == nullptr) return;
  for (const auto& b : it->second.static_bindings) cache->RestoreVolume(b.pv->meta.name);
  for (const auto& p : it->second.dynamic_provisions) {
    cache->RestoreClaim(p.claim->meta.namespace_, p.claim->meta.name);
  }
}

framework::Status VolumeBinding::PreBind(framework::CycleState& state,
                                         const framework::PodInfo& pod, Symbol node) {
  (void)pod;
  if (slot_ == SIZE_MAX) return {};
  auto* data = state.Get<CycleData>(slot_);
  if (data == nullptr || data->all_bound) return {};
  auto it = data->by_node.find(node);
  if (it == data->by_node.end()) {
    return Status::Error(fmt::format("no pod volumes found for node \"{}\"", interner_.Str(node)));
  }
  state::VolumeCache* cache = handle_.volumes();
  const framework::NodeInfo* ni = handle_.snapshot().Get(node);
  for (const auto& b : it->second.static_bindings) cache->BindVolume(b.pv, b.claim);
  for (const auto& p : it->second.dynamic_provisions) {
    const api::StorageClass* sc = cache->GetClass(p.claim->storage_class_name);
    if (sc == nullptr || ni == nullptr) {
      return Status::Error(
          fmt::format("provisioning failed for PVC \"{}\"", interner_.Str(p.claim->meta.name)));
    }
    cache->ProvisionVolume(p.claim, *sc, *ni->node());
  }
  return {};
}

std::vector<framework::ClusterEvent> VolumeBinding::EventsToRegister() const {
  return {{framework::EventResource::kNode,
           Actions(framework::ActionType::kAdd, framework::ActionType::kUpdate)}};
}

namespace {

bool SameTopologies(const std::vector<api::TopologySelectorTerm>& a,
                    const std::vector<api::TopologySelectorTerm>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i].match_label_expressions != b[i].match_label_expressions) return false;
  }
  return true;
}

const std::optional<api::Quantity>& VolumeLimit(const api::CSIStorageCapacity& c) {
  return c.maximum_volume_size.has_value() ? c.maximum_volume_size : c.capacity;
}

bool SameSelector(const std::optional<api::LabelSelector>& a,
                  const std::optional<api::LabelSelector>& b) {
  if (a.has_value() != b.has_value()) return false;
  if (!a.has_value()) return true;
  if (!(a->match_labels == b->match_labels) ||
      a->match_expressions.size() != b->match_expressions.size()) {
    return false;
  }
  for (size_t i = 0; i < a->match_expressions.size(); ++i) {
    const auto& x = a->match_expressions[i];
    const auto& y = b->match_expressions[i];
    if (x.key != y.key || x.op != y.op || x.values != y.values) return false;
  }
  return true;
}

// Whether two versions of a claim differ in anything the binder reads (metadata annotations and
// deletion, spec, status phase).
bool ClaimChanged(const api::PersistentVolumeClaim& a, const api::PersistentVolumeClaim& b) {
  return a.meta.annotations != b.meta.annotations ||
         a.meta.deletion_timestamp != b.meta.deletion_timestamp ||
         a.access_modes != b.access_modes || !SameSelector(a.selector, b.selector) ||
         a.has_storage_request != b.has_storage_request || a.storage_request != b.storage_request ||
         a.storage_class_name != b.storage_class_name ||
         a.has_storage_class != b.has_storage_class || a.volume_name != b.volume_name ||
         a.volume_mode != b.volume_mode ||
         a.volume_attributes_class_name != b.volume_attributes_class_name || a.phase != b.phase;
}

// Calls fn(claim) for every claim of the pod; false (queue) when one does not exist.
template <class Fn>
bool ForEachPodClaim(const api::Pod& pod, const state::VolumeCache& cache, Fn&& fn) {
  for (const auto& v : pod.volumes) {
    if (v.kind != api::VolumeKind::kPersistentVolumeClaim && v.kind != api::VolumeKind::kEphemeral)
      continue;
    const api::PersistentVolumeClaim* c = vb::LookupClaim(pod, v, cache);
    if (c == nullptr) return false;
    if (fn(*c)) return true;
  }
  return true;
}

}  // namespace

QueueingHint VolumeBinding::HintAfterClaimChange(const api::Pod& pod,
                                                 const api::PersistentVolumeClaim* old_claim,
                                                 const api::PersistentVolumeClaim& new_claim,
                                                 const Interner& interner) {
  if (pod.meta.namespace_ != new_claim.meta.namespace_) return QueueingHint::kQueueSkip;
  for (const auto& v : pod.volumes) {
    std::string name = vb::ClaimNameOf(pod, v, interner);
    if (name.empty() || name != interner.Str(new_claim.meta.name)) continue;
    if (old_claim == nullptr || ClaimChanged(*old_claim, new_claim)) return QueueingHint::kQueue;
  }
  return QueueingHint::kQueueSkip;
}

QueueingHint VolumeBinding::HintAfterVolumeChange(const api::Pod& pod) {
  return pod.volumes.empty() ? QueueingHint::kQueueSkip : QueueingHint::kQueue;
}

QueueingHint VolumeBinding::HintAfterStorageClassChange(const api::Pod& pod,
                                                        const api::StorageClass* old_class,
                                                        const api::StorageClass& new_class,
                                                        const state::VolumeCache& cache) {
  bool queue = false;
  bool found_all = ForEachPodClaim(pod, cache, [&](const api::PersistentVolumeClaim& c) {
    if (c.storage_class_name != new_class.meta.name) return false;
    queue = old_class == nullptr ||
            !SameTopologies(old_class->allowed_topologies, new_class.allowed_topologies);
    return queue;
  });
  return !found_all || queue ? QueueingHint::kQueue : QueueingHint::kQueueSkip;
}

QueueingHint VolumeBinding::HintAfterCapacityChange(const api::Pod& pod,
                                                    const api::CSIStorageCapacity* old_cap,
                                                    const api::CSIStorageCapacity& new_cap,
                                                    const state::VolumeCache& cache) {
  bool queue = false;
  bool found_all = ForEachPodClaim(pod, cache, [&](const api::PersistentVolumeClaim& c) {
    if (c.storage_class_name != new_cap.storage_class_name) return false;
    if (old_cap == nullptr) return queue = true;
    const auto& old_limit = VolumeLimit(*old_cap);
    const auto& new_limit = VolumeLimit(new_cap);
    queue = new_limit.has_value() &&
            (!old_limit.has_value() || new_limit->Value() > old_limit->Value());
    return queue;
  });
  return !found_all || queue ? QueueingHint::kQueue : QueueingHint::kQueueSkip;
}

QueueingHint VolumeBinding::HintAfterCSINodeChange(const api::CSINode* old_node,
                                                   const api::CSINode& new_node,
                                                   const state::VolumeCache& cache) {
  if (old_node == nullptr) return QueueingHint::kQueue;
  const std::string* a = cache.Annotation(old_node->meta, api::kAnnMigratedPlugins);
  const std::string* b = cache.Annotation(new_node.meta, api::kAnnMigratedPlugins);
  std::string_view av = a ? std::string_view(*a) : std::string_view();
  std::string_view bv = b ? std::string_view(*b) : std::string_view();
  return av != bv ? QueueingHint::kQueue : QueueingHint::kQueueSkip;
}

QueueingHint VolumeBinding::HintAfterCSIDriverChange(const api::Pod& pod,
                                                     const api::CSIDriver& old_driver,
                                                     const api::CSIDriver& new_driver) {
  for (const auto& v : pod.volumes) {
    if (v.kind != api::VolumeKind::kCsi || v.source.driver != new_driver.meta.name) continue;
    if (old_driver.storage_capacity && !new_driver.storage_capacity) return QueueingHint::kQueue;
  }
  return QueueingHint::kQueueSkip;
}

framework::Status VolumeBinding::Sign(const framework::PodInfo& pod,
                                      std::vector<framework::SignFragment>* fragments) const {
  fragments->push_back({std::string(signers::kVolumesKey), signers::Volumes(*pod.pod, interner_)});
  return {};
}

}  // namespace corral::plugins
