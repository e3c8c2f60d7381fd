// Every kind decoded field by field, with the API server's defaults.

#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "corral/api/well_known.h"
#include "corral/loader/loader.h"

namespace corral::loader {
namespace {

using ::testing::ElementsAre;

class LoaderKindsTest : public ::testing::Test {
 protected:
  LoadResult Load(const std::string& yaml, LoadOptions opts = {}) {
    LoadResult r = LoadString(yaml, "k.yaml", in_, opts);
    for (const auto& d : r.diagnostics.items()) messages_.push_back(d.ToString());
    return r;
  }
  std::string S(Symbol s) const { return std::string(in_.Str(s)); }
  Symbol Sym(std::string_view s) { return in_.Intern(s); }
  int64_t Milli(const api::ResourceList& l, std::string_view name) {
    const api::Quantity* q = api::FindResource(l, Sym(name));
    return q == nullptr ? -1 : q->MilliValue();
  }

  Interner in_ = api::NewInterner();
  std::vector<std::string> messages_;
};

TEST_F(LoaderKindsTest, Node) {
  LoadResult r = Load(R"(
apiVersion: v1
kind: Node
metadata:
  name: n1
  uid: u-1
  labels: {kubernetes.io/hostname: n1, topology.kubernetes.io/zone: z1}
  annotations: {note: "hello"}
  creationTimestamp: "2026-01-02T03:04:05Z"
spec:
  unschedulable: true
  taints:
  - {key: a, value: b, effect: NoSchedule}
  - {key: c, effect: PreferNoSchedule}
  - {key: d, effect: NoExecute, timeAdded: "2026-01-02T03:04:06Z"}
status:
  capacity: {cpu: "4", memory: 8Gi, pods: "110", nvidia.com/gpu: "2"}
  allocatable: {cpu: 3500m, memory: 7Gi}
  images:
  - names: [nginx:1.27, docker.io/library/nginx@sha256:abc]
    sizeBytes: 1234
  conditions:
  - {type: Ready, status: "True", reason: KubeletReady}
)");
  EXPECT_THAT(messages_, ElementsAre());
  ASSERT_EQ(r.objects.nodes.size(), 1u);
  const api::Node& n = r.objects.nodes[0];
  EXPECT_EQ(S(n.meta.name), "n1");
  EXPECT_TRUE(n.meta.namespace_.empty());
  EXPECT_EQ(S(n.meta.uid), "u-1");
  EXPECT_EQ(S(*n.meta.labels.Find(Sym("topology.kubernetes.io/zone"))), "z1");
  ASSERT_NE(n.meta.Annotation(Sym("note")), nullptr);
  EXPECT_EQ(*n.meta.Annotation(Sym("note")), "hello");
  ASSERT_TRUE(n.meta.creation_timestamp.has_value());
  EXPECT_EQ(n.meta.source.line, 2u);
  EXPECT_EQ(S(n.meta.source.file), "k.yaml");
  EXPECT_TRUE(n.unschedulable);
  ASSERT_EQ(n.taints.size(), 3u);
  EXPECT_EQ(S(n.taints[0].key), "a");
  EXPECT_EQ(S(n.taints[0].value), "b");
  EXPECT_EQ(n.taints[0].effect, api::TaintEffect::kNoSchedule);
  EXPECT_EQ(n.taints[1].effect, api::TaintEffect::kPreferNoSchedule);
  EXPECT_EQ(n.taints[2].effect, api::TaintEffect::kNoExecute);
  EXPECT_TRUE(n.taints[2].time_added.has_value());
  EXPECT_EQ(Milli(n.capacity, "cpu"), 4000);
  EXPECT_EQ(Milli(n.allocatable, "cpu"), 3500);
  EXPECT_EQ(Milli(n.allocatable, "memory"), int64_t{7} * 1024 * 1024 * 1024 * 1000);
  // Allocatable defaults from capacity for the resources it does not list.
  EXPECT_EQ(Milli(n.allocatable, "pods"), 110000);
  EXPECT_EQ(Milli(n.allocatable, "nvidia.com/gpu"), 2000);
  ASSERT_EQ(n.images.size(), 1u);
  EXPECT_EQ(n.images[0].names.size(), 2u);
  EXPECT_EQ(n.images[0].size_bytes, 1234);
  ASSERT_EQ(n.conditions.size(), 1u);
  EXPECT_EQ(n.conditions[0].type, Sym("Ready"));
  EXPECT_EQ(n.conditions[0].status, api::wk::kTrue);
  // Sorted by symbol.
  for (size_t i = 1; i < n.allocatable.size(); ++i)
    EXPECT_LT(n.allocatable[i - 1].first, n.allocatable[i].first);
}

TEST_F(LoaderKindsTest, NodeWithoutPodsWarns) {
  LoadResult r =
      Load("apiVersion: v1\nkind: Node\nmetadata: {name: node-a}\nstatus:\n  capacity: {cpu: 1}\n");
  EXPECT_TRUE(r.ok());
  ASSERT_EQ(messages_.size(), 1u);
  EXPECT_THAT(messages_[0], ::testing::HasSubstr("no \"pods\" in allocatable"));
}

TEST_F(LoaderKindsTest, PodEveryField) {
  LoadResult r = Load(R"(
apiVersion: v1
kind: Pod
metadata:
  name: p
  namespace: team
  labels: {app: a}
  deletionTimestamp: "2026-01-02T03:04:05Z"
  ownerReferences:
  - {apiVersion: apps/v1, kind: ReplicaSet, name: rs, uid: u, controller: true, blockOwnerDeletion: true}
spec:
  initContainers:
  - name: sidecar
    image: envoy
    restartPolicy: Always
    resources: {requests: {cpu: 100m}}
  - name: init
    image: busybox
    resources: {limits: {cpu: 200m, memory: 64Mi}}
  containers:
  - name: main
    image: app:1
    ports:
    - {name: http, containerPort: 8080, hostPort: 80, protocol: TCP, hostIP: 10.0.0.1}
    - {containerPort: 53, protocol: UDP}
    resources:
      requests: {cpu: 500m, memory: 1Gi, example.com/foo: "2"}
      limits: {cpu: "1", memory: 2Gi, example.com/foo: "2", ephemeral-storage: 1Gi}
  overhead: {cpu: 10m, memory: 1Mi}
  resources:
    requests: {cpu: "2"}
    limits: {cpu: "4", memory: 4Gi}
  nodeSelector: {disk: ssd}
  affinity:
    nodeAffinity:
      requiredDuringSchedulingIgnoredDuringExecution:
        nodeSelectorTerms:
        - matchExpressions:
          - {key: zone, operator: In, values: [a, b]}
          - {key: gen, operator: Gt, values: ["3"]}
          matchFields:
          - {key: metadata.name, operator: NotIn, values: [bad-node]}
      preferredDuringSchedulingIgnoredDuringExecution:
      - weight: 20
        preference:
          matchExpressions: [{key: fast, operator: Exists}]
    podAffinity:
      requiredDuringSchedulingIgnoredDuringExecution:
      - labelSelector: {matchLabels: {app: db}}
        namespaces: [data]
        topologyKey: topology.kubernetes.io/zone
        namespaceSelector: {}
        matchLabelKeys: [pod-template-hash]
        mismatchLabelKeys: [tenant]
    podAntiAffinity:
      preferredDuringSchedulingIgnoredDuringExecution:
      - weight: 100
        podAffinityTerm:
          labelSelector:
            matchExpressions: [{key: app, operator: NotIn, values: [x]}, {key: tier, operator: DoesNotExist}]
          topologyKey: kubernetes.io/hostname
  tolerations:
  - {key: k, operator: Equal, value: v, effect: NoSchedule}
  - {key: k2, operator: Exists, effect: NoExecute, tolerationSeconds: 60}
  - {operator: Exists}
  - {key: k3, value: v3}
  topologySpreadConstraints:
  - maxSkew: 2
    topologyKey: topology.kubernetes.io/zone
    whenUnsatisfiable: DoNotSchedule
    labelSelector: {matchLabels: {app: a}}
    minDomains: 3
    nodeAffinityPolicy: Ignore
    nodeTaintsPolicy: Honor
    matchLabelKeys: [pod-template-hash]
  - {maxSkew: 1, topologyKey: kubernetes.io/hostname, whenUnsatisfiable: ScheduleAnyway}
  nodeName: node-1
  schedulerName: my-scheduler
  schedulingGates: [{name: example.com/gate}]
  priorityClassName: system-node-critical
  preemptionPolicy: PreemptLowerPriority
  terminationGracePeriodSeconds: 5
  workloadRef: {name: job, podGroup: workers, podGroupReplicaKey: r0}
  schedulingGroup: {podGroupName: pg-0}
  volumes:
  - {name: data, persistentVolumeClaim: {claimName: data-pvc, readOnly: true}}
  - name: scratch
    ephemeral: {volumeClaimTemplate: {spec: {accessModes: [ReadWriteOnce], resources: {requests: {storage: 1Gi}}}}}
  - {name: cfg, configMap: {name: c}}
  resourceClaims:
  - {name: gpu, resourceClaimTemplateName: gpu-template}
  hostNetwork: false
status:
  phase: Running
  nominatedNodeName: node-2
  startTime: "2026-01-02T03:04:06Z"
  conditions:
  - {type: PodScheduled, status: "True", reason: Scheduled, lastTransitionTime: "2026-01-02T03:04:06Z"}
)");
  EXPECT_THAT(messages_, ElementsAre());
  ASSERT_EQ(r.objects.pods.size(), 1u);
  const api::Pod& p = r.objects.pods[0];
  EXPECT_EQ(S(p.meta.namespace_), "team");
  EXPECT_TRUE(p.IsTerminating());
  ASSERT_EQ(p.meta.owner_references.size(), 1u);
  EXPECT_EQ(S(p.meta.owner_references[0].kind), "ReplicaSet");
  EXPECT_TRUE(p.meta.owner_references[0].controller);

  ASSERT_EQ(p.init_containers.size(), 2u);
  EXPECT_EQ(p.init_containers[0].restart_policy, api::ContainerRestartPolicy::kAlways);
  EXPECT_EQ(p.init_containers[1].restart_policy, api::ContainerRestartPolicy::kUnset);
  // Requests default from limits.
  EXPECT_EQ(Milli(p.init_containers[1].resources.requests, "cpu"), 200);
  EXPECT_EQ(Milli(p.init_containers[1].resources.requests, "memory"),
            int64_t{64} * 1024 * 1024 * 1000);
  ASSERT_EQ(p.containers.size(), 1u);
  const api::Container& c = p.containers[0];
  EXPECT_EQ(S(c.name), "main");
  EXPECT_EQ(S(c.image), "app:1");
  ASSERT_EQ(c.ports.size(), 2u);
  EXPECT_EQ(S(c.ports[0].name), "http");
  EXPECT_EQ(c.ports[0].container_port, 8080);
  EXPECT_EQ(c.ports[0].host_port, 80);
  EXPECT_EQ(S(c.ports[0].host_ip), "10.0.0.1");
  EXPECT_EQ(c.ports[1].protocol, api::Protocol::kUDP);
  EXPECT_EQ(c.ports[1].host_port, 0);
  EXPECT_EQ(Milli(c.resources.requests, "cpu"), 500);
  EXPECT_EQ(Milli(c.resources.requests, "example.com/foo"), 2000);
  EXPECT_EQ(Milli(c.resources.requests, "ephemeral-storage"),
            Milli(c.resources.limits, "ephemeral-storage"));
  EXPECT_EQ(Milli(c.resources.limits, "cpu"), 1000);
  EXPECT_EQ(Milli(p.overhead, "cpu"), 10);
  ASSERT_TRUE(p.resources.has_value());
  EXPECT_EQ(Milli(p.resources->requests, "cpu"), 2000);
  EXPECT_EQ(Milli(p.resources->requests, "memory"), Milli(p.resources->limits, "memory"));
  EXPECT_EQ(S(*p.node_selector.Find(Sym("disk"))), "ssd");

  ASSERT_TRUE(p.affinity.has_value());
  const auto& na = *p.affinity->node_affinity;
  ASSERT_TRUE(na.required.has_value());
  ASSERT_EQ(na.required->node_selector_terms.size(), 1u);
  const auto& term = na.required->node_selector_terms[0];
  ASSERT_EQ(term.match_expressions.size(), 2u);
  EXPECT_EQ(term.match_expressions[0].op, api::NodeSelectorOp::kIn);
  EXPECT_EQ(term.match_expressions[0].values.size(), 2u);
  EXPECT_EQ(term.match_expressions[1].op, api::NodeSelectorOp::kGt);
  ASSERT_EQ(term.match_fields.size(), 1u);
  EXPECT_EQ(term.match_fields[0].key, api::wk::kMetadataName);
  EXPECT_EQ(term.match_fields[0].op, api::NodeSelectorOp::kNotIn);
  ASSERT_EQ(na.preferred.size(), 1u);
  EXPECT_EQ(na.preferred[0].weight, 20);
  EXPECT_EQ(na.preferred[0].preference.match_expressions[0].op, api::NodeSelectorOp::kExists);
  const auto& pa = *p.affinity->pod_affinity;
  ASSERT_EQ(pa.required.size(), 1u);
  EXPECT_EQ(pa.required[0].topology_key, api::wk::kZoneLabel);
  ASSERT_TRUE(pa.required[0].label_selector.has_value());
  EXPECT_EQ(pa.required[0].label_selector->match_labels.size(), 1u);
  EXPECT_EQ(pa.required[0].namespaces.size(), 1u);
  ASSERT_TRUE(pa.required[0].namespace_selector.has_value());  // {} is kept, distinct from absent
  EXPECT_TRUE(pa.required[0].namespace_selector->match_labels.empty());
  EXPECT_EQ(pa.required[0].match_label_keys.size(), 1u);
  EXPECT_EQ(pa.required[0].mismatch_label_keys.size(), 1u);
  const auto& anti = *p.affinity->pod_anti_affinity;
  ASSERT_EQ(anti.preferred.size(), 1u);
  EXPECT_EQ(anti.preferred[0].weight, 100);
  EXPECT_EQ(anti.preferred[0].pod_affinity_term.label_selector->match_expressions.size(), 2u);
  EXPECT_EQ(anti.preferred[0].pod_affinity_term.label_selector->match_expressions[1].op,
            api::LabelSelectorOp::kDoesNotExist);

  ASSERT_EQ(p.tolerations.size(), 4u);
  EXPECT_EQ(p.tolerations[0].op, api::TolerationOp::kEqual);
  EXPECT_EQ(S(p.tolerations[0].value), "v");
  EXPECT_EQ(p.tolerations[1].op, api::TolerationOp::kExists);
  EXPECT_EQ(p.tolerations[1].toleration_seconds, 60);
  EXPECT_EQ(p.tolerations[2].effect, api::TaintEffect::kNone);
  EXPECT_TRUE(p.tolerations[2].key.empty());
  EXPECT_EQ(p.tolerations[3].op, api::TolerationOp::kEqual);  // default operator

  ASSERT_EQ(p.topology_spread_constraints.size(), 2u);
  const auto& t0 = p.topology_spread_constraints[0];
  EXPECT_EQ(t0.max_skew, 2);
  EXPECT_EQ(t0.min_domains, 3);
  EXPECT_EQ(t0.node_affinity_policy, api::NodeInclusionPolicy::kIgnore);
  EXPECT_EQ(t0.node_taints_policy, api::NodeInclusionPolicy::kHonor);
  EXPECT_EQ(t0.match_label_keys.size(), 1u);
  const auto& t1 = p.topology_spread_constraints[1];
  EXPECT_EQ(t1.when_unsatisfiable, api::WhenUnsatisfiable::kScheduleAnyway);
  EXPECT_FALSE(t1.node_affinity_policy.has_value());  // nil = Honor, left to the plugin
  EXPECT_FALSE(t1.node_taints_policy.has_value());
  EXPECT_FALSE(t1.label_selector.has_value());
  EXPECT_FALSE(t1.min_domains.has_value());

  EXPECT_EQ(S(p.node_name), "node-1");
  EXPECT_EQ(S(p.scheduler_name), "my-scheduler");
  ASSERT_EQ(p.scheduling_gates.size(), 1u);
  EXPECT_EQ(S(p.priority_class_name), "system-node-critical");
  EXPECT_EQ(p.priority, 2000001000);
  EXPECT_EQ(p.termination_grace_period_seconds, 5);
  ASSERT_TRUE(p.workload_ref.has_value());
  EXPECT_EQ(S(p.workload_ref->name), "job");
  EXPECT_EQ(S(p.workload_ref->pod_group), "workers");
  EXPECT_EQ(S(p.workload_ref->pod_group_replica_key), "r0");
  ASSERT_TRUE(p.scheduling_group.has_value());
  EXPECT_EQ(S(p.scheduling_group->pod_group_name), "pg-0");
  ASSERT_EQ(p.volumes.size(), 3u);
  EXPECT_EQ(p.volumes[0].kind, api::VolumeKind::kPersistentVolumeClaim);
  EXPECT_EQ(S(p.volumes[0].claim_name), "data-pvc");
  EXPECT_EQ(p.volumes[1].kind, api::VolumeKind::kEphemeral);
  EXPECT_EQ(p.volumes[2].kind, api::VolumeKind::kOther);
  ASSERT_EQ(p.resource_claims.size(), 1u);
  EXPECT_EQ(S(p.resource_claims[0].name), "gpu");
  EXPECT_FALSE(p.host_network);

  EXPECT_EQ(p.phase, api::PodPhase::kRunning);
  EXPECT_EQ(S(p.nominated_node_name), "node-2");
  EXPECT_TRUE(p.start_time.has_value());
  ASSERT_EQ(p.conditions.size(), 1u);
  EXPECT_EQ(S(p.conditions[0].reason), "Scheduled");
}

TEST_F(LoaderKindsTest, PodDefaults) {
  LoadResult r = Load(R"(
apiVersion: v1
kind: Pod
metadata: {name: p}
spec:
  hostNetwork: true
  containers:
  - name: c
    image: i
    ports: [{containerPort: 9100}]
    resources: {limits: {cpu: 250m}}
)");
  EXPECT_THAT(messages_, ElementsAre());
  const api::Pod& p = r.objects.pods.at(0);
  EXPECT_EQ(p.meta.namespace_, api::wk::kDefaultNamespace);
  EXPECT_EQ(p.scheduler_name, api::wk::kDefaultScheduler);
  EXPECT_EQ(p.termination_grace_period_seconds, 30);
  EXPECT_EQ(p.phase, api::PodPhase::kPending);
  EXPECT_EQ(p.priority, 0);
  EXPECT_TRUE(p.priority_class_name.empty());
  EXPECT_EQ(p.preemption_policy, api::PreemptionPolicy::kPreemptLowerPriority);
  EXPECT_EQ(p.containers[0].ports[0].host_port,
            9100);  // hostNetwork: hostPort defaults to containerPort
  EXPECT_EQ(Milli(p.containers[0].resources.requests, "cpu"), 250);
  EXPECT_FALSE(p.affinity.has_value());
  EXPECT_FALSE(p.resources.has_value());
}

TEST_F(LoaderKindsTest, NamespacePriorityClassPdbAndSelectorOwners) {
  LoadResult r = Load(R"(
apiVersion: v1
kind: Namespace
metadata: {name: team, labels: {env: prod}}
spec: {finalizers: [kubernetes]}
status: {phase: Active}
---
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: {name: high}
value: 1000
globalDefault: false
description: important
preemptionPolicy: Never
---
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {name: pdb1, namespace: team}
spec:
  minAvailable: 2
  selector: {matchLabels: {app: a}}
---
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {name: pdb2}
spec:
  maxUnavailable: 25%
  selector: {}
---
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata: {name: pdb3}
spec: {maxUnavailable: 1}
---
apiVersion: v1
kind: Service
metadata: {name: svc, namespace: team}
spec: {selector: {app: a}, ports: [{port: 80}], type: ClusterIP}
---
apiVersion: v1
kind: Service
metadata: {name: headless}
spec: {clusterIP: None}
---
apiVersion: v1
kind: ReplicationController
metadata: {name: rc}
spec: {replicas: 2, selector: {app: b}, template: {metadata: {labels: {app: b}}}}
---
apiVersion: apps/v1
kind: ReplicaSet
metadata: {name: rs}
spec:
  replicas: 3
  selector: {matchExpressions: [{key: app, operator: In, values: [c]}]}
---
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: sts}
spec:
  serviceName: sts
  selector: {matchLabels: {app: d}}
  volumeClaimTemplates: []
status: {replicas: 1}
)");
  EXPECT_THAT(messages_, ElementsAre());
  ASSERT_EQ(r.objects.namespaces.size(), 1u);
  EXPECT_EQ(S(r.objects.namespaces[0].meta.name), "team");
  EXPECT_TRUE(r.objects.namespaces[0].meta.namespace_.empty());

