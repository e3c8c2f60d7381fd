// The loader as a whole: files and directories, Lists, kubectl dumps, priority admission,
// duplicates, unknown kinds and fields, strictness, syntax errors, and the five-mistakes
// golden file.

#include "corral/loader/loader.h"

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include "corral/api/well_known.h"
#include "corral/loader/summary.h"

#include "test/testing/read_file.h"

namespace corral::loader {
namespace {

namespace fs = std::filesystem;
using corral::testing::ReadFile;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

std::vector<std::string> Messages(const LoadResult& r) {
  std::vector<std::string> out;
  for (const auto& d : r.diagnostics.items()) out.push_back(d.ToString());
  return out;
}

const std::string kSource = CORRAL_SOURCE_DIR;
const std::string kTestdata = CORRAL_LOADER_TESTDATA;

class LoaderTest : public ::testing::Test {
 protected:
  LoadResult Load(const std::string& yaml, LoadOptions opts = {}) {
    return LoadString(yaml, "in.yaml", in_, opts);
  }
  const api::Pod* FindPod(const LoadResult& r, std::string_view name) {
    for (const auto& p : r.objects.pods) {
      if (in_.Str(p.meta.name) == name) return &p;
    }
    return nullptr;
  }
  Interner in_ = api::NewInterner();
};

constexpr char kClasses[] = R"(
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: {name: high}
value: 1000
preemptionPolicy: Never
---
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: {name: default-prio}
value: 7
globalDefault: true
)";

constexpr char kPods[] = R"(
apiVersion: v1
kind: Pod
metadata: {name: uses-high}
spec:
  priorityClassName: high
  containers: [{name: c, image: i}]
---
apiVersion: v1
kind: Pod
metadata: {name: uses-default}
spec:
  containers: [{name: c, image: i}]
---
apiVersion: v1
kind: Pod
metadata: {name: uses-system}
spec:
  priorityClassName: system-cluster-critical
  containers: [{name: c, image: i}]
)";

TEST_F(LoaderTest, PriorityResolutionIsOrderIndependent) {
  for (bool classes_first : {true, false}) {
    SCOPED_TRACE(classes_first);
    Loader l(in_);
    if (classes_first) l.AddString(kClasses, "classes.yaml");
    l.AddString(kPods, "pods.yaml");
    if (!classes_first) l.AddString(kClasses, "classes.yaml");
    LoadResult r = l.Finish();
    EXPECT_THAT(Messages(r), ElementsAre());
    const api::Pod* high = FindPod(r, "uses-high");
    ASSERT_NE(high, nullptr);
    EXPECT_EQ(high->priority, 1000);
    EXPECT_EQ(high->preemption_policy, api::PreemptionPolicy::kNever);
    const api::Pod* def = FindPod(r, "uses-default");
    EXPECT_EQ(def->priority, 7);
    EXPECT_EQ(in_.Str(def->priority_class_name), "default-prio");  // admission fills the name in
    EXPECT_EQ(FindPod(r, "uses-system")->priority, 2000000000);
    // The built-in classes are part of the object set.
    EXPECT_EQ(r.objects.priority_classes.size(), 4u);
    EXPECT_EQ(r.counts.per_kind.at("PriorityClass"), 2u);
  }
}

TEST_F(LoaderTest, NoDefaultClassMeansPriorityZero) {
  LoadResult r =
      Load("apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec: {containers: [{name: c}]}\n");
  EXPECT_THAT(Messages(r), ElementsAre());
  EXPECT_EQ(r.objects.pods.at(0).priority, 0);
  EXPECT_TRUE(r.objects.pods.at(0).priority_class_name.empty());
}

TEST_F(LoaderTest, MissingPriorityClassIsAnAdmissionError) {
  LoadResult r = Load(R"(
apiVersion: v1
kind: Pod
metadata: {name: p, namespace: ns}
spec:
  priorityClassName: gold
  containers: [{name: c}]
---
apiVersion: scheduling.k8s.io/v1beta1
kind: PodGroup
metadata: {name: g}
spec:
  priorityClassName: silver
  schedulingPolicy: {basic: {}}
)");
  EXPECT_THAT(
      Messages(r),
      ElementsAre(
          "in.yaml:6: spec.priorityClassName: Pod ns/p rejected: no PriorityClass with name gold "
          "was found",
          "in.yaml:13: spec.priorityClassName: PodGroup default/g rejected: no PriorityClass with "
          "name silver was found"));
  EXPECT_TRUE(r.objects.pods.empty());
  EXPECT_TRUE(r.objects.pod_groups.empty());
  EXPECT_EQ(r.counts.rejected, 2u);
}

