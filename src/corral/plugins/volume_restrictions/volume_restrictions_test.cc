// VolumeRestrictions, translated from kube's volumerestrictions/volume_restrictions_test.go:
// TestGCEDiskConflicts, TestAWSDiskConflicts, TestRBDDiskConflicts, TestISCSIDiskConflicts (4
// cases each) and TestAccessModeConflicts (4 cases). Each case runs PreFilter and, unless it
// skips or rejects, Filter, as the framework does; expected values are kube's.

#include "corral/plugins/volume_restrictions/volume_restrictions.h"

#include <functional>

#include <gtest/gtest.h>

#include "test/testing/builders.h"
#include "test/testing/storage_builders.h"

namespace corral::plugins {
namespace {

using framework::Code;
using framework::Status;

// The framework's verdict for a pod on a node: PreFilter's rejection, else Filter's status.
Status Verdict(testing::TestWorld& w, testing::StorageHandle& h, VolumeRestrictions& pl,
               const api::Pod& pod, framework::NodeInfo& node) {
  framework::CycleState state;
  framework::PodInfo& info = w.Info(pod);
  Status pre = pl.PreFilter(state, 0, info, h.snapshot(), nullptr);
  if (pre.IsSkip()) return {};
  if (!pre.ok()) return pre;
  return pl.Filter(state, 0, info, node);
}

using VolumeSetter = std::function<void(testing::TestWorld&, api::Pod&)>;

// kube's four disk-conflict cases for one source type: `state` is volState, `other` volState2.
void DiskConflictCases(const VolumeSetter& state, const VolumeSetter& other) {
  struct Case {
    std::string name;
    const VolumeSetter* pod;       // the pod's volumes (null: none)
    const VolumeSetter* existing;  // the node's pod (null: empty node)
    bool ok;
  };
  const Case cases[] = {
      {"nothing", nullptr, nullptr, true},
      {"one state", nullptr, &state, true},
      {"same state", &state, &state, false},
      {"different state", &other, &state, true},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    testing::TestWorld w;
    testing::StorageWorld s(w);
    testing::StorageHandle h(w, s);
    auto made = VolumeRestrictions::New(nullptr, h);
    ASSERT_TRUE(made.ok());
    api::Pod& pod = w.Pod("pod").Obj();
    if (c.pod) (*c.pod)(w, pod);
    api::Pod& existing = w.Pod("existing").Obj();
    if (c.existing) (*c.existing)(w, existing);
    api::Node& n = w.Node("node").Obj();
    framework::NodeInfo& node = c.existing ? w.NodeWith(n, {&existing}) : w.NodeWith(n);
    Status st = Verdict(w, h, dynamic_cast<VolumeRestrictions&>(**made), pod, node);
    if (c.ok) {
      EXPECT_TRUE(st.ok()) << st.Message();
    } else {
      EXPECT_EQ(st.code(), Code::kUnschedulable);
      EXPECT_EQ(st.Message(), VolumeRestrictions::kErrReasonDiskConflict);
    }
  }
}

VolumeSetter Source(api::VolumeKind kind, std::string_view id,
                    std::vector<std::string_view> monitors = {}, std::string_view pool = "") {
  return [=](testing::TestWorld& w, api::Pod& p) {
    api::Volume v{w.S("v"), kind, Symbol()};
    v.source.id = w.S(id);
    for (auto m : monitors) v.source.monitors.push_back(w.S(m));
    if (!pool.empty()) v.source.pool = w.S(pool);
    p.volumes.push_back(std::move(v));
  };
}

TEST(VolumeRestrictionsTest, KubeTestGCEDiskConflicts) {
  DiskConflictCases(Source(api::VolumeKind::kGcePersistentDisk, "foo"),
                    Source(api::VolumeKind::kGcePersistentDisk, "bar"));
}

TEST(VolumeRestrictionsTest, KubeTestAWSDiskConflicts) {
  DiskConflictCases(Source(api::VolumeKind::kAwsElasticBlockStore, "foo"),
                    Source(api::VolumeKind::kAwsElasticBlockStore, "bar"));
}

TEST(VolumeRestrictionsTest, KubeTestRBDDiskConflicts) {
  DiskConflictCases(Source(api::VolumeKind::kRbd, "bar", {"a", "b"}, "foo"),
                    Source(api::VolumeKind::kRbd, "bar", {"c", "d"}, "foo"));
}

TEST(VolumeRestrictionsTest, KubeTestISCSIDiskConflicts) {
  DiskConflictCases(Source(api::VolumeKind::kIscsi, "iqn.2016-12.server:storage.target01"),
                    Source(api::VolumeKind::kIscsi, "iqn.2017-12.server:storage.target01"));
}

TEST(VolumeRestrictionsTest, KubeTestAccessModeConflicts) {
  struct Case {
    std::string name;
    bool pod_with_rwop;                 // else the empty pod
    std::vector<std::string> existing;  // "rwop", "rwx": pods on node-1
    bool claims;                        // the claims exist
    Code code;
    std::string_view message;
  };
  const Case cases[] = {
      {"nothing", false, {}, false, Code::kSuccess, ""},
      {"failed to get PVC",
       true,
       {},
       false,
       Code::kUnschedulableAndUnresolvable,
       "persistentvolumeclaim \"claim-with-rwop\" not found"},
      {"no access mode conflict", true, {"rwx"}, true, Code::kSuccess, ""},
      {"access mode conflict",
       true,
       {"rwop", "rwx"},
       true,
       Code::kUnschedulableAndUnresolvable,
       VolumeRestrictions::kErrReasonReadWriteOncePodConflict},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    testing::TestWorld w;
    testing::StorageWorld s(w);
    if (c.claims) {
      s.Claim("claim-with-rwop", "").Modes(api::kReadWriteOncePod);
      s.Claim("claim-with-rwx", "").Modes(api::kReadWriteMany);
    }
    testing::StorageHandle h(w, s);
    api::Node& n = w.Node("node-1").Obj();
    std::vector<framework::NodeInfo*> nodes;
    framework::NodeInfo& node = w.NodeWith(n);
    for (const auto& e : c.existing) {
      api::Pod& p = w.Pod(e == "rwop" ? "pod-with-rwop" : "pod-with-rwx").NodeName("node-1").Obj();
      s.PvcVolume(p, e == "rwop" ? "claim-with-rwop" : "claim-with-rwx");
      node.AddPod(&w.Info(p));
    }
    h.SetNodes({&node});
    auto made = VolumeRestrictions::New(nullptr, h);
    ASSERT_TRUE(made.ok());
    api::Pod& pod = w.Pod("pod-with-rwop").Obj();
    if (c.pod_with_rwop) s.PvcVolume(pod, "claim-with-rwop");
    Status st = Verdict(w, h, dynamic_cast<VolumeRestrictions&>(**made), pod, node);
    EXPECT_EQ(st.code(), c.code) << st.Message();
    EXPECT_EQ(st.Message(), c.message);
  }
}

}  // namespace
}  // namespace corral::plugins