  ASSERT_GE(r.objects.priority_classes.size(), 1u);
  const api::PriorityClass& pc = r.objects.priority_classes[0];
  EXPECT_EQ(pc.value, 1000);
  EXPECT_FALSE(pc.global_default);
  EXPECT_EQ(pc.description, "important");
  EXPECT_EQ(pc.preemption_policy, api::PreemptionPolicy::kNever);

  const auto& pdbs = r.objects.pod_disruption_budgets;
  ASSERT_EQ(pdbs.size(), 3u);
  EXPECT_EQ(pdbs[0].min_available->value, 2);
  EXPECT_FALSE(pdbs[0].min_available->is_percent);
  EXPECT_FALSE(pdbs[0].max_unavailable.has_value());
  EXPECT_EQ(pdbs[0].selector->match_labels.size(), 1u);
  EXPECT_EQ(pdbs[1].max_unavailable->value, 25);
  EXPECT_TRUE(pdbs[1].max_unavailable->is_percent);
  ASSERT_TRUE(pdbs[1].selector.has_value());  // empty selector: every pod in the namespace
  EXPECT_TRUE(pdbs[1].selector->match_labels.empty());
  EXPECT_FALSE(pdbs[2].selector.has_value());  // nil selector: no pod
  EXPECT_EQ(pdbs[2].meta.namespace_, api::wk::kDefaultNamespace);

