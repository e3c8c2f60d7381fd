#include "corral/plugins/dynamic_resources/allocator.h"

#include <algorithm>
#include <atomic>
#include <optional>

#include <absl/container/inlined_vector.h>
#include <fmt/format.h>

#include "corral/api/selectors.h"
#include "corral/api/well_known.h"
#include "corral/core/check.h"
#include "corral/plugins/dynamic_resources/attribute_keys.h"
#include "corral/plugins/dynamic_resources/capacity.h"
#include "corral/plugins/dynamic_resources/device_taints.h"
#include "corral/plugins/dynamic_resources/list_attributes.h"

namespace corral::plugins::dra {

namespace res = api::resource;
using framework::DeviceId;

Allocator::Allocator(const framework::DraManager& dra, const Interner& interner, Features features,
                     std::shared_ptr<const PoolIndex> index)
    : dra_(dra), in_(interner), features_(features), index_(std::move(index)) {
  if (index_ == nullptr) {
    index_ = std::make_shared<const PoolIndex>(dra, interner, features_.device_binding);
  }
  const auto& allocated = dra.AllocatedDevices();
  const auto& shared = dra.SharedDevices();
  const auto counter_devices = index_->CounterDevices();
  if ((allocated.empty() && shared.empty()) || counter_devices.empty()) return;
  // kube IsDeviceAllocated: held by an allocation, or shared by some. The devices are folded in
  // in the index's order (compatibility groups depend on it): from the allocated ids when they
  // are fewer than the devices that consume counters, else by walking those devices.
  if (allocated.size() + shared.size() < counter_devices.size()) {
    std::vector<uint32_t> positions;
    for (const DeviceId& id : allocated) {
      for (uint32_t i : index_->CounterDevicePositions(id)) positions.push_back(i);
    }
    for (const auto& [id, shares] : shared) {
      if (allocated.contains(id)) continue;
      for (uint32_t i : index_->CounterDevicePositions(id)) positions.push_back(i);
    }
    std::sort(positions.begin(), positions.end());
    consumed_.reserve(positions.size() * 2);
    for (uint32_t i : positions) AddAllocated(counter_devices[i]);
    return;
  }
  for (const PoolIndex::CounterDevice& cd : counter_devices) {
    const auto& [s, d] = cd;
    const DeviceId id{s->driver, s->pool_name, d->name};
    if (allocated.contains(id) || shared.contains(id)) AddAllocated(cd);
  }
}

void Allocator::AddAllocated(const PoolIndex::CounterDevice& cd) {
  const auto& [s, d] = cd;
  compat_.AddAllocated(s->driver, s->pool_name, *d, features_.compatibility_groups);
  for (const auto& cc : d->consumes_counters) {
    for (const auto& c : cc.counters) {
      api::Quantity& q = consumed_[{s->driver, s->pool_name, cc.counter_set, c.name}];
      auto sum = q.Add(c.value);
      if (sum.ok()) q = *sum;
    }
  }
}

namespace {

// A candidate device: where it lives.
struct DeviceRef {
  const Pool* pool;
  const res::ResourceSlice* slice;
  const res::Device* device;
  DeviceId id() const { return {pool->driver, pool->name, device->name}; }
};

// One request to satisfy (an exact request, or one sub-request of firstAvailable).
struct RequestData {
  size_t claim = 0;
  Symbol request;      // the request's name (the parent's for a sub-request)
  Symbol sub_request;  // empty for an exact request
  const res::DeviceRequestSpec* spec = nullptr;
  const res::DeviceClass* cls = nullptr;
  int64_t num_devices = 0;
  std::vector<DeviceRef> all_devices;  // AllocationMode All
  // Selectable's answers for this request by the device's place among the node's devices
  // (AllocationSearch::Place): kUnknown until evaluated. A memo, filled while the request is
  // searched through a const reference.
  static constexpr int8_t kUnknown = -2;
  mutable std::vector<int8_t> selectable;
};

struct Constraint {
  size_t claim = 0;
  const res::DeviceConstraint* spec = nullptr;
  const cel::AttributeValue* value = nullptr;  // the first device's (DRAListTypeAttributes off)
  AttributeIntersection set;                   // DRAListTypeAttributes on, values not keyed
  KeyIntersection keys;                        // DRAListTypeAttributes on, values keyed
  int refs = 0;
};

// The scalar comparison of kube's matchAttribute with DRAListTypeAttributes off: a list attribute
// (stored while the gate was on) matches nothing after the first device.
bool SameAttribute(const cel::AttributeValue& a, const cel::AttributeValue& b) {
  return !a.is_list() && !b.is_list() && SameScalar(a, b);
}

constexpr size_t kAllocationResultsMaxSize = 32;

// A device's position in the search order: pool, slice and device indices (kube deviceLocation).
struct Location {
  size_t pool = 0, slice = 0, device = 0;
};

// The devices one claim holds in the allocation being built: at most kAllocationResultsMaxSize
// (more with adminAccess shares of the same device), so a short list searched in order.
class ClaimDevices {
 public:
  bool contains(const DeviceId& id) const {
    return std::find(ids_.begin(), ids_.end(), id) != ids_.end();
  }
  void insert(const DeviceId& id) {
    if (!contains(id)) ids_.push_back(id);
  }
  void erase(const DeviceId& id) {
    auto it = std::find(ids_.begin(), ids_.end(), id);
    if (it != ids_.end()) ids_.erase(it);
  }

