// NodeVolumeLimits, translated from kube's nodevolumelimits/csi_test.go: TestCSILimits (30 of its
// 32 cases; the two "VolumeAttachments" cases count VolumeAttachment objects, which Corral does not
// read), TestCSILimitsQHint (4) and TestCSILimitsAddedPVCQHint (5); the VolumeAttachment hint test
// has no counterpart either. Fixtures follow kube's getFakeCSIPVLister, getFakeCSIPVCLister and
// getNodeWithPodAndVolumeLimits: claims "csi-<driver>-<i>" bound to volumes of the same name,
// "csi-4" unbound with class csi-sc, "csi-5" without class, "csi-6" naming a missing volume; the
// node's CSINode lists every driver (with allocatable.count = maxVols for "csinode") and marks
// kubernetes.io/aws-ebs migrated. Expected values are kube's; kube's fake listers spell a missing
// claim "persistentvolumeclaims", kube-scheduler's informer listers (and Corral) the singular.

#include "corral/plugins/node_volume_limits/node_volume_limits.h"

#include <gtest/gtest.h>

#include "test/testing/builders.h"
#include "test/testing/storage_builders.h"

namespace corral::plugins {
namespace {

using framework::Code;
using framework::Status;

constexpr std::string_view kEbs = "ebs.csi.aws.com";
constexpr std::string_view kGce = "pd.csi.storage.gke.io";
constexpr std::string_view kEbsInTree = "kubernetes.io/aws-ebs";
constexpr std::string_view kHostpath = "kubernetes.io/hostpath";

enum class PodKind {
  kRunning,              // csi-ebs.csi.aws.com-3
  kPendingVolume,        // csi-4
  kUnboundPVCPod2,       // csi-4
  kMissingPV,            // csi-6
  kNoSCPVC,              // csi-5
  kGceTwoVol,            // csi-pd...-1, -2
  kInTreeOneVol,         // csi-kubernetes.io/aws-ebs-0
  kInTreeTwoVol,         // csi-kubernetes.io/aws-ebs-1, -2
  kCsiEbsOneVol,         // csi-ebs.csi.aws.com-0
  kCsiEbsTwoVol,         // csi-ebs.csi.aws.com-1, -2
  kInTreeNonMigratable,  // csi-kubernetes.io/hostpath-0
  kEphemeral,            // test/abc uid 12345, ephemeral xyz
  kEphemeralTwo,         // test/abc uid 12345II, ephemeral x, y
  kInTreeInline,         // aws inline aws-inline1
  kInTreeInlineSameId,   // aws inline csi-ebs.csi.aws.com-1
  kOnlyConfigmapSecret,
  kPvcWithConfigmapSecret,
  kEphemeralWithConfigmapSecret,  // test/abc (no uid), ephemeral xyz
  kInlineMigratableWithConfigmapSecret,
};

enum class Limits { kNone, kCsiNode, kCsiNodeNoLimit };
enum class Claims { kNone, kEphemeral, kConflicting, kEphemeralXY };

struct Case {
  std::string name;
  PodKind pod;
  std::vector<PodKind> existing;
  int32_t max_vols;
  std::vector<std::string_view> drivers;
  Limits limits;
  Claims extra = Claims::kNone;
  Code pre_filter = Code::kSuccess;
  Code code = Code::kSuccess;
  std::string message;
};

api::Pod& MakePod(testing::TestWorld& w, testing::StorageWorld& s, PodKind k) {
  auto pvc = [&](api::Pod& p, std::initializer_list<std::string_view> names) {
    for (auto n : names) s.PvcVolume(p, n);
    return std::ref(p);
  };
  auto inline_ebs = [&](api::Pod& p, std::string_view id) {
    api::Volume v{w.S("ebs"), api::VolumeKind::kAwsElasticBlockStore, Symbol()};
    v.source.id = w.S(id);
    p.volumes.push_back(std::move(v));
  };
  auto cm_secret = [&](api::Pod& p) {
    s.OtherVolume(p, "cm");
    s.OtherVolume(p, "secret");
  };
  switch (k) {
    case PodKind::kRunning:
      return pvc(w.Pod("running").Obj(), {"csi-ebs.csi.aws.com-3"});
    case PodKind::kPendingVolume:
      return pvc(w.Pod("pending").Obj(), {"csi-4"});
    case PodKind::kUnboundPVCPod2:
      return pvc(w.Pod("pending2").Obj(), {"csi-4"});
    case PodKind::kMissingPV:
      return pvc(w.Pod("missing-pv").Obj(), {"csi-6"});
    case PodKind::kNoSCPVC:
      return pvc(w.Pod("no-sc").Obj(), {"csi-5"});
    case PodKind::kGceTwoVol:
      return pvc(w.Pod("gce2").Obj(),
                 {"csi-pd.csi.storage.gke.io-1", "csi-pd.csi.storage.gke.io-2"});
    case PodKind::kInTreeOneVol:
      return pvc(w.Pod("intree1").Obj(), {"csi-kubernetes.io/aws-ebs-0"});
    case PodKind::kInTreeTwoVol:
      return pvc(w.Pod("intree2").Obj(),
                 {"csi-kubernetes.io/aws-ebs-1", "csi-kubernetes.io/aws-ebs-2"});
    case PodKind::kCsiEbsOneVol:
      return pvc(w.Pod("ebs1").Obj(), {"csi-ebs.csi.aws.com-0"});
    case PodKind::kCsiEbsTwoVol:
      return pvc(w.Pod("ebs2").Obj(), {"csi-ebs.csi.aws.com-1", "csi-ebs.csi.aws.com-2"});
    case PodKind::kInTreeNonMigratable:
      return pvc(w.Pod("hostpath").Obj(), {"csi-kubernetes.io/hostpath-0"});
    case PodKind::kEphemeral: {
      api::Pod& p = w.Pod("abc").Namespace("test").Uid("12345").Obj();
      s.EphemeralVolume(p, "xyz");
      return p;
    }
    case PodKind::kEphemeralTwo: {
      api::Pod& p = w.Pod("abc").Namespace("test").Uid("12345II").Obj();
      s.EphemeralVolume(p, "x");
      s.EphemeralVolume(p, "y");
      return p;
    }
    case PodKind::kInTreeInline: {
      api::Pod& p = w.Pod("inline").Obj();
      inline_ebs(p, "aws-inline1");
      return p;
    }
    case PodKind::kInTreeInlineSameId: {
      api::Pod& p = w.Pod("inline-same").Obj();
      inline_ebs(p, "csi-ebs.csi.aws.com-1");
      return p;
    }
    case PodKind::kOnlyConfigmapSecret: {
      api::Pod& p = w.Pod("cm").Obj();
      cm_secret(p);
      return p;
    }
    case PodKind::kPvcWithConfigmapSecret: {
      api::Pod& p = w.Pod("cm-pvc").Obj();
      cm_secret(p);
      s.PvcVolume(p, "csi-ebs.csi.aws.com-0");
      return p;
    }
    case PodKind::kEphemeralWithConfigmapSecret: {
      api::Pod& p = w.Pod("abc").Namespace("test").Obj();
      cm_secret(p);
      s.EphemeralVolume(p, "xyz");
      return p;
    }
    case PodKind::kInlineMigratableWithConfigmapSecret: {
      api::Pod& p = w.Pod("cm-inline").Obj();
      cm_secret(p);
      inline_ebs(p, "aws-inline1");
      return p;
    }
  }
  return w.Pod("unreachable").Obj();
}

void SetUpStorage(testing::TestWorld& w, testing::StorageWorld& s, const Case& c) {
  // getFakeCSIPVLister / getFakeCSIPVCLister.
  for (std::string_view driver : c.drivers) {
    for (int j = 0; j < 4; ++j) {
      std::string name = "csi-" + std::string(driver) + "-" + std::to_string(j);
      s.Claim(name, "").VolumeName(name);
      auto v = s.Volume(name, "");
      if (driver == kEbsInTree) {
        v.Source(api::VolumeKind::kAwsElasticBlockStore, name);
      } else if (driver != kHostpath) {
        v.Source(api::VolumeKind::kCsi, name, driver);
      }
    }
  }
  s.Claim("csi-4", "csi-sc");
  s.Claim("csi-5", "");
  s.Claim("csi-6", "csi-sc").VolumeName("missing-in-action");
  // getFakeCSIStorageClassLister(scName, driverNames[0]).
  s.Class("csi-sc", api::VolumeBindingMode::kImmediate, c.drivers[0]);
  auto ephemeral = [&](std::string_view name, std::string_view uid, bool owned) {
    auto b = s.Claim(name, "csi-sc").Namespace("test");
    if (owned) {
      b.Obj().meta.owner_references.push_back({w.S("v1"), w.S("Pod"), w.S("abc"), w.S(uid), true});
    }
  };
  switch (c.extra) {
    case Claims::kEphemeral:
      ephemeral("abc-xyz", "12345", true);
      break;
    case Claims::kConflicting:
      ephemeral("abc-xyz", "12345", false);
      break;
    case Claims::kEphemeralXY:
      ephemeral("abc-x", "12345II", true);
      ephemeral("abc-y", "12345II", true);
      break;
    case Claims::kNone:
      break;
  }
  // getNodeWithPodAndVolumeLimits + enableMigrationOnNode(aws-ebs).
  if (c.limits != Limits::kNone) {
    auto& csi = s.CSINode("node-for-max-pd-test-1");
    for (std::string_view d : c.drivers) {
      api::CSINodeDriver driver{w.S(d), w.S("node-for-max-pd-test-1"), {}, std::nullopt};
      if (c.limits == Limits::kCsiNode) driver.allocatable_count = c.max_vols;
      csi.drivers.push_back(driver);
    }
    csi.meta.annotations.emplace_back(w.S(api::kAnnMigratedPlugins), std::string(kEbsInTree));
  }
}

std::vector<Case> Cases() {
  using P = PodKind;
  const std::string exceed(NodeVolumeLimits::kErrReasonMaxVolumeCountExceeded);
  const Code unsched = Code::kUnschedulable;
  const std::vector<std::string_view> ebs = {kEbs};
  const std::vector<std::string_view> migr = {kEbsInTree, kEbs};
  const std::string missing =
      "looking up PVC test/abc-xyz: persistentvolumeclaim \"abc-xyz\" not found";
  return {
      {"fits when node volume limit >= new pods CSI volume",
       P::kCsiEbsOneVol,
       {P::kRunning, P::kCsiEbsTwoVol},
       4,
       ebs,
       Limits::kCsiNode},
      {"doesn't when node volume limit <= pods CSI volume",
       P::kCsiEbsOneVol,
       {P::kRunning, P::kCsiEbsTwoVol},
       2,
       ebs,
       Limits::kCsiNode,
       Claims::kNone,
       Code::kSuccess,
       unsched,
       exceed},
      {"should when driver does not support volume limits",
       P::kCsiEbsOneVol,
       {P::kRunning, P::kCsiEbsTwoVol},
       2,
       ebs,
       Limits::kCsiNodeNoLimit},
      {"count pending PVCs towards volume limit <= pods CSI volume",
       P::kCsiEbsOneVol,
       {P::kPendingVolume, P::kCsiEbsTwoVol},
       2,
       ebs,
       Limits::kCsiNode,
       Claims::kNone,
       Code::kSuccess,
       unsched,
       exceed},
      {"count multiple pending pvcs towards volume limit >= pods CSI volume",
       P::kCsiEbsOneVol,
       {P::kPendingVolume, P::kUnboundPVCPod2, P::kCsiEbsTwoVol},
       4,
       ebs,
       Limits::kCsiNode},
      {"should count PVCs with invalid PV name but valid SC",
       P::kCsiEbsOneVol,
       {P::kMissingPV, P::kCsiEbsTwoVol},
       2,
       ebs,
       Limits::kCsiNode,
       Claims::kNone,
       Code::kSuccess,
       unsched,
       exceed},
      {"don't count pvcs with missing SC towards volume limit",
       P::kCsiEbsOneVol,
       {P::kRunning, P::kNoSCPVC},
       2,
       ebs,
       Limits::kCsiNode},
      {"count pvcs with the same type towards volume limit",
       P::kCsiEbsOneVol,
       {P::kGceTwoVol, P::kCsiEbsTwoVol},
       2,
       {kEbs, kGce},
       Limits::kCsiNode,
       Claims::kNone,
       Code::kSuccess,
       unsched,
       exceed},
      {"don't count pvcs with different type towards volume limit",
       P::kGceTwoVol,
       {P::kCsiEbsTwoVol, P::kRunning},
       2,
       {kEbs, kGce},
       Limits::kCsiNode},
      {"should count in-tree volumes if migration is enabled",
       P::kInTreeOneVol,
       {P::kInTreeTwoVol},
       2,
       migr,
       Limits::kCsiNode,
       Claims::kNone,
       Code::kSuccess,
       unsched,
       exceed},
      {"nil csi node", P::kInTreeInline, {P::kInTreeTwoVol}, 0, migr, Limits::kNone},
      {"should count unbound in-tree volumes if migration is enabled",
       P::kPendingVolume,
       {P::kInTreeTwoVol},
       2,
       migr,
       Limits::kCsiNode,
       Claims::kNone,
       Code::kSuccess,
       unsched,
       exceed},
      {"should not limit pod if volume used does not report limits",
       P::kInTreeOneVol,
       {P::kInTreeTwoVol},
       2,
       migr,
       Limits::kCsiNodeNoLimit},
      {"should not count non-migratable in-tree volumes",
       P::kInTreeNonMigratable,
       {P::kCsiEbsTwoVol},
       2,
       {kHostpath, kEbs},
       Limits::kCsiNode},
      {"should count in-tree inline volumes if migration is enabled",
       P::kInTreeInline,
       {P::kInTreeTwoVol},
       2,
       migr,
       Limits::kCsiNode,
       Claims::kNone,
       Code::kSuccess,
       unsched,
       exceed},
      {"should count in-tree and csi volumes if migration is enabled (when scheduling in-tree "
       "volumes)",
       P::kInTreeOneVol,
       {P::kCsiEbsTwoVol},
       2,
       migr,
       Limits::kCsiNode,
       Claims::kNone,
       Code::kSuccess,
       unsched,
       exceed},
      {"should count in-tree, inline and csi volumes if migration is enabled (when scheduling "
       "in-tree volumes)",
       P::kInTreeInline,
       {P::kCsiEbsTwoVol, P::kInTreeOneVol},
       3,
       migr,
       Limits::kCsiNode,
       Claims::kNone,
       Code::kSuccess,
       unsched,
       exceed},
      {"should not count in-tree, inline and csi volumes if migration is enabled (when "
       "scheduling in-tree volumes)",
       P::kInTreeInlineSameId,
       {P::kCsiEbsTwoVol, P::kInTreeOneVol},
       3,
       migr,
       Limits::kCsiNode},
      {"should count in-tree and csi volumes if migration is enabled (when scheduling csi "
       "volumes)",
       P::kCsiEbsOneVol,
       {P::kInTreeTwoVol},
       2,
       migr,
       Limits::kCsiNode,
       Claims::kNone,
       Code::kSuccess,
       unsched,
       exceed},
      {"ephemeral volume missing",
       P::kEphemeral,
       {},
       0,
       ebs,
       Limits::kCsiNodeNoLimit,
       Claims::kNone,
       Code::kSuccess,
       Code::kUnschedulableAndUnresolvable,
       missing},
      {"ephemeral volume not owned",
       P::kEphemeral,
       {},
       0,
       ebs,
       Limits::kCsiNodeNoLimit,
       Claims::kConflicting,
       Code::kSuccess,
       Code::kError,
       "PVC test/abc-xyz was not created for pod test/abc (pod is not owner)"},
      {"ephemeral volume unbound",
       P::kEphemeral,
       {},
       0,
       ebs,
       Limits::kCsiNodeNoLimit,
       Claims::kEphemeral},
      {"ephemeral doesn't when node volume limit <= pods CSI volume",
       P::kEphemeral,
       {P::kRunning, P::kCsiEbsTwoVol},
       2,
       ebs,
       Limits::kCsiNode,
       Claims::kEphemeral,
       Code::kSuccess,
       unsched,
       exceed},
      {"ephemeral doesn't when node volume limit <= pods ephemeral CSI volume",
       P::kCsiEbsOneVol,
       {P::kRunning, P::kEphemeralTwo},
       2,
       ebs,
       Limits::kCsiNode,
       Claims::kEphemeralXY,
       Code::kSuccess,
       unsched,
       exceed},
      {"persistent doesn't when node volume limit <= pods ephemeral CSI volume + persistent "
       "volume, ephemeral disabled",
       P::kCsiEbsOneVol,
       {P::kRunning, P::kEphemeral, P::kCsiEbsTwoVol},
       3,
       ebs,
       Limits::kCsiNode,
       Claims::kEphemeral,
       Code::kSuccess,
       unsched,
       exceed},
      {"persistent doesn't when node volume limit <= pods ephemeral CSI volume + persistent "
       "volume",
       P::kCsiEbsOneVol,
       {P::kRunning, P::kEphemeral, P::kCsiEbsTwoVol},
       3,
       ebs,
       Limits::kCsiNode,
       Claims::kEphemeral,
       Code::kSuccess,
       unsched,
       exceed},
      {"persistent okay when node volume limit > pods ephemeral CSI volume + persistent volume",
       P::kCsiEbsOneVol,
       {P::kRunning, P::kEphemeral, P::kCsiEbsTwoVol},
       5,
       ebs,
       Limits::kCsiNode,
       Claims::kEphemeral},
      {"skip Filter when the pod only uses secrets and configmaps",
       P::kOnlyConfigmapSecret,
       {},
       2,
       ebs,
       Limits::kCsiNode,
       Claims::kNone,
       Code::kSkip},
      {"don't skip Filter when the pod has pvcs",
       P::kPvcWithConfigmapSecret,
       {},
       2,
       ebs,
       Limits::kCsiNode},
      {"don't skip Filter when the pod has ephemeral volumes",
       P::kEphemeralWithConfigmapSecret,
       {},
       0,
       ebs,
       Limits::kCsiNodeNoLimit,
       Claims::kNone,
       Code::kSuccess,
       Code::kUnschedulableAndUnresolvable,
       missing},
      {"don't skip Filter when the pod has inline migratable volumes",
       P::kInlineMigratableWithConfigmapSecret,
       {P::kInTreeTwoVol},
       2,
       migr,
       Limits::kCsiNode,
       Claims::kNone,
       Code::kSuccess,
       unsched,
       exceed},
  };
}

TEST(NodeVolumeLimitsTest, KubeTestCSILimits) {
  for (const Case& c : Cases()) {
    SCOPED_TRACE(c.name);
    testing::TestWorld w;
    testing::StorageWorld s(w);
    SetUpStorage(w, s, c);
    api::Node& n = w.Node("node-for-max-pd-test-1").Obj();
    framework::NodeInfo& node = w.NodeWith(n);
    for (PodKind k : c.existing) node.AddPod(&w.Info(MakePod(w, s, k)));
    api::Pod& pod = MakePod(w, s, c.pod);
    testing::StorageHandle h(w, s);
    auto made = NodeVolumeLimits::New(nullptr, h);
    ASSERT_TRUE(made.ok());
    auto& pl = dynamic_cast<NodeVolumeLimits&>(**made);
    framework::PodInfo& info = w.Info(pod);
    framework::CycleState state;
    Status pre = pl.PreFilter(state, 0, info, h.snapshot(), nullptr);
    EXPECT_EQ(pre.code(), c.pre_filter);
    if (pre.IsSkip()) continue;
    Status st = pl.Filter(state, 0, info, node);
    EXPECT_EQ(st.code(), c.code) << st.Message();
    EXPECT_EQ(st.Message(), c.message);
  }
}

// kube's TestCSILimitsQHint (4 cases).
TEST(NodeVolumeLimitsTest, KubeTestCSILimitsQHint) {
  testing::TestWorld w;
  testing::StorageWorld s(w);
  api::Pod& with_pvc = w.Pod("deleted-pvc").NodeName("node").Obj();
  s.PvcVolume(with_pvc, "placeholder");
  EXPECT_EQ(NodeVolumeLimits::HintAfterPodDeleted(with_pvc), framework::QueueingHint::kQueue);
  api::Pod& with_inline = w.Pod("deleted-inline").NodeName("node").Obj();
  with_inline.volumes.push_back({w.S("v"), api::VolumeKind::kAwsElasticBlockStore, Symbol()});
  EXPECT_EQ(NodeVolumeLimits::HintAfterPodDeleted(with_inline), framework::QueueingHint::kQueue);
  api::Pod& none = w.Pod("deleted-none").NodeName("node").Obj();
  EXPECT_EQ(NodeVolumeLimits::HintAfterPodDeleted(none), framework::QueueingHint::kQueueSkip);
  api::Pod& unscheduled = w.Pod("deleted-unscheduled").Obj();
  s.PvcVolume(unscheduled, "csi-ebs.csi.aws.com-0");
  EXPECT_EQ(NodeVolumeLimits::HintAfterPodDeleted(unscheduled),
            framework::QueueingHint::kQueueSkip);
}

// kube's TestCSILimitsAddedPVCQHint (5 cases).
TEST(NodeVolumeLimitsTest, KubeTestCSILimitsAddedPVCQHint) {
  testing::TestWorld w;
  testing::StorageWorld s(w);
  auto claim = [&](std::string_view name, std::string_view ns) {
    return s.Claim(name, "").Namespace(ns).Obj();
  };
  using H = framework::QueueingHint;
  api::Pod& ns1 = w.Pod("p").Namespace("ns1").Obj();
  EXPECT_EQ(NodeVolumeLimits::HintAfterClaimAdded(ns1, claim("", "ns2"), w.in), H::kQueueSkip);
  api::Pod& pvc1 = w.Pod("p").Namespace("ns1").Obj();
  s.PvcVolume(pvc1, "pvc1");
  EXPECT_EQ(NodeVolumeLimits::HintAfterClaimAdded(pvc1, claim("pvc1", "ns1"), w.in), H::kQueue);
  api::Pod& eph = w.Pod("pod1").Namespace("ns1").Obj();
  s.EphemeralVolume(eph, "ephemeral");
  EXPECT_EQ(NodeVolumeLimits::HintAfterClaimAdded(eph, claim("pod1-ephemeral", "ns1"), w.in),
            H::kQueue);
  EXPECT_EQ(NodeVolumeLimits::HintAfterClaimAdded(pvc1, claim("pvc2", "ns1"), w.in), H::kQueueSkip);
  EXPECT_EQ(NodeVolumeLimits::HintAfterClaimAdded(ns1, claim("pvc2", "ns1"), w.in), H::kQueueSkip);
}

}  // namespace
}  // namespace corral::plugins

