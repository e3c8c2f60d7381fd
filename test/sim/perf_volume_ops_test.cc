// scheduler_perf's volume inputs: createPods with PersistentVolume and PersistentVolumeClaim
// templates (a bound pair per pod, named as kube's CreatePodWithPersistentVolume names them, the
// pod's volumes replaced by the claim) and nodeAllocatableStrategy's CSINode objects. Configs are
// parsed as if they lived next to the copy of kube's volumes config.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "corral/app/perf.h"
#include "corral/sim/input/perf_config.h"
#include "corral/sim/perf.h"

#include "sim_test_util.h"

namespace corral::sim {
namespace {

using ::testing::HasSubstr;

Result<PerfConfig> ParseVolumes(std::string_view cfg, Interner& in, Diagnostics& diags) {
  return PerfConfig::Parse(cfg, "examples/scheduler_perf/kube/volumes/inline.yaml", in, diags);
}

constexpr std::string_view kCsi = R"(
- name: T
  workloadTemplate:
  - opcode: createNodes
    count: 2
    nodeTemplatePath: ../templates/node-default.yaml
    nodeAllocatableStrategy:
      nodeAllocatable:
        attachable-volumes-csi-ebs.csi.aws.com: "39"
      csiNodeAllocatable:
        ebs.csi.aws.com:
          count: 39
      migratedPlugins:
      - "kubernetes.io/aws-ebs"
  - opcode: createPods
    count: 3
    namespace: ns
    persistentVolumeTemplatePath: ../templates/PV
    persistentVolumeClaimTemplatePath: ../templates/pvc.yaml
    collectMetrics: true
  workloads:
  - name: w
)";

std::string With(std::string_view pv) {
  std::string cfg(kCsi);
  cfg.replace(cfg.find("PV"), 2, pv);
  return cfg;
}

TEST(PerfVolumeOpsTest, BoundPairPerPodAsKube) {
  for (std::string_view pv : {"pv-csi.yaml", "pv-aws.yaml"}) {
    Interner in = api::NewInterner();
    Diagnostics diags;
    auto c = ParseVolumes(With(pv), in, diags);
    ASSERT_TRUE(c.ok()) << c.error().message;
    auto spec = c->Compile(c->All()[0], in, diags);
    ASSERT_TRUE(spec.ok()) << spec.error().message;
    ASSERT_NE(spec->objects.storage, nullptr);
    const api::StorageObjects& s = *spec->objects.storage;
    ASSERT_EQ(s.volumes.size(), 3U);
    ASSERT_EQ(s.claims.size(), 3U);
    EXPECT_EQ(in.Str(s.volumes[2].meta.name), "ns-vol-2");
    EXPECT_EQ(in.Str(s.claims[2].meta.name), "pvc-2");
    EXPECT_EQ(in.Str(s.claims[2].meta.namespace_), "ns");
    EXPECT_EQ(in.Str(s.claims[2].volume_name), "ns-vol-2");
    ASSERT_TRUE(s.volumes[2].claim_ref.has_value());
    EXPECT_EQ(in.Str(s.volumes[2].claim_ref->name), "pvc-2");
    EXPECT_EQ(s.volumes[2].phase, api::PersistentVolumePhase::kBound);
    EXPECT_EQ(s.claims[2].phase, api::ClaimPhase::kBound);
    // kube: a CSI volume's handle is the volume's name, an AWS volume's ID "vol-<i>".
    EXPECT_EQ(in.Str(s.volumes[2].source.id), pv == "pv-csi.yaml" ? "ns-vol-2" : "vol-2");
    // The CSINodes of the strategy, one per node, with kube's annotation.
    ASSERT_EQ(s.csi_nodes.size(), 2U);
    EXPECT_EQ(in.Str(s.csi_nodes[1].meta.name), "scheduler-perf-1");
    ASSERT_EQ(s.csi_nodes[1].drivers.size(), 1U);
    EXPECT_EQ(s.csi_nodes[1].drivers[0].allocatable_count, 39);
    EXPECT_EQ(in.Str(s.csi_nodes[1].drivers[0].node_id), "scheduler-perf-1");
    ASSERT_EQ(s.csi_nodes[1].meta.annotations.size(), 1U);
    EXPECT_EQ(s.csi_nodes[1].meta.annotations[0].second, "kubernetes.io/aws-ebs");
    // Each pod mounts its claim; all three are scheduled.
    app::PerfRunOptions o;
    o.cost = CostModel{CostModel::Mode::kFixed, 1'000'000};
    PerfResult r = app::RunPerfWorkload(*c, c->All()[0], in, o);
    ASSERT_NE(r.status, PerfResult::Status::kError) << r.message;
    EXPECT_EQ(r.measured_scheduled, 3);
  }
}

TEST(PerfVolumeOpsTest, ClaimTemplateWithoutVolumeTemplateIsAnError) {
  Interner in = api::NewInterner();
  Diagnostics diags;
  std::string cfg = With("pv-csi.yaml");
  cfg.erase(
      cfg.find("    persistentVolumeTemplatePath"),
      std::string_view("    persistentVolumeTemplatePath: ../templates/pv-csi.yaml\n").size());
  auto c = ParseVolumes(cfg, in, diags);
  ASSERT_TRUE(c.ok()) << c.error().message;
  auto spec = c->Compile(c->All()[0], in, diags);
  ASSERT_FALSE(spec.ok());
  EXPECT_THAT(spec.error().message, HasSubstr("persistentVolumeTemplatePath"));
}

TEST(PerfVolumeOpsTest, UnknownStrategyFieldIsAnError) {
  Interner in = api::NewInterner();
  Diagnostics diags;
  std::string cfg = With("pv-csi.yaml");
  cfg.replace(cfg.find("migratedPlugins"), 15, "migratedPlugin");
  auto c = ParseVolumes(cfg, in, diags);
  ASSERT_TRUE(c.ok()) << c.error().message;
  auto spec = c->Compile(c->All()[0], in, diags);
  ASSERT_FALSE(spec.ok());
  EXPECT_THAT(spec.error().message, HasSubstr("migratedPlugin"));
}

}  // namespace
}  // namespace corral::sim
