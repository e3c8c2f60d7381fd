// The workload controllers end to end on small manifests: names, counts, ordering, labels of the
// templates, Job completion and Indexed mode, StatefulSet ordinals and claims, DaemonSet nodes,
// scaling, and replacement of evicted pods.

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>
#include <unistd.h>

#include "corral/api/well_known.h"
#include "corral/app/simulate.h"
#include "corral/sim/input/manifests.h"
#include "corral/sim/report/output.h"

namespace corral::sim {
namespace {

namespace fs = std::filesystem;

constexpr std::string_view kNodes = R"(
apiVersion: v1
kind: List
items:
- {apiVersion: v1, kind: Node, metadata: {name: n1, labels: {topology.kubernetes.io/zone: a}},
   status: {capacity: {cpu: "8", memory: 32Gi, pods: "110"}}}
- {apiVersion: v1, kind: Node, metadata: {name: n2, labels: {topology.kubernetes.io/zone: b}},
   status: {capacity: {cpu: "8", memory: 32Gi, pods: "110"}}}
- apiVersion: v1
  kind: Node
  metadata: {name: tainted, labels: {topology.kubernetes.io/zone: b}}
  spec: {taints: [{key: dedicated, value: gpu, effect: NoSchedule}]}
  status: {capacity: {cpu: "8", memory: 32Gi, pods: "110"}}
)";

struct Ran {
  std::unique_ptr<Interner> in =
      std::make_unique<Interner>(std::span<const std::string_view>(api::wk::kWellKnown));
  SimSpec spec;
  std::string log;
  app::RunOutput out;
};

// Writes the nodes and `manifests` to a fresh directory, loads it and runs it with `edit`
// applied to the spec.
Ran RunManifests(std::string_view manifests, uint64_t seed = 1,
                 const std::function<void(SimSpec&)>& edit = {}) {
  static int counter = 0;
  const fs::path dir =
      fs::temp_directory_path() /
      ("corral-controllers-test-" + std::to_string(::getpid()) + "-" + std::to_string(counter++));
  fs::create_directories(dir);
  std::ofstream(dir / "nodes.yaml") << kNodes;
  std::ofstream(dir / "workloads.yaml") << manifests;
  Ran r;
  Interner& in = *r.in;
  Diagnostics diags;
  auto spec = LoadManifestsSpec({dir.string()}, in, diags);
  fs::remove_all(dir);
  EXPECT_TRUE(spec.ok()) << (spec.ok() ? "" : spec.error().message);
  if (!spec.ok()) return r;
  spec->seed = seed;
  if (edit) edit(*spec);
  StringEventLog log;
  app::RunRequest req;
  req.log = &log;
  auto out = app::RunSimulation(*spec, in, diags, req);
  EXPECT_TRUE(out.ok()) << (out.ok() ? "" : out.error().message);
  if (out.ok()) r.out = std::move(out).value();
  r.log = log.text();
  r.spec = std::move(*spec);
  return r;
}

// The pod names of the log's lines of one kind ("arrive", "bind", ...), in order.
std::vector<std::string> Pods(const std::string& log, std::string_view kind) {
  std::vector<std::string> out;
  std::istringstream s(log);
  std::string line;
  while (std::getline(s, line)) {
    std::istringstream l(line);
    std::string t, k, pod;
    l >> t >> k >> pod;
    if (k == kind) out.push_back(pod.substr(pod.find('/') + 1));
  }
  return out;
}

TEST(ReplicaSetTest, DeploymentPodsNamedAfterItsReplicaSet) {
  Ran r = RunManifests(R"(
apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  replicas: 3
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec: {containers: [{name: c, resources: {requests: {cpu: "1"}}}]}
)");
  const std::vector<std::string> pods = Pods(r.log, "arrive");
  ASSERT_EQ(pods.size(), 3u);
  const std::regex name("web-[bcdfghjklmnpqrstvwxz2456789]+-[bcdfghjklmnpqrstvwxz2456789]{5}");
  for (const auto& p : pods) EXPECT_TRUE(std::regex_match(p, name)) << p;
  // The template carries pod-template-hash; the ReplicaSet "<deployment>-<hash>" is a selector
  // owner (default spreading) whose selector adds the hash.
  const Interner& in = *r.in;
  const api::Pod& t = r.spec.pod_templates[r.spec.workloads[0].tmpl].pod;
  const Symbol* hash = t.meta.labels.Find(*in.Find("pod-template-hash"));
  ASSERT_NE(hash, nullptr);
  const std::string rs = "web-" + std::string(in.Str(*hash));
  EXPECT_EQ(pods[0].substr(0, rs.size() + 1), rs + "-");
  bool owner = false;
  for (const auto& o : r.spec.objects.selector_owners) {
    if (in.Str(o.meta.name) != rs) continue;
    owner = true;
    EXPECT_EQ(o.kind, api::SelectorOwnerKind::kReplicaSet);
    EXPECT_NE(o.selector->match_labels.Find(*in.Find("pod-template-hash")), nullptr);
  }
  EXPECT_TRUE(owner);
  EXPECT_EQ(r.out.result.pods_scheduled, 3);
}

TEST(ReplicaSetTest, SameSeedSameNamesOtherSeedOthers) {
  constexpr std::string_view kRs = R"(
apiVersion: apps/v1
kind: ReplicaSet
metadata: {name: rs}
spec:
  replicas: 2
  selector: {matchLabels: {app: rs}}
  template:
    metadata: {labels: {app: rs}}
    spec: {containers: [{name: c}]}
)";
  const auto a = Pods(RunManifests(kRs, 5).log, "arrive");
  const auto b = Pods(RunManifests(kRs, 5).log, "arrive");
  const auto c = Pods(RunManifests(kRs, 6).log, "arrive");
  EXPECT_EQ(a, b);
  EXPECT_NE(a, c);
  ASSERT_EQ(a.size(), 2u);
  EXPECT_EQ(a[0].substr(0, 3), "rs-");  // a ReplicaSet's own pods: "<replicaset>-<random>"
  EXPECT_EQ(a[0].size(), 8u);
}

