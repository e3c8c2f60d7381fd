// ResourceClaims of PodGroups (DRAWorkloadResourceClaims). The helper tables translate kube's
// k8s.io/dynamic-resource-allocation/resourceclaim tests (resourceclaim_test.go: TestBindTo,
// TestNameFromPodGroup, TestResourceClaimIsFor/PodGroup, TestIsReservedForPod) with kube's
// expected values. The plugin cases run the DynamicResources extension points over loaded objects
// and check the claims as kube's resourceclaim controller tests expect them (controller_test.go
// TestSyncHandler: "create for PodGroup", "update Pod status with PodGroup claim",
// "add-reserved-podgroup", "clear-reserved-podgroup"): one claim, allocated once, reserved for
// the PodGroup and shared by its members.

#include "corral/plugins/dynamic_resources/workload_claims.h"

#include <memory>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "corral/loader/loader.h"
#include "corral/plugins/dynamic_resources/dynamic_resources.h"
#include "corral/plugins/dynamic_resources/test_util.h"

#include "test/testing/builders.h"
#include "test/testing/fake_handle.h"

namespace corral::plugins {
namespace {

namespace res = api::resource;
using dra_test::DraHandle;
using dra_test::ShowStatus;

// ---- helpers, from kube's resourceclaim_test.go ------------------------------------------------

struct BindToCase {
  std::string name;  // kube's case name
  bool has_group = false;
  std::vector<res::PodGroupResourceClaim> group;
  api::PodResourceClaim pod_claim;
  bool want_group = false;  // kube: podGroupReservation (else podReservation)
};

TEST(WorkloadClaimsTest, KubeBindTo) {
  testing::TestWorld w;
  const Symbol claim = w.S("my-claim"), rc = w.S("my-resource-claim");
  const Symbol not_rc = w.S("not-my-resource-claim");
  auto by_name = [&](Symbol n, Symbol c) { return res::PodGroupResourceClaim{n, c, {}, {}}; };
  auto by_tmpl = [&](Symbol n, Symbol t) { return res::PodGroupResourceClaim{n, {}, t, {}}; };
  const api::PodResourceClaim pod_by_name{claim, rc, {}, {}};
  const api::PodResourceClaim pod_by_tmpl{claim, {}, rc, {}};
  const std::vector<BindToCase> cases = {
      {"Pod claim with ResourceClaimName", false, {}, pod_by_name, false},
      {"Pod claim with ResourceClaimTemplateName", false, {}, pod_by_tmpl, false},
      {"Pod claim with ResourceClaimName matching PodGroup",
       true,
       {by_name(claim, rc)},
       pod_by_name,
       true},
      {"Pod claim with ResourceClaimTemplateName matching PodGroup",
       true,
       {by_tmpl(claim, rc)},
       pod_by_tmpl,
       true},
      {"No matching claim in PodGroup",
       true,
       {by_name(w.S("not-my-claim"), rc), by_name(w.S("nor-my-claim"), rc)},
       pod_by_name,
       false},
      {"Find matching claim in PodGroup",
       true,
       {by_name(w.S("not-my-claim"), rc), by_name(w.S("nor-my-claim"), rc), by_name(claim, rc)},
       pod_by_name,
       true},
      {"Claim name mismatch", true, {by_name(w.S("not-my-claim"), rc)}, pod_by_name, false},
      {"Claim resourceClaimName mismatch", true, {by_name(claim, not_rc)}, pod_by_name, false},
      {"Claim resourceClaimTemplateName mismatch",
       true,
       {by_tmpl(claim, not_rc)},
       pod_by_tmpl,
       false},
  };
  // kube's "Wrong PodGroup namespace/name for Pod" cases cannot arise: Corral looks the group up
  // by the pod's own namespace and spec.schedulingGroup.podGroupName.
  for (const BindToCase& c : cases) {
    SCOPED_TRACE(c.name);
    res::PodGroupClaims g{w.S("my-namespace"), w.S("my-podgroup"), w.S("podgroup-uid"), c.group};
    EXPECT_EQ(dra::MatchPodGroupClaim(c.has_group ? &g : nullptr, c.pod_claim) != nullptr,
              c.want_group);
  }
}

TEST(WorkloadClaimsTest, KubeNameFromPodGroup) {
  testing::TestWorld w;
  const res::PodGroupClaims g{w.S("default"), w.S("test-podgroup"), {}, {}};
  struct Case {
    std::string name;
    res::PodGroupResourceClaim claim;
    std::string want_name, want_error;
    bool want_check = false;
  };
  const std::vector<Case> cases = {
      {"resource-claim-name-set", {w.S("c"), w.S("existing-claim"), {}, {}}, "existing-claim", ""},
      {"resource-claim-template-name-set-and-status-found",
       {w.S("template-claim"), {}, w.S("template-claim-template"), w.S("created-claim")},
       "created-claim",
       "",
       true},
      {"resource-claim-template-name-set-but-status-not-found",
       {w.S("template-claim"), {}, w.S("template-claim-template"), {}},
       "",
       "PodGroup default/test-podgroup: ResourceClaim not created yet"},
      // kube's "neither-resource-claim-name-nor-template-name-set" is the loader's error here
      // (see the LoaderValidatesPodGroupClaims test).
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    bool check = false;
    std::string err;
    Symbol name = dra::PodGroupClaimName(w.in, g, c.claim, &check, &err);
    EXPECT_EQ(w.in.Str(name), c.want_name);
    EXPECT_EQ(err, c.want_error);
    EXPECT_EQ(check, c.want_check);
  }
}

TEST(WorkloadClaimsTest, KubeIsForPodGroupAndIsReservedForPod) {
  testing::TestWorld w;
  const Symbol ns = w.S("kube-system"), podgroups = w.S("podgroups");
  const res::PodGroupClaims owner{ns, w.S("podGroupOwner"), w.S("3"), {}};
  const res::PodGroupClaims not_owner{ns, w.S("podGroupNotOwner"), w.S("2"), {}};
  auto claim = [&](std::string_view cns, const res::PodGroupClaims* by) {
    res::ResourceClaim c;
    c.meta.namespace_ = w.S(cns);
    c.meta.name = w.S("claim");
    if (by != nullptr) {
      c.meta.owner_references.push_back(
          {w.S("scheduling.k8s.io/v25"), w.S("PodGroup"), by->pod_group, by->uid, true});
    }
    return c;
  };
  // TestResourceClaimIsFor/PodGroup: owned, other-pod, no-owner, different-namespace; the
  // owner's apiVersion does not matter (owned-by-podgroup-other-api-version).
  EXPECT_TRUE(dra::IsOwnedByPodGroup(claim("kube-system", &owner), owner));
  EXPECT_FALSE(dra::IsOwnedByPodGroup(claim("kube-system", &owner), not_owner));
  EXPECT_FALSE(dra::IsOwnedByPodGroup(claim("kube-system", nullptr), owner));
  EXPECT_FALSE(dra::IsOwnedByPodGroup(claim("user-namespace", &owner), owner));

  // TestIsReservedForPod, the PodGroup cases.
  auto reserved = [&](std::vector<const res::PodGroupClaims*> groups) {
    res::ResourceClaim c = claim("kube-system", nullptr);
    for (const auto* g : groups) c.reserved_for.push_back({podgroups, g->pod_group, g->uid});
    return c;
  };
  const res::PodGroupClaims other{ns, w.S("podGroupOtherReserved"), w.S("5"), {}};
  EXPECT_TRUE(
      dra::IsReservedForPodGroup(reserved({&owner}), owner, podgroups));  // reserved-for-podgroup
  EXPECT_FALSE(dra::IsReservedForPodGroup(reserved({}), owner, podgroups));  // not-reserved
  EXPECT_TRUE(dra::IsReservedForPodGroup(reserved({&owner, &other}), owner,
                                         podgroups));  // multiple-reservations-including-podgroup
  EXPECT_FALSE(dra::IsReservedForPodGroup(reserved({&owner, &other}), not_owner,
                                          podgroups));  // multiple-reservations-excluding-podgroup
  // reserved-for-other-podgroup: a pod's reservation is not the group's.
  res::ResourceClaim pod_reserved = claim("kube-system", nullptr);
  pod_reserved.reserved_for.push_back({w.S("pods"), w.S("podReserved"), w.S("3")});
  EXPECT_FALSE(dra::IsReservedForPodGroup(pod_reserved, owner, podgroups));
}

// ---- the plugin over loaded objects ------------------------------------------------------------

constexpr std::string_view kObjects = R"(---
apiVersion: v1
kind: Node
metadata: {name: worker, labels: {kubernetes.io/hostname: worker}}
status: {capacity: {cpu: "8", memory: 16Gi, pods: "110"}}
---
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: my-resource-class}
spec:
  selectors:
  - cel: {expression: 'device.driver == "some-driver"'}
---
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: worker-some-driver}
spec:
  driver: some-driver
  nodeName: worker
  pool: {name: worker, generation: 1, resourceSliceCount: 1}
  devices:
  - name: instance-1
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: group-claim}
spec:
  devices:
    requests:
    - name: req-1
      exactly: {deviceClassName: my-resource-class}
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaimTemplate
metadata: {name: my-template}
spec:
  spec:
    devices:
      requests:
      - name: req-1
        exactly: {deviceClassName: my-resource-class}
)";

