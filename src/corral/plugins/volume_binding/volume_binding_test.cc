// VolumeBinding, translated from kube's volumebinding/volume_binding_test.go: TestVolumeBinding
// (15 cases) and the queueing-hint tables TestIsSchedulableAfterStorageClassChange,
// TestIsSchedulableAfterPersistentVolumeClaimChange, TestIsSchedulableAfterPersistentVolumeChange
// and TestIsSchedulableAfterCSIStorageCapacityChange (their "type conversion error" cases have no
// counterpart: Corral's hints take typed objects). Expected values are kube's.

#include "corral/plugins/volume_binding/volume_binding.h"

#include <functional>
#include <optional>

#include <gtest/gtest.h>

#include "test/testing/builders.h"
#include "test/testing/fake_handle.h"
#include "test/testing/storage_builders.h"

namespace corral::plugins {
namespace {

using api::PersistentVolumePhase;
using api::VolumeBindingMode;
using framework::Code;
using framework::QueueingHint;
using framework::Status;

constexpr std::string_view kBindConflict =
    "node(s) didn't find available persistent volumes to bind";
constexpr std::string_view kNodeConflict = "node(s) had volume node affinity conflict";
constexpr std::string_view kPVNotExist =
    "node(s) unavailable due to one or more pvc(s) bound to non-existent pv(s)";

// A status as kube's test writes it: code and reasons (nullopt = nil, success).
struct WantStatus {
  Code code = Code::kSuccess;
  std::vector<std::string_view> reasons;
};
WantStatus Ok() {
  return {};
}
WantStatus UU(std::vector<std::string_view> r) {
  return {Code::kUnschedulableAndUnresolvable, std::move(r)};
}
WantStatus SkipStatus() {
  return {Code::kSkip, {}};
}

void ExpectStatus(const Status& got, const WantStatus& want, const std::string& where) {
  EXPECT_EQ(got.code(), want.code) << where << ": " << got.Message();
  ASSERT_EQ(got.reasons().size(), want.reasons.size()) << where << ": " << got.Message();
  for (size_t i = 0; i < want.reasons.size(); ++i) {
    EXPECT_EQ(got.reasons()[i], want.reasons[i]) << where;
  }
}

struct Case {
  std::string name;
  std::function<void(testing::TestWorld&, testing::StorageWorld&, api::Pod&)> setup;
  std::vector<std::string> nodes;  // names; labels set by `labels`
  std::function<void(testing::TestWorld&, std::deque<api::Node*>&)> labels;
  bool capacity_scoring = false;
  std::vector<VolumeBindingArgs::ShapePoint> shape;  // with capacity_scoring
  WantStatus pre_filter;
  std::optional<std::vector<std::string>> pre_filter_nodes;
  // kube's wantStateAfterPreFilter, as claim counts: bound, unbound with delayed binding.
  std::pair<size_t, size_t> claims{0, 0};
  std::vector<WantStatus> filter;
  WantStatus pre_score;
  std::vector<int64_t> scores;
};

// kube's test storage classes.
void Classes(testing::StorageWorld& s) {
  s.Class("immediate-sc", VolumeBindingMode::kImmediate);
  s.Class("wait-sc", VolumeBindingMode::kWaitForFirstConsumer);
  s.Class("wait-hdd-sc", VolumeBindingMode::kWaitForFirstConsumer);
}

// kube's defaultShapePoint of the test ({0, 0}, {100, 10}).
const std::vector<VolumeBindingArgs::ShapePoint> kTestShape = {{0, 0}, {100, 10}};

void ZonalNodes(testing::TestWorld& w, std::deque<api::Node*>& nodes) {
  const char* zones[] = {"a", "a", "b", "b", "c", "c"};
  for (size_t i = 0; i < nodes.size(); ++i) {
    nodes[i]->meta.labels.Set(w.S("topology.kubernetes.io/region"),
                              w.S(std::string("region-") + zones[i]));
    nodes[i]->meta.labels.Set(w.S("topology.kubernetes.io/zone"),
                              w.S(std::string("zone-") + zones[i]));
  }
}

void ZonalVolumes(testing::StorageWorld& s) {
  for (auto [name, zone, cap] : {std::tuple{"pv-a-0", "a", "200Gi"},
                                 {"pv-a-1", "a", "200Gi"},
                                 {"pv-b-0", "b", "100Gi"},
                                 {"pv-b-1", "b", "100Gi"}}) {
    std::string region = std::string("region-") + zone, z = std::string("zone-") + zone;
    s.Volume(name, "wait-sc")
        .Phase(PersistentVolumePhase::kAvailable)
        .Capacity(cap)
        .NodeAffinity(
            {{"topology.kubernetes.io/region", {region}}, {"topology.kubernetes.io/zone", {z}}});
  }
}

std::vector<Case> Cases() {
  std::vector<Case> cs;
  cs.push_back({.name = "pod has not pvcs",
                .setup = [](auto&, auto&, auto&) {},
                .nodes = {"node-a"},
                .pre_filter = SkipStatus(),
                .pre_score = SkipStatus()});
  cs.push_back({.name = "all bound",
                .setup =
                    [](auto&, testing::StorageWorld& s, api::Pod& p) {
                      s.PvcVolume(p, "pvc-a");
                      s.Claim("pvc-a", "wait-sc").BoundTo("pv-a");
                      s.Volume("pv-a", "wait-sc").Phase(PersistentVolumePhase::kAvailable);
                    },
                .nodes = {"node-a"},
                .claims = {1, 0},
                .filter = {Ok()},
                .pre_score = SkipStatus()});
  cs.push_back({.name = "all bound with local volumes",
                .setup =
                    [](auto&, testing::StorageWorld& s, api::Pod& p) {
                      s.PvcVolume(p, "pvc-a", "volume-a");
                      s.PvcVolume(p, "pvc-b", "volume-b");
                      s.Claim("pvc-a", "wait-sc").BoundTo("pv-a");
                      s.Claim("pvc-b", "wait-sc").BoundTo("pv-b");
                      s.Volume("pv-a", "wait-sc")
                          .Phase(PersistentVolumePhase::kBound)
                          .NodeAffinity({{"kubernetes.io/hostname", {"node-a"}}});
                      s.Volume("pv-b", "wait-sc")
                          .Phase(PersistentVolumePhase::kBound)
                          .NodeAffinity({{"kubernetes.io/hostname", {"node-a"}}});
                    },
                .nodes = {"node-a"},
                .pre_filter_nodes = std::vector<std::string>{"node-a"},
                .claims = {2, 0},
                .filter = {Ok()},
                .pre_score = SkipStatus()});
  cs.push_back(
      {.name = "PVC does not exist",
       .setup = [](auto&, testing::StorageWorld& s, api::Pod& p) { s.PvcVolume(p, "pvc-a"); },
       .nodes = {"node-a"},
       .pre_filter = UU({"persistentvolumeclaim \"pvc-a\" not found"})});
  cs.push_back({.name = "Part of PVCs do not exist",
                .setup =
                    [](auto&, testing::StorageWorld& s, api::Pod& p) {
                      s.PvcVolume(p, "pvc-a");
                      s.PvcVolume(p, "pvc-b");
                      s.Claim("pvc-a", "wait-sc").BoundTo("pv-a");
                    },
                .nodes = {"node-a"},
                .pre_filter = UU({"persistentvolumeclaim \"pvc-b\" not found"})});
  cs.push_back({.name = "immediate claims not bound",
                .setup =
                    [](auto&, testing::StorageWorld& s, api::Pod& p) {
                      s.PvcVolume(p, "pvc-a");
                      s.Claim("pvc-a", "immediate-sc");
                    },
                .nodes = {"node-a"},
                .pre_filter = UU({"pod has unbound immediate PersistentVolumeClaims"})});
  cs.push_back({.name = "unbound claims no matches",
                .setup =
                    [](auto&, testing::StorageWorld& s, api::Pod& p) {
                      s.PvcVolume(p, "pvc-a");
                      s.Claim("pvc-a", "wait-sc");
                    },
                .nodes = {"node-a"},
                .claims = {0, 1},
                .filter = {UU({kBindConflict})},
                .pre_score = SkipStatus()});
  cs.push_back({.name = "bound and unbound unsatisfied",
                .setup =
                    [](auto&, testing::StorageWorld& s, api::Pod& p) {
                      s.PvcVolume(p, "pvc-a");
                      s.PvcVolume(p, "pvc-b");
                      s.Claim("pvc-a", "wait-sc").BoundTo("pv-a");
                      s.Claim("pvc-b", "wait-sc");
                      s.Volume("pv-a", "wait-sc")
                          .Phase(PersistentVolumePhase::kAvailable)
                          .NodeAffinity({{"foo", {"bar"}}});
                    },
                .nodes = {"node-a"},
                .labels =
                    [](testing::TestWorld& w, std::deque<api::Node*>& n) {
                      n[0]->meta.labels.Set(w.S("foo"), w.S("barbar"));
                    },
                .claims = {1, 1},
                .filter = {UU({kNodeConflict, kBindConflict})},
                .pre_score = SkipStatus()});
  cs.push_back(
      {.name = "pvc not found",
       .setup = [](auto&, testing::StorageWorld& s, api::Pod& p) { s.PvcVolume(p, "pvc-a"); },
       .nodes = {"node-a"},
       .pre_filter = UU({"persistentvolumeclaim \"pvc-a\" not found"})});
  cs.push_back({.name = "pv not found",
                .setup =
                    [](auto&, testing::StorageWorld& s, api::Pod& p) {
                      s.PvcVolume(p, "pvc-a");
                      s.Claim("pvc-a", "wait-sc").BoundTo("pv-a");
                    },
                .nodes = {"node-a"},
                .claims = {1, 0},
                .filter = {UU({kPVNotExist})},
                .pre_score = SkipStatus()});
  cs.push_back(
      {.name = "pv not found claim lost",
       .setup =
           [](auto&, testing::StorageWorld& s, api::Pod& p) {
             s.PvcVolume(p, "pvc-a");
             s.Claim("pvc-a", "wait-sc").BoundTo("pv-a").Phase(api::ClaimPhase::kLost);
           },
       .nodes = {"node-a"},
       .pre_filter = UU(
           {"persistentvolumeclaim \"pvc-a\" bound to non-existent persistentvolume \"pv-a\""})});
  cs.push_back({.name = "local volumes with close capacity are preferred",
                .setup =
                    [](auto&, testing::StorageWorld& s, api::Pod& p) {
                      s.PvcVolume(p, "pvc-a");
                      s.Claim("pvc-a", "wait-sc").Request("50Gi");
                      for (auto [name, node, cap] : {std::tuple{"pv-a-0", "node-a", "200Gi"},
                                                     {"pv-a-1", "node-a", "200Gi"},
                                                     {"pv-b-0", "node-b", "100Gi"},
                                                     {"pv-b-1", "node-b", "100Gi"}}) {
                        s.Volume(name, "wait-sc")
                            .Phase(PersistentVolumePhase::kAvailable)
                            .Capacity(cap)
                            .NodeAffinity({{"kubernetes.io/hostname", {node}}});
                      }
                    },
                .nodes = {"node-a", "node-b", "node-c"},
                .capacity_scoring = true,
                .shape = kTestShape,
                .claims = {0, 1},
                .filter = {Ok(), Ok(), UU({kBindConflict})},
                .scores = {25, 50, 0}});
  cs.push_back({.name = "local volumes with close capacity are preferred (multiple pvcs)",
                .setup =
                    [](auto&, testing::StorageWorld& s, api::Pod& p) {
                      s.PvcVolume(p, "pvc-0");
                      s.PvcVolume(p, "pvc-1");
                      s.Claim("pvc-0", "wait-sc").Request("50Gi");
                      s.Claim("pvc-1", "wait-hdd-sc").Request("100Gi");
                      for (auto [name, cls, node, cap] :
                           {std::tuple{"pv-a-0", "wait-sc", "node-a", "200Gi"},
                            {"pv-a-1", "wait-sc", "node-a", "200Gi"},
                            {"pv-a-2", "wait-hdd-sc", "node-a", "200Gi"},
                            {"pv-a-3", "wait-hdd-sc", "node-a", "200Gi"},
                            {"pv-b-0", "wait-sc", "node-b", "100Gi"},
                            {"pv-b-1", "wait-sc", "node-b", "100Gi"},
                            {"pv-b-2", "wait-hdd-sc", "node-b", "100Gi"},
                            {"pv-b-3", "wait-hdd-sc", "node-b", "100Gi"}}) {
                        s.Volume(name, cls)
                            .Phase(PersistentVolumePhase::kAvailable)
                            .Capacity(cap)
                            .NodeAffinity({{"kubernetes.io/hostname", {node}}});
                      }
                    },
                .nodes = {"node-a", "node-b", "node-c"},
                .capacity_scoring = true,
                .shape = kTestShape,
                .claims = {0, 2},
                .filter = {Ok(), Ok(), UU({kBindConflict})},
                .scores = {38, 75, 0}});
  cs.push_back({.name = "zonal volumes with close capacity are preferred",
                .setup =
                    [](auto&, testing::StorageWorld& s, api::Pod& p) {
                      s.PvcVolume(p, "pvc-a");
                      s.Claim("pvc-a", "wait-sc").Request("50Gi");
                      ZonalVolumes(s);
                    },
                .nodes = {"zone-a-node-a", "zone-a-node-b", "zone-b-node-a", "zone-b-node-b",
                          "zone-c-node-a", "zone-c-node-b"},
                .labels = ZonalNodes,
                .capacity_scoring = true,
                .shape = kTestShape,
                .claims = {0, 1},
                .filter = {Ok(), Ok(), Ok(), Ok(), UU({kBindConflict}), UU({kBindConflict})},
                .scores = {25, 25, 50, 50, 0, 0}});
  cs.push_back({.name = "zonal volumes with close capacity are preferred (custom shape)",
                .setup =
                    [](auto&, testing::StorageWorld& s, api::Pod& p) {
                      s.PvcVolume(p, "pvc-a");
                      s.Claim("pvc-a", "wait-sc").Request("50Gi");
                      ZonalVolumes(s);
                    },
                .nodes = {"zone-a-node-a", "zone-a-node-b", "zone-b-node-a", "zone-b-node-b",
                          "zone-c-node-a", "zone-c-node-b"},
                .labels = ZonalNodes,
                .capacity_scoring = true,
                .shape = {{0, 0}, {50, 3}, {100, 5}},
                .claims = {0, 1},
                .filter = {Ok(), Ok(), Ok(), Ok(), UU({kBindConflict}), UU({kBindConflict})},
                .scores = {15, 15, 30, 30, 0, 0}});
  return cs;
}

TEST(VolumeBindingTest, KubeTestVolumeBinding) {
  for (const Case& c : Cases()) {
    SCOPED_TRACE(c.name);
    testing::TestWorld w;
    ASSERT_TRUE(w.gates.Set("StorageCapacityScoring", c.capacity_scoring).ok());
    testing::StorageWorld s(w);
    Classes(s);
    api::Pod& pod = w.Pod("pod-a").Obj();
    c.setup(w, s, pod);
    std::deque<api::Node*> nodes;
    for (const auto& n : c.nodes) nodes.push_back(&w.Node(n).Obj());
    if (c.labels) c.labels(w, nodes);
    testing::StorageHandle h(w, s);
    VolumeBindingArgs args;
    args.bind_timeout_seconds = 300;
    args.shape = c.shape;
    args.has_shape = !c.shape.empty();
    auto made = VolumeBinding::New(&args, h);
    ASSERT_TRUE(made.ok()) << made.error().message;
    auto& pl = dynamic_cast<VolumeBinding&>(**made);
    framework::PodInfo& info = w.Info(pod);

    framework::CycleState state;
    framework::PreFilterResult result;
    Status st = pl.PreFilter(state, 0, info, h.snapshot(), &result);
    ExpectStatus(st, c.pre_filter, "PreFilter");
    if (c.pre_filter_nodes.has_value()) {
      ASSERT_TRUE(result.node_names.has_value());
      EXPECT_EQ(result.node_names->size(), c.pre_filter_nodes->size());
      for (const auto& n : *c.pre_filter_nodes) EXPECT_TRUE(result.node_names->contains(w.S(n)));
    } else {
      EXPECT_FALSE(result.node_names.has_value());
    }
    if (!st.ok()) continue;

    volume_binding::PodVolumeClaims claims;
    ASSERT_TRUE(volume_binding::GetPodVolumeClaims(pod, *h.volumes(), &claims).ok());
    EXPECT_EQ(claims.bound.size(), c.claims.first);
    EXPECT_EQ(claims.unbound_delay_binding.size(), c.claims.second);
    EXPECT_TRUE(claims.unbound_immediate.empty());

    std::vector<framework::NodeInfo*> infos;
    for (api::Node* n : nodes) infos.push_back(&w.NodeWith(*n));
    for (size_t i = 0; i < infos.size(); ++i) {
      ExpectStatus(pl.Filter(state, 0, info, *infos[i]), c.filter[i], "Filter " + c.nodes[i]);
    }
    ExpectStatus(pl.PreScore(state, 0, info, {}), c.pre_score, "PreScore");
    if (!c.scores.empty()) {
      for (size_t i = 0; i < infos.size(); ++i) {
        int64_t score = -1;
        EXPECT_TRUE(pl.Score(state, 0, info, *infos[i], &score).ok());
        EXPECT_EQ(score, c.scores[i]) << c.nodes[i];
      }
    }
  }
}

// ---- queueing hints -----------------------------------------------------------------------------

struct HintFixture {
  testing::TestWorld w;
  testing::StorageWorld s{w};
  api::Pod& pod = w.Pod("pod-a").Obj();
  std::unique_ptr<state::VolumeCache> cache;
  // kube's pvcLister of most hint cases: pvc-a (sc-a), pvc-b (sc-b).
  void TwoClaims(std::string_view class_b = "sc-b") {
    s.Claim("pvc-a", "sc-a");
    s.Claim("pvc-b", class_b);
  }
  state::VolumeCache& Cache() {
    if (!cache) cache = std::make_unique<state::VolumeCache>(s.objects, w.in);
    return *cache;
  }
  void TwoPvcVolumes() {
    s.PvcVolume(pod, "pvc-a");
    s.PvcVolume(pod, "pvc-b");
  }
  api::StorageClass Sc(std::string_view name,
                       std::initializer_list<std::string_view> hostnames = {}) {
    api::StorageClass sc;
    sc.meta.name = w.S(name);
    if (hostnames.size() > 0) {
      std::vector<Symbol> v;
      for (auto h : hostnames) v.push_back(w.S(h));
      sc.allowed_topologies.push_back({{{w.S("kubernetes.io/hostname"), v}}});
    }
    return sc;
  }
  api::CSIStorageCapacity Cap(std::string_view cls, std::string_view capacity = "",
                              std::string_view max = "") {
    api::CSIStorageCapacity c;
    c.meta.name = w.S("cap-a");
    if (!cls.empty()) c.storage_class_name = w.S(cls);
    if (!capacity.empty()) c.capacity = w.Q(capacity);
    if (!max.empty()) c.maximum_volume_size = w.Q(max);
    return c;
  }
};

TEST(VolumeBindingTest, KubeTestIsSchedulableAfterStorageClassChange) {
  {  // pod has no pvcs
    HintFixture f;
    auto sc = f.Sc("sc-a");
    EXPECT_EQ(VolumeBinding::HintAfterStorageClassChange(f.pod, &sc, sc, f.Cache()),
              QueueingHint::kQueueSkip);
  }
  {  // pod has no pvc or ephemeral volumes
    HintFixture f;
    f.s.OtherVolume(f.pod, "empty-dir");
    f.TwoClaims();
    auto sc = f.Sc("sc-a");
    EXPECT_EQ(VolumeBinding::HintAfterStorageClassChange(f.pod, &sc, sc, f.Cache()),
              QueueingHint::kQueueSkip);
  }
  {  // pod has pvc volumes with unchanged storage class
    HintFixture f;
    f.TwoPvcVolumes();
    f.TwoClaims();
    auto sc = f.Sc("sc-b");
    EXPECT_EQ(VolumeBinding::HintAfterStorageClassChange(f.pod, &sc, sc, f.Cache()),
              QueueingHint::kQueueSkip);
  }
  {  // pod has pvc that references a newly added storage class
    HintFixture f;
    f.TwoPvcVolumes();
    f.TwoClaims();
    auto sc = f.Sc("sc-b");
    EXPECT_EQ(VolumeBinding::HintAfterStorageClassChange(f.pod, nullptr, sc, f.Cache()),
              QueueingHint::kQueue);
  }
  {  // pod has pvc volumes with changed storage class: AllowedTopologies
    HintFixture f;
    f.TwoPvcVolumes();
    f.TwoClaims();
    auto old_sc = f.Sc("sc-b", {"node1", "node2"});
    auto new_sc = f.Sc("sc-b", {"node1", "node3"});
    EXPECT_EQ(VolumeBinding::HintAfterStorageClassChange(f.pod, &old_sc, new_sc, f.Cache()),
              QueueingHint::kQueue);
  }
  {  // pod has ephemeral volume with unchanged storage class: AllowedTopologies
    HintFixture f;
    f.s.EphemeralVolume(f.pod, "ephemeral-a");
    f.s.Claim("pod-a-ephemeral-a", "sc-a");
    auto old_sc = f.Sc("sc-a", {"node1", "node2"});
    auto new_sc = f.Sc("sc-a", {"node1", "node3"});
    EXPECT_EQ(VolumeBinding::HintAfterStorageClassChange(f.pod, &old_sc, new_sc, f.Cache()),
              QueueingHint::kQueue);
  }
  {  // pod has pvcs but pvc not found (kube: Queue with an error)
    HintFixture f;
    f.TwoPvcVolumes();
    auto old_sc = f.Sc("sc-a", {"node1", "node2"});
    auto new_sc = f.Sc("sc-a");
    EXPECT_EQ(VolumeBinding::HintAfterStorageClassChange(f.pod, &old_sc, new_sc, f.Cache()),
              QueueingHint::kQueue);
  }
  {  // pod has ephemeral volume but pvc not found
    HintFixture f;
    f.s.EphemeralVolume(f.pod, "ephemeral-a");
    auto sc = f.Sc("sc-a");
    EXPECT_EQ(VolumeBinding::HintAfterStorageClassChange(f.pod, &sc, sc, f.Cache()),
              QueueingHint::kQueue);
  }
  {  // pvc does not specify a storage class
    HintFixture f;
    f.TwoPvcVolumes();
    f.TwoClaims("sc-notfound");
    auto sc = f.Sc("sc-a");
    EXPECT_EQ(VolumeBinding::HintAfterStorageClassChange(f.pod, &sc, sc, f.Cache()),
              QueueingHint::kQueueSkip);
  }
}

TEST(VolumeBindingTest, KubeTestIsSchedulableAfterPersistentVolumeClaimChange) {
  auto claim = [](HintFixture& f, std::string_view name, std::string_view cls) {
    api::PersistentVolumeClaim c;
    c.meta.name = f.w.S(name);
    c.meta.namespace_ = api::wk::kDefaultNamespace;
    c.storage_class_name = f.w.S(cls);
    c.has_storage_class = true;
    return c;
  };
  {  // pod has no pvcs
    HintFixture f;
    auto c = claim(f, "pvc-b", "sc-a");
    EXPECT_EQ(VolumeBinding::HintAfterClaimChange(f.pod, nullptr, c, f.w.in),
              QueueingHint::kQueueSkip);
  }
  {  // pod has no pvc or ephemeral volumes
    HintFixture f;
    f.s.OtherVolume(f.pod, "empty-dir");
    auto c = claim(f, "pvc-b", "sc-a");
    EXPECT_EQ(VolumeBinding::HintAfterClaimChange(f.pod, &c, c, f.w.in), QueueingHint::kQueueSkip);
  }
  {  // pod has pvcs with no changes
    HintFixture f;
    f.TwoPvcVolumes();
    auto c = claim(f, "pvc-b", "sc-b");
    EXPECT_EQ(VolumeBinding::HintAfterClaimChange(f.pod, &c, c, f.w.in), QueueingHint::kQueueSkip);
  }
  {  // pod has a newly added pvc
    HintFixture f;
    f.TwoPvcVolumes();
    auto c = claim(f, "pvc-b", "sc-b");
    EXPECT_EQ(VolumeBinding::HintAfterClaimChange(f.pod, nullptr, c, f.w.in), QueueingHint::kQueue);
  }
  {  // pod has pvcs with changed status.phase
    HintFixture f;
    f.TwoPvcVolumes();
    auto o = claim(f, "pvc-a", "sc-b");
    auto n = o;
    n.phase = api::ClaimPhase::kBound;
    EXPECT_EQ(VolumeBinding::HintAfterClaimChange(f.pod, &o, n, f.w.in), QueueingHint::kQueue);
  }
  {  // pod has ephemeral volume with changed status.phase
    HintFixture f;
    f.s.EphemeralVolume(f.pod, "ephemeral-a");
    auto o = claim(f, "pod-a-ephemeral-a", "sc-a");
    auto n = o;
    n.phase = api::ClaimPhase::kBound;
    EXPECT_EQ(VolumeBinding::HintAfterClaimChange(f.pod, &o, n, f.w.in), QueueingHint::kQueue);
  }
  for (bool ephemeral : {false, true}) {
    // pod has pvcs / ephemeral volume with changed annotations
    HintFixture f;
    if (ephemeral) {
      f.s.EphemeralVolume(f.pod, "ephemeral-a");
    } else {
      f.TwoPvcVolumes();
    }
    auto o = claim(f, ephemeral ? "pod-a-ephemeral-a" : "pvc-b", "sc-a");
    auto n = o;
    o.meta.annotations.emplace_back(f.w.S("volume.beta.kubernetes.io/sample-ann"), "sample-value1");
    n.meta.annotations.emplace_back(f.w.S("volume.beta.kubernetes.io/sample-ann"), "sample-value2");
    EXPECT_EQ(VolumeBinding::HintAfterClaimChange(f.pod, &o, n, f.w.in), QueueingHint::kQueue);
    // ... with changed spec (access modes ReadWriteOnce -> ReadWriteOncePod)
    auto so = claim(f, ephemeral ? "pod-a-ephemeral-a" : "pvc-b", "sc-a");
    auto sn = so;
    so.access_modes = api::kReadWriteOnce;
    sn.access_modes = api::kReadWriteOncePod;
    EXPECT_EQ(VolumeBinding::HintAfterClaimChange(f.pod, &so, sn, f.w.in), QueueingHint::kQueue);
  }
}

TEST(VolumeBindingTest, KubeTestIsSchedulableAfterPersistentVolumeChange) {
  HintFixture none;  // pod has no pvs
  EXPECT_EQ(VolumeBinding::HintAfterVolumeChange(none.pod), QueueingHint::kQueueSkip);
  // pod has pvs with no changes / a newly added pv / pvs with changed fields
  HintFixture f;
  f.s.OtherVolume(f.pod, "pv-a");
  f.s.OtherVolume(f.pod, "pv-b");
  EXPECT_EQ(VolumeBinding::HintAfterVolumeChange(f.pod), QueueingHint::kQueue);
}

TEST(VolumeBindingTest, KubeTestIsSchedulableAfterCSIStorageCapacityChange) {
  {  // pod has no pvcs
    HintFixture f;
    auto c = f.Cap("sc-a");
    EXPECT_EQ(VolumeBinding::HintAfterCapacityChange(f.pod, &c, c, f.Cache()),
              QueueingHint::kQueueSkip);
  }
  {  // pod has no pvc or ephemeral volumes
    HintFixture f;
    f.s.OtherVolume(f.pod, "empty-dir");
    auto c = f.Cap("sc-a");
    EXPECT_EQ(VolumeBinding::HintAfterCapacityChange(f.pod, &c, c, f.Cache()),
              QueueingHint::kQueueSkip);
  }
  {  // pod has pvcs with no CSIStorageCapacity changes
    HintFixture f;
    f.TwoPvcVolumes();
    f.TwoClaims();
    auto c = f.Cap("sc-b");
    EXPECT_EQ(VolumeBinding::HintAfterCapacityChange(f.pod, &c, c, f.Cache()),
              QueueingHint::kQueueSkip);
  }
  {  // pod has pvc that references a newly added CSIStorageCapacity
    HintFixture f;
    f.TwoPvcVolumes();
    f.TwoClaims();
    auto c = f.Cap("sc-b");
    EXPECT_EQ(VolumeBinding::HintAfterCapacityChange(f.pod, nullptr, c, f.Cache()),
              QueueingHint::kQueue);
  }
  {  // pod has ephemeral volume with changed CSIStorageCapacity.Capacity
    HintFixture f;
    f.s.EphemeralVolume(f.pod, "ephemeral-a");
    f.s.Claim("pod-a-ephemeral-a", "sc-a");
    auto o = f.Cap("sc-a", "1Gi");
    auto n = f.Cap("sc-a", "2Gi");
    EXPECT_EQ(VolumeBinding::HintAfterCapacityChange(f.pod, &o, n, f.Cache()),
              QueueingHint::kQueue);
  }
  {  // pod has pvcs with changed CSIStorageCapacity.MaximumVolumeSize
    HintFixture f;
    f.TwoPvcVolumes();
    f.TwoClaims();
    auto o = f.Cap("sc-b", "", "1Gi");
    auto n = f.Cap("sc-b", "", "2Gi");
    EXPECT_EQ(VolumeBinding::HintAfterCapacityChange(f.pod, &o, n, f.Cache()),
              QueueingHint::kQueue);
  }
  {  // pod has ephemeral volume with changed CSIStorageCapacity.MaximumVolumeSize
    HintFixture f;
    f.s.EphemeralVolume(f.pod, "ephemeral-a");
    f.s.Claim("pod-a-ephemeral-a", "sc-a");
    auto o = f.Cap("sc-a", "", "1Gi");
    auto n = f.Cap("sc-a", "", "2Gi");
    EXPECT_EQ(VolumeBinding::HintAfterCapacityChange(f.pod, &o, n, f.Cache()),
              QueueingHint::kQueue);
  }
  {  // pod has pvcs but pvc not found
    HintFixture f;
    f.TwoPvcVolumes();
    auto c = f.Cap("");
    EXPECT_EQ(VolumeBinding::HintAfterCapacityChange(f.pod, &c, c, f.Cache()),
              QueueingHint::kQueue);
  }
  {  // pod has ephemeral volume but pvc not found
    HintFixture f;
    f.s.EphemeralVolume(f.pod, "ephemeral-a");
    auto c = f.Cap("");
    EXPECT_EQ(VolumeBinding::HintAfterCapacityChange(f.pod, &c, c, f.Cache()),
              QueueingHint::kQueue);
  }
  {  // pvc does not specify a storage class
    HintFixture f;
    f.TwoPvcVolumes();
    f.TwoClaims("sc-notfound");
    auto c = f.Cap("");
    EXPECT_EQ(VolumeBinding::HintAfterCapacityChange(f.pod, &c, c, f.Cache()),
              QueueingHint::kQueueSkip);
  }
}

// Corral's Reserve/Unreserve/PreBind against the VolumeCache: a volume reserved for one pod is not
// offered to another, Unreserve gives it back, PreBind binds it (kube's AssumePodVolumes,
// RevertAssumedPodVolumes and BindPodVolumes, completed at once).
TEST(VolumeBindingTest, ReserveUnreservePreBind) {
  testing::TestWorld w;
  testing::StorageWorld s(w);
  Classes(s);
  api::Pod& a = w.Pod("a").Obj();
  api::Pod& b = w.Pod("b").Obj();
  s.PvcVolume(a, "claim-a");
  s.PvcVolume(b, "claim-b");
  s.Claim("claim-a", "wait-sc").Request("5Gi");
  s.Claim("claim-b", "wait-sc").Request("5Gi");
  s.Volume("pv-1", "wait-sc").Phase(PersistentVolumePhase::kAvailable).Capacity("10Gi");
  api::Node& n = w.Node("node-a").Obj();
  testing::StorageHandle h(w, s);
  ASSERT_TRUE(w.gates.Set("StorageCapacityScoring", false).ok());
  auto made = VolumeBinding::New(nullptr, h);
  ASSERT_TRUE(made.ok());
  auto& pl = dynamic_cast<VolumeBinding&>(**made);
  framework::NodeInfo& node = w.NodeWith(n);
  auto filter = [&](api::Pod& p, framework::CycleState& st) {
    framework::PodInfo& info = w.Info(p);
    EXPECT_TRUE(pl.PreFilter(st, 0, info, h.snapshot(), nullptr).ok());
    return pl.Filter(st, 0, info, node);
  };
  framework::CycleState sa, sb, sb2;
  ASSERT_TRUE(filter(a, sa).ok());
  ASSERT_TRUE(pl.Reserve(sa, w.Info(a), n.meta.name).ok());
  ExpectStatus(filter(b, sb), UU({kBindConflict}), "b while pv-1 is reserved for a");
  pl.Unreserve(sa, w.Info(a), n.meta.name);
  EXPECT_TRUE(filter(b, sb2).ok());
  // a takes it for good.
  framework::CycleState sa2;
  ASSERT_TRUE(filter(a, sa2).ok());
  ASSERT_TRUE(pl.Reserve(sa2, w.Info(a), n.meta.name).ok());
  ASSERT_TRUE(pl.PreBind(sa2, w.Info(a), n.meta.name).ok());
  const state::VolumeCache& c = *h.volumes();
  const api::PersistentVolumeClaim* claim = c.GetClaim(api::wk::kDefaultNamespace, w.S("claim-a"));
  EXPECT_EQ(w.in.Str(claim->volume_name), "pv-1");
  EXPECT_TRUE(volume_binding::IsClaimFullyBound(*claim, c));
  EXPECT_EQ(c.GetVolume(w.S("pv-1"))->phase, PersistentVolumePhase::kBound);
  framework::CycleState sb3;
  ExpectStatus(filter(b, sb3), UU({kBindConflict}), "b after a's PreBind");
}

// PreBind of a dynamic provisioning creates the volume with the node's zone from its CSINode.
TEST(VolumeBindingTest, PreBindProvisions) {
  testing::TestWorld w;
  testing::StorageWorld s(w);
  s.Class("fast", VolumeBindingMode::kWaitForFirstConsumer, "ebs.csi.aws.com");
  api::Pod& p = w.Pod("p").Obj();
  s.PvcVolume(p, "data");
  s.Claim("data", "fast").Request("5Gi").Uid("u-1");
  auto& csi = s.CSINode("node-a");
  csi.drivers.push_back(
      {w.S("ebs.csi.aws.com"), w.S("i-1"), {w.S("topology.kubernetes.io/zone")}, std::nullopt});
  api::Node& n = w.Node("node-a").Label("topology.kubernetes.io/zone", "z1").Obj();
  testing::StorageHandle h(w, s);
  framework::NodeInfo& node = w.NodeWith(n);
  h.SetNodes({&node});
  auto made = VolumeBinding::New(nullptr, h);
  ASSERT_TRUE(made.ok());
  auto& pl = dynamic_cast<VolumeBinding&>(**made);
  framework::PodInfo& info = w.Info(p);
  framework::CycleState st;
  ASSERT_TRUE(pl.PreFilter(st, 0, info, h.snapshot(), nullptr).ok());
  ASSERT_TRUE(pl.Filter(st, 0, info, node).ok());
  ASSERT_TRUE(pl.Reserve(st, info, n.meta.name).ok());
  const state::VolumeCache& c = *h.volumes();
  const std::string* selected = c.Annotation(
      c.GetClaim(api::wk::kDefaultNamespace, w.S("data"))->meta, api::kAnnSelectedNode);
  ASSERT_NE(selected, nullptr);
  EXPECT_EQ(*selected, "node-a");
  ASSERT_TRUE(pl.PreBind(st, info, n.meta.name).ok());
  const api::PersistentVolume* pv = c.GetVolume(w.S("pvc-u-1"));
  ASSERT_NE(pv, nullptr);
  EXPECT_EQ(pv->capacity.Value(), int64_t{5} << 30);
  ASSERT_TRUE(pv->node_affinity.has_value());
  EXPECT_TRUE(volume_binding::VolumeNodeAffinityMatches(*pv, n.meta.labels, w.in));
  api::Node& other = w.Node("node-b").Label("topology.kubernetes.io/zone", "z2").Obj();
  EXPECT_FALSE(volume_binding::VolumeNodeAffinityMatches(*pv, other.meta.labels, w.in));
  EXPECT_TRUE(volume_binding::ArePodVolumesBound(p, c));
}

TEST(VolumeBindingTest, Args) {
  testing::TestWorld w;
  testing::FakeHandle h(w);
  VolumeBindingArgs args;
  EXPECT_TRUE(VolumeBinding::New(&args, h).ok());
  args.bind_timeout_seconds = -1;
  auto made = VolumeBinding::New(&args, h);
  ASSERT_FALSE(made.ok());
  EXPECT_EQ(made.error().message,
            "bindTimeoutSeconds: Invalid value: -1: invalid BindTimeoutSeconds, should not be a "
            "negative value");
  EXPECT_EQ(args.Validate("profiles[0].pluginConfig[1].args").error().message,
            "profiles[0].pluginConfig[1].args.bindTimeoutSeconds: Invalid value: -1: invalid "
            "BindTimeoutSeconds, should not be a negative value");
  args.bind_timeout_seconds = 600;
  args.has_shape = true;
  args.shape = {{50, 3}, {10, 11}};
  EXPECT_EQ(args.Validate().error().message,
            "[shape[1].utilization: Invalid value: 10: values must be sorted in increasing order, "
            "shape[1].score: Invalid value: 11: not in valid range [0, 10]]");
  args.shape.clear();
  EXPECT_EQ(args.Validate().error().message,
            "shape: Required value: at least one point must be specified");
  framework::PluginArgs foreign;
  auto bad = VolumeBinding::New(&foreign, h);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().message, "args are not of type VolumeBindingArgs");
}

}  // namespace
}  // namespace corral::plugins
