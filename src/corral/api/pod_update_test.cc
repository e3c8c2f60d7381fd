#include "corral/api/pod_update.h"

#include <functional>
#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace corral::api {
namespace {

// kube's TestValidatePodUpdate (pkg/apis/core/validation), the cases over fields Corral holds:
// each mutates a copy of a live pod and expects kube's error (field path and message) or none.
class PodUpdateTest : public ::testing::Test {
 protected:
  PodUpdateTest() {
    live_.meta.name = in_.Intern("p");
    live_.meta.namespace_ = in_.Intern("ns");
    live_.meta.labels = LabelSet({{in_.Intern("type"), in_.Intern("unsched")}});
    Container c;
    c.name = in_.Intern("pause");
    c.image = in_.Intern("registry.k8s.io/pause:3.10");
    c.resources.requests = {{in_.Intern("memory"), Quantity::FromInt(30 << 20)}};
    live_.containers = {c};
    live_.scheduler_name = in_.Intern("default-scheduler");
    live_.termination_grace_period_seconds = 30;
  }
  Toleration Tol(std::string_view key) {
    Toleration t;
    t.key = in_.Intern(key);
    t.op = TolerationOp::kExists;
    t.effect = TaintEffect::kNoSchedule;
    return t;
  }

  Interner in_;
  Pod live_;
};

TEST_F(PodUpdateTest, Table) {
  struct Case {
    std::string name;
    std::function<void(Pod& update, Pod& live)> mutate;
    std::string want_path;  // empty: accepted
    std::string want_message;
    std::string want_changed;
  };
  const std::string forbidden = kPodUpdateForbiddenMessage;
  std::vector<Case> cases = {
      {"no change", [](Pod&, Pod&) {}, "", "", ""},
      {"labels and annotations may change",
       [&](Pod& u, Pod&) {
         u.meta.labels = LabelSet({{in_.Intern("color"), in_.Intern("green")}});
         u.meta.annotations = {{in_.Intern("a"), "b"}};
       },
       "", "", ""},
      {"image may change",
       [&](Pod& u, Pod&) { u.containers[0].image = in_.Intern("registry.k8s.io/pause:3.10.2"); },
       "", "", ""},
      {"image may not be removed", [&](Pod& u, Pod&) { u.containers[0].image = Symbol(); },
       "spec.containers[0].image", "Required value", "spec.containers[0]"},
      {"a container may not be added",
       [&](Pod& u, Pod&) { u.containers.push_back(u.containers[0]); }, "spec.containers",
       "Forbidden: pod updates may not add or remove containers", "spec.containers"},
      // kube: "bad resource update" (resources change only through pods/resize).
      {"resources may not change",
       [&](Pod& u, Pod&) {
         u.containers[0].resources.requests = {{in_.Intern("memory"), Quantity::FromInt(1 << 20)}};
       },
       "spec", forbidden, "spec.containers"},
      // kube: "only additions to existing tolerations".
      {"a toleration may be added",
       [&](Pod& u, Pod&) { u.tolerations = {Tol("node.kubernetes.io/unschedulable")}; }, "", "",
       ""},
      {"an existing toleration may not be removed",
       [&](Pod& u, Pod& l) {
         l.tolerations = {Tol("a"), Tol("b")};
         u.tolerations = {Tol("a")};
       },
       "spec.tolerations",
       "Forbidden: existing toleration can not be modified except its tolerationSeconds",
       "spec.tolerations"},
      {"tolerationSeconds of an existing toleration may change",
       [&](Pod& u, Pod& l) {
         Toleration t = Tol("a");
         t.effect = TaintEffect::kNoExecute;
         t.toleration_seconds = 300;
         l.tolerations = {t};
         t.toleration_seconds = 10;
         u.tolerations = {t};
       },
       "", "", ""},
      // kube: "removing a scheduling gate" / "adding a scheduling gate".
      {"a scheduling gate may be removed",
       [&](Pod& u, Pod& l) {
         l.scheduling_gates = {in_.Intern("test.k8s.io/hold")};
         u.scheduling_gates = {};
       },
       "", "", ""},
      {"a scheduling gate may not be added",
       [&](Pod& u, Pod&) { u.scheduling_gates = {in_.Intern("foo")}; }, "spec.schedulingGates",
       "Forbidden: only deletion is allowed, but found new scheduling gate 'foo'",
       "spec.schedulingGates"},
      // kube: "node selector is immutable" / "addition to nodeSelector is allowed for gated pods".
      {"node selector of a scheduled-for pod is immutable",
       [&](Pod& u, Pod&) {
         u.node_selector = LabelSet({{in_.Intern("k"), in_.Intern("v")}});
       },
       "spec", forbidden, "spec.nodeSelector"},
      {"node selector of a gated pod may gain entries",
       [&](Pod& u, Pod& l) {
         l.scheduling_gates = u.scheduling_gates = {in_.Intern("g")};
         u.node_selector = LabelSet({{in_.Intern("k"), in_.Intern("v")}});
       },
       "", "", ""},
      {"node selector of a gated pod may not lose entries",
       [&](Pod& u, Pod& l) {
         l.scheduling_gates = u.scheduling_gates = {in_.Intern("g")};
         l.node_selector = LabelSet({{in_.Intern("k"), in_.Intern("v")}});
       },
       "spec.nodeSelector",
       "Invalid value: only additions to spec.nodeSelector are allowed (no mutations or "
       "deletions)",
       "spec.nodeSelector"},
      {"nodeName may not be set by an update",
       [&](Pod& u, Pod&) { u.node_name = in_.Intern("node-a"); }, "spec", forbidden,
       "spec.nodeName"},
      {"the same nodeName of a bound pod is no change",
       [&](Pod& u, Pod& l) { u.node_name = l.node_name = in_.Intern("node-a"); }, "", "", ""},
      {"schedulerName is immutable", [&](Pod& u, Pod&) { u.scheduler_name = in_.Intern("other"); },
       "spec", forbidden, "spec.schedulerName"},
      // kube: "allow terminationGracePeriodSeconds to be set to 1 if it was negative".
      {"terminationGracePeriodSeconds from negative to 1",
       [&](Pod& u, Pod& l) {
         l.termination_grace_period_seconds = -1;
         u.termination_grace_period_seconds = 1;
       },
       "", "", ""},
      {"terminationGracePeriodSeconds otherwise immutable",
       [&](Pod& u, Pod&) { u.termination_grace_period_seconds = 10; }, "spec", forbidden,
       "spec.terminationGracePeriodSeconds"},
      {"topology spread constraints are immutable",
       [&](Pod& u, Pod&) { u.topology_spread_constraints.emplace_back(); }, "spec", forbidden,
       "spec.topologySpreadConstraints"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    Pod live = live_;
    Pod update = live_;
    c.mutate(update, live);
    auto err = ValidatePodUpdate(update, false, live, in_);
    if (c.want_path.empty()) {
      EXPECT_FALSE(err.has_value()) << err->path << ": " << err->message;
      continue;
    }
    ASSERT_TRUE(err.has_value());
    EXPECT_EQ(err->path, c.want_path);
    EXPECT_EQ(err->message, c.want_message);
    EXPECT_EQ(err->changed, c.want_changed);
  }
}

TEST_F(PodUpdateTest, ForbiddenMessageIsKubes) {
  EXPECT_EQ(std::string(kPodUpdateForbiddenMessage),
            "Forbidden: pod updates may not change fields other than `spec.containers[*].image`,"
            "`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`,`spec.tolerations` (only "
            "additions to existing tolerations),`spec.terminationGracePeriodSeconds` (allow it to "
            "be set to 1 if it was previously negative)");
}

TEST_F(PodUpdateTest, PriorityGivenByTheUpdateMustMatch) {
  Pod update = live_;
  update.priority = 5;
  EXPECT_FALSE(ValidatePodUpdate(update, /*priority_set=*/false, live_, in_).has_value());
  auto err = ValidatePodUpdate(update, /*priority_set=*/true, live_, in_);
  ASSERT_TRUE(err.has_value());
  EXPECT_EQ(err->changed, "spec.priority");
}

TEST_F(PodUpdateTest, ApplyKeepsIdentityStatusAndScheduling) {
  Pod live = live_;
  live.meta.uid = in_.Intern("uid-1");
  live.node_name = in_.Intern("node-a");
  live.priority = 7;
  live.nominated_node_name = in_.Intern("node-b");
  live.scheduling_gates = {in_.Intern("g")};
  Pod update = live_;
  update.node_name = live.node_name;
  update.meta.labels = LabelSet();
  update.tolerations = {Tol("t")};
  update.containers[0].image = in_.Intern("img:2");
  Pod out = ApplyPodUpdate(update, live);
  EXPECT_EQ(out.meta.uid, live.meta.uid);
  EXPECT_EQ(out.priority, 7);
  EXPECT_EQ(out.nominated_node_name, live.nominated_node_name);
  EXPECT_TRUE(out.meta.labels.empty());
  EXPECT_TRUE(out.scheduling_gates.empty());
  ASSERT_EQ(out.tolerations.size(), 1u);
  EXPECT_EQ(out.containers[0].image, in_.Intern("img:2"));
}

}  // namespace
}  // namespace corral::api