// The PodGroup "my-group" with one claim `source`, and its members member-a and member-b whose
// claim "my-resource" is `pod_source`.
std::string Group(std::string_view source, std::string_view pod_source,
                  std::string_view extra = "") {
  std::string out = fmt::format(R"(---
apiVersion: scheduling.k8s.io/v1alpha3
kind: PodGroup
metadata: {{name: my-group, uid: group-uid}}
spec:
  resourceClaims:
  - {{name: my-resource, {}}}
  schedulingPolicy: {{basic: {{}}}}
{})",
                                source, extra);
  for (std::string_view pod : {"member-a", "member-b"}) {
    out += fmt::format(R"(---
apiVersion: v1
kind: Pod
metadata: {{name: {}, uid: {}-uid}}
spec:
  containers: [{{name: c, image: i}}]
  resourceClaims:
  - {{name: my-resource, {}}}
  schedulingGroup: {{podGroupName: my-group}}
)",
                       pod, pod, pod_source);
  }
  return out;
}

// "allocated=<bool> reservedFor=[<resource>/<name>,...]".
std::string ClaimState(const Interner& in, const res::ResourceClaim* c) {
  if (c == nullptr) return "missing";
  std::string names;
  for (const auto& r : c->reserved_for) {
    names += fmt::format("{}{}/{}", names.empty() ? "" : ",", in.Str(r.resource), in.Str(r.name));
  }
  return fmt::format("allocated={} reservedFor=[{}]", c->allocation.has_value(), names);
}

