// VolumeZone, translated from kube's volumezone/volume_zone_test.go: TestSingleZone (14 cases),
// TestMultiZone (5), TestWithBinding (5), TestIsSchedulableAfterPersistentVolumeClaimAdded (6 of
// 7), TestIsSchedulableAfterStorageClassAdded (2 of 3) and
// TestIsSchedulableAfterPersistentVolumeChange (4 of 6); the cases left out pass objects of the
// wrong type, which Corral's typed hints cannot receive. Expected values are kube's.

#include "corral/plugins/volume_zone/volume_zone.h"

#include <gtest/gtest.h>

#include "test/testing/builders.h"
#include "test/testing/storage_builders.h"

namespace corral::plugins {
namespace {

using framework::Code;
using framework::QueueingHint;
using framework::Status;

constexpr std::string_view kBetaZone = api::kZoneLabelBeta;
constexpr std::string_view kBetaRegion = api::kRegionLabelBeta;
constexpr std::string_view kZone = "topology.kubernetes.io/zone";
constexpr std::string_view kRegion = "topology.kubernetes.io/region";

using Labels = std::vector<std::pair<std::string_view, std::string_view>>;

struct Case {
  std::string name;
  std::string_view pvc;  // "" = pod without volume
  Labels node_labels;
  Code pre_filter = Code::kSuccess;
  std::string_view pre_filter_reason;
  Code filter = Code::kSuccess;
  std::string_view filter_reason;
};

// Runs kube's loop: PreFilter, then Filter whatever PreFilter said.
void RunCase(testing::TestWorld& w, testing::StorageWorld& s, const Case& c) {
  SCOPED_TRACE(c.name);
  testing::StorageHandle h(w, s);
  auto made = VolumeZone::New(nullptr, h);
  ASSERT_TRUE(made.ok());
  auto& pl = dynamic_cast<VolumeZone&>(**made);
  api::Pod& pod = w.Pod("pod_1").Obj();
  if (!c.pvc.empty()) s.PvcVolume(pod, c.pvc);
  auto& node = w.Node("host1").Obj();
  node.meta.labels = api::LabelSet();
  for (auto [k, v] : c.node_labels) node.meta.labels.Set(w.S(k), w.S(v));
  framework::PodInfo& info = w.Info(pod);
  framework::CycleState state;
  Status pre = pl.PreFilter(state, 0, info, h.snapshot(), nullptr);
  EXPECT_EQ(pre.code(), c.pre_filter) << pre.Message();
  EXPECT_EQ(pre.Message(), c.pre_filter_reason);
  Status f = pl.Filter(state, 0, info, w.NodeWith(node));
  EXPECT_EQ(f.code(), c.filter) << f.Message();
  EXPECT_EQ(f.Message(), c.filter_reason);
}

void Bound(testing::StorageWorld& s, std::string_view pvc, std::string_view pv) {
  s.Claim(pvc, "").VolumeName(pv);
}

TEST(VolumeZoneTest, KubeTestSingleZone) {
  const std::string_view conflict = VolumeZone::kErrReasonConflict;
  const std::vector<Case> cases = {
      {"pod without volume", "", {{kBetaZone, "us-west1-a"}}, Code::kSkip},
      {"node without labels", "PVC_1", {}},
      {"beta zone label matched", "PVC_1", {{kBetaZone, "us-west1-a"}, {"uselessLabel", "none"}}},
      {"beta region label matched", "PVC_2", {{kBetaRegion, "us-west1"}, {"uselessLabel", "none"}}},
      {"beta region label doesn't match",
       "PVC_2",
       {{kBetaRegion, "no_us-west1"}, {"uselessLabel", "none"}},
       Code::kSuccess,
       "",
       Code::kUnschedulableAndUnresolvable,
       conflict},
      {"beta zone label doesn't match",
       "PVC_1",
       {{kBetaZone, "no_us-west1-a"}, {"uselessLabel", "none"}},
       Code::kSuccess,
       "",
       Code::kUnschedulableAndUnresolvable,
       conflict},
      {"zone label matched", "PVC_Stable_1", {{kZone, "us-west1-a"}, {"uselessLabel", "none"}}},
      {"region label matched", "PVC_Stable_2", {{kRegion, "us-west1"}, {"uselessLabel", "none"}}},
      {"region label doesn't match",
       "PVC_Stable_2",
       {{kRegion, "no_us-west1"}, {"uselessLabel", "none"}},
       Code::kSuccess,
       "",
       Code::kUnschedulableAndUnresolvable,
       conflict},
      {"zone label doesn't match",
       "PVC_Stable_1",
       {{kZone, "no_us-west1-a"}, {"uselessLabel", "none"}},
       Code::kSuccess,
       "",
       Code::kUnschedulableAndUnresolvable,
       conflict},
      {"pv with zone and region, node with only zone",
       "PVC_Stable_3",
       {{kZone, "us-west1-a"}},
       Code::kSuccess,
       "",
       Code::kUnschedulableAndUnresolvable,
       conflict},
      {"pv with zone,node with beta zone",
       "PVC_Stable_1",
       {{kBetaZone, "us-west1-a"}},
       Code::kSuccess,
       "",
       Code::kUnschedulableAndUnresolvable,
       conflict},
      {"pv with beta label,node with ga label, matched", "PVC_1", {{kZone, "us-west1-a"}}},
      {"pv with beta label,node with ga label, don't match",
       "PVC_1",
       {{kZone, "us-west1-b"}},
       Code::kSuccess,
       "",
       Code::kUnschedulableAndUnresolvable,
       conflict},
  };
  for (const Case& c : cases) {
    testing::TestWorld w;
    testing::StorageWorld s(w);
    s.Volume("Vol_1", "").Label(kBetaZone, "us-west1-a");
    s.Volume("Vol_2", "").Label(kBetaRegion, "us-west1").Label("uselessLabel", "none");
    s.Volume("Vol_3", "").Label(kBetaRegion, "us-west1");
    s.Volume("Vol_Stable_1", "").Label(kZone, "us-west1-a");
    s.Volume("Vol_Stable_2", "").Label(kRegion, "us-west1").Label("uselessLabel", "none");
    s.Volume("Vol_Stable_3", "").Label(kZone, "us-west1-a").Label(kRegion, "us-west1-a");
    for (auto [pvc, pv] : {std::pair{"PVC_1", "Vol_1"},
                           {"PVC_2", "Vol_2"},
                           {"PVC_3", "Vol_3"},
                           {"PVC_4", "Vol_not_exist"},
                           {"PVC_Stable_1", "Vol_Stable_1"},
                           {"PVC_Stable_2", "Vol_Stable_2"},
                           {"PVC_Stable_3", "Vol_Stable_3"}}) {
      Bound(s, pvc, pv);
    }
    RunCase(w, s, c);
  }
}

TEST(VolumeZoneTest, KubeTestMultiZone) {
  const std::string_view conflict = VolumeZone::kErrReasonConflict;
  const std::vector<Case> cases = {
      {"node without labels", "PVC_3", {}},
      {"beta zone label matched", "PVC_3", {{kBetaZone, "us-west1-a"}, {"uselessLabel", "none"}}},
      {"beta zone label doesn't match",
       "PVC_1",
       {{kBetaZone, "us-west1-b"}, {"uselessLabel", "none"}},
       Code::kSuccess,
       "",
       Code::kUnschedulableAndUnresolvable,
       conflict},
      {"zone label matched", "PVC_Stable_2", {{kZone, "us-west1-a"}, {"uselessLabel", "none"}}},
      {"zone label doesn't match",
       "PVC_Stable_1",
       {{kZone, "us-west1-b"}, {"uselessLabel", "none"}},
       Code::kSuccess,
       "",
       Code::kUnschedulableAndUnresolvable,
       conflict},
  };
  for (const Case& c : cases) {
    testing::TestWorld w;
    testing::StorageWorld s(w);
    s.Volume("Vol_1", "").Label(kBetaZone, "us-west1-a");
    s.Volume("Vol_2", "").Label(kBetaZone, "us-west1-b").Label("uselessLabel", "none");
    s.Volume("Vol_3", "").Label(kBetaZone, "us-west1-c__us-west1-a");
    s.Volume("Vol_Stable_1", "").Label(kZone, "us-west1-a");
    s.Volume("Vol_Stable_2", "").Label(kZone, "us-west1-c__us-west1-a");
    for (auto [pvc, pv] : {std::pair{"PVC_1", "Vol_1"},
                           {"PVC_2", "Vol_2"},
                           {"PVC_3", "Vol_3"},
                           {"PVC_4", "Vol_not_exist"},
                           {"PVC_Stable_1", "Vol_Stable_1"},
                           {"PVC_Stable_2", "Vol_Stable_2"}}) {
      Bound(s, pvc, pv);
    }
    // The zones of multi-zone labels are interned by the nodes of real inputs.
    w.S("us-west1-c");
    RunCase(w, s, c);
  }
}

TEST(VolumeZoneTest, KubeTestWithBinding) {
  const Labels node = {{kBetaZone, "us-west1-a"}, {"uselessLabel", "none"}};
  const Code uu = Code::kUnschedulableAndUnresolvable;
  const std::vector<Case> cases = {
      {"label zone failure domain matched", "PVC_1", node},
      {"unbound volume empty storage class", "PVC_EmptySC", node, uu,
       "PersistentVolumeClaim had no pv name and storageClass name", uu,
       "PersistentVolumeClaim had no pv name and storageClass name"},
      // kube's fake lister names the resource in the plural ("storageclasses.storage.k8s.io");
      // kube-scheduler's informer listers, whose text Corral reproduces, use the singular.
      {"unbound volume no storage class", "PVC_NoSC", node, uu,
       "storageclass.storage.k8s.io \"Class_0\" not found", uu,
       "storageclass.storage.k8s.io \"Class_0\" not found"},
      // kube's class has no volumeBindingMode ("VolumeBindingMode not set for StorageClass
      // \"Class_Immediate\""); the API server, and Corral's loader, default it to Immediate, for
      // which kube reports the unbound claim's missing volume.
      {"unbound volume immediate binding mode", "PVC_ImmediateSC", node, uu,
       "PersistentVolume had no name", uu, "PersistentVolume had no name"},
      {"unbound volume wait binding mode", "PVC_WaitSC", node, Code::kSkip},
  };
  for (const Case& c : cases) {
    testing::TestWorld w;
    testing::StorageWorld s(w);
    s.Class("Class_Immediate", api::VolumeBindingMode::kImmediate);
    s.Class("Class_Wait", api::VolumeBindingMode::kWaitForFirstConsumer);
    s.Volume("Vol_1", "").Label(kBetaZone, "us-west1-a");
    Bound(s, "PVC_1", "Vol_1");
    s.Claim("PVC_NoSC", "Class_0");
    s.Claim("PVC_EmptySC", "");
    s.Claim("PVC_WaitSC", "Class_Wait");
    s.Claim("PVC_ImmediateSC", "Class_Immediate");
    RunCase(w, s, c);
  }
}

TEST(VolumeZoneTest, KubeTestIsSchedulableAfterPersistentVolumeClaimAdded) {
  testing::TestWorld w;
  testing::StorageWorld s(w);
  api::Pod& with_pvc1 = w.Pod("pod_1").Obj();
  s.PvcVolume(with_pvc1, "PVC_1");
  api::Pod& with_pvc2 = w.Pod("pod_1").Obj();
  s.PvcVolume(with_pvc2, "PVC_2");
  api::Pod& no_pvc = w.Pod("pod_1").Obj();
  api::PersistentVolumeClaim pvc1 = s.Claim("PVC_1", "").VolumeName("Vol_1").Obj();
  api::PersistentVolumeClaim pvc1_ns1 = pvc1;
  pvc1_ns1.meta.namespace_ = w.S("ns1");
  // pvc-was-added-but-pod-refers-no-pvc
  EXPECT_EQ(VolumeZone::HintAfterClaimChange(no_pvc, pvc1), QueueingHint::kQueueSkip);
  // pvc-was-added-and-pod-was-bound-to-different-pvc
  EXPECT_EQ(VolumeZone::HintAfterClaimChange(with_pvc2, pvc1), QueueingHint::kQueueSkip);
  // pvc-was-added-and-pod-was-bound-to-pvc-but-different-ns
  EXPECT_EQ(VolumeZone::HintAfterClaimChange(with_pvc1, pvc1_ns1), QueueingHint::kQueueSkip);
  // pvc-was-added-and-pod-was-bound-to-the-pvc, pvc-was-updated-and-pod-was-bound-to-the-pvc
  EXPECT_EQ(VolumeZone::HintAfterClaimChange(with_pvc1, pvc1), QueueingHint::kQueue);
  // pvc-was-updated-but-pod-refers-no-pvc
  EXPECT_EQ(VolumeZone::HintAfterClaimChange(no_pvc, pvc1), QueueingHint::kQueueSkip);
}

TEST(VolumeZoneTest, KubeTestIsSchedulableAfterStorageClassAdded) {
  testing::TestWorld w;
  testing::StorageWorld s(w);
  // sc-doesn't-have-volume-binding-mode (defaulted to Immediate)
  EXPECT_EQ(
      VolumeZone::HintAfterStorageClassAdded(s.Class("SC_1", api::VolumeBindingMode::kImmediate)),
      QueueingHint::kQueueSkip);
  // new-sc-is-wait-for-first-consumer-mode
  EXPECT_EQ(VolumeZone::HintAfterStorageClassAdded(
                s.Class("SC_1", api::VolumeBindingMode::kWaitForFirstConsumer)),
            QueueingHint::kQueue);
}

TEST(VolumeZoneTest, KubeTestIsSchedulableAfterPersistentVolumeChange) {
  testing::TestWorld w;
  testing::StorageWorld s(w);
  auto pv = [&](Labels labels) {
    api::PersistentVolume v;
    v.meta.name = w.S("Vol_1");
    for (auto [k, val] : labels) v.meta.labels.Set(w.S(k), w.S(val));
    return v;
  };
  w.S(kBetaZone);
  w.S(kZone);
  auto b = pv({{kBetaZone, "us-west1-b"}});
  auto a = pv({{kBetaZone, "us-west1-a"}});
  auto az = pv({{kBetaZone, "us-west1-a"}, {kZone, "zone"}});
  // new-pv-was-added
  EXPECT_EQ(VolumeZone::HintAfterVolumeChange(nullptr, b, w.in), QueueingHint::kQueue);
  // pv-was-updated-and-changed-topology
  EXPECT_EQ(VolumeZone::HintAfterVolumeChange(&a, b, w.in), QueueingHint::kQueue);
  // pv-was-updated-and-added-topology-label
  EXPECT_EQ(VolumeZone::HintAfterVolumeChange(&a, az, w.in), QueueingHint::kQueue);
  // pv-was-updated-but-no-topology-is-changed
  EXPECT_EQ(VolumeZone::HintAfterVolumeChange(&az, az, w.in), QueueingHint::kQueueSkip);
}

}  // namespace
}  // namespace corral::plugins
