#include "corral/loader/fleet_loader.h"

#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "corral/api/well_known.h"

namespace corral::loader {
namespace {

std::vector<std::string> Messages(const FleetLoadResult& r) {
  std::vector<std::string> out;
  for (const Diagnostic& d : r.diagnostics.items()) out.push_back(d.ToString());
  return out;
}

FleetLoadResult Load(Interner& in, const std::string& file) {
  std::vector<std::string> paths = {"test/testdata/fleet/" + file};
  return LoadFleetPaths(paths, in);
}

// Every error of a file at once, each as file:line: field.path: message; the objects with errors
// are left out.
TEST(FleetLoaderTest, KarmadaErrorsAllAtOnce) {
  Interner in = api::NewInterner();
  FleetLoadResult r = Load(in, "bad_karmada.yaml");
  const std::vector<std::string> want = {
      "test/testdata/fleet/bad_karmada.yaml:7: spec.resource.name: required field \"name\" is "
      "missing",
      "test/testdata/fleet/bad_karmada.yaml:8: spec.replicas: invalid value -1: must be greater "
      "than or equal to 0",
      "test/testdata/fleet/bad_karmada.yaml:9: spec.bogus: unknown field \"bogus\"",
      "test/testdata/fleet/bad_karmada.yaml:11: spec.placement: clusterAffinities can not co-exist "
      "with clusterAffinity",
      "test/testdata/fleet/bad_karmada.yaml:14: "
      "spec.placement.clusterAffinity.fieldSelector.matchExpressions[0].key: unsupported key "
      "\"color\", must be provider, region, or zone",
      "test/testdata/fleet/bad_karmada.yaml:14: "
      "spec.placement.clusterAffinity.fieldSelector.matchExpressions[0].operator: unknown operator "
      "\"Exists\" (want In, NotIn)",
      "test/testdata/fleet/bad_karmada.yaml:18: "
      "spec.placement.replicaScheduling.replicaSchedulingType: unknown replicaSchedulingType "
      "\"Split\" (want Duplicated, Divided)",
      "test/testdata/fleet/bad_karmada.yaml:20: spec.placement.spreadConstraints[0]: maxGroups "
      "lower than minGroups is not allowed",
      "test/testdata/fleet/bad_karmada.yaml:20: spec.placement.spreadConstraints: the cluster "
      "spread constraint must be enabled in one of the constraints in case of SpreadByField is "
      "enabled",
      "test/testdata/fleet/bad_karmada.yaml:21: spec.components: multiple pod templates "
      "(components) are not supported; give replicas and replicaRequirements",
      "test/testdata/fleet/bad_karmada.yaml:28: spec.regoin: unknown field \"regoin\" (did you "
      "mean \"region\"?)",
      "test/testdata/fleet/bad_karmada.yaml:30: spec.taints[0].effect: unknown effect "
      "\"Sometimes\" (want NoSchedule, PreferNoSchedule, NoExecute)",
      "test/testdata/fleet/bad_karmada.yaml:33: status.resourceSummary.allocatable[cpu]: invalid "
      "quantity \"lots\": quantities must match the regular expression "
      "'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'",
      "test/testdata/fleet/bad_karmada.yaml:35: unsupported kind \"OverridePolicy\" of apiVersion "
      "\"policy.karmada.io/v1alpha1\" for the fleet (want Karmada Cluster, ResourceBinding, "
      "ClusterResourceBinding, PropagationPolicy, ClusterPropagationPolicy with Deployment, "
      "StatefulSet, Job templates and PriorityClasses; Kueue MultiKueueCluster, "
      "MultiKueueConfig, Workload, ClusterDispatcherProfile)",
      "test/testdata/fleet/bad_karmada.yaml:47: spec.resourceSelectors[0].kind: required field "
      "\"kind\" is missing",
      "test/testdata/fleet/bad_karmada.yaml:48: spec.preemption: policy preemption (Always) is not "
      "supported yet",
      "test/testdata/fleet/bad_karmada.yaml:51: spec.placement.replicaScheduling."
      "replicaDivisionPreference: unknown replicaDivisionPreference \"Balanced\" (want Aggregated, "
      "Weighted)",
  };
  EXPECT_EQ(Messages(r), want);
  EXPECT_TRUE(r.objects.clusters.empty());
  EXPECT_TRUE(r.objects.works.empty());
}

TEST(FleetLoaderTest, KueueErrorsAllAtOnce) {
  Interner in = api::NewInterner();
  FleetLoadResult r = Load(in, "bad_kueue.yaml");
  const std::vector<std::string> want = {
      "test/testdata/fleet/bad_kueue.yaml:7: "
      "metadata.annotations[kueue.x-k8s.io/cluster-selector]: invalid JSON value: [accelerator]: "
      "expected a string, got integer 5 (quote it: \"5\")",
      "test/testdata/fleet/bad_kueue.yaml:8: "
      "metadata.annotations[kueue.x-k8s.io/cluster-affinity]: invalid JSON value: "
      "preferredDuringSchedulingIgnoredDuringExecution[0].weight: invalid value 500: must be "
      "between 1 and 100",
      "test/testdata/fleet/bad_kueue.yaml:8: "
      "metadata.annotations[kueue.x-k8s.io/cluster-affinity]: invalid JSON value: required: "
      "unknown field \"required\" (did you mean "
      "\"requiredDuringSchedulingIgnoredDuringExecution\"?)",
      "test/testdata/fleet/bad_kueue.yaml:9: "
      "metadata.annotations[kueue.x-k8s.io/cluster-tolerations]: invalid JSON value: [0].effect: "
      "unknown effect \"NoExecute\" (want NoSchedule, PreferNoSchedule)",
      "test/testdata/fleet/bad_kueue.yaml:9: "
      "metadata.annotations[kueue.x-k8s.io/cluster-tolerations]: invalid JSON value: [0]: value "
      "must be empty when operator is Exists",
      "test/testdata/fleet/bad_kueue.yaml:10: metadata.annotations[kueue.x-k8s.io/dispatch-mode]: "
      "unknown dispatch mode \"Eventually\" (want BestEffort, MustBeAdmitted)",
      "test/testdata/fleet/bad_kueue.yaml:12: spec.podSets: required field \"podSets\" is missing "
      "(want at least one pod set)",
      "test/testdata/fleet/bad_kueue.yaml:20: "
      "metadata.annotations[kueue.x-k8s.io/cluster-affinity]: invalid JSON value: "
      "requiredDuringSchedulingIgnoredDuringExecution: JSON syntax error: The JSON document has an "
      "improper structure: missing or superfluous commas, braces, missing keys, etc.",
      "test/testdata/fleet/bad_kueue.yaml:33: spec.topK: topK needs nominationMode: TopK",
      "test/testdata/fleet/bad_kueue.yaml:35: spec.plugins.filter[0]: filter plugin "
      "\"LocalityScore\" is not implemented yet",
      "test/testdata/fleet/bad_kueue.yaml:37: spec.plugins.score[0]: unknown score plugin "
      "\"Bogus\" (want ClusterAffinityScore, ClusterTaintScore, CapacityScore)",
      "test/testdata/fleet/bad_kueue.yaml:37: spec.plugins.score: at least one score plugin must "
      "have a weight greater than 0",
      "test/testdata/fleet/bad_kueue.yaml:46: spec.taints[0].effect: unknown effect \"NoExecute\" "
      "(want NoSchedule, PreferNoSchedule)",
  };
  EXPECT_EQ(Messages(r), want);
  EXPECT_TRUE(r.objects.clusters.empty());
  EXPECT_TRUE(r.objects.works.empty());
  EXPECT_TRUE(r.objects.profiles.empty());
}

TEST(FleetLoaderTest, KarmadaClusterAndBinding) {
  Interner in = api::NewInterner();
  FleetLoadResult r = Load(in, "karmada.yaml");
  ASSERT_TRUE(r.ok()) << Messages(r)[0];
  ASSERT_EQ(r.objects.clusters.size(), 1u);
  const api::Cluster& c = r.objects.clusters[0];
  EXPECT_EQ(in.Str(c.meta.name), "member1");
  EXPECT_EQ(in.Str(c.provider), "aws");
  EXPECT_EQ(in.Str(c.region), "us-east-1");
  EXPECT_EQ(c.zones.size(), 2u);
  ASSERT_EQ(c.taints.size(), 1u);
  EXPECT_EQ(c.taints[0].effect, api::TaintEffect::kNoSchedule);
  ASSERT_EQ(c.resource_models.size(), 2u);
  EXPECT_EQ(c.resource_models[1].grade, 1u);
  EXPECT_TRUE(c.ready);
  EXPECT_TRUE(c.complete_api_enablements);
  ASSERT_EQ(c.api_enablements.size(), 1u);
  EXPECT_EQ(in.Str(c.api_enablements[0].kinds[0]), "Deployment");
  ASSERT_TRUE(c.resource_summary.has_value());
  EXPECT_EQ(c.resource_summary->allocatable_modelings.size(), 2u);
  EXPECT_EQ(c.resource_summary->allocatable.size(), 3u);

  ASSERT_EQ(r.objects.works.size(), 1u);
  const api::FleetWork& w = r.objects.works[0];
  EXPECT_EQ(w.source_kind, api::FleetWorkSourceKind::kResourceBinding);
  EXPECT_EQ(in.Str(w.resource.kind), "Deployment");
  EXPECT_EQ(in.Str(w.resource.uid), "4858ca61-3ff8-4095-8267-f3d059d8074c");
  EXPECT_EQ(w.replicas, 6);
  ASSERT_TRUE(w.replica_requirements.has_value());
  EXPECT_EQ(w.replica_requirements->resource_request.size(), 2u);
  ASSERT_EQ(w.clusters.size(), 1u);
  EXPECT_EQ(w.clusters[0].replicas, 4);
  ASSERT_TRUE(w.placement.cluster_affinity.has_value());
  EXPECT_TRUE(w.placement.cluster_affinity->label_selector.has_value());
  ASSERT_TRUE(w.placement.cluster_affinity->field_selector.has_value());
  EXPECT_EQ(w.placement.cluster_affinity->field_selector->size(), 1u);
  EXPECT_EQ(w.placement.cluster_affinity->exclude.size(), 1u);
  EXPECT_EQ(w.placement.cluster_tolerations.size(), 1u);
  ASSERT_EQ(w.placement.spread_constraints.size(), 1u);
  EXPECT_EQ(w.placement.spread_constraints[0].max_groups, 2);
  // The CRD defaults replicaSchedulingType to Divided.
  ASSERT_TRUE(w.placement.replica_scheduling.has_value());
  EXPECT_EQ(w.placement.replica_scheduling->type, api::ReplicaSchedulingType::kDivided);
  EXPECT_TRUE(
      w.placement.replica_scheduling->weight_preference->dynamic_weight_by_available_replicas);
  EXPECT_EQ(w.priority, 7);
  ASSERT_EQ(w.graceful_eviction_clusters.size(), 1u);
  EXPECT_EQ(in.Str(w.graceful_eviction_clusters[0]), "member3");
  EXPECT_TRUE(w.last_scheduled_time.has_value());
}

TEST(FleetLoaderTest, KueueObjects) {
  Interner in = api::NewInterner();
  FleetLoadResult r = Load(in, "kueue.yaml");
  ASSERT_TRUE(r.ok()) << Messages(r)[0];
  ASSERT_EQ(r.objects.clusters.size(), 1u);
  const api::Cluster& c = r.objects.clusters[0];
  EXPECT_EQ(c.source_kind, api::ClusterSourceKind::kMultiKueueCluster);
  EXPECT_TRUE(c.active);
  ASSERT_EQ(c.taints.size(), 1u);
  EXPECT_EQ(c.taints[0].effect, api::TaintEffect::kPreferNoSchedule);
  ASSERT_EQ(r.objects.multikueue_configs.size(), 1u);
  EXPECT_EQ(r.objects.multikueue_configs[0].clusters.size(), 2u);

  ASSERT_EQ(r.objects.works.size(), 1u);
  const api::FleetWork& w = r.objects.works[0];
  EXPECT_EQ(w.source_kind, api::FleetWorkSourceKind::kKueue);
  EXPECT_EQ(w.dispatch_mode, api::DispatchMode::kMustBeAdmitted);
  EXPECT_EQ(w.cluster_selector.size(), 1u);
  ASSERT_TRUE(w.kueue_cluster_affinity.has_value());
  ASSERT_EQ(w.kueue_cluster_affinity->preferred.size(), 1u);
  EXPECT_EQ(w.kueue_cluster_affinity->preferred[0].weight, 10);
  EXPECT_EQ(w.placement.cluster_tolerations.size(), 1u);
  EXPECT_EQ(w.priority, 100);
  // One replica asking for the whole workload: 4 pods × (2 cpu, 8Gi, 1 GPU).
  EXPECT_EQ(w.replicas, 1);
  ASSERT_TRUE(w.replica_requirements.has_value());
  const api::ResourceList& req = w.replica_requirements->resource_request;
  EXPECT_EQ(api::FindResource(req, api::wk::kCpu)->MilliValue(), 8000);
  EXPECT_EQ(api::FindResource(req, api::wk::kMemory)->Value(), 32LL << 30);
  EXPECT_EQ(api::FindResource(req, in.Intern("nvidia.com/gpu"))->Value(), 4);

  ASSERT_EQ(r.objects.profiles.size(), 1u);
  const api::DispatcherProfile& p = r.objects.profiles[0];
  ASSERT_EQ(p.filters.size(), 3u);  // ClusterHealth always first
  EXPECT_EQ(in.Str(p.filters[0]), "ClusterHealth");
  ASSERT_EQ(p.scores.size(), 2u);
  EXPECT_EQ(p.scores[0].second, 10);
  EXPECT_EQ(p.scores[1].second, 1);  // the default weight
  EXPECT_EQ(p.nomination, api::NominationMode::kTopK);
  EXPECT_EQ(p.top_k, 2);
}

// Templates become the ResourceBindings Karmada's detector would create: the namespace's
// PropagationPolicy first, then ClusterPropagationPolicies; replicas as Karmada's interpreter reads
// them (a Job's parallelism capped by completions) and requests as AddPodTemplateRequest sums them
// (containers summed, raised to each init container's).
TEST(FleetLoaderTest, PoliciesClaimTemplates) {
  Interner in = api::NewInterner();
  std::vector<std::string> paths = {"examples/fleet/policies.yaml"};
  FleetLoadResult r = LoadFleetPaths(paths, in);
  ASSERT_TRUE(r.ok()) << Messages(r)[0];
  EXPECT_EQ(Messages(r), std::vector<std::string>{
                             "examples/fleet/policies.yaml:59: warning: no PropagationPolicy or "
                             "ClusterPropagationPolicy matches StatefulSet shop/ledger; Karmada "
                             "would not propagate it"});
  ASSERT_EQ(r.objects.works.size(), 2u);
  const api::FleetWork& web = r.objects.works[0];
  EXPECT_EQ(in.Str(web.meta.name), "storefront-deployment");
  EXPECT_EQ(web.replicas, 6);
  ASSERT_TRUE(web.placement.cluster_affinity.has_value());
  EXPECT_EQ(web.placement.cluster_affinity->cluster_names.size(), 2u);
  const api::FleetWork& job = r.objects.works[1];
  EXPECT_EQ(in.Str(job.meta.name), "nightly-report-job");
  EXPECT_EQ(job.replicas, 5);
  const api::ResourceList& req = job.replica_requirements->resource_request;
  EXPECT_EQ(api::FindResource(req, api::wk::kCpu)->MilliValue(), 3000);
  EXPECT_EQ(api::FindResource(req, api::wk::kMemory)->Value(), 2LL << 30);
  EXPECT_EQ(job.placement.cluster_tolerations.size(), 1u);
}

// Karmada pkg/detector/compare_test.go Test_getHighestPriorityPropagationPolicies and
// Test_getHighestPriorityClusterPropagationPolicies: which policy claims Deployment test/nginx
// (labels app: nginx). Policies are given as (name, namespace, priority or none, selector).
TEST(FleetLoaderTest, HighestPriorityPolicy) {
  struct Policy {
    std::string name;
    std::string ns;        // the template's namespace is "test"
    std::string priority;  // empty: not set
    std::string selector;  // "name" (name: nginx), "label" (app: nginx) or "all" (kind only)
  };
  struct Case {
    std::string name;
    std::vector<Policy> policies;
    std::string want;  // empty: no policy claims the Deployment
  };
  const std::vector<Case> cases = {
      {"empty policies", {}, ""},
      {"mo policy match for resource",
       {{"match-with-name", "other", "", "name"}, {"match-with-label", "other", "", "label"}},
       ""},
      {"different implicit priority policy",
       {{"match-with-name", "test", "", "name"},
        {"match-with-label", "test", "", "label"},
        {"match-all", "test", "", "all"}},
       "match-with-name"},
      {"same implicit priority policy",
       {{"a-pp", "test", "", "name"}, {"b-pp", "test", "", "name"}},
       "a-pp"},
      {"one policy with implicit priority, one policy with explicit priority 1",
       {{"a-pp", "test", "", "name"}, {"b-pp", "test", "1", "name"}},
       "b-pp"},
      {"one policy with explicit priority 1(name match), one policy with explicit priority "
       "2(label selector match)",
       {{"a-pp", "test", "1", "name"}, {"b-pp", "test", "2", "label"}},
       "b-pp"},
      {"two policies with explicit priority 1(name match), select the one with lower "
       "alphabetical order",
       {{"a-pp", "test", "1", "name"}, {"b-pp", "test", "1", "name"}},
       "a-pp"},
      {"one policy with explicit priority 1(name match), one policy with explicit priority "
       "1(label selector match)",
       {{"a-pp", "test", "1", "label"}, {"b-pp", "test", "1", "name"}},
       "b-pp"},
      {"one policy with explicit priority -1(name match), one policy with implicit "
       "priority(label selector match)",
       {{"a-pp", "test", "", "label"}, {"b-pp", "test", "-1", "name"}},
       "a-pp"},
  };
  const std::string deployment =
      "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: nginx, namespace: test, labels: "
      "{app: nginx}}\nspec:\n  template:\n    spec:\n      containers: [{name: c, image: i}]\n";
  for (bool cluster_scoped : {false, true}) {
    for (const Case& c : cases) {
      SCOPED_TRACE(c.name + (cluster_scoped ? " (ClusterPropagationPolicy)" : ""));
      // The cluster-scoped variant has no namespaces; its "no match" case selects another name.
      std::string yaml = deployment;
      for (const Policy& p : c.policies) {
        std::string selector = p.selector == "name" ? "name: nginx"
                               : p.selector == "label"
                                   ? "labelSelector: {matchLabels: {app: nginx}}"
                                   : "";
        if (cluster_scoped && p.ns == "other") selector = "name: other";
        yaml += "---\napiVersion: policy.karmada.io/v1alpha1\n";
        yaml += cluster_scoped
                    ? "kind: ClusterPropagationPolicy\nmetadata: {name: " + p.name + "}\n"
                    : "kind: PropagationPolicy\nmetadata: {name: " + p.name +
                          ", namespace: " + p.ns + "}\n";
        yaml += "spec:\n";
        if (!p.priority.empty()) yaml += "  priority: " + p.priority + "\n";
        yaml += "  resourceSelectors:\n  - {apiVersion: apps/v1, kind: Deployment" +
                (selector.empty() ? std::string() : ", " + selector) + "}\n";
      }
      Interner in = api::NewInterner();
      FleetLoadResult r = LoadFleetString(yaml, "policies.yaml", in);
      EXPECT_FALSE(r.diagnostics.has_errors()) << Messages(r)[0] << "\n" << yaml;
      if (c.want.empty()) {
        EXPECT_TRUE(r.objects.works.empty());
        continue;
      }
      ASSERT_EQ(r.objects.works.size(), 1u);
      EXPECT_EQ(in.Str(r.objects.works[0].claimed_by), cluster_scoped ? c.want : "test/" + c.want);
    }
  }
}

// A binding or policy for a scheduler other than Karmada's default-scheduler is an error at its
// position (that scheduler, not the one Corral models, would place the work), never ignored.
TEST(FleetLoaderTest, OtherSchedulerNameIsAnError) {
  Interner in = api::NewInterner();
  FleetLoadResult r = Load(in, "scheduler_name.yaml");
  const std::vector<std::string> want = {
      "test/testdata/fleet/scheduler_name.yaml:15: spec.schedulerName: scheduler "
      "\"other-scheduler\" is not Karmada's default-scheduler, which Corral models; that scheduler "
      "would place this work",
      "test/testdata/fleet/scheduler_name.yaml:23: spec.schedulerName: scheduler "
      "\"other-scheduler\" is not Karmada's default-scheduler, which Corral models; that scheduler "
      "would place this work",
  };
  EXPECT_EQ(Messages(r), want);
}

}  // namespace
}  // namespace corral::loader