// A world with the objects loaded into a DraStore and the plugin, the gate set as asked.
struct Fixture {
  explicit Fixture(const std::string& yaml, bool gate = true) : h(w) {
    EXPECT_TRUE(w.gates.Set("DRAWorkloadResourceClaims", gate).ok());
    r = loader::LoadString(yaml, "workload_claims.yaml", w.in);
    EXPECT_TRUE(r.ok()) << (r.diagnostics.items().empty() ? "" : r.diagnostics.items()[0].message);
    h.store.set_pods_resource(w.in.Intern("pods"));
    h.store.set_pod_groups_resource(w.in.Intern("podgroups"));
    h.store.Reset(r.objects.resources.get());
    auto p = DynamicResources::New(nullptr, h);
    EXPECT_TRUE(p.ok());
    plugin = std::move(*p);
    node = std::make_unique<framework::NodeInfo>(&r.objects.nodes[0]);
  }
  DynamicResources& dra() { return dynamic_cast<DynamicResources&>(*plugin); }
  const framework::PodInfo& Pod(size_t i) { return w.Info(r.objects.pods[i]); }
  const res::ResourceClaim* Claim(std::string_view name) {
    return h.store.GetClaim(w.in.Intern("default"), w.in.Intern(name));
  }
  // PreEnqueue through PreBind on the worker; the statuses joined by " | ".
  std::string Schedule(size_t i, framework::CycleState& cs, bool prebind = true) {
    const framework::PodInfo& p = Pod(i);
    std::string out = ShowStatus(dra().PreEnqueue(p));
    if (out != "Success") return out;
    framework::PreFilterResult pre;
    out = ShowStatus(dra().PreFilter(cs, 0, p, h.snapshot(), &pre));
    if (out != "Success") return out;
    out = ShowStatus(dra().Filter(cs, 0, p, *node));
    if (out != "Success") return out;
    out = ShowStatus(dra().Reserve(cs, p, node->name()));
    if (out != "Success" || !prebind) return out;
    return ShowStatus(dra().PreBind(cs, p, node->name()));
  }

  testing::TestWorld w;
  loader::LoadResult r;
  DraHandle h;
  std::unique_ptr<framework::Plugin> plugin;
  std::unique_ptr<framework::NodeInfo> node;
};