 private:
  absl::InlinedVector<DeviceId, 4> ids_;
};

const cel::AttributeValue* FindAttribute(const res::Device& d, std::string_view domain,
                                         std::string_view id) {
  for (const auto& a : d.attributes) {
    if (a.id == id && a.domain == domain) return &a.value;
  }
  return nullptr;
}

}  // namespace

// The search state of one Allocate call.
class AllocationSearch {
 public:
  AllocationSearch(const Allocator& a, const api::Node& node,
                   std::shared_ptr<const PoolIndex::NodePoolSet> pools,
                   std::span<const res::ResourceClaim* const> claims, std::string* error)
      : a_(a),
        pool_set_(std::move(pools)),
        pools_(pool_set_->pools),
        in_(a.in_),
        node_(node),
        claims_(claims),
        error_(error),
        compat_(a.compat_),
        taint_rules_(a.features_.device_taint_rules
                         ? a.dra_.DeviceTaintRules()
                         : std::span<const res::DeviceTaintRule* const>()) {}

  Allocator::Outcome Run(std::vector<res::AllocationResult>* results) {
    // Each device's place among the node's devices, for the requests' selectability memos.
    pool_first_slice_.reserve(pools_.size());
    for (const Pool& p : pools_) {
      pool_first_slice_.push_back(static_cast<uint32_t>(slice_first_device_.size()));
      for (const auto* s : p.slices) {
        slice_first_device_.push_back(num_devices_);
        num_devices_ += static_cast<uint32_t>(s->devices.size());
      }
    }
    if (!BuildRequests()) return Allocator::Outcome::kError;
    chosen_.assign(claims_.size(), {});
    bool done = false;
    if (!AllocateOne(0, 0, 0, &done)) return Allocator::Outcome::kError;
    if (!done) {
      // kube: not fatal (other nodes may do), surfaced as this node's reason.
      for (const Pool& p : pools_) {
        if (p.invalid) {
          *error_ = "invalid resource pools were encountered";
          return Allocator::Outcome::kFailedOnNode;
        }
      }
      return Allocator::Outcome::kUnsatisfiable;
    }
    results->clear();
    for (size_t c = 0; c < claims_.size(); ++c) {
      res::AllocationResult r;
      for (const Chosen& ch : chosen_[c]) {
        r.devices.push_back({ch.req->spec->result_name, ch.dev.pool->driver, ch.dev.pool->name,
                             ch.dev.device->name, ch.req->spec->admin_access, ch.shared,
                             ch.consumed});
        if (a_.features_.device_binding) {
          r.devices.back().binding_conditions = ch.dev.device->binding_conditions;
          r.devices.back().binding_failure_conditions = ch.dev.device->binding_failure_conditions;
        }
      }
      r.node_selector = NodeSelectorFor(chosen_[c]);
      results->push_back(std::move(r));
    }
    return Allocator::Outcome::kAllocated;
  }

 private:
  // No compatibility-group state to roll back (Chosen::compat_mark).
  static constexpr size_t kNoCompatMark = static_cast<size_t>(-1);

  struct Chosen {
    const RequestData* req;
    DeviceRef dev;
    bool shared = false;  // a share of a device with allowMultipleAllocations
    std::vector<res::ConsumedCapacity> consumed;
    size_t compat_mark = kNoCompatMark;  // where compat_ stood before the device was admitted
  };