TEST_F(LoaderTest, GivenPriorityMustMatchTheClass) {
  LoadResult r = Load(std::string(kClasses) + R"(
---
apiVersion: v1
kind: Pod
metadata: {name: ok}
spec: {priorityClassName: high, priority: 1000, preemptionPolicy: Never, containers: [{name: c}]}
---
apiVersion: v1
kind: Pod
metadata: {name: bad-priority}
spec: {priorityClassName: high, priority: 5, containers: [{name: c}]}
---
apiVersion: v1
kind: Pod
metadata: {name: bad-policy}
spec: {priorityClassName: high, preemptionPolicy: PreemptLowerPriority, containers: [{name: c}]}
)");
  EXPECT_THAT(
      Messages(r),
      ElementsAre(
          "in.yaml:23: spec.priority: the integer value of priority (5) must not be provided in "
          "pod spec; priority admission controller computed 1000 from the given PriorityClass name",
          "in.yaml:28: spec.preemptionPolicy: the string value of PreemptionPolicy "
          "(PreemptLowerPriority) must not be provided in pod spec; priority admission controller "
          "computed Never from the given PriorityClass name"));
  ASSERT_EQ(r.objects.pods.size(), 1u);
  EXPECT_EQ(in_.Str(r.objects.pods[0].meta.name), "ok");
}

TEST_F(LoaderTest, DumpedPodWithUnknownClassKeepsItsPriorityWithAWarning) {
  LoadResult r = Load(
      "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\n"
      "spec: {priorityClassName: tier-1, priority: 5000, containers: [{name: c}]}\n");
  EXPECT_TRUE(r.ok());
  EXPECT_THAT(Messages(r),
              ElementsAre("in.yaml:4: warning: spec.priorityClassName: no PriorityClass with name "
                          "tier-1 was found; keeping spec.priority 5000 from the input"));
  EXPECT_EQ(r.objects.pods.at(0).priority, 5000);
  LoadResult strict = Load(
      "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\n"
      "spec: {priorityClassName: tier-1, priority: 5000, containers: [{name: c}]}\n",
      {.strict = true});
  EXPECT_FALSE(strict.ok());
}

// The pod inputs from which kube v1.37's node-feature registry infers a feature the node must
// declare (restart_all_containers.go, user_namespaces_host_network.go) are refused at their
// position; the same fields without that meaning load as before.
TEST_F(LoaderTest, PodInputsThatNeedADeclaredNodeFeatureAreRefused) {
  struct Case {
    std::string spec;
    std::string want;  // empty: loads
  };
  const Case cases[] = {
      {"{hostNetwork: true, hostUsers: false, containers: [{name: c}]}",
       "in.yaml:4: spec.hostUsers: not modelled by Corral: hostUsers false with hostNetwork true "
       "needs a node that declares UserNamespacesHostNetworkSupport (NodeDeclaredFeatures)"},
      {"{hostNetwork: false, hostUsers: false, containers: [{name: c}]}", ""},
      {"{hostNetwork: true, hostUsers: true, containers: [{name: c}]}", ""},
      {"{containers: [{name: c, restartPolicyRules: [{action: RestartAllContainers}]}]}",
       "in.yaml:4: spec.containers[0].restartPolicyRules[0].action: not modelled by Corral: a "
       "RestartAllContainers rule needs a node that declares RestartAllContainersOnContainerExits "
       "(NodeDeclaredFeatures)"},
      {"{containers: [{name: c, restartPolicyRules: [{action: Restart}]}]}", ""},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.spec);
    LoadResult r = Load("apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec: " + c.spec + "\n");
    if (c.want.empty()) {
      EXPECT_TRUE(r.ok());
    } else {
      EXPECT_FALSE(r.ok());
      EXPECT_THAT(Messages(r), ElementsAre(c.want));
    }
  }
}