// SharedPodGroupResourceClaim: the group's claim is allocated once by the first member, reserved
// for the PodGroup, and the second member uses that allocation (kube's "add-reserved-podgroup").
TEST(WorkloadClaimsTest, MembersShareTheGroupClaim) {
  Fixture f(std::string(kObjects) +
            Group("resourceClaimName: group-claim", "resourceClaimName: group-claim"));
  framework::CycleState a, b;
  EXPECT_EQ(f.Schedule(0, a), "Success");
  EXPECT_EQ(ClaimState(f.w.in, f.Claim("group-claim")),
            "allocated=true reservedFor=[podgroups/my-group]");
  EXPECT_EQ(f.Schedule(1, b), "Success");
  EXPECT_EQ(ClaimState(f.w.in, f.Claim("group-claim")),
            "allocated=true reservedFor=[podgroups/my-group]");
  EXPECT_EQ(f.h.store.AllocatedDevices().size(), 1u);
  // The members leave; the PodGroup still exists, so its reservation and the allocation stay
  // (kube's controller clears a PodGroup's reservation only once the PodGroup is gone,
  // "clear-reserved-podgroup").
  f.h.store.ReleasePod(f.r.objects.pods[0]);
  f.h.store.ReleasePod(f.r.objects.pods[1]);
  EXPECT_EQ(ClaimState(f.w.in, f.Claim("group-claim")),
            "allocated=true reservedFor=[podgroups/my-group]");
}

// A member scheduled while the first member's allocation is in flight (Reserve done, PreBind
// not yet) uses it instead of waiting; both PreBinds leave one reservation for the group.
TEST(WorkloadClaimsTest, SecondMemberUsesTheAllocationInFlight) {
  Fixture f(std::string(kObjects) +
            Group("resourceClaimName: group-claim", "resourceClaimName: group-claim"));
  framework::CycleState a, b;
  EXPECT_EQ(f.Schedule(0, a, /*prebind=*/false), "Success");
  EXPECT_EQ(f.Schedule(1, b, /*prebind=*/false), "Success");
  EXPECT_EQ(f.h.store.AllocatedDevices().size(), 1u);
  EXPECT_EQ(ShowStatus(f.dra().PreBind(b, f.Pod(1), f.node->name())), "Success");
  EXPECT_EQ(ShowStatus(f.dra().PreBind(a, f.Pod(0), f.node->name())), "Success");
  EXPECT_EQ(ClaimState(f.w.in, f.Claim("group-claim")),
            "allocated=true reservedFor=[podgroups/my-group]");
  // The second member's Unreserve does not drop the group's allocation.
  f.dra().Unreserve(b, f.Pod(1), f.node->name());
  EXPECT_EQ(ClaimState(f.w.in, f.Claim("group-claim")),
            "allocated=true reservedFor=[podgroups/my-group]");
}

// With the gate off kube's API server drops the PodGroup's resourceClaims: the claim is each
// pod's own ("create ResourceClaim for grouped Pod with claim when DRAWorkloadResourceClaims
// feature is disabled").
TEST(WorkloadClaimsTest, GateOffReservesForThePod) {
  Fixture f(std::string(kObjects) +
                Group("resourceClaimName: group-claim", "resourceClaimName: group-claim"),
            /*gate=*/false);
  framework::CycleState a, b;
  EXPECT_EQ(f.Schedule(0, a), "Success");
  EXPECT_EQ(f.Schedule(1, b), "Success");
  EXPECT_EQ(ClaimState(f.w.in, f.Claim("group-claim")),
            "allocated=true reservedFor=[pods/member-a,pods/member-b]");
}

// A pod claim of the same name but another source is the pod's own (TestBindTo "Claim
// resourceClaimName mismatch").
TEST(WorkloadClaimsTest, MismatchedSourceIsThePodsOwnClaim) {
  Fixture f(std::string(kObjects) +
            Group("resourceClaimName: other-claim", "resourceClaimName: group-claim"));
  framework::CycleState a;
  EXPECT_EQ(f.Schedule(0, a), "Success");
  EXPECT_EQ(ClaimState(f.w.in, f.Claim("group-claim")),
            "allocated=true reservedFor=[pods/member-a]");
}