  bool SliceOnNode(const res::ResourceSlice& s) const {
    if (!s.node_name.empty()) return s.node_name == node_.meta.name;
    if (s.all_nodes || s.per_device_node_selection) return true;
    if (s.node_selector.has_value()) {
      return api::MatchesNodeSelector(*s.node_selector, node_.meta.labels, node_.meta.name, in_);
    }
    return false;
  }
  bool DeviceOnNode(const res::ResourceSlice& s, const res::Device& d) const {
    if (!s.per_device_node_selection) return true;
    if (!d.node_name.empty()) return d.node_name == node_.meta.name;
    if (d.all_nodes) return true;
    if (d.node_selector.has_value()) {
      return api::MatchesNodeSelector(*d.node_selector, node_.meta.labels, node_.meta.name, in_);
    }
    return false;
  }

  // klog.KObj: "namespace/name", or "name" without a namespace.
  std::string ClaimKey(size_t c) const {
    if (claims_[c]->meta.namespace_.empty()) return std::string(in_.Str(claims_[c]->meta.name));
    return fmt::format("{}/{}", in_.Str(claims_[c]->meta.namespace_),
                       in_.Str(claims_[c]->meta.name));
  }
  std::string PoolId(const Pool& p) const {
    return fmt::format("{}/{}", in_.Str(p.driver), in_.Str(p.name));
  }
  std::string DeviceIdString(const DeviceRef& d) const {
    return fmt::format("{}/{}/{}", in_.Str(d.pool->driver), in_.Str(d.pool->name),
                       in_.Str(d.device->name));
  }

  // The place of device `dj` of slice `si` of pool `pi` among the node's devices (0, 1, ... in
  // search order).
  uint32_t Place(size_t pi, size_t si, size_t dj) const {
    return slice_first_device_[pool_first_slice_[pi] + si] + static_cast<uint32_t>(dj);
  }

  // Class selectors, then request selectors (kube isSelectable). -1 on a CEL error. `place`:
  // Place() of the device, whose answer is remembered per request.
  int Selectable(const RequestData& r, const res::ResourceSlice* slice, const res::Device& d,
                 Symbol driver, uint32_t place) {
    if (r.selectable.empty()) r.selectable.assign(num_devices_, RequestData::kUnknown);
    int8_t& memo = r.selectable[place];
    if (memo != RequestData::kUnknown) return memo;
    cel::Device dev{.driver = in_.Str(driver),
                    .attributes = d.attributes,
                    .capacity = d.capacity,
                    .allow_multiple_allocations = d.allow_multiple_allocations};
    int result = 1;
    auto eval = [&](const std::vector<res::DeviceSelector>& sels, bool is_class) {
      for (size_t i = 0; i < sels.size() && result == 1; ++i) {
        bool matched = false;
        std::string err;
        if (!sels[i].program->Matches(dev, &matched, &err)) {
          *error_ = is_class ? fmt::format("class {}: selector #{}: CEL runtime error: {}",
                                           in_.Str(r.cls->meta.name), i, err)
                             : fmt::format("claim {}: selector #{}: CEL runtime error: {}",
                                           ClaimKey(r.claim), i, err);
          result = -1;
        } else if (!matched) {
          result = 0;
        }
      }
    };
    if (!r.cls->selectors.empty()) {
      // The class's answer for this device is the same for every request and search: the index
      // remembers it (a CEL error is evaluated again, to report it).
      std::atomic<uint8_t>& known =
          ClassSelections(*r.cls)[a_.index_->FirstOrdinal(*slice) +
                                  static_cast<uint32_t>(&d - slice->devices.data())];
      const uint8_t k = known.load(std::memory_order_relaxed);
      if (k == PoolIndex::kSelectionUnknown) {
        eval(r.cls->selectors, true);
        if (result >= 0) {
          known.store(result == 1 ? PoolIndex::kSelectionAccepted : PoolIndex::kSelectionRejected,
                      std::memory_order_relaxed);
        }
      } else {
        result = k == PoolIndex::kSelectionAccepted ? 1 : 0;
      }
    }
    if (result == 1) eval(r.spec->selectors, false);
    if (result == 1 && !DeviceOnNode(*slice, d)) result = 0;
    memo = static_cast<int8_t>(result);
    return result;
  }

  // The index's table of `cls`'s answers, looked up once per class in this search.
  std::atomic<uint8_t>* ClassSelections(const res::DeviceClass& cls) {
    for (const auto& [c, table] : class_selections_) {
      if (c == &cls) return table;
    }
    class_selections_.emplace_back(&cls, a_.index_->ClassSelections(cls));
    return class_selections_.back().second;
  }