  const auto& owners = r.objects.selector_owners;
  ASSERT_EQ(owners.size(), 5u);
  EXPECT_EQ(owners[0].kind, api::SelectorOwnerKind::kService);
  EXPECT_EQ(owners[0].selector->match_labels.size(), 1u);
  EXPECT_FALSE(owners[1].selector.has_value());
  EXPECT_EQ(owners[2].kind, api::SelectorOwnerKind::kReplicationController);
  EXPECT_EQ(S(*owners[2].selector->match_labels.Find(Sym("app"))), "b");
  EXPECT_EQ(owners[3].kind, api::SelectorOwnerKind::kReplicaSet);
  EXPECT_EQ(owners[3].selector->match_expressions.size(), 1u);
  EXPECT_EQ(owners[4].kind, api::SelectorOwnerKind::kStatefulSet);
  EXPECT_EQ(owners[4].selector->match_labels.size(), 1u);
}

TEST_F(LoaderKindsTest, WorkloadV1Alpha1) {
  LoadResult r = Load(R"(
apiVersion: scheduling.k8s.io/v1alpha1
kind: Workload
metadata: {name: job, namespace: ml}
spec:
  controllerRef: {apiGroup: batch, kind: Job, name: job}
  podGroups:
  - name: workers
    policy: {gang: {minCount: 4}}
  - name: driver
    policy: {basic: {}}
)");
  EXPECT_THAT(messages_, ElementsAre());
  ASSERT_EQ(r.objects.workloads.size(), 1u);
  const api::Workload& w = r.objects.workloads[0];
  EXPECT_EQ(w.generation, api::WorkloadApiGeneration::kV1Alpha1);
  ASSERT_TRUE(w.controller_ref.has_value());
  EXPECT_EQ(S(w.controller_ref->api_group), "batch");
  EXPECT_EQ(S(w.controller_ref->kind), "Job");
  ASSERT_EQ(w.pod_groups.size(), 2u);
  EXPECT_EQ(S(w.pod_groups[0].name), "workers");
  EXPECT_EQ(w.pod_groups[0].policy.kind, api::PodGroupPolicyKind::kGang);
  EXPECT_EQ(w.pod_groups[0].policy.min_count, 4);
  EXPECT_EQ(w.pod_groups[1].policy.kind, api::PodGroupPolicyKind::kBasic);
  EXPECT_EQ(w.pod_groups[1].policy.min_count, 0);
}

TEST_F(LoaderKindsTest, WorkloadAndPodGroupCurrent) {
  LoadResult r = Load(R"(
apiVersion: scheduling.k8s.io/v1beta1
kind: Workload
metadata: {name: job, namespace: ml}
spec:
  podGroupTemplates:
  - name: workers
    schedulingPolicy: {gang: {minCount: 8}}
    disruptionMode: {all: {}}
    priorityClassName: high
---
apiVersion: scheduling.k8s.io/v1alpha2
kind: PodGroup
metadata: {name: job-workers-0, namespace: ml}
spec:
  podGroupTemplateRef:
    workload: {workloadName: job, podGroupTemplateName: workers}
  schedulingPolicy: {gang: {minCount: 8}}
  disruptionMode: {all: {}}
  schedulingConstraints:
    topology: [{key: topology.kubernetes.io/zone}]
  priorityClassName: high
status:
  conditions: []
---
apiVersion: scheduling.k8s.io/v1beta1
kind: PodGroup
metadata: {name: job-workers-1, namespace: ml}
spec:
  workloadRef: {workloadName: job, templateName: workers}
  schedulingPolicy: {basic: {}}
  schedulingConstraints:
    topologyConstraints: [{topologyKey: kubernetes.io/hostname}]
---
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: {name: high}
value: 500
)");
  EXPECT_THAT(messages_, ElementsAre());
  ASSERT_EQ(r.objects.workloads.size(), 1u);
  EXPECT_EQ(r.objects.workloads[0].generation, api::WorkloadApiGeneration::kCurrent);
  EXPECT_EQ(r.objects.workloads[0].pod_groups.at(0).policy.min_count, 8);
  ASSERT_EQ(r.objects.pod_groups.size(), 2u);
  const api::PodGroup& g = r.objects.pod_groups[0];
  EXPECT_EQ(S(g.template_workload_name), "job");
  EXPECT_EQ(S(g.template_name), "workers");
  EXPECT_EQ(g.policy.kind, api::PodGroupPolicyKind::kGang);
  EXPECT_EQ(g.policy.min_count, 8);
  EXPECT_EQ(g.disruption_mode, api::DisruptionMode::kAll);
  ASSERT_EQ(g.topology_keys.size(), 1u);
  EXPECT_EQ(g.topology_keys[0], api::wk::kZoneLabel);
  EXPECT_EQ(S(g.priority_class_name), "high");
  EXPECT_EQ(g.priority, 500);  // resolved after all documents were read
  const api::PodGroup& g1 = r.objects.pod_groups[1];
  EXPECT_EQ(S(g1.template_name), "workers");
  EXPECT_EQ(g1.policy.kind, api::PodGroupPolicyKind::kBasic);
  EXPECT_EQ(g1.disruption_mode, api::DisruptionMode::kSingle);
  EXPECT_EQ(g1.topology_keys.at(0), api::wk::kHostnameLabel);
  EXPECT_FALSE(g1.priority.has_value());
}

// PodGroup scheduling.k8s.io/v1alpha3 (kube's staging/src/k8s.io/api/scheduling/v1alpha3/types.go):
// v1alpha2's podGroupTemplateRef, v1beta1's topology[].key, disruptionMode and priorityClassName.
TEST_F(LoaderKindsTest, PodGroupV1Alpha3) {
  LoadResult r = Load(R"(
apiVersion: scheduling.k8s.io/v1alpha3
kind: PodGroup
metadata: {name: job-workers-0, namespace: ml}
spec:
  podGroupTemplateRef:
    workload: {workloadName: job, podGroupTemplateName: workers}
  schedulingPolicy: {gang: {minCount: 4}}
  schedulingConstraints:
    topology: [{key: topology.kubernetes.io/zone}]
  disruptionMode: {all: {}}
  priorityClassName: high
---
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: {name: high}
value: 700
---
apiVersion: scheduling.k8s.io/v1alpha3
kind: PodGroup
metadata: {name: basic-group-0}
spec:
  schedulingPolicy:
    basic: {}
)");
  EXPECT_THAT(messages_, ElementsAre());
  ASSERT_EQ(r.objects.pod_groups.size(), 2u);
  const api::PodGroup& g = r.objects.pod_groups[0];
  EXPECT_EQ(S(g.template_workload_name), "job");
  EXPECT_EQ(S(g.template_name), "workers");
  EXPECT_EQ(g.policy.kind, api::PodGroupPolicyKind::kGang);
  EXPECT_EQ(g.policy.min_count, 4);
  EXPECT_EQ(g.disruption_mode, api::DisruptionMode::kAll);
  EXPECT_EQ(g.topology_keys.at(0), api::wk::kZoneLabel);
  EXPECT_EQ(g.priority, 700);
  EXPECT_EQ(r.objects.pod_groups[1].policy.kind, api::PodGroupPolicyKind::kBasic);
  EXPECT_EQ(r.objects.pod_groups[1].disruption_mode, api::DisruptionMode::kSingle);
}

TEST_F(LoaderKindsTest, PodGroupV1Alpha3RejectsOtherVersionsSpellings) {
  LoadResult r = Load(R"(
apiVersion: scheduling.k8s.io/v1alpha3
kind: PodGroup
metadata: {name: g}
spec:
  workloadRef: {workloadName: job, templateName: workers}
  schedulingPolicy: {basic: {}}
  schedulingConstraints:
    topologyConstraints: [{topologyKey: kubernetes.io/hostname}]
)");
  EXPECT_FALSE(r.ok());
  EXPECT_THAT(messages_,
              ElementsAre("k.yaml:6: spec.workloadRef: unknown field in scheduling.k8s.io/v1alpha3 "
                          "(its template reference is podGroupTemplateRef.workload)",
                          "k.yaml:9: spec.schedulingConstraints.topologyConstraints: unknown field "
                          "in scheduling.k8s.io/v1alpha3 (its form is topology[].key)"));
  EXPECT_TRUE(r.objects.pod_groups.empty());
}

// scheduling.k8s.io/v1alpha3 CompositePodGroup (KEP-6012) and the PodGroup's parent reference.
TEST_F(LoaderKindsTest, CompositePodGroupEveryField) {
  LoadResult r = Load(R"(
apiVersion: scheduling.k8s.io/v1alpha3
kind: CompositePodGroup
metadata: {name: root, namespace: team}
spec:
  workloadRef: {workloadName: job, templateName: root}
  schedulingPolicy: {basic: {}}
---
apiVersion: scheduling.k8s.io/v1alpha3
kind: CompositePodGroup
metadata: {name: mid, namespace: team}
spec:
  parentCompositePodGroupName: root
  workloadRef: {workloadName: job, templateName: mid}
  priority: 1000
  schedulingPolicy: {gang: {minGroupCount: 2}}
  schedulingConstraints:
    topology: [{key: topology.kubernetes.io/zone}]
---
apiVersion: scheduling.k8s.io/v1beta1
kind: PodGroup
metadata: {name: leaf, namespace: team}
spec:
  parentCompositePodGroupName: mid
  workloadRef: {workloadName: job, templateName: leaf}
  schedulingPolicy: {gang: {minCount: 3}}
)");
  EXPECT_THAT(messages_, ElementsAre());
  ASSERT_EQ(r.objects.composite_pod_groups.size(), 2u);
  const api::CompositePodGroup& root = r.objects.composite_pod_groups[0];
  EXPECT_TRUE(root.parent_name.empty());
  EXPECT_FALSE(root.gang);
  EXPECT_EQ(root.MinGroupCount(), 1);
  const api::CompositePodGroup& mid = r.objects.composite_pod_groups[1];
  EXPECT_EQ(S(mid.meta.namespace_), "team");
  EXPECT_EQ(S(mid.parent_name), "root");
  EXPECT_EQ(S(mid.template_workload_name), "job");
  EXPECT_EQ(S(mid.template_name), "mid");
  EXPECT_TRUE(mid.gang);
  EXPECT_EQ(mid.MinGroupCount(), 2);
  EXPECT_EQ(mid.priority, 1000);
  EXPECT_EQ(mid.topology_keys.at(0), api::wk::kZoneLabel);
  ASSERT_EQ(r.objects.pod_groups.size(), 1u);
  EXPECT_EQ(S(r.objects.pod_groups[0].parent_name), "mid");
}

TEST_F(LoaderKindsTest, CompositePodGroupValidation) {
  LoadResult r = Load(R"(
apiVersion: scheduling.k8s.io/v1alpha3
kind: CompositePodGroup
metadata: {name: a}
spec:
  parentCompositePodGroupName: Not_A_Name
  schedulingPolicy: {basic: {}, gang: {minGroupCount: 0}}
  priorityClassName: high
  priority: 2000000000
  disruptionMode: {all: {}}
  schedulingConstraints:
    topology: [{key: a}, {key: b}]
---
apiVersion: scheduling.k8s.io/v1alpha3
kind: CompositePodGroup
metadata: {name: b}
spec:
  workloadRef: {workloadName: job}
  schedulingPolicy: {gang: {}}
)");
  EXPECT_FALSE(r.ok());
  EXPECT_THAT(
      messages_,
      ElementsAre(
          "k.yaml:6: spec.parentCompositePodGroupName: invalid name \"Not_A_Name\": a lowercase "
          "RFC "
          "1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must "
          "start and end with an alphanumeric character (e.g. 'example.com')",
          "k.yaml:6: spec.workloadRef: required field \"workloadRef\" is missing",
          "k.yaml:7: spec.schedulingPolicy.gang.minGroupCount: invalid value 0: must be greater "
          "than or equal to 1",
          "k.yaml:7: spec.schedulingPolicy: exactly one of basic, gang must be set (got both)",
          "k.yaml:8: spec.priorityClassName: not modelled by Corral: priority classes of "
          "CompositePodGroups (no priority admission runs for this kind); set spec.priority",
          "k.yaml:9: spec.priority: invalid value 2000000000: must be less than or equal to "
          "1000000000",
          "k.yaml:10: spec.disruptionMode: unknown field \"disruptionMode\"",
          "k.yaml:12: spec.schedulingConstraints.topology: must have at most 1 item, got 2",
          "k.yaml:18: spec.workloadRef.templateName: required field \"templateName\" is missing",
          "k.yaml:19: spec.schedulingPolicy.gang.minGroupCount: required field \"minGroupCount\" "
          "is missing (want an integer of at least 1)"));
  EXPECT_TRUE(r.objects.composite_pod_groups.empty());
}

TEST_F(LoaderKindsTest, WorkloadValidation) {
  LoadResult r = Load(R"(
apiVersion: scheduling.k8s.io/v1alpha1
kind: Workload
metadata: {name: job}
spec:
  podGroups:
  - name: a
    policy: {gang: {minCount: 0}}
  - name: a
    policy: {basic: {}, gang: {minCount: 1}}
  - name: B
    policy: {}
  - policy: {gang: {}}
)");
  EXPECT_FALSE(r.ok());
  EXPECT_THAT(
      messages_,
      ElementsAre(
          "k.yaml:8: spec.podGroups[0].policy.gang.minCount: invalid value 0: must be greater "
          "than or equal to 1",
          "k.yaml:9: spec.podGroups[1].name: duplicate value \"a\"",
          "k.yaml:10: spec.podGroups[1].policy: exactly one of basic, gang must be set (got both)",
          "k.yaml:11: spec.podGroups[2].name: invalid name \"B\": a lowercase RFC 1123 label must "
          "consist of lower case alphanumeric characters or '-', and must start and end with an "
          "alphanumeric character (e.g. 'my-name', or '123-abc')",
          "k.yaml:12: spec.podGroups[2].policy: exactly one of basic, gang must be set (got none)",
          "k.yaml:13: spec.podGroups[3].policy.gang.minCount: required field \"minCount\" is "
          "missing (want an integer of at least 1)",
          "k.yaml:13: spec.podGroups[3].name: required field \"name\" is missing"));
  EXPECT_TRUE(r.objects.workloads.empty());
}

TEST_F(LoaderKindsTest, KnownButIgnoredFieldsAreSilentTyposAreNot) {
  const std::string yaml = R"(
apiVersion: v1
kind: Pod
metadata:
  name: p
  resourceVersion: "12"
  managedFields: [{manager: kubectl}]
  finalizers: [x]
spec:
  restartPolicy: Always
  dnsPolicy: ClusterFirst
  serviceAccountName: default
  securityContext: {runAsUser: 1000}
  tolerance: []
  containers:
  - name: c
    image: i
    env: [{name: A, value: b}]
    livenessProbe: {httpGet: {path: /, port: 80}}
    imagePullPolicy: Always
    resources: {requets: {cpu: 1}}
status:
  qosClass: BestEffort
  containerStatuses: [{name: c, ready: true}]
  phse: Running
)";
  // kubectl's --validate=warn: warnings, and the pod is loaded.
  LoadResult r = Load(yaml, {.unknown_fields = doc::FieldValidation::kWarn});
  EXPECT_TRUE(r.ok());
  EXPECT_THAT(
      messages_,
      ElementsAre("k.yaml:14: warning: spec.tolerance: unknown field \"tolerance\" (did you mean "
                  "\"tolerations\"?)",
                  "k.yaml:21: warning: spec.containers[0].resources.requets: unknown field "
                  "\"requets\" (did you mean \"requests\"?)",
                  "k.yaml:25: warning: status.phse: unknown field \"phse\" (did you mean "
                  "\"phase\"?)"));
  EXPECT_EQ(r.counts.unknown_fields, 3u);
  ASSERT_EQ(r.objects.pods.size(), 1u);

