#pragma once
// Storage objects for the volume plugins' unit tests, with the helpers of kube's volume plugin
// tests (makePVC(...).withBoundPV(...), makePV(...).withNodeAffinity(...), ...), and a Handle
// whose volumes() serves them.
//
//   testing::StorageWorld s(w);
//   s.Claim("pvc-a", "wait-sc").BoundTo("pv-a");
//   s.Volume("pv-a", "wait-sc").Phase(api::PersistentVolumePhase::kAvailable);
//   testing::StorageHandle h(w, s);  // builds the VolumeCache on first use

#include <initializer_list>
#include <memory>
#include <string_view>
#include <utility>

#include "corral/api/storage.h"
#include "corral/state/volume_cache.h"

#include "test/testing/builders.h"
#include "test/testing/fake_handle.h"

namespace corral::testing {

class StorageWorld {
 public:
  explicit StorageWorld(TestWorld& w) : w_(w) {}

  class ClaimBuilder {
   public:
    ClaimBuilder(StorageWorld& s, api::PersistentVolumeClaim& c) : s_(s), c_(c) {}
    // kube's withBoundPV: volumeName and the bind-completed annotation.
    ClaimBuilder& BoundTo(std::string_view pv) {
      c_.volume_name = s_.w_.S(pv);
      c_.meta.annotations.emplace_back(s_.w_.S(api::kAnnBindCompleted), "true");
      return *this;
    }
    ClaimBuilder& VolumeName(std::string_view pv) {
      c_.volume_name = s_.w_.S(pv);
      return *this;
    }
    ClaimBuilder& Request(std::string_view q) {
      c_.storage_request = s_.w_.Q(q);
      c_.has_storage_request = true;
      return *this;
    }
    ClaimBuilder& Phase(api::ClaimPhase p) {
      c_.phase = p;
      return *this;
    }
    ClaimBuilder& Modes(uint8_t m) {
      c_.access_modes = m;
      return *this;
    }
    ClaimBuilder& Annotation(std::string_view k, std::string_view v) {
      c_.meta.annotations.emplace_back(s_.w_.S(k), std::string(v));
      return *this;
    }
    ClaimBuilder& Namespace(std::string_view ns) {
      c_.meta.namespace_ = s_.w_.S(ns);
      return *this;
    }
    ClaimBuilder& Uid(std::string_view uid) {
      c_.meta.uid = s_.w_.S(uid);
      return *this;
    }
    ClaimBuilder& OwnedBy(const api::Pod& pod) {
      c_.meta.owner_references.push_back(
          {s_.w_.S("v1"), s_.w_.S("Pod"), pod.meta.name, pod.meta.uid, true});
      return *this;
    }
    api::PersistentVolumeClaim& Obj() { return c_; }

   private:
    StorageWorld& s_;
    api::PersistentVolumeClaim& c_;
  };

  class VolumeBuilder {
   public:
    VolumeBuilder(StorageWorld& s, api::PersistentVolume& v) : s_(s), v_(v) {}
    VolumeBuilder& Phase(api::PersistentVolumePhase p) {
      v_.phase = p;
      return *this;
    }
    VolumeBuilder& Capacity(std::string_view q) {
      v_.capacity = s_.w_.Q(q);
      return *this;
    }
    VolumeBuilder& Modes(uint8_t m) {
      v_.access_modes = m;
      return *this;
    }
    // kube's withNodeAffinity: one term, one `key In values` expression per entry.
    VolumeBuilder& NodeAffinity(
        std::initializer_list<std::pair<std::string_view, std::initializer_list<std::string_view>>>
            kv) {
      api::NodeSelectorTerm term;
      for (const auto& [k, vals] : kv) {
        api::NodeSelectorRequirement r{s_.w_.S(k), api::NodeSelectorOp::kIn, {}};
        for (auto v : vals) r.values.push_back(s_.w_.S(v));
        term.match_expressions.push_back(std::move(r));
      }
      v_.node_affinity = api::NodeSelector{{std::move(term)}};
      return *this;
    }
    VolumeBuilder& Label(std::string_view k, std::string_view v) {
      v_.meta.labels.Set(s_.w_.S(k), s_.w_.S(v));
      return *this;
    }
    VolumeBuilder& ClaimRef(std::string_view ns, std::string_view name, std::string_view uid = "") {
      v_.claim_ref =
          api::ClaimReference{s_.w_.S(ns), s_.w_.S(name), uid.empty() ? Symbol() : s_.w_.S(uid)};
      return *this;
    }
    VolumeBuilder& Source(api::VolumeKind kind, std::string_view id, std::string_view driver = "") {
      v_.source_kind = kind;
      v_.source.id = s_.w_.S(id);
      if (!driver.empty()) v_.source.driver = s_.w_.S(driver);
      return *this;
    }
    api::PersistentVolume& Obj() { return v_; }