  std::string RequestName(const RequestData& r) const {
    if (r.sub_request.empty()) return std::string(in_.Str(r.request));
    return fmt::format("{}/{}", in_.Str(r.request), in_.Str(r.sub_request));
  }

  bool FillRequest(RequestData& r) {
    r.cls = a_.dra_.GetDeviceClass(r.spec->device_class_name);
    if (r.cls == nullptr) {
      *error_ = fmt::format(
          "claim {}, request {}: could not retrieve device class {}: "
          "deviceclass.resource.k8s.io \"{}\" not found",
          ClaimKey(r.claim), RequestName(r), in_.Str(r.spec->device_class_name),
          in_.Str(r.spec->device_class_name));
      return false;
    }
    if (r.spec->allocation_mode == res::AllocationMode::kExactCount) {
      r.num_devices = r.spec->count;
      return true;
    }
    for (size_t pi = 0; pi < pools_.size(); ++pi) {
      const Pool& p = pools_[pi];
      if (p.incomplete) {
        *error_ = fmt::format(
            "claim {}, request {}: asks for all devices, but resource pool {} is currently being "
            "updated",
            ClaimKey(r.claim), RequestName(r), PoolId(p));
        return false;
      }
      if (p.invalid) {
        *error_ = fmt::format(
            "claim {}, request {}: asks for all devices, but resource pool {} is currently "
            "invalid",
            ClaimKey(r.claim), RequestName(r), PoolId(p));
        return false;
      }
      for (size_t si = 0; si < p.slices.size(); ++si) {
        const res::ResourceSlice* s = p.slices[si];
        for (size_t dj = 0; dj < s->devices.size(); ++dj) {
          const res::Device& d = s->devices[dj];
          int sel = Selectable(r, s, d, p.driver, Place(pi, si, dj));
          if (sel < 0) return false;
          if (sel == 1 && CapacityFits(r, {&p, s, &d})) r.all_devices.push_back({&p, s, &d});
        }
      }
    }
    r.num_devices = static_cast<int64_t>(r.all_devices.size());
    return true;
  }

  bool BuildRequests() {
    requests_.resize(claims_.size());
    constraints_.resize(claims_.size());
    claim_devices_.resize(claims_.size());
    for (size_t c = 0; c < claims_.size(); ++c) {
      const res::ResourceClaim& claim = *claims_[c];
      requests_[c].resize(claim.spec.requests.size());
      int64_t min_per_claim = 0;
      for (size_t i = 0; i < claim.spec.requests.size(); ++i) {
        const res::DeviceRequest& req = claim.spec.requests[i];
        auto& alts = requests_[c][i];
        if (!a_.features_.consumable_capacity && !CapacityAllowed(c, req)) return false;
        if (req.exactly.has_value()) {
          alts.push_back({c, req.name, Symbol(), &*req.exactly, nullptr, 0, {}});
        } else {
          for (const auto& sub : req.first_available) {
            alts.push_back({c, req.name, sub.name, &sub, nullptr, 0, {}});
          }
        }
        int64_t min_devices = -1;
        for (RequestData& r : alts) {
          if (!FillRequest(r)) return false;
          if (min_devices < 0 || r.num_devices < min_devices) min_devices = r.num_devices;
        }
        min_per_claim += std::max<int64_t>(min_devices, 0);
      }
      if (min_per_claim > static_cast<int64_t>(kAllocationResultsMaxSize)) {
        *error_ =
            fmt::format("claim {}: number of requested devices {} exceeds the claim limit of {}",
                        ClaimKey(c), min_per_claim, kAllocationResultsMaxSize);
        return false;
      }
      for (const auto& con : claim.spec.constraints) {
        if (!con.match_attribute.empty()) constraints_[c].push_back({c, &con, nullptr, {}, {}, 0});
      }
    }
    return true;
  }

  bool Covers(const Constraint& con, const RequestData& r) const {
    if (con.spec->requests.empty()) return true;
    for (Symbol s : con.spec->requests) {
      if (s == r.request) return true;
      if (!r.sub_request.empty() && in_.Str(s) == RequestName(r)) return true;
    }
    return false;
  }