TEST(StatefulSetTest, OrderedReadyOneOrdinalAtATimeWithClaims) {
  Ran r = RunManifests(R"(
apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata: {name: standard}
provisioner: ebs.csi.aws.com
volumeBindingMode: Immediate
---
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: db}
spec:
  replicas: 3
  selector: {matchLabels: {app: db}}
  template:
    metadata: {labels: {app: db}}
    spec: {containers: [{name: c, resources: {requests: {cpu: "1"}}}]}
  volumeClaimTemplates:
  - metadata: {name: data}
    spec:
      accessModes: [ReadWriteOnce]
      storageClassName: standard
      resources: {requests: {storage: 10Gi}}
)");
  EXPECT_EQ(Pods(r.log, "arrive"), (std::vector<std::string>{"db-0", "db-1", "db-2"}));
  EXPECT_EQ(Pods(r.log, "claim-add"),
            (std::vector<std::string>{"data-db-0", "data-db-1", "data-db-2"}));
  // OrderedReady: db-1 arrives only after db-0 is bound, db-2 after db-1.
  const std::string& log = r.log;
  EXPECT_LT(log.find("bind default/db-0"), log.find("arrive default/db-1"));
  EXPECT_LT(log.find("bind default/db-1"), log.find("arrive default/db-2"));
  // The Immediate claims were bound (provisioned) as they were created.
  EXPECT_THAT(log, testing::HasSubstr("claim-add default/data-db-0 volume=pvc-"));
  // The template's revision label: "<statefulset>-<hash>".
  const Interner& in = *r.in;
  const api::Pod& t = r.spec.pod_templates[r.spec.workloads[0].tmpl].pod;
  const Symbol* rev = t.meta.labels.Find(*in.Find("controller-revision-hash"));
  ASSERT_NE(rev, nullptr);
  EXPECT_EQ(in.Str(*rev).substr(0, 3), "db-");
  EXPECT_EQ(r.out.result.pods_scheduled, 3);
}

TEST(StatefulSetTest, WhenScaledDeleteReleasesTheClaimsOfScaledAwayOrdinals) {
  Ran r = RunManifests(R"(
apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata: {name: standard}
provisioner: ebs.csi.aws.com
volumeBindingMode: Immediate
---
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: db}
spec:
  replicas: 2
  podManagementPolicy: Parallel
  persistentVolumeClaimRetentionPolicy: {whenScaled: Delete}
  selector: {matchLabels: {app: db}}
  template:
    metadata: {labels: {app: db}}
    spec: {containers: [{name: c}]}
  volumeClaimTemplates:
  - metadata: {name: data}
    spec: {accessModes: [ReadWriteOnce], storageClassName: standard, resources: {requests: {storage: 1Gi}}}
)",
                       1, [](SimSpec& spec) {
                         Op down;
                         down.kind = Op::Kind::kScale;
                         down.controller = 0;
                         down.count = 1;
                         down.at_ns = 60LL * 1'000'000'000;
                         down.describe = "scale down";
                         spec.program.push_back(down);
                       });
  // db-1 goes and its claim with it; the provisioned volume (class reclaimPolicy Delete) goes too.
  EXPECT_EQ(Pods(r.log, "claim-delete"), (std::vector<std::string>{"data-db-1"}));
  EXPECT_THAT(r.log, testing::HasSubstr("claim-delete default/data-db-1 volume=pvc-"));
}