TEST_F(LoaderTest, PriorityClassRules) {
  LoadResult r = Load(R"(
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: {name: a}
value: 1
globalDefault: true
---
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: {name: b}
value: 2
globalDefault: true
---
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: {name: system-custom}
value: 3
---
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: {name: huge}
value: 1000000001
---
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: {name: system-node-critical}
value: 2000001000
)");
  EXPECT_THAT(
      Messages(r),
      ElementsAre(
          "in.yaml:8: globalDefault: PriorityClass \"a\" is already marked as default (at "
          "in.yaml:2); only one default can exist",
          "in.yaml:16: metadata.name: priority class names with 'system-' prefix are reserved: "
          "\"system-custom\"",
          "in.yaml:22: value: invalid value 1000000001: maximum allowed value of a user defined "
          "priority is 1000000000"));
  // The dumped built-in class replaces the built-in one; the other built-in is added.
  size_t node_critical = 0;
  for (const auto& pc : r.objects.priority_classes) {
    if (in_.Str(pc.meta.name) == "system-node-critical") ++node_critical;
  }
  EXPECT_EQ(node_critical, 1u);
}

TEST_F(LoaderTest, ListsAndTypedLists) {
  LoadResult r = Load(R"(
apiVersion: v1
kind: List
metadata: {resourceVersion: ""}
items:
- apiVersion: v1
  kind: Namespace
  metadata: {name: a}
- apiVersion: v1
  kind: Namespace
  metadata: {name: b}
---
apiVersion: v1
kind: NamespaceList
items:
- metadata: {name: c}
- metadata: {name: d}
---
apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: NamespaceList
  items: [{metadata: {name: e}}]
)");
  EXPECT_THAT(Messages(r), ElementsAre());
  ASSERT_EQ(r.objects.namespaces.size(), 5u);
  EXPECT_EQ(in_.Str(r.objects.namespaces[2].meta.name), "c");
  EXPECT_EQ(r.counts.documents, 3u);
  EXPECT_EQ(r.counts.objects, 5u);
}

TEST_F(LoaderTest, ErrorsInListItemsNameTheItem) {
  LoadResult r = Load(R"(
apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: Node
  metadata: {name: ok}
  status: {capacity: {pods: 10}}
- apiVersion: v1
  kind: Node
  metadata: {name: bad}
  spec:
    taints: [{key: k, effect: Sometimes}]
  status: {capacity: {pods: 10}}
)");
  EXPECT_THAT(
      Messages(r),
      ElementsAre("in.yaml:13: items[1].spec.taints[0].effect: unknown effect \"Sometimes\" "
                  "(want NoSchedule, PreferNoSchedule, NoExecute)"));
  ASSERT_EQ(r.objects.nodes.size(), 1u);
}

TEST_F(LoaderTest, KubectlDumpLoadsCleanly) {
  for (std::string file : {"kubectl-dump.yaml", "kubectl-dump.json"}) {
    SCOPED_TRACE(file);
    Interner in = api::NewInterner();
    std::vector<std::string> paths = {kTestdata + "/" + file};
    LoadResult r = LoadPaths(paths, in);
    EXPECT_THAT(Messages(r), ElementsAre());
    EXPECT_EQ(r.objects.nodes.size(), 3u);
    EXPECT_EQ(r.objects.pods.size(), 5u);
    EXPECT_EQ(r.counts.unknown_fields, 0u);
    size_t bound = 0;
    for (const auto& p : r.objects.pods) bound += p.IsBound() ? 1 : 0;
    EXPECT_EQ(bound, 4u);
  }
}

TEST_F(LoaderTest, YamlAndJsonDumpsGiveTheSameSummary) {
  Interner a = api::NewInterner(), b = api::NewInterner();
  std::vector<std::string> ya = {kTestdata + "/kubectl-dump.yaml"},
                           jb = {kTestdata + "/kubectl-dump.json"};
  LoadResult ry = LoadPaths(ya, a), rj = LoadPaths(jb, b);
  EXPECT_EQ(RenderTable(Summarize(ry, a)), RenderTable(Summarize(rj, b)));
}