  // Counters `d` consumes that its pool can no longer provide.
  bool CountersAvailable(const DeviceRef& d) const {
    for (const auto& cc : d.device->consumes_counters) {
      for (const auto& c : cc.counters) {
        // The pool's capacity for this counter.
        std::optional<api::Quantity> total;
        for (const auto* s : d.pool->slices) {
          for (const auto& cs : s->shared_counters) {
            if (cs.name != cc.counter_set) continue;
            for (const auto& k : cs.counters) {
              if (k.name == c.name) total = k.value;
            }
          }
        }
        if (!total.has_value()) return false;  // kube: the counter set must exist in the pool
        api::Quantity used;
        Allocator::CounterKey key{d.pool->driver, d.pool->name, cc.counter_set, c.name};
        if (auto it = a_.consumed_.find(key); it != a_.consumed_.end()) used = it->second;
        if (auto it = consuming_.find(key); it != consuming_.end()) {
          auto s = used.Add(it->second);
          if (s.ok()) used = *s;
        }
        auto need = used.Add(c.value);
        if (!need.ok() || *need > *total) return false;
      }
    }
    return true;
  }

  void Consume(const DeviceRef& d, bool add) {
    for (const auto& cc : d.device->consumes_counters) {
      for (const auto& c : cc.counters) {
        api::Quantity& q = consuming_[{d.pool->driver, d.pool->name, cc.counter_set, c.name}];
        auto r = add ? q.Add(c.value) : q.Sub(c.value);
        if (r.ok()) q = *r;
      }
    }
  }

  bool InUse(const DeviceId& id) const {
    if (a_.dra_.AllocatedDevices().contains(id)) return true;
    auto it = allocating_.find(id);
    return it != allocating_.end() && it->second > 0;
  }

  // kube allocateDevice: availability, counters, constraints and capacity; on success the device
  // counts as allocating. 1: allocated; 0: not usable; -1: error (a constraint that `must` cannot
  // hold). Like kube, a device whose counters were taken keeps them when a later check rejects it
  // (within this search only).
  int AllocateDevice(const RequestData& r, const DeviceRef& d, bool must) {
    const bool admin = r.spec->admin_access;
    const bool multi = Multi(*d.device);
    const DeviceId id = d.id();
    if (admin ? (!multi && claim_devices_[r.claim].contains(id)) : InUse(id)) return 0;
    // The compatibility groups admitted for this device, undone when a later check rejects it (as
    // kube's rollbackDevice does; its counters stay taken, as described above).
    size_t compat_mark = kNoCompatMark;
    auto reject = [&](int rc) {
      if (compat_mark != kNoCompatMark) compat_.Rollback(compat_mark);
      return rc;
    };
    if (!d.device->consumes_counters.empty()) {
      if (!a_.features_.partitionable_devices) return 0;
      // A shared device's counters are taken once, by its first share; its compatibility groups
      // are checked then too (kube skips both for a further share).
      if (!(multi && CapacityInUse(id))) {
        // Compatibility groups first: a device they reject takes no counters.
        if (a_.features_.compatibility_groups) {
          const size_t mark = compat_.Mark();
          if (!compat_.Admit(d.pool->driver, d.pool->name, *d.device)) return 0;
          compat_mark = mark;
        } else if (SkipWhileDisabled(a_.compat_, d.pool->driver, d.pool->name, *d.device)) {
          return 0;
        }
        if (!CountersAvailable(d)) return reject(0);
        Consume(d, true);
      }
    }
    // A taint the request does not tolerate (kube checks it here, before the constraints).
    if (a_.features_.device_taints &&
        TaintPreventsAllocation(*d.device, d.pool->driver, d.pool->name, taint_rules_, *r.spec)) {
      return reject(0);
    }
    auto& cons = constraints_[r.claim];
    for (size_t i = 0; i < cons.size(); ++i) {
      if (Add(cons[i], r, *d.device)) continue;
      if (must) {
        *error_ = fmt::format(
            "claim {}, request {}: cannot add device {} because a claim constraint would not be "
            "satisfied",
            ClaimKey(r.claim), RequestName(r), DeviceIdString(d));
        for (size_t e = 0; e < i; ++e) Remove(cons[e], r);
        return reject(-1);
      }
      for (size_t e = 0; e < i; ++e) Remove(cons[e], r);
      return reject(0);
    }
    if (!multi) {
      ++allocating_[id];
      claim_devices_[r.claim].insert(id);
    }
    Chosen ch{&r, d};
    ch.compat_mark = compat_mark;
    if (a_.features_.consumable_capacity) {
      if (!CapacityFits(r, d)) return reject(0);  // kube: the device stays allocating, as here
      if (multi) {
        ch.shared = true;
        ConsumedFor(*r.spec, *d.device, in_.Str(d.pool->driver), &ch.consumed);
        AccumulateCapacity(ch.consumed, 1, &allocating_capacity_[id]);
      }
    }
    chosen_[r.claim].push_back(std::move(ch));
    return 1;
  }

