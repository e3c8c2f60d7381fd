// Storage kinds (PersistentVolume, PersistentVolumeClaim, StorageClass, CSINode, CSIDriver,
// CSIStorageCapacity), pod volume sources, generic ephemeral claims, and their validation errors.

#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "corral/api/storage.h"
#include "corral/api/well_known.h"
#include "corral/loader/loader.h"

namespace corral::loader {
namespace {

using ::testing::ElementsAre;

class LoaderStorageTest : public ::testing::Test {
 protected:
  LoadResult Load(const std::string& yaml) {
    LoadResult r = LoadString(yaml, "s.yaml", in_);
    for (const auto& d : r.diagnostics.items()) messages_.push_back(d.ToString());
    return r;
  }
  std::string S(Symbol s) const { return std::string(in_.Str(s)); }

  Interner in_ = api::NewInterner();
  std::vector<std::string> messages_;
};

TEST_F(LoaderStorageTest, Kinds) {
  LoadResult r = Load(R"(
apiVersion: v1
kind: PersistentVolume
metadata: {name: pv-1, labels: {topology.kubernetes.io/zone: z1}}
spec:
  capacity: {storage: 10Gi}
  accessModes: [ReadWriteOnce, ReadOnlyMany]
  storageClassName: fast
  persistentVolumeReclaimPolicy: Delete
  claimRef: {kind: PersistentVolumeClaim, namespace: ns, name: data, uid: u-1}
  csi: {driver: ebs.csi.aws.com, volumeHandle: vol-1, fsType: ext4}
  nodeAffinity:
    required:
      nodeSelectorTerms:
      - matchExpressions: [{key: topology.kubernetes.io/zone, operator: In, values: [z1]}]
status: {phase: Bound}
---
apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: data, namespace: ns, uid: u-1, annotations: {pv.kubernetes.io/bind-completed: "yes"}}
spec:
  accessModes: [ReadWriteOnce]
  storageClassName: fast
  volumeName: pv-1
  resources: {requests: {storage: 5Gi}}
  selector: {matchLabels: {tier: gold}}
status: {phase: Bound, capacity: {storage: 10Gi}}
---
apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata: {name: fast}
provisioner: ebs.csi.aws.com
volumeBindingMode: WaitForFirstConsumer
allowedTopologies:
- matchLabelExpressions: [{key: topology.kubernetes.io/zone, values: [z1, z2]}]
parameters: {type: gp3}
---
apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata: {name: plain}
provisioner: example.com/nfs
---
apiVersion: storage.k8s.io/v1
kind: CSINode
metadata: {name: n1, annotations: {storage.alpha.kubernetes.io/migrated-plugins: kubernetes.io/aws-ebs}}
spec: {drivers: [{name: ebs.csi.aws.com, nodeID: i-1, topologyKeys: [topology.kubernetes.io/zone], allocatable: {count: 25}}]}
---
apiVersion: storage.k8s.io/v1
kind: CSIDriver
metadata: {name: ebs.csi.aws.com}
spec: {storageCapacity: true, podInfoOnMount: false}
---
apiVersion: storage.k8s.io/v1
kind: CSIStorageCapacity
metadata: {name: cap, namespace: kube-system}
storageClassName: fast
capacity: 100Gi
maximumVolumeSize: 50Gi
nodeTopology: {matchLabels: {topology.kubernetes.io/zone: z1}}
)");
  EXPECT_THAT(messages_, ElementsAre());
  ASSERT_NE(r.objects.storage, nullptr);
  const api::StorageObjects& st = *r.objects.storage;
  ASSERT_EQ(st.volumes.size(), 1u);
  const api::PersistentVolume& pv = st.volumes[0];
  EXPECT_EQ(pv.capacity.Value(), int64_t{10} << 30);
  EXPECT_EQ(pv.access_modes, api::kReadWriteOnce | api::kReadOnlyMany);
  EXPECT_EQ(S(pv.storage_class_name), "fast");
  ASSERT_TRUE(pv.claim_ref.has_value());
  EXPECT_EQ(S(pv.claim_ref->uid), "u-1");
  EXPECT_EQ(pv.source_kind, api::VolumeKind::kCsi);
  EXPECT_EQ(S(pv.source.driver), "ebs.csi.aws.com");
  EXPECT_EQ(S(pv.source.id), "vol-1");
  ASSERT_TRUE(pv.node_affinity.has_value());
  EXPECT_EQ(pv.phase, api::PersistentVolumePhase::kBound);
  ASSERT_EQ(st.claims.size(), 1u);
  const api::PersistentVolumeClaim& c = st.claims[0];
  EXPECT_EQ(c.storage_request.Value(), int64_t{5} << 30);
  EXPECT_EQ(S(c.volume_name), "pv-1");
  EXPECT_TRUE(c.selector.has_value());
  EXPECT_EQ(c.phase, api::ClaimPhase::kBound);
  ASSERT_EQ(st.classes.size(), 2u);
  EXPECT_EQ(st.classes[0].volume_binding_mode, api::VolumeBindingMode::kWaitForFirstConsumer);
  EXPECT_EQ(st.classes[1].volume_binding_mode, api::VolumeBindingMode::kImmediate);  // default
  ASSERT_EQ(st.classes[0].allowed_topologies.size(), 1u);
  ASSERT_EQ(st.csi_nodes.size(), 1u);
  EXPECT_EQ(st.csi_nodes[0].drivers[0].allocatable_count, 25);
  ASSERT_EQ(st.csi_drivers.size(), 1u);
  EXPECT_TRUE(st.csi_drivers[0].storage_capacity);
  EXPECT_TRUE(st.csi_drivers[0].attach_required);  // default
  ASSERT_EQ(st.capacities.size(), 1u);
  EXPECT_EQ(st.capacities[0].maximum_volume_size->Value(), int64_t{50} << 30);
  EXPECT_EQ(S(st.capacities[0].meta.namespace_), "kube-system");
}

TEST_F(LoaderStorageTest, PodVolumesAndEphemeralClaims) {
  LoadResult r = Load(R"(
apiVersion: v1
kind: Pod
metadata: {name: web, namespace: ns, uid: pod-uid}
spec:
  containers: [{name: c, image: nginx}]
  volumes:
  - name: scratch
    ephemeral:
      volumeClaimTemplate:
        metadata: {labels: {app: web}}
        spec: {accessModes: [ReadWriteOncePod], storageClassName: fast, resources: {requests: {storage: 1Gi}}}
  - {name: pd, gcePersistentDisk: {pdName: disk-1, readOnly: true, fsType: ext4}}
  - {name: img, rbd: {monitors: [m1, m2], image: i1}}
  - {name: inline, csi: {driver: secrets.example.com, volumeAttributes: {a: b}}}
)");
  EXPECT_THAT(messages_, ElementsAre());
  ASSERT_EQ(r.objects.pods.size(), 1u);
  const api::Pod& p = r.objects.pods[0];
  ASSERT_EQ(p.volumes.size(), 4u);
  EXPECT_EQ(p.volumes[0].kind, api::VolumeKind::kEphemeral);
  ASSERT_NE(p.volumes[0].claim_template, nullptr);
  EXPECT_EQ(p.volumes[1].kind, api::VolumeKind::kGcePersistentDisk);
  EXPECT_EQ(S(p.volumes[1].source.id), "disk-1");
  EXPECT_TRUE(p.volumes[1].source.read_only);
  EXPECT_EQ(p.volumes[2].kind, api::VolumeKind::kRbd);
  EXPECT_EQ(S(p.volumes[2].source.pool), "rbd");  // default
  EXPECT_EQ(p.volumes[2].source.monitors.size(), 2u);
  EXPECT_EQ(p.volumes[3].kind, api::VolumeKind::kCsi);
  // The ephemeral volume controller's claim: "<pod>-<volume>", owned by the pod.
  ASSERT_NE(r.objects.storage, nullptr);
  ASSERT_EQ(r.objects.storage->claims.size(), 1u);
  const api::PersistentVolumeClaim& c = r.objects.storage->claims[0];
  EXPECT_EQ(S(c.meta.name), "web-scratch");
  EXPECT_EQ(S(c.meta.namespace_), "ns");
  EXPECT_EQ(c.access_modes, api::kReadWriteOncePod);
  EXPECT_EQ(S(c.storage_class_name), "fast");
  ASSERT_EQ(c.meta.owner_references.size(), 1u);
  EXPECT_EQ(S(c.meta.owner_references[0].kind), "Pod");
  EXPECT_EQ(S(c.meta.owner_references[0].name), "web");
  EXPECT_EQ(S(c.meta.owner_references[0].uid), "pod-uid");
  EXPECT_TRUE(c.meta.owner_references[0].controller);
  EXPECT_EQ(c.meta.labels.size(), 1u);
}

TEST_F(LoaderStorageTest, Errors) {
  Load(R"(
apiVersion: v1
kind: PersistentVolume
metadata: {name: bad-pv}
spec:
  capacity: {storage: 1Gi, cpu: "1"}
  hostPath: {path: /x}
  nfs: {server: s, path: /y}
---
apiVersion: v1
kind: PersistentVolume
metadata: {name: no-source}
spec: {accessModes: [ReadWriteOncePod, ReadWriteOnce]}
---
apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: c}
spec: {accessModes: [ReadWriteSometimes], volumeMode: Raw}
---
apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata: {name: sc}
volumeBindingMode: Later
---
apiVersion: storage.k8s.io/v1
kind: CSIStorageCapacity
metadata: {name: cap}
capacity: 1Gi
---
apiVersion: v1
kind: Pod
metadata: {name: p}
spec:
  containers: [{name: c, image: i}]
  volumes:
  - {name: a, awsElasticBlockStore: {fsType: ext4}}
  - {name: b, csi: {volumeHandle: h}}
  - {name: e, ephemeral: {}}
)");
  EXPECT_THAT(
      messages_,
      ElementsAre(
          "s.yaml:6: spec.capacity[cpu]: Unsupported value: \"cpu\": supported values: \"storage\"",
          "s.yaml:6: spec.accessModes: Required value",
          "s.yaml:8: spec.nfs: Forbidden: may not specify more than 1 volume type",
          "s.yaml:13: spec.accessModes: may not use ReadWriteOncePod with other access modes",
          "s.yaml:13: spec.capacity: Required value",
          "s.yaml:13: spec: Required value: must specify a volume type",
          "s.yaml:18: spec.accessModes[0]: unknown access mode \"ReadWriteSometimes\" (want "
          "ReadWriteOnce, ReadOnlyMany, ReadWriteMany, ReadWriteOncePod)",
          "s.yaml:18: spec.volumeMode: unknown volumeMode \"Raw\" (want Filesystem, Block)",
          "s.yaml:18: spec.resources[storage]: Required value",
          "s.yaml:20: provisioner: required field \"provisioner\" is missing",
          "s.yaml:23: volumeBindingMode: unknown volumeBindingMode \"Later\" (want Immediate, "
          "WaitForFirstConsumer)",
          "s.yaml:25: storageClassName: required field \"storageClassName\" is missing",
          "s.yaml:36: spec.volumes[0].awsElasticBlockStore.volumeID: required field \"volumeID\" "
          "is missing",
          "s.yaml:37: spec.volumes[1].csi.driver: required field \"driver\" is missing",
          "s.yaml:37: spec.volumes[1].csi.volumeHandle: Forbidden: inline CSI volumes have no "
          "volumeHandle",
          "s.yaml:38: spec.volumes[2].ephemeral.volumeClaimTemplate: required field "
          "\"volumeClaimTemplate\" is missing"));
}

}  // namespace
}  // namespace corral::loader