// SharedPodGroupResourceClaimTemplate: one claim is made from the template for the group ("create
// for PodGroup": "<podgroup>-<claim>-<suffix>", owned by the PodGroup); the members use it
// ("update Pod status with PodGroup claim") and their own per-pod claims stay unused.
TEST(WorkloadClaimsTest, TemplateMakesOneClaimForTheGroup) {
  Fixture f(std::string(kObjects) + Group("resourceClaimTemplateName: my-template",
                                          "resourceClaimTemplateName: my-template"));
  const res::PodGroupClaims* g =
      f.h.store.GetPodGroupClaims(f.w.in.Intern("default"), f.w.in.Intern("my-group"));
  ASSERT_NE(g, nullptr);
  ASSERT_EQ(g->claims.size(), 1u);
  const std::string name(f.w.in.Str(g->claims[0].generated_claim_name));
  EXPECT_EQ(name.substr(0, 21), "my-group-my-resource-");
  EXPECT_EQ(name.size(), 26u);
  const res::ResourceClaim* claim = f.Claim(name);
  ASSERT_NE(claim, nullptr);
  ASSERT_EQ(claim->meta.owner_references.size(), 1u);
  EXPECT_EQ(f.w.in.Str(claim->meta.owner_references[0].kind), "PodGroup");
  framework::CycleState a, b;
  EXPECT_EQ(f.Schedule(0, a), "Success");
  EXPECT_EQ(f.Schedule(1, b), "Success");
  EXPECT_EQ(ClaimState(f.w.in, claim), "allocated=true reservedFor=[podgroups/my-group]");
  EXPECT_EQ(f.h.store.AllocatedDevices().size(), 1u);
}

// The group's template does not exist: kube's controller makes no claim and the members wait.
TEST(WorkloadClaimsTest, MissingGroupTemplateWaits) {
  Fixture f(std::string(kObjects) + Group("resourceClaimTemplateName: no-template",
                                          "resourceClaimTemplateName: no-template"));
  framework::CycleState a;
  EXPECT_EQ(f.Schedule(0, a),
            "UnschedulableAndUnresolvable: PodGroup default/my-group: ResourceClaim not created "
            "yet");
}

// The group's status names a claim the PodGroup does not own (kube's IsForPod with a PodGroup).
TEST(WorkloadClaimsTest, GroupClaimNotOwnedByTheGroup) {
  Fixture f(std::string(kObjects) +
            Group("resourceClaimTemplateName: my-template",
                  "resourceClaimTemplateName: my-template",
                  "status:\n  resourceClaimStatuses: [{name: my-resource, resourceClaimName: "
                  "group-claim}]\n"));
  framework::CycleState a;
  EXPECT_EQ(f.Schedule(0, a),
            "UnschedulableAndUnresolvable: ResourceClaim default/group-claim was not created for "
            "Pod default/member-a (neither Pod nor PodGroup my-group is the owner)");
}

// kube's PodGroupResourceClaim validation, at the field's position.
TEST(WorkloadClaimsTest, LoaderValidatesPodGroupClaims) {
  struct Case {
    std::string claims, want;
  };
  const std::vector<Case> cases = {
      {"[{name: a}]",
       "spec.resourceClaims[0]: must specify exactly one of: `resourceClaimName`, "
       "`resourceClaimTemplateName`"},
      {"[{name: a, resourceClaimName: x, resourceClaimTemplateName: z}]",
       "spec.resourceClaims[0]: must specify exactly one of: `resourceClaimName`, "
       "`resourceClaimTemplateName`"},
      {"[{name: a, resourceClaimName: x}, {name: a, resourceClaimName: z}]",
       "spec.resourceClaims[1].name: Duplicate value: \"a\""},
      {"[{name: A_b, resourceClaimName: x}]",
       "spec.resourceClaims[0].name: Invalid value: \"A_b\""},
      {"[{resourceClaimName: x}]",
       "spec.resourceClaims[0].name: required field \"name\" is missing"},
      {"[{name: a, resourceClaimName: x}, {name: b, resourceClaimName: x}, {name: c, "
       "resourceClaimName: x}, {name: d, resourceClaimName: x}, {name: e, resourceClaimName: x}]",
       "spec.resourceClaims: must have at most 4 items, got 5"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.claims);
    testing::TestWorld w;
    const std::string yaml = fmt::format(R"(apiVersion: scheduling.k8s.io/v1alpha3
kind: PodGroup
metadata: {{name: g}}
spec:
  resourceClaims: {}
  schedulingPolicy: {{basic: {{}}}}
)",
                                         c.claims);
    loader::LoadResult r = loader::LoadString(yaml, "g.yaml", w.in);
    ASSERT_FALSE(r.diagnostics.items().empty());
    const auto& d = r.diagnostics.items()[0];
    EXPECT_EQ(d.line, 5u);
    const std::string got = d.path + ": " + d.message;
    EXPECT_EQ(got.substr(0, c.want.size()), c.want) << got;
  }
}

}  // namespace
}  // namespace corral::plugins