  // kube's rollback of allocateDevice. A shared device keeps the counters its first share took
  // (kube releases counters of exclusively allocated devices only).
  void DeallocateDevice(const RequestData& r, const DeviceRef& d) {
    for (Constraint& con : constraints_[r.claim]) Remove(con, r);
    const DeviceId id = d.id();
    Chosen& ch = chosen_[r.claim].back();
    if (ch.compat_mark != kNoCompatMark) compat_.Rollback(ch.compat_mark);
    if (ch.shared) {
      auto it = allocating_capacity_.find(id);
      if (it != allocating_capacity_.end()) {
        AccumulateCapacity(ch.consumed, -1, &it->second);
        bool empty = true;
        for (const auto& c : it->second) empty &= c.value.IsZero();
        if (empty) allocating_capacity_.erase(it);
      }
    } else if (!Multi(*d.device)) {
      --allocating_[id];
      claim_devices_[r.claim].erase(id);
      if (a_.features_.partitionable_devices) Consume(d, false);
    }
    chosen_[r.claim].pop_back();
  }

  bool Multi(const res::Device& d) const {
    return a_.features_.consumable_capacity && d.allow_multiple_allocations;
  }

  // kube deviceCapacityInUse: some allocated or allocating share of the device.
  bool CapacityInUse(const DeviceId& id) const {
    return a_.dra_.SharedDevices().contains(id) || allocating_capacity_.contains(id);
  }

  // kube CmpRequestOverCapacity for a candidate (always true with the gate off). A device that is
  // not shared and a request without capacity requests always fit: the loader allows a
  // requestPolicy only on shared devices, so the whole value is consumed within the value.
  bool CapacityFits(const RequestData& r, const DeviceRef& d) const {
    if (!a_.features_.consumable_capacity) return true;
    if (r.spec->capacity_requests.empty() && !d.device->allow_multiple_allocations) return true;
    const DeviceId id = d.id();
    std::span<const res::ConsumedCapacity> allocated, allocating;
    if (auto it = a_.dra_.SharedDevices().find(id); it != a_.dra_.SharedDevices().end()) {
      allocated = it->second.consumed;
    }
    if (auto it = allocating_capacity_.find(id); it != allocating_capacity_.end()) {
      allocating = it->second;
    }
    return FitsCapacity(*r.spec, *d.device, in_.Str(d.pool->driver), allocated, allocating) ==
           CapacityFit::kFits;
  }

  // With DRAConsumableCapacity off, kube refuses a request that has capacity.
  bool CapacityAllowed(size_t c, const res::DeviceRequest& req) {
    if (req.exactly.has_value() && req.exactly->has_capacity) {
      *error_ = fmt::format(
          "claim {}, request {}: has capacity requests, but the DRAConsumableCapacity feature is "
          "disabled",
          ClaimKey(c), in_.Str(req.name));
      return false;
    }
    for (const auto& sub : req.first_available) {
      if (!sub.has_capacity) continue;
      *error_ = fmt::format(
          "claim {}, subrequest {}: has capacity requests, but the DRAConsumableCapacity feature "
          "is disabled",
          ClaimKey(c), in_.Str(sub.name));
      return false;
    }
    return true;
  }

  // kube matchAttributeConstraint.add/remove. With DRAListTypeAttributes the set of common values
  // is kept as keys when the index keyed the devices' attributes (it keys all or none), as values
  // otherwise: the same answers (attribute_keys_test.cc).
  bool Add(Constraint& con, const RequestData& r, const res::Device& d) {
    if (!Covers(con, r)) return true;
    const cel::AttributeValue* v = FindAttribute(d, con.spec->match_domain, con.spec->match_id);
    if (v == nullptr) return false;
    const bool sets = a_.features_.list_type_attributes;
    const AttributeKeys& keys = a_.index_->attribute_keys();
    std::span<const uint32_t> k;
    const bool keyed = sets && !keys.empty();
    if (keyed) {
      const bool found = keys.Find(*v, &k);
      CORRAL_CHECK_MSG(found, "a device attribute the PoolIndex did not key");
    }
    if (con.refs == 0) {
      if (keyed) {
        con.keys.Reset(k);
      } else if (sets) {
        con.set.Reset(*v);
      } else {
        con.value = v;
      }
      con.refs = 1;
      return true;
    }
    const bool ok = keyed  ? con.keys.Intersect(k)
                    : sets ? con.set.Intersect(*v)
                           : SameAttribute(*con.value, *v);
    if (!ok) return false;
    ++con.refs;
    return true;
  }
  void Remove(Constraint& con, const RequestData& r) {
    if (Covers(con, r)) --con.refs;
  }

