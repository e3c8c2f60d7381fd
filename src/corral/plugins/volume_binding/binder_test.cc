// The volume binder, translated from kube's volumebinding/binder_test.go:
// TestFindPodVolumesWithoutProvisioning (22 scenarios, each with no CSIDriver and with a CSIDriver
// with and without capacity tracking), TestFindPodVolumesWithProvisioning (8 scenarios, the same
// three drivers), TestFindPodVolumesWithCSIMigration (4), TestAssumePodVolumes (5 of 7: the two
// "tmpupdate-failed" cases test API resource-version conflicts, which Corral has no counterpart
// of), TestRevertAssumedPodVolumes, TestFindAssumeVolumes and TestCapacity (11 scenarios, with and
// without the driver's opt-in). Expected values are kube's.

#include "corral/plugins/volume_binding/binder.h"

#include <algorithm>
#include <optional>

#include <gtest/gtest.h>

#include "test/testing/builders.h"
#include "test/testing/storage_builders.h"

namespace corral::plugins::volume_binding {
namespace {

using api::PersistentVolumePhase;
using api::VolumeBindingMode;

constexpr std::string_view kProvisioner = "test-provisioner";
constexpr std::string_view kWaitClass = "waitClass";
constexpr std::string_view kImmediateClass = "immediateClass";
constexpr std::string_view kWaitClassWithProvisioner = "waitClassWithProvisioner";
constexpr std::string_view kTopoMismatchClass = "topoMismatchClass";
constexpr std::string_view kNodeLabelKey = "nodeKey";

enum class ClaimState { kUnbound, kPrebound, kBound, kSelectedNode };

// kube's makeTestPVC(name, size, node, state, pvName, version, class): namespace testns,
// uid pvc-uid.
struct ClaimSpec {
  std::string_view name, size;
  ClaimState state;
  std::string_view pv;
  std::string_view cls;
};
const ClaimSpec kUnboundPVC{"unbound-pvc", "1G", ClaimState::kUnbound, "", kWaitClass};
const ClaimSpec kUnboundPVC2{"unbound-pvc2", "5G", ClaimState::kUnbound, "", kWaitClass};
const ClaimSpec kPreboundPVC{"prebound-pvc", "1G", ClaimState::kPrebound, "pv-node1a", kWaitClass};
const ClaimSpec kBoundPVC{"bound-pvc", "1G", ClaimState::kBound, "pv-bound", kWaitClass};
const ClaimSpec kImmediateUnboundPVC{"immediate-unbound-pvc", "1G", ClaimState::kUnbound, "",
                                     kImmediateClass};
const ClaimSpec kImmediateBoundPVC{"immediate-bound-pvc", "1G", ClaimState::kBound,
                                   "pv-bound-immediate", kImmediateClass};
const ClaimSpec kProvisionedPVC{"provisioned-pvc", "1Gi", ClaimState::kUnbound, "",
                                kWaitClassWithProvisioner};
const ClaimSpec kNoProvisionerPVC{"no-provisioner-pvc", "1Gi", ClaimState::kUnbound, "",
                                  kWaitClass};
const ClaimSpec kTopoMismatchPVC{"topo-mismatch-pvc", "1Gi", ClaimState::kUnbound, "",
                                 kTopoMismatchClass};
const ClaimSpec kSelectedNodePVC{"provisioned-pvc", "1Gi", ClaimState::kSelectedNode, "",
                                 kWaitClassWithProvisioner};
const ClaimSpec kBoundMigrationPVC{"pvc-migration-bound", "1G", ClaimState::kBound,
                                   "pv-migration-bound", kWaitClass};
// kube's makeGenericEphemeralPVC("test-volume", owned): the bound claim of the pod's volume.
const ClaimSpec kGenericPVC{"test-pod-test-volume", "1G", ClaimState::kBound, "pv-bound",
                            kWaitClass};

// kube's makeTestPV(name, node, capacity, version, boundToPVC, class): phase Available, node
// affinity nodeKey In [node].
struct VolumeSpec {
  std::string_view name, node, capacity;
  const ClaimSpec* bound_to;
  std::string_view cls;
};
const VolumeSpec kPvNode1a{"pv-node1a", "node1", "5G", nullptr, kWaitClass};
const VolumeSpec kPvNode1b{"pv-node1b", "node1", "10G", nullptr, kWaitClass};
const VolumeSpec kPvNode1c{"pv-node1b", "node1", "5G", nullptr, kWaitClass};
const VolumeSpec kPvNode2{"pv-node2", "node2", "1G", nullptr, kWaitClass};
const VolumeSpec kPvBound{"pv-bound", "node1", "1G", &kBoundPVC, kWaitClass};
const VolumeSpec kPvNode1aBound{"pv-node1a", "node1", "5G", &kUnboundPVC, kWaitClass};
const VolumeSpec kPvBoundImmediate{"pv-bound-immediate", "node1", "1G", &kImmediateBoundPVC,
                                   kImmediateClass};
const VolumeSpec kPvBoundImmediateNode2{"pv-bound-immediate", "node2", "1G", &kImmediateBoundPVC,
                                        kImmediateClass};
const VolumeSpec kPvBoundGeneric{"pv-bound", "node1", "1G", &kGenericPVC, kWaitClass};

struct Env {
  testing::TestWorld w;
  testing::StorageWorld s{w};
  api::Pod& pod = w.Pod("test-pod").Namespace("testns").Obj();
  std::unique_ptr<state::VolumeCache> cache;