   private:
    StorageWorld& s_;
    api::PersistentVolume& v_;
  };

  // kube's makePVC(name, class): namespace "default", the class ("" for none).
  ClaimBuilder Claim(std::string_view name, std::string_view storage_class) {
    auto& c = objects.claims.emplace_back();
    c.meta.name = w_.S(name);
    c.meta.namespace_ = api::wk::kDefaultNamespace;
    if (!storage_class.empty()) {
      c.storage_class_name = w_.S(storage_class);
      c.has_storage_class = true;
    }
    return ClaimBuilder(*this, c);
  }
  // kube's makePV(name, class).
  VolumeBuilder Volume(std::string_view name, std::string_view storage_class) {
    auto& v = objects.volumes.emplace_back();
    v.meta.name = w_.S(name);
    if (!storage_class.empty()) v.storage_class_name = w_.S(storage_class);
    return VolumeBuilder(*this, v);
  }
  api::StorageClass& Class(std::string_view name, api::VolumeBindingMode mode,
                           std::string_view provisioner = "") {
    auto& c = objects.classes.emplace_back();
    c.meta.name = w_.S(name);
    c.volume_binding_mode = mode;
    if (!provisioner.empty()) c.provisioner = w_.S(provisioner);
    return c;
  }
  api::CSINode& CSINode(std::string_view node) {
    auto& n = objects.csi_nodes.emplace_back();
    n.meta.name = w_.S(node);
    return n;
  }
  api::CSIDriver& CSIDriver(std::string_view name, bool storage_capacity) {
    auto& d = objects.csi_drivers.emplace_back();
    d.meta.name = w_.S(name);
    d.storage_capacity = storage_capacity;
    return d;
  }
  api::CSIStorageCapacity& Capacity(std::string_view name, std::string_view storage_class,
                                    std::string_view capacity) {
    auto& c = objects.capacities.emplace_back();
    c.meta.name = w_.S(name);
    c.storage_class_name = w_.S(storage_class);
    if (!capacity.empty()) c.capacity = w_.Q(capacity);
    return c;
  }

  // Pod volumes (kube's withPVCVolume / withGenericEphemeralVolume / withEmptyDirVolume).
  void PvcVolume(api::Pod& pod, std::string_view claim, std::string_view volume = "") {
    pod.volumes.push_back({w_.S(volume), api::VolumeKind::kPersistentVolumeClaim, w_.S(claim)});
  }
  void EphemeralVolume(api::Pod& pod, std::string_view volume) {
    pod.volumes.push_back({w_.S(volume), api::VolumeKind::kEphemeral, Symbol()});
  }
  void OtherVolume(api::Pod& pod, std::string_view volume) {
    pod.volumes.push_back({w_.S(volume), api::VolumeKind::kOther, Symbol()});
  }

  api::StorageObjects objects;

 private:
  TestWorld& w_;
};

// A FakeHandle that serves a VolumeCache built from a StorageWorld (on first use, so tests add
// every object first).
class StorageHandle : public FakeHandle {
 public:
  StorageHandle(TestWorld& w, StorageWorld& s) : FakeHandle(w), w_(w), s_(s) {}
  state::VolumeCache* volumes() const override {
    if (cache_ == nullptr) cache_ = std::make_unique<state::VolumeCache>(s_.objects, w_.in);
    return cache_.get();
  }

 private:
  TestWorld& w_;
  StorageWorld& s_;
  mutable std::unique_ptr<state::VolumeCache> cache_;
};

}  // namespace corral::testing