  // kube allocateOne. Returns false on error; *done when a complete allocation was found.
  // `start` is where the search for the next device of the same request begins: kube tries
  // combinations, not permutations, of one request's devices, so a shared device serves a request
  // at most once.
  bool AllocateOne(size_t c, size_t ri, int64_t di, bool* done, const RequestData* cur = nullptr,
                   Location start = {}) {
    if (c == claims_.size()) {
      *done = true;
      return true;
    }
    if (ri == requests_[c].size()) return AllocateOne(c + 1, 0, 0, done);
    if (cur == nullptr) {
      // A new request: try its alternatives in order (one for an exact request).
      for (const RequestData& alt : requests_[c][ri]) {
        if (!AllocateOne(c, ri, 0, done, &alt)) return false;
        if (*done) return true;
      }
      return true;
    }
    const RequestData& r = *cur;
    const bool all = r.spec->allocation_mode == res::AllocationMode::kAll;
    // At least one device is required for 'All'.
    if (all && r.all_devices.empty()) return true;
    if (di >= r.num_devices) return AllocateOne(c, ri + 1, 0, done);
    // kube: a claim holds at most AllocationResultsMaxSize devices.
    if (static_cast<int64_t>(chosen_[c].size()) + r.num_devices - di >
        static_cast<int64_t>(kAllocationResultsMaxSize)) {
      return true;
    }
    if (all) {
      const DeviceRef& d = r.all_devices[static_cast<size_t>(di)];
      int got = AllocateDevice(r, d, true);
      if (got < 0) return false;
      if (got == 0) return true;  // every device must be allocated: no solution
      if (!AllocateOne(c, ri, di + 1, done, cur)) {
        DeallocateDevice(r, d);
        return false;
      }
      if (!*done) DeallocateDevice(r, d);
      return true;
    }
    for (size_t pi = start.pool; pi < pools_.size(); ++pi) {
      const Pool& p = pools_[pi];
      // Devices of invalid or incomplete pools are not allocated (kube), without an error:
      // other pools may do.
      if (p.incomplete || p.invalid) continue;
      for (size_t si = pi == start.pool ? start.slice : 0; si < p.slices.size(); ++si) {
        const res::ResourceSlice* s = p.slices[si];
        const size_t first = pi == start.pool && si == start.slice ? start.device : 0;
        for (size_t dj = first; dj < s->devices.size(); ++dj) {
          const res::Device& dev = s->devices[dj];
          DeviceRef d{&p, s, &dev};
          const DeviceId id = d.id();
          if (r.spec->admin_access ? (!Multi(dev) && claim_devices_[c].contains(id)) : InUse(id)) {
            continue;
          }
          int sel = Selectable(r, s, dev, p.driver, Place(pi, si, dj));
          if (sel < 0) return false;
          if (sel == 0 || !CapacityFits(r, d)) continue;
          int got = AllocateDevice(r, d, false);
          if (got < 0) return false;
          if (got == 0) continue;
          if (!AllocateOne(c, ri, di + 1, done, cur, {pi, si, dj + 1})) return false;
          if (*done) return true;
          DeallocateDevice(r, d);
        }
      }
    }
    return true;
  }