  Env() {
    pod.meta.uid = w.S("pod-uid");
    auto& prov =
        s.Class(kWaitClassWithProvisioner, VolumeBindingMode::kWaitForFirstConsumer, kProvisioner);
    prov.allowed_topologies.push_back(
        {{{w.S(kNodeLabelKey), {w.S("node1"), w.S("reference-value")}}}});
    s.Class(kImmediateClass, VolumeBindingMode::kImmediate);
    s.Class(kWaitClass, VolumeBindingMode::kWaitForFirstConsumer, "kubernetes.io/no-provisioner");
    auto& topo =
        s.Class(kTopoMismatchClass, VolumeBindingMode::kWaitForFirstConsumer, kProvisioner);
    topo.allowed_topologies.push_back({{{w.S(kNodeLabelKey), {w.S("reference-value")}}}});
  }

  api::PersistentVolumeClaim& Claim(const ClaimSpec& c) {
    auto b = s.Claim(c.name, c.cls).Namespace("testns").Uid("pvc-uid").Request(c.size);
    switch (c.state) {
      case ClaimState::kSelectedNode:
        b.Annotation(api::kAnnSelectedNode, "node1");
        break;
      case ClaimState::kBound:
        b.Annotation(api::kAnnBindCompleted, "yes");
        b.VolumeName(c.pv);
        break;
      case ClaimState::kPrebound:
        b.VolumeName(c.pv);
        break;
      case ClaimState::kUnbound:
        break;
    }
    return b.Obj();
  }
  api::PersistentVolume& Volume(const VolumeSpec& v) {
    auto b = s.Volume(v.name, v.cls).Capacity(v.capacity).Phase(PersistentVolumePhase::kAvailable);
    if (!v.node.empty()) b.NodeAffinity({{kNodeLabelKey, {v.node}}});
    if (v.bound_to != nullptr) {
      b.ClaimRef("testns", v.bound_to->name, "pvc-uid");
      b.Obj().meta.annotations.emplace_back(w.S(api::kAnnBoundByController), "yes");
    }
    return b.Obj();
  }
  state::VolumeCache& Cache() {
    if (!cache) cache = std::make_unique<state::VolumeCache>(s.objects, w.in);
    return *cache;
  }
  api::Node& Node(std::string_view name, std::string_view key, std::string_view value) {
    auto& n = w.Node(name).Obj();
    if (!key.empty()) n.meta.labels.Set(w.S(key), w.S(value));
    return n;
  }
  // kube's test helper findPodVolumes: fails when a claim is missing or immediate and unbound.
  bool Find(const api::Node& node, PodVolumes* out, std::vector<std::string_view>* reasons) {
    PodVolumeClaims claims;
    if (!GetPodVolumeClaims(pod, Cache(), &claims).ok()) return false;
    if (!claims.unbound_immediate.empty()) return false;
    return FindPodVolumes(claims, node, Cache(), out, reasons).ok();
  }
};

// kube's checkReasons: the same reasons in any order.
void ExpectReasons(std::vector<std::string_view> got, std::vector<std::string_view> want) {
  std::sort(got.begin(), got.end());
  std::sort(want.begin(), want.end());
  EXPECT_EQ(got, want);
}

struct Binding {
  std::string_view claim, pv;
};
void ExpectBindings(const Env& e, const PodVolumes& v, std::vector<Binding> want) {
  ASSERT_EQ(v.static_bindings.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) {
    EXPECT_EQ(e.w.in.Str(v.static_bindings[i].claim->meta.name), want[i].claim);
    EXPECT_EQ(e.w.in.Str(v.static_bindings[i].pv->meta.name), want[i].pv);
  }
}

const std::vector<std::optional<bool>> kDrivers = {std::nullopt, true, false};

TEST(BinderTest, KubeTestFindPodVolumesWithoutProvisioning) {
  struct Scenario {
    std::string name;
    std::vector<const ClaimSpec*> pod_claims;
    std::optional<std::vector<const ClaimSpec*>> cache_claims;  // nullopt: the pod's claims
    std::vector<const VolumeSpec*> pvs;
    std::vector<Binding> bindings;
    std::vector<std::string_view> reasons;
    bool should_fail = false;
    std::string other_volume;      // an emptyDir volume
    std::string ephemeral_volume;  // a generic ephemeral volume
    bool owned = true;             // whether the pod owns its ephemeral claim
  };
  const std::vector<Scenario> scenarios = {
      {.name = "no-volumes"},
      {.name = "no-pvcs", .other_volume = "empty"},
      {.name = "pvc-not-found",
       .pod_claims = {&kBoundPVC},
       .cache_claims = std::vector<const ClaimSpec*>{},
       .should_fail = true},
      {.name = "bound-pvc", .pod_claims = {&kBoundPVC}, .pvs = {&kPvBound}},
      {.name = "bound-pvc,pv-not-exists",
       .pod_claims = {&kBoundPVC},
       .reasons = {kErrReasonPVNotExist}},
      {.name = "prebound-pvc",
       .pod_claims = {&kPreboundPVC},
       .pvs = {&kPvNode1aBound},
       .should_fail = true},
      {.name = "unbound-pvc,pv-same-node",
       .pod_claims = {&kUnboundPVC},
       .pvs = {&kPvNode2, &kPvNode1a, &kPvNode1b},
       .bindings = {{"unbound-pvc", "pv-node1a"}}},
      {.name = "unbound-pvc,pv-different-node",
       .pod_claims = {&kUnboundPVC},
       .pvs = {&kPvNode2},
       .reasons = {kErrReasonBindConflict}},
      {.name = "two-unbound-pvcs",
       .pod_claims = {&kUnboundPVC, &kUnboundPVC2},
       .pvs = {&kPvNode1a, &kPvNode1b},
       .bindings = {{"unbound-pvc", "pv-node1a"}, {"unbound-pvc2", "pv-node1b"}}},
      {.name = "two-unbound-pvcs,order-by-size",
       .pod_claims = {&kUnboundPVC2, &kUnboundPVC},
       .pvs = {&kPvNode1a, &kPvNode1b},
       .bindings = {{"unbound-pvc", "pv-node1a"}, {"unbound-pvc2", "pv-node1b"}}},
      {.name = "two-unbound-pvcs,partial-match",
       .pod_claims = {&kUnboundPVC, &kUnboundPVC2},
       .pvs = {&kPvNode1a},
       .bindings = {{"unbound-pvc", "pv-node1a"}},
       .reasons = {kErrReasonBindConflict}},
      {.name = "one-bound,one-unbound",
       .pod_claims = {&kUnboundPVC, &kBoundPVC},
       .pvs = {&kPvBound, &kPvNode1a},
       .bindings = {{"unbound-pvc", "pv-node1a"}}},
      {.name = "one-bound,one-unbound,no-match",
       .pod_claims = {&kUnboundPVC, &kBoundPVC},
       .pvs = {&kPvBound, &kPvNode2},
       .reasons = {kErrReasonBindConflict}},
      {.name = "one-prebound,one-unbound",
       .pod_claims = {&kUnboundPVC, &kPreboundPVC},
       .pvs = {&kPvNode1a, &kPvNode1b},
       .should_fail = true},
      {.name = "immediate-bound-pvc",
       .pod_claims = {&kImmediateBoundPVC},
       .pvs = {&kPvBoundImmediate}},
      {.name = "immediate-bound-pvc-wrong-node",
       .pod_claims = {&kImmediateBoundPVC},
       .pvs = {&kPvBoundImmediateNode2},
       .reasons = {kErrReasonNodeConflict}},
      {.name = "immediate-unbound-pvc", .pod_claims = {&kImmediateUnboundPVC}, .should_fail = true},
      {.name = "immediate-unbound-pvc,delayed-mode-bound",
       .pod_claims = {&kImmediateUnboundPVC, &kBoundPVC},
       .pvs = {&kPvBound},
       .should_fail = true},
      {.name = "immediate-unbound-pvc,delayed-mode-unbound",
       .pod_claims = {&kImmediateUnboundPVC, &kUnboundPVC},
       .should_fail = true},
      {.name = "generic-ephemeral,no-pvc", .should_fail = true, .ephemeral_volume = "no-such-pvc"},
      {.name = "generic-ephemeral,with-pvc",
       .cache_claims = std::vector<const ClaimSpec*>{&kGenericPVC},
       .pvs = {&kPvBoundGeneric},
       .ephemeral_volume = "test-volume"},
      {.name = "generic-ephemeral,wrong-pvc",
       .cache_claims = std::vector<const ClaimSpec*>{&kGenericPVC},
       .pvs = {&kPvBoundGeneric},
       .should_fail = true,
       .ephemeral_volume = "test-volume",
       .owned = false},
  };
  for (const auto& driver : kDrivers) {
    for (const Scenario& sc : scenarios) {
      SCOPED_TRACE(sc.name + (driver ? (*driver ? " (capacity driver)" : " (driver)") : ""));
      Env e;
      if (driver) e.s.CSIDriver(kProvisioner, *driver);
      for (const VolumeSpec* v : sc.pvs) e.Volume(*v);
      for (const ClaimSpec* c : sc.cache_claims.value_or(sc.pod_claims)) {
        auto& claim = e.Claim(*c);
        if (c == &kGenericPVC && sc.owned) {
          claim.meta.owner_references.push_back(
              {e.w.S("v1"), e.w.S("Pod"), e.pod.meta.name, e.pod.meta.uid, true});
        }
      }
      for (const ClaimSpec* c : sc.pod_claims) e.s.PvcVolume(e.pod, c->name);
      if (!sc.other_volume.empty()) e.s.OtherVolume(e.pod, sc.other_volume);
      if (!sc.ephemeral_volume.empty()) e.s.EphemeralVolume(e.pod, sc.ephemeral_volume);
      api::Node& node = e.Node("node1", kNodeLabelKey, "node1");
      PodVolumes got;
      std::vector<std::string_view> reasons;
      bool ok = e.Find(node, &got, &reasons);
      EXPECT_EQ(ok, !sc.should_fail);
      ExpectReasons(reasons, sc.reasons);
      ExpectBindings(e, got, sc.bindings);
    }
  }
}

TEST(BinderTest, KubeTestFindPodVolumesWithProvisioning) {
  struct Scenario {
    std::string name;
    std::vector<const ClaimSpec*> pod_claims;
    std::vector<const VolumeSpec*> pvs;
    std::vector<Binding> bindings;
    std::vector<std::string_view> provisions;  // claim names
    std::vector<std::string_view> reasons;
    bool should_fail = false;
    bool needs_capacity = false;
  };
  const std::vector<Scenario> scenarios = {
      {.name = "one-provisioned",
       .pod_claims = {&kProvisionedPVC},
       .provisions = {"provisioned-pvc"},
       .needs_capacity = true},
      {.name = "two-unbound-pvcs,one-matched,one-provisioned",
       .pod_claims = {&kUnboundPVC, &kProvisionedPVC},
       .pvs = {&kPvNode1a},
       .bindings = {{"unbound-pvc", "pv-node1a"}},
       .provisions = {"provisioned-pvc"},
       .needs_capacity = true},
      {.name = "one-bound,one-provisioned",
       .pod_claims = {&kBoundPVC, &kProvisionedPVC},
       .pvs = {&kPvBound},
       .provisions = {"provisioned-pvc"},
       .needs_capacity = true},
      {.name = "one-binding,one-selected-node",
       .pod_claims = {&kBoundPVC, &kSelectedNodePVC},
       .pvs = {&kPvBound},
       .provisions = {"provisioned-pvc"},
       .needs_capacity = true},
      {.name = "immediate-unbound-pvc", .pod_claims = {&kImmediateUnboundPVC}, .should_fail = true},
      {.name = "one-immediate-bound,one-provisioned",
       .pod_claims = {&kImmediateBoundPVC, &kProvisionedPVC},
       .pvs = {&kPvBoundImmediate},
       .provisions = {"provisioned-pvc"},
       .needs_capacity = true},
      {.name = "invalid-provisioner",
       .pod_claims = {&kNoProvisionerPVC},
       .reasons = {kErrReasonBindConflict}},
      {.name = "volume-topology-unsatisfied",
       .pod_claims = {&kTopoMismatchPVC},
       .reasons = {kErrReasonBindConflict}},
  };
  for (const auto& driver : kDrivers) {
    for (const Scenario& sc : scenarios) {
      SCOPED_TRACE(sc.name + (driver ? (*driver ? " (capacity driver)" : " (driver)") : ""));
      Env e;
      if (driver) e.s.CSIDriver(kProvisioner, *driver);
      for (const VolumeSpec* v : sc.pvs) e.Volume(*v);
      for (const ClaimSpec* c : sc.pod_claims) e.Claim(*c);
      for (const ClaimSpec* c : sc.pod_claims) e.s.PvcVolume(e.pod, c->name);
      api::Node& node = e.Node("node1", kNodeLabelKey, "node1");
      PodVolumes got;
      std::vector<std::string_view> reasons;
      bool ok = e.Find(node, &got, &reasons);
      EXPECT_EQ(ok, !sc.should_fail);
      std::vector<std::string_view> want_reasons = sc.reasons;
      std::vector<std::string_view> want_provisions = sc.provisions;
      if (sc.needs_capacity && driver.value_or(false)) {
        // Without CSIStorageCapacity objects, provisioning is blocked.
        want_reasons.push_back(kErrReasonNotEnoughSpace);
        want_provisions.clear();
      }
      ExpectReasons(reasons, want_reasons);
      ExpectBindings(e, got, sc.bindings);
      ASSERT_EQ(got.dynamic_provisions.size(), want_provisions.size());
      for (size_t i = 0; i < want_provisions.size(); ++i) {
        EXPECT_EQ(e.w.in.Str(got.dynamic_provisions[i].claim->meta.name), want_provisions[i]);
        EXPECT_EQ(got.dynamic_provisions[i].capacity, nullptr);
      }
    }
  }
}

TEST(BinderTest, KubeTestFindPodVolumesWithCSIMigration) {
  struct Scenario {
    std::string name;
    std::string_view node_zone;
    std::optional<std::string_view> migrated;  // CSINode annotation; nullopt: no CSINode
    std::vector<std::string_view> reasons;
  };
  const std::vector<Scenario> scenarios = {
      {"pvc-bound", "us-east-1", "kubernetes.io/gce-pd", {}},
      {"pvc-bound,csinode-not-migrated", "us-east-1", "", {}},
      {"pvc-bound,missing-csinode", "us-east-1", std::nullopt, {}},
      {"pvc-bound,node-different-zone",
       "us-east-2",
       "kubernetes.io/gce-pd",
       {kErrReasonNodeConflict}},
  };
  for (const Scenario& sc : scenarios) {
    SCOPED_TRACE(sc.name);
    Env e;
    e.Claim(kBoundMigrationPVC);
    e.s.PvcVolume(e.pod, kBoundMigrationPVC.name);
    // kube's makeTestPVForCSIMigration(zone1Labels, boundMigrationPVC, true): an in-tree GCE PD
    // without node affinity, labelled with the beta zone and region.
    auto& pv = e.s.Volume("pv-migration-bound", kWaitClass)
                   .Capacity("1G")
                   .Phase(PersistentVolumePhase::kAvailable)
                   .ClaimRef("testns", kBoundMigrationPVC.name, "pvc-uid")
                   .Label(api::kZoneLabelBeta, "us-east-1")
                   .Label(api::kRegionLabelBeta, "us-east-1a")
                   .Source(api::VolumeKind::kGcePersistentDisk, "test-disk")
                   .Obj();
    (void)pv;
    if (sc.migrated) {
      e.s.CSINode("node1").meta.annotations.emplace_back(e.w.S(api::kAnnMigratedPlugins),
                                                         std::string(*sc.migrated));
    }
    api::Node& node = e.Node("node1", "topology.gke.io/zone", sc.node_zone);
    PodVolumes got;
    std::vector<std::string_view> reasons;
    EXPECT_TRUE(e.Find(node, &got, &reasons));
    ExpectReasons(reasons, sc.reasons);
  }
}

TEST(BinderTest, KubeTestAssumePodVolumes) {
  {  // all-bound
    Env e;
    e.Claim(kBoundPVC);
    e.s.PvcVolume(e.pod, kBoundPVC.name);
    e.Volume(kPvBound);
    EXPECT_TRUE(ArePodVolumesBound(e.pod, e.Cache()));
  }
  {  // one-binding, two-bindings, pv-already-bound, one-binding one-pvc-provisioned
    for (int scenario = 0; scenario < 4; ++scenario) {
      SCOPED_TRACE(scenario);
      Env e;
      e.Claim(kUnboundPVC);
      if (scenario == 1) e.Claim(kUnboundPVC2);
      if (scenario == 3) e.Claim(kProvisionedPVC);
      e.Volume(scenario == 2 ? kPvNode1aBound : kPvNode1a);
      if (scenario == 1) e.Volume(kPvNode1b);
      state::VolumeCache& c = e.Cache();
      auto* claim = c.GetClaim(e.w.S("testns"), e.w.S("unbound-pvc"));
      const api::PersistentVolume* pv = c.AssumeVolumeBound(c.GetVolume(e.w.S("pv-node1a")), claim);
      // makeBinding(unboundPVC, pvNode1aBound): claimRef to the claim, bound-by-controller.
      ASSERT_TRUE(pv->claim_ref.has_value());
      EXPECT_EQ(e.w.in.Str(pv->claim_ref->name), "unbound-pvc");
      EXPECT_EQ(e.w.in.Str(pv->claim_ref->uid), "pvc-uid");
      EXPECT_TRUE(c.HasAnnotation(pv->meta, api::kAnnBoundByController));
      if (scenario == 1) {
        const api::PersistentVolume* pv2 = c.AssumeVolumeBound(
            c.GetVolume(e.w.S("pv-node1b")), c.GetClaim(e.w.S("testns"), e.w.S("unbound-pvc2")));
        EXPECT_EQ(e.w.in.Str(pv2->claim_ref->name), "unbound-pvc2");
      }
      if (scenario == 3) {
        const api::PersistentVolumeClaim* p = c.AssumeClaimProvisioned(
            c.GetClaim(e.w.S("testns"), e.w.S("provisioned-pvc")), e.w.S("node1"));
        const std::string* sel = c.Annotation(p->meta, api::kAnnSelectedNode);
        ASSERT_NE(sel, nullptr);
        EXPECT_EQ(*sel, "node1");  // selectedNodePVC
      }
    }
  }
}

TEST(BinderTest, KubeTestRevertAssumedPodVolumes) {
  Env e;
  e.Claim(kUnboundPVC);
  e.Claim(kProvisionedPVC);
  e.Volume(kPvNode1a);
  state::VolumeCache& c = e.Cache();
  c.AssumeVolumeBound(c.GetVolume(e.w.S("pv-node1a")),
                      c.GetClaim(e.w.S("testns"), e.w.S("unbound-pvc")));
  c.AssumeClaimProvisioned(c.GetClaim(e.w.S("testns"), e.w.S("provisioned-pvc")), e.w.S("node1"));
  c.RestoreVolume(e.w.S("pv-node1a"));
  c.RestoreClaim(e.w.S("testns"), e.w.S("provisioned-pvc"));
  const api::PersistentVolume* pv = c.GetVolume(e.w.S("pv-node1a"));
  EXPECT_FALSE(pv->claim_ref.has_value());
  EXPECT_FALSE(c.HasAnnotation(pv->meta, api::kAnnBoundByController));
  EXPECT_FALSE(c.HasAnnotation(c.GetClaim(e.w.S("testns"), e.w.S("provisioned-pvc"))->meta,
                               api::kAnnSelectedNode));
}

TEST(BinderTest, KubeTestFindAssumeVolumes) {
  Env e;
  e.Claim(kUnboundPVC);
  e.s.PvcVolume(e.pod, kUnboundPVC.name);
  for (const VolumeSpec* v : {&kPvNode2, &kPvNode1a, &kPvNode1c}) e.Volume(*v);
  api::Node& node = e.Node("node1", kNodeLabelKey, "node1");
  PodVolumes first;
  std::vector<std::string_view> reasons;
  ASSERT_TRUE(e.Find(node, &first, &reasons));
  ASSERT_TRUE(reasons.empty());
  ASSERT_EQ(first.static_bindings.size(), 1u);
  const api::PersistentVolume* chosen = first.static_bindings[0].pv;
  e.Cache().AssumeVolumeBound(chosen, first.static_bindings[0].claim);
  EXPECT_FALSE(ArePodVolumesBound(e.pod, e.Cache()));
  // Finding again always returns the chosen volume (now pre-bound to the claim).
  for (int i = 0; i < 5; ++i) {
    PodVolumes again;
    std::vector<std::string_view> r;
    ASSERT_TRUE(e.Find(node, &again, &r));
    ASSERT_EQ(again.static_bindings.size(), 1u);
    EXPECT_EQ(again.static_bindings[0].pv, chosen);
  }
}

TEST(BinderTest, KubeTestCapacity) {
  // kube's makeCapacity(name, class, node, capacity, maximumVolumeSize): node nil is an empty
  // nodeTopology (every node).
  struct Cap {
    std::string_view cls;
    std::string_view node;  // "" = network attached
    std::string_view capacity, max;
  };
  struct Scenario {
    std::string name;
    std::vector<Cap> capacities;
    std::optional<size_t> expected;  // index of the capacity the provision records
    std::vector<std::string_view> reasons;
  };
  const Cap kNet{kWaitClassWithProvisioner, "", "1Gi", ""};
  const Cap kNode1{kWaitClassWithProvisioner, "node1", "1Gi", ""};
  const Cap kNode2{kWaitClassWithProvisioner, "node2", "1Gi", ""};
  const std::vector<Scenario> scenarios = {
      {"network-attached", {kNet}, 0, {}},
      {"local-storage", {kNode1}, 0, {}},
      {"multiple", {kNet, kNode2, kNode1}, 2, {}},
      {"no-storage", {}, std::nullopt, {kErrReasonNotEnoughSpace}},
      {"wrong-node", {kNode2}, std::nullopt, {kErrReasonNotEnoughSpace}},
      {"wrong-storage-class",
       {{kWaitClass, "node1", "1Gi", ""}},
       std::nullopt,
       {kErrReasonNotEnoughSpace}},
      {"insufficient-storage",
       {{kWaitClassWithProvisioner, "node1", "1Mi", ""}},
       std::nullopt,
       {kErrReasonNotEnoughSpace}},
      {"insufficient-volume-size",
       {{kWaitClassWithProvisioner, "node1", "1Gi", "1Mi"}},
       std::nullopt,
       {kErrReasonNotEnoughSpace}},
      {"zero-storage",
       {{kWaitClassWithProvisioner, "node1", "0Mi", ""}},
       std::nullopt,
       {kErrReasonNotEnoughSpace}},
      {"zero-volume-size",
       {{kWaitClassWithProvisioner, "node1", "", "0Mi"}},
       std::nullopt,
       {kErrReasonNotEnoughSpace}},
      {"nil-storage",
       {{kWaitClassWithProvisioner, "node1", "", ""}},
       std::nullopt,
       {kErrReasonNotEnoughSpace}},
  };
  for (bool opt_in : {true, false}) {
    for (const Scenario& sc : scenarios) {
      SCOPED_TRACE(sc.name + (opt_in ? " (opt-in)" : " (no opt-in)"));
      Env e;
      e.s.CSIDriver(kProvisioner, opt_in);
      for (const Cap& cap : sc.capacities) {
        auto& c = e.s.Capacity("net", cap.cls, cap.capacity);
        if (!cap.max.empty()) c.maximum_volume_size = e.w.Q(cap.max);
        c.node_topology = api::LabelSelector{};
        if (!cap.node.empty())
          c.node_topology->match_labels.Set(e.w.S(kNodeLabelKey), e.w.S(cap.node));
      }
      e.Claim(kProvisionedPVC);
      e.s.PvcVolume(e.pod, kProvisionedPVC.name);
      api::Node& node = e.Node("node1", kNodeLabelKey, "node1");
      PodVolumes got;
      std::vector<std::string_view> reasons;
      EXPECT_TRUE(e.Find(node, &got, &reasons));
      ExpectReasons(reasons, opt_in ? sc.reasons : std::vector<std::string_view>{});
      if (!opt_in || sc.reasons.empty()) {
        ASSERT_EQ(got.dynamic_provisions.size(), 1u);
        const api::CSIStorageCapacity* want =
            opt_in && sc.expected ? e.Cache().Capacities()[*sc.expected] : nullptr;
        EXPECT_EQ(got.dynamic_provisions[0].capacity, want);
      }
    }
  }
}

}  // namespace
}  // namespace corral::plugins::volume_binding