TEST_F(LoaderTest, UnknownKindsAreWarningsOrErrorsUnderStrict) {
  const std::string y = R"(
apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: cfg}
---
apiVersion: policy/v1beta1
kind: PodDisruptionBudget
metadata: {name: old}
)";
  LoadResult r = Load(y);
  EXPECT_THAT(
      Messages(r),
      ElementsAre(
          "in.yaml:3: warning: kind: unknown kind \"Deployment\" (apiVersion \"apps/v1\"): not "
          "used "
          "by Corral, skipped",
          "in.yaml:7: warning: kind: unknown kind \"ConfigMap\" (apiVersion \"v1\"): not used by "
          "Corral, skipped",
          "in.yaml:10: apiVersion: apiVersion \"policy/v1beta1\" is not supported for "
          "PodDisruptionBudget (want policy/v1)"));
  EXPECT_EQ(r.counts.skipped_kinds.at("apps/v1 Deployment"), 1u);
  LoadResult s = Load(y, {.strict = true});
  EXPECT_EQ(s.diagnostics.error_count(), 3u);
  EXPECT_EQ(s.diagnostics.warning_count(), 0u);
}

TEST_F(LoaderTest, MissingKindOrApiVersionAndNonObjects) {
  LoadResult r =
      Load("metadata: {name: x}\n---\nkind: Pod\nmetadata: {name: y}\n---\n- a\n---\nplain\n");
  EXPECT_THAT(
      Messages(r),
      ElementsAre(
          "in.yaml:1: kind: required field \"kind\" is missing",
          "in.yaml:3: apiVersion: required field \"apiVersion\" is missing (want v1)",
          "in.yaml:6: expected an object (a map with apiVersion and kind), got a sequence",
          "in.yaml:8: expected an object (a map with apiVersion and kind), got string \"plain\""));
}

TEST_F(LoaderTest, DuplicatesNameBothLocations) {
  Loader l(in_);
  l.AddString("apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec: {containers: [{name: c}]}\n",
              "a.yaml");
  l.AddString(
      "# again\napiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: default}\n"
      "spec: {containers: [{name: c}]}\n---\napiVersion: v1\nkind: Pod\nmetadata: {name: p, "
      "namespace: "
      "other}\nspec: {containers: [{name: c}]}\n",
      "b.yaml");
  LoadResult r = l.Finish();
  EXPECT_THAT(
      Messages(r),
      ElementsAre("b.yaml:2: duplicate object: Pod default/p is already defined at a.yaml:1"));
  EXPECT_EQ(r.objects.pods.size(), 2u);
}

TEST_F(LoaderTest, SyntaxErrorsReportTheLineAndLaterFilesStillLoad) {
  Loader l(in_);
  l.AddString("apiVersion: v1\nkind: Namespace\nmetadata:\n  name: a\n  labels: {x: [}\n",
              "bad.yaml");
  l.AddString("{\"apiVersion\": \"v1\", \"kind\": \"Namespace\",\n \"metadata\": {\"name\": }}",
              "bad.json");
  l.AddString("apiVersion: v1\nkind: Namespace\nmetadata: {name: good}\n", "good.yaml");
  LoadResult r = l.Finish();
  ASSERT_EQ(r.diagnostics.error_count(), 2u);
  EXPECT_EQ(r.diagnostics.items()[0].file, "bad.yaml");
  EXPECT_EQ(r.diagnostics.items()[0].line, 5u);
  EXPECT_THAT(r.diagnostics.items()[0].message, HasSubstr("YAML syntax error"));
  EXPECT_EQ(r.diagnostics.items()[1].file, "bad.json");
  EXPECT_THAT(r.diagnostics.items()[1].message, HasSubstr("JSON syntax error"));
  ASSERT_EQ(r.objects.namespaces.size(), 1u);
}

TEST_F(LoaderTest, FiveMistakesAreAllReported) {
  std::vector<std::string> paths = {kSource + "/examples/errors/five-mistakes.yaml"};
  LoadResult r = LoadPaths(paths, in_);
  std::string got;
  for (const auto& d : r.diagnostics.items()) {
    std::string s = d.ToString();
    got += s.substr(s.find("five-mistakes.yaml")) + "\n";
  }
  std::string want = ReadFile(kTestdata + "/five-mistakes.golden");
  EXPECT_EQ(got, want);
  EXPECT_EQ(r.diagnostics.error_count(), 5u);
  EXPECT_TRUE(r.objects.nodes.empty());
  EXPECT_TRUE(r.objects.pods.empty());
}