TEST(ControllersInputTest, UnmodelledJobFieldsAndBadSelectorsArePositionedErrors) {
  const fs::path dir =
      fs::temp_directory_path() / ("corral-controllers-bad-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  std::ofstream(dir / "bad.yaml") << R"(apiVersion: batch/v1
kind: Job
metadata: {name: j}
spec:
  activeDeadlineSeconds: 60
  template:
    spec: {restartPolicy: Never, containers: [{name: c}]}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: d}
spec:
  selector: {matchLabels: {app: x}}
  template:
    metadata: {labels: {app: y}, annotations: {corral.dev/duration: 1m}}
    spec: {containers: [{name: c}]}
)";
  Interner in = api::NewInterner();
  Diagnostics diags;
  auto spec = LoadManifestsSpec({(dir / "bad.yaml").string()}, in, diags);
  fs::remove_all(dir);
  ASSERT_FALSE(spec.ok());
  const std::string msg = spec.error().message;
  EXPECT_THAT(msg, testing::HasSubstr(
                       "bad.yaml:5: spec.activeDeadlineSeconds: activeDeadlineSeconds is not "
                       "modelled by the simulator's Job controller"));
  EXPECT_THAT(msg, testing::HasSubstr("`selector` does not match template `labels`"));
}

TEST(StatefulSetTest, ParallelAllAtOnceFromOrdinalsStart) {
  Ran r = RunManifests(R"(
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: db}
spec:
  replicas: 3
  podManagementPolicy: Parallel
  ordinals: {start: 5}
  selector: {matchLabels: {app: db}}
  template:
    metadata: {labels: {app: db}}
    spec: {containers: [{name: c}]}
)");
  EXPECT_EQ(Pods(r.log, "arrive"), (std::vector<std::string>{"db-5", "db-6", "db-7"}));
  EXPECT_LT(r.log.find("arrive default/db-7"), r.log.find("bind default/db-5"));
}

TEST(JobTest, IndexedCompletionsWithParallelism) {
  Ran r = RunManifests(R"(
apiVersion: batch/v1
kind: Job
metadata: {name: work}
spec:
  completions: 5
  parallelism: 2
  completionMode: Indexed
  template:
    metadata: {annotations: {corral.dev/duration: 10m}}
    spec:
      restartPolicy: Never
      containers: [{name: c, resources: {requests: {cpu: "1"}}}]
)");
  const std::vector<std::string> pods = Pods(r.log, "arrive");
  ASSERT_EQ(pods.size(), 5u);
  for (int i = 0; i < 5; ++i) {
    EXPECT_EQ(pods[i].substr(0, 6 + std::to_string(i).size()), "work-" + std::to_string(i) + "-")
        << pods[i];
    EXPECT_EQ(pods[i].size(), 5 + 2 + 5u) << pods[i];
  }
  // Two at a time: indexes 0-1 at 0m, 2-3 at 10m, 4 at 20m; complete at 30m.
  EXPECT_THAT(r.log, testing::HasSubstr("00:10:00.000 arrive default/work-2-"));
  EXPECT_THAT(r.log, testing::HasSubstr("00:20:00.000 arrive default/work-4-"));
  EXPECT_THAT(r.log,
              testing::HasSubstr("00:30:00.000 job-complete default/work succeeded=5 failed=0"));
  EXPECT_EQ(r.out.result.pods_completed, 5);
}

TEST(JobTest, WorkQueueStopsAfterTheFirstSuccess) {
  Ran r = RunManifests(R"(
apiVersion: batch/v1
kind: Job
metadata: {name: q}
spec:
  parallelism: 3
  template:
    metadata: {annotations: {corral.dev/duration: 1m}}
    spec: {restartPolicy: Never, containers: [{name: c}]}
)");
  EXPECT_EQ(Pods(r.log, "arrive").size(), 3u);
  EXPECT_THAT(r.log, testing::HasSubstr("job-complete default/q succeeded=3 failed=0"));
}

TEST(DaemonSetTest, OnePodPerEligibleNodePinnedByName) {
  Ran r = RunManifests(R"(
apiVersion: apps/v1
kind: DaemonSet
metadata: {name: agent}
spec:
  selector: {matchLabels: {app: agent}}
  template:
    metadata: {labels: {app: agent}}
    spec: {containers: [{name: c, resources: {requests: {cpu: 100m}}}]}
)");
  // The tainted node is not eligible (its NoSchedule taint is not tolerated); n1 and n2 each get
  // one pod, bound to that node.
  ASSERT_EQ(Pods(r.log, "arrive").size(), 2u);
  EXPECT_THAT(r.log, testing::HasSubstr("node=n1"));
  EXPECT_THAT(r.log, testing::HasSubstr("node=n2"));
  EXPECT_THAT(r.log, testing::Not(testing::HasSubstr("node=tainted")));
  // The template has kube's daemon tolerations.
  const Interner& in = *r.in;
  const api::Pod& t = r.spec.pod_templates[r.spec.workloads[0].tmpl].pod;
  EXPECT_EQ(t.tolerations.size(), 6u);
  EXPECT_NE(t.meta.labels.Find(*in.Find("controller-revision-hash")), nullptr);
}