namespace corral::plugins {
namespace {

// Corral's per-node memo of the limits and attached volumes: the verdict follows the node's pods
// (NodeInfo generation) and the volume cache (its epoch) exactly as a recount would.
TEST(NodeVolumeLimitsTest, MemoFollowsTheNodeAndTheVolumeCache) {
  testing::TestWorld w;
  testing::StorageWorld s(w);
  Case c{"memo", PodKind::kCsiEbsTwoVol, {}, 2, {kEbs}, Limits::kCsiNode};
  SetUpStorage(w, s, c);
  api::Node& n = w.Node("node-for-max-pd-test-1").Obj();
  framework::NodeInfo& node = w.NodeWith(n);
  framework::PodInfo& existing = w.Info(MakePod(w, s, PodKind::kCsiEbsOneVol));
  // A pod whose claim does not exist yet: not counted until the claim appears.
  api::Pod& late_pod = w.Pod("late-pod").Obj();
  s.PvcVolume(late_pod, "late");
  framework::PodInfo& late = w.Info(late_pod);
  node.AddPod(&late);
  framework::PodInfo& info = w.Info(MakePod(w, s, PodKind::kCsiEbsTwoVol));
  testing::StorageHandle h(w, s);
  auto made = NodeVolumeLimits::New(nullptr, h);
  ASSERT_TRUE(made.ok());
  auto& pl = dynamic_cast<NodeVolumeLimits&>(**made);
  framework::CycleState state;
  ASSERT_TRUE(pl.PreFilter(state, 0, info, h.snapshot(), nullptr).ok());

  // Two new volumes, none attached, limit 2.
  EXPECT_EQ(pl.Filter(state, 0, info, node).code(), Code::kSuccess);
  node.AddPod(&existing);  // one more attached: 1 + 2 > 2
  Status st = pl.Filter(state, 0, info, node);
  EXPECT_EQ(st.code(), Code::kUnschedulable);
  EXPECT_EQ(st.Message(), NodeVolumeLimits::kErrReasonMaxVolumeCountExceeded);
  ASSERT_TRUE(node.RemovePod(&existing));
  EXPECT_EQ(pl.Filter(state, 0, info, node).code(), Code::kSuccess);

  // The late claim appears (unbound, class csi-sc provisioned by the same driver): the node is
  // unchanged, the volume cache is not.
  state::VolumeCache* cache = h.volumes();
  const api::PersistentVolumeClaim* like = cache->GetClaim(late_pod.meta.namespace_, w.S("csi-4"));
  ASSERT_NE(like, nullptr);
  api::PersistentVolumeClaim claim = *like;
  claim.meta.name = w.S("late");
  const uint64_t before = cache->epoch();
  cache->AddClaim(claim);
  EXPECT_NE(cache->epoch(), before);
  EXPECT_EQ(pl.Filter(state, 0, info, node).code(), Code::kUnschedulable);
}

}  // namespace
}  // namespace corral::plugins