TEST_F(LoaderTest, DirectoriesAreWalkedInSortedOrder) {
  fs::path dir = fs::temp_directory_path() / ("corral-loader-test-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir / "sub" / ".hidden");
  auto write = [&](const fs::path& p, const std::string& text) { std::ofstream(p) << text; };
  write(dir / "b.yaml", "apiVersion: v1\nkind: Namespace\nmetadata: {name: b}\n");
  write(dir / "a.yml", "apiVersion: v1\nkind: Namespace\nmetadata: {name: a}\n");
  write(dir / "sub" / "c.json",
        R"({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "c"}})");
  write(dir / "sub" / ".hidden" / "x.yaml", "this is not even yaml: [");
  write(dir / "README.md", "# notes\n");
  write(dir / "named.txt", "apiVersion: v1\nkind: Namespace\nmetadata: {name: d}\n");
  std::vector<std::string> paths = {dir.string(), (dir / "named.txt").string(),
                                    (dir / "missing.yaml").string()};
  LoadResult r = LoadPaths(paths, in_);
  std::vector<std::string> names;
  for (const auto& ns : r.objects.namespaces) names.emplace_back(in_.Str(ns.meta.name));
  EXPECT_THAT(names,
              ElementsAre("a", "b", "c", "d"));  // named.txt is sniffed when named explicitly
  EXPECT_THAT(Messages(r),
              ElementsAre((dir / "README.md").string() +
                              ": warning: note: skipped (not a .yaml, .yml or .json file)",
                          (dir / "named.txt").string() +
                              ": warning: note: skipped (not a .yaml, .yml or .json file)",
                          (dir / "missing.yaml").string() + ": no such file or directory"));
  EXPECT_EQ(r.counts.files, 4u);
  fs::remove_all(dir);
}

TEST_F(LoaderTest, ExamplesBasicIsValid) {
  std::vector<std::string> paths = {kSource + "/examples/basic"};
  LoadResult r = LoadPaths(paths, in_);
  EXPECT_THAT(Messages(r), ElementsAre());
  EXPECT_EQ(r.objects.nodes.size(), 6u);
  EXPECT_EQ(r.objects.workloads.size(), 1u);
  EXPECT_EQ(r.objects.pod_groups.size(), 1u);
}

TEST_F(LoaderTest, GenerateNameIsDeterministic) {
  const std::string y =
      "apiVersion: v1\nkind: Pod\nmetadata: {generateName: web-}\nspec: {containers: [{name: "
      "c}]}\n";
  LoadResult a = Load(y), b = Load(y);
  ASSERT_EQ(a.objects.pods.size(), 1u);
  std::string_view name = in_.Str(a.objects.pods[0].meta.name);
  EXPECT_EQ(name.size(), 9u);
  EXPECT_TRUE(name.starts_with("web-"));
  EXPECT_EQ(a.objects.pods[0].meta.name, b.objects.pods[0].meta.name);
}

TEST_F(LoaderTest, AWrongTypeIsReportedOnceNotAlsoAsMissing) {
  LoadResult r =
      Load("apiVersion: v1\nkind: Node\nmetadata: {name: n}\nstatus: {capacity: {pods: 1}}\n");
  EXPECT_THAT(
      Messages(r),
      ElementsAre("in.yaml:3: metadata.name: expected a string, got boolean n (quote it: \"n\")"));
}

TEST_F(LoaderTest, StringFieldsRejectUnquotedScalars) {
  LoadResult r = Load(
      "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: a\n  labels: {enabled: yes, v: 1}\n");
  EXPECT_THAT(
      Messages(r),
      ElementsAre(
          "in.yaml:5: metadata.labels[enabled]: expected a string, got boolean yes (quote it: "
          "\"yes\")",
          "in.yaml:5: metadata.labels[v]: expected a string, got integer 1 (quote it: \"1\")"));
}

}  // namespace
}  // namespace corral::loader