  // The default (--validate=strict): the same three are errors and the pod is not loaded.
  messages_.clear();
  LoadResult strict = Load(yaml);
  EXPECT_FALSE(strict.ok());
  EXPECT_EQ(strict.diagnostics.error_count(), 3u);
  EXPECT_TRUE(strict.objects.pods.empty());

  // --validate=ignore: nothing said, the fields still counted, the pod loaded.
  messages_.clear();
  LoadResult ignore = Load(yaml, {.unknown_fields = doc::FieldValidation::kIgnore});
  EXPECT_TRUE(ignore.ok());
  EXPECT_TRUE(messages_.empty());
  EXPECT_EQ(ignore.counts.unknown_fields, 3u);
  EXPECT_EQ(ignore.objects.pods.size(), 1u);
}

TEST_F(LoaderKindsTest, ValidationMessages) {
  LoadResult r = Load(R"(
apiVersion: v1
kind: Pod
metadata: {name: Bad_Name, labels: {"a b": x, ok: "-bad"}}
spec:
  containers:
  - name: c
    image: i
    resources:
      requests: {cpu: "2", nvidia.com/gpu: "1", memory: -1}
      limits: {cpu: "1", nvidia.com/gpu: "2", widgets: 1}
  - name: c
    image: i
  tolerations:
  - {operator: Equal, value: x}
  - {key: k, operator: Exists, value: v}
  - {key: k, effect: NoSchedule, tolerationSeconds: 5}
  affinity:
    nodeAffinity:
      requiredDuringSchedulingIgnoredDuringExecution:
        nodeSelectorTerms:
        - matchExpressions:
          - {key: a, operator: In}
          - {key: b, operator: Exists, values: [x]}
          - {key: c, operator: Gt, values: ["x"]}
          - {key: d, operator: Near}
  topologySpreadConstraints:
  - {maxSkew: 0, topologyKey: zone, whenUnsatisfiable: ScheduleAnyway, minDomains: 2}
)");
  EXPECT_FALSE(r.ok());
  EXPECT_TRUE(r.objects.pods.empty());
  EXPECT_THAT(
      messages_,
      ElementsAre(
          "k.yaml:4: metadata.labels[a b]: invalid label key \"a b\": name part must consist of "
          "alphanumeric "
          "characters, '-', '_' or '.', and must start and end with an alphanumeric character "
          "(e.g. 'MyName', or "
          "'my.name', or '123-abc')",
          "k.yaml:4: metadata.labels[ok]: invalid label value \"-bad\": a valid label must be an "
          "empty string or "
          "consist of alphanumeric characters, '-', '_' or '.', and must start and end with an "
          "alphanumeric "
          "character (e.g. 'MyValue', or 'my_value', or '12345')",
          "k.yaml:4: metadata.name: invalid name \"Bad_Name\": a lowercase RFC 1123 subdomain must "
          "consist of "
          "lower case alphanumeric characters, '-' or '.', and must start and end with an "
          "alphanumeric character "
          "(e.g. 'example.com')",
          "k.yaml:10: spec.containers[0].resources.requests[memory]: invalid value \"-1\": must be "
          "greater than "
          "or equal to 0",
          "k.yaml:10: spec.containers[0].resources.requests[cpu]: must be less than or equal to "
          "cpu limit of 1",
          "k.yaml:10: spec.containers[0].resources.requests[nvidia.com/gpu]: must be equal to "
          "nvidia.com/gpu "
          "limit of 2",
          "k.yaml:11: spec.containers[0].resources.limits[widgets]: invalid resource name "
          "\"widgets\": must be a "
          "standard resource for containers (cpu, memory, ephemeral-storage, hugepages-<size>) or "
          "an extended "
          "resource with a domain prefix (e.g. example.com/gpu)",
          "k.yaml:12: spec.containers[1]: duplicate container name \"c\"",
          "k.yaml:15: spec.tolerations[0].operator: operator must be Exists when `key` is empty, "
          "which means "
          "\"match all values and all keys\"",
          "k.yaml:16: spec.tolerations[1].value: value must be empty when `operator` is 'Exists'",
          "k.yaml:17: spec.tolerations[2].effect: effect must be 'NoExecute' when "
          "`tolerationSeconds` is set",
          "k.yaml:23: spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution."
          "nodeSelectorTerms[0].matchExpressions[0].values: must be specified when `operator` is "
          "'In' or 'NotIn'",
          "k.yaml:24: spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution."
          "nodeSelectorTerms[0].matchExpressions[1].values: may not be specified when `operator` "
          "is 'Exists' or "
          "'DoesNotExist'",
          "k.yaml:25: spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution."
          "nodeSelectorTerms[0].matchExpressions[2].values: invalid value \"x\": must be an "
          "integer for 'Lt' or "
          "'Gt'",
          "k.yaml:26: spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution."
          "nodeSelectorTerms[0].matchExpressions[3].operator: unknown operator \"Near\" (want In, "
          "NotIn, Exists, "
          "DoesNotExist, Gt, Lt)",
          "k.yaml:28: spec.topologySpreadConstraints[0].maxSkew: invalid value 0: must be greater "
          "than zero",
          "k.yaml:28: spec.topologySpreadConstraints[0].minDomains: can only use minDomains if "
          "whenUnsatisfiable=DoNotSchedule"));
}

}  // namespace
}  // namespace corral::loader