  std::optional<api::NodeSelector> NodeSelectorFor(std::span<const Chosen> chosen) const {
    api::NodeSelectorTerm term;
    for (const Chosen& ch : chosen) {
      const res::ResourceSlice& s = *ch.dev.slice;
      const res::Device& d = *ch.dev.device;
      Symbol node_name = s.per_device_node_selection ? d.node_name : s.node_name;
      // bindsToNode: the allocation is usable on the chosen node only.
      if (a_.features_.device_binding && d.binds_to_node) node_name = node_.meta.name;
      bool all = s.per_device_node_selection ? d.all_nodes : s.all_nodes;
      const std::optional<api::NodeSelector>& sel =
          s.per_device_node_selection ? d.node_selector : s.node_selector;
      if (!node_name.empty()) {
        api::NodeSelectorRequirement req;
        req.key = api::wk::kMetadataName;
        req.op = api::NodeSelectorOp::kIn;
        req.values = {node_name};
        api::NodeSelector out;
        out.node_selector_terms.push_back({});
        out.node_selector_terms[0].match_fields.push_back(std::move(req));
        return out;
      }
      if (all || !sel.has_value() || sel->node_selector_terms.empty()) continue;
      const auto& t = sel->node_selector_terms[0];
      auto add = [](const std::vector<api::NodeSelectorRequirement>& from,
                    std::vector<api::NodeSelectorRequirement>& to) {
        for (const auto& r : from) {
          bool present = false;
          for (const auto& x : to) {
            present |= x.key == r.key && x.op == r.op && x.values == r.values;
          }
          if (!present) to.push_back(r);
        }
      };
      add(t.match_fields, term.match_fields);
      add(t.match_expressions, term.match_expressions);
    }
    if (term.match_fields.empty() && term.match_expressions.empty()) return std::nullopt;
    api::NodeSelector out;
    out.node_selector_terms.push_back(std::move(term));
    return out;
  }

  const Allocator& a_;
  // kube's gatherPools for the node: its own slices' and the applying shared slices' pools.
  std::shared_ptr<const PoolIndex::NodePoolSet> pool_set_;  // holds pools_
  std::span<const Pool> pools_;
  const Interner& in_;
  const api::Node& node_;
  std::span<const res::ResourceClaim* const> claims_;
  std::string* error_;
  CompatSearch compat_;  // compatibility groups of the devices on each counter set
  std::span<const res::DeviceTaintRule* const> taint_rules_;
  // [claim][request][alternative]; inline for the usual claim or two of a request or two.
  absl::InlinedVector<absl::InlinedVector<absl::InlinedVector<RequestData, 1>, 2>, 2> requests_;
  absl::InlinedVector<std::vector<Constraint>, 2> constraints_;  // per claim
  absl::flat_hash_map<DeviceId, int> allocating_;       // devices of the allocation being built
  absl::InlinedVector<ClaimDevices, 2> claim_devices_;  // per claim
  absl::flat_hash_map<Allocator::CounterKey, api::Quantity> consuming_;
  // Capacity the shares of the allocation being built consume, per shared device.
  absl::flat_hash_map<DeviceId, std::vector<res::ConsumedCapacity>> allocating_capacity_;
  // Place(): per pool the index of its first slice in slice_first_device_, per slice the place of
  // its first device; num_devices_ places in all.
  std::vector<uint32_t> pool_first_slice_, slice_first_device_;
  uint32_t num_devices_ = 0;
  absl::InlinedVector<absl::InlinedVector<Chosen, 1>, 2> chosen_;
  absl::InlinedVector<std::pair<const res::DeviceClass*, std::atomic<uint8_t>*>, 2>
      class_selections_;
};

Allocator::Outcome Allocator::Allocate(const api::Node& node,
                                       std::span<const res::ResourceClaim* const> claims,
                                       std::vector<res::AllocationResult>* results,
                                       std::string* error, bool reuse) const {
  std::shared_ptr<const PoolIndex::NodePoolSet> pools = index_->PoolsFor(node, in_);
  if (!reuse || !pools->node_independent) {
    AllocationSearch search(*this, node, std::move(pools), claims, error);
    return search.Run(results);
  }
  const MemoState state{dra_.ClaimStatusVersion(), dra_.AllocatedDevices().size(),
                        dra_.SharedDevices().size()};
  MemoKey key{pools.get(), {claims.begin(), claims.end()}};
  {
    std::lock_guard<std::mutex> l(memo_mu_);
    if (auto it = memo_.find(key); it != memo_.end() && it->second.state == state) {
      *results = it->second.results;
      *error = it->second.error;
      return it->second.outcome;
    }
  }
  MemoEntry entry{pools, state, Outcome::kUnsatisfiable, {}, {}};
  AllocationSearch search(*this, node, std::move(pools), claims, &entry.error);
  const Outcome outcome = search.Run(&entry.results);
  entry.outcome = outcome;
  *results = entry.results;
  *error = entry.error;
  std::lock_guard<std::mutex> l(memo_mu_);
  memo_.insert_or_assign(std::move(key), std::move(entry));
  return outcome;
}

}  // namespace corral::plugins::dra