TEST(ControllersTest, EvictedPodsAreRecreatedAndScaleChangesCounts) {
  // A drain of n1 at 1m evicts the Deployment's pods there; they come back on n2. Scaling to 4 at
  // 2m adds two; scaling to 1 at 3m deletes three.
  Ran r = RunManifests(R"(
apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  replicas: 2
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec: {containers: [{name: c, resources: {requests: {cpu: "1"}}}]}
)",
                       1, [](SimSpec& spec) {
                         Op drain;
                         drain.kind = Op::Kind::kDrain;
                         drain.at_ns = 60LL * 1'000'000'000;
                         drain.count = 1;
                         drain.describe = "drain";
                         spec.program.push_back(drain);
                         Op up;
                         up.kind = Op::Kind::kScale;
                         up.controller = 0;
                         up.count = 4;
                         up.at_ns = 120LL * 1'000'000'000;
                         up.describe = "scale up";
                         spec.program.push_back(up);
                         Op down = up;
                         down.count = 1;
                         down.at_ns = 180LL * 1'000'000'000;
                         down.describe = "scale down";
                         spec.program.push_back(down);
                       });
  const size_t evicted = Pods(r.log, "evict").size();
  EXPECT_GE(evicted, 1u);
  // Every evicted pod was replaced: 2 at first, one per eviction, two at the scale-up.
  EXPECT_EQ(Pods(r.log, "arrive").size(), 2 + evicted + 2);
  EXPECT_EQ(Pods(r.log, "delete").size(), 3u);
  EXPECT_EQ(r.out.result.pods_running_end, 1);
}

// Property: whatever drains and scalings happen, a ReplicaSet never has more live pods than it
// wants once an instant's events are done, and every evicted pod is replaced (at the end it has
// exactly its replicas, pending or running).
RC_GTEST_PROP(ControllersPropertyTest, LivePodsNeverExceedReplicasAndEvictionsAreReplaced, ()) {
  const int replicas = *rc::gen::inRange(1, 6);
  struct Step {
    bool drain;
    int64_t at_s;
    int value;
  };
  const auto steps = *rc::gen::container<std::vector<Step>>(
      *rc::gen::inRange(0, 6),
      rc::gen::build<Step>(rc::gen::set(&Step::drain),
                           rc::gen::set(&Step::at_s, rc::gen::inRange(1, 600)),
                           rc::gen::set(&Step::value, rc::gen::inRange(0, 7))));
  const std::string manifest = fmt::format(R"(
apiVersion: apps/v1
kind: Deployment
metadata: {{name: web}}
spec:
  replicas: {}
  selector: {{matchLabels: {{app: web}}}}
  template:
    metadata: {{labels: {{app: web}}}}
    spec: {{containers: [{{name: c, resources: {{requests: {{cpu: "1"}}}}}}]}}
)",
                                           replicas);
  std::vector<Step> sorted = steps;
  std::stable_sort(sorted.begin(), sorted.end(),
                   [](const Step& a, const Step& b) { return a.at_s < b.at_s; });
  int final_replicas = replicas;
  for (const Step& st : sorted) {
    if (!st.drain) final_replicas = st.value;
  }
  Ran r = RunManifests(manifest, 1, [&](SimSpec& spec) {
    for (const Step& st : sorted) {
      Op op;
      op.at_ns = st.at_s * 1'000'000'000;
      if (st.drain) {
        op.kind = Op::Kind::kDrain;
        op.count = 1;
        op.describe = "drain";
      } else {
        op.kind = Op::Kind::kScale;
        op.controller = 0;
        op.count = st.value;
        op.describe = "scale";
      }
      spec.program.push_back(op);
    }
  });
  // Replay the log: live pods per instant against the wanted replicas.
  std::istringstream in(r.log);
  std::string line, instant;
  int live = 0, want = replicas;
  auto check = [&] { RC_ASSERT(live <= want); };
  while (std::getline(in, line)) {
    std::istringstream l(line);
    std::string t, kind, detail;
    l >> t >> kind;
    std::getline(l, detail);
    if (t != instant) {
      if (!instant.empty()) check();
      instant = t;
    }
    if (kind == "arrive") ++live;
    if (kind == "evict" || kind == "delete" || kind == "complete") --live;
    if (kind == "scale") want = std::stoi(detail.substr(detail.find("->") + 2));
  }
  check();
  RC_ASSERT(live == final_replicas);
}

}  // namespace
}  // namespace corral::sim
