#include "corral/plugins/common/signers.h"

#include <string>

#include <gtest/gtest.h>

#include "test/testing/builders.h"

namespace corral::plugins::signers {
namespace {

using api::TaintEffect;
using api::TolerationOp;

TEST(SignersTest, JsonStringsEscapeLikeGo) {
  std::string out;
  AppendJsonString(out, "a\"b\\c\n<&>\x01");
  EXPECT_EQ(out, R"("a\"b\\c\n\u003c\u0026\u003e\u0001")");
}

TEST(SignersTest, TolerationsAreSortedByKeyThenValueAndOmitEmptyFields) {
  testing::TestWorld w;
  auto& pod = w.Pod("p")
                  .Toleration("zone", "b", TolerationOp::kEqual, TaintEffect::kNoSchedule)
                  .Toleration("", "", TolerationOp::kExists, TaintEffect::kNone)
                  .Toleration("zone", "a", TolerationOp::kEqual, TaintEffect::kPreferNoSchedule)
                  .Obj();
  pod.tolerations.back().toleration_seconds = 30;
  EXPECT_EQ(
      Tolerations(pod, w.in),
      R"([{"operator":"Exists"},)"
      R"({"key":"zone","operator":"Equal","value":"a","effect":"PreferNoSchedule","tolerationSeconds":30},)"
      R"({"key":"zone","operator":"Equal","value":"b","effect":"NoSchedule"}])");
}

TEST(SignersTest, EqualTolerationSetsSignEqually) {
  testing::TestWorld w;
  auto& a = w.Pod("a")
                .Toleration("x", "1", TolerationOp::kEqual, TaintEffect::kNoSchedule)
                .Toleration("y", "1", TolerationOp::kEqual, TaintEffect::kNoSchedule)
                .Obj();
  auto& b = w.Pod("b")
                .Toleration("y", "1", TolerationOp::kEqual, TaintEffect::kNoSchedule)
                .Toleration("x", "1", TolerationOp::kEqual, TaintEffect::kNoSchedule)
                .Obj();
  EXPECT_EQ(Tolerations(a, w.in), Tolerations(b, w.in));
}

TEST(SignersTest, HostPortsAreSortedDistinctNumbers) {
  testing::TestWorld w;
  auto& pod = w.Pod("p")
                  .HostPort(8080)
                  .HostPort(80, api::Protocol::kUDP)
                  .HostPort(8080, api::Protocol::kTCP, "1.2.3.4")
                  .Obj();
  EXPECT_EQ(HostPorts(pod), "[80,8080]");
  EXPECT_EQ(HostPorts(w.Pod("q").Obj()), "[]");
}

TEST(SignersTest, NodeAffinitySortsValuesAndTerms) {
  testing::TestWorld w;
  auto make = [&](std::vector<std::string> values, bool swap_terms) -> api::Pod& {
    api::Pod& p = w.Pod("p").Obj();
    api::NodeSelectorTerm t1, t2;
    api::NodeSelectorRequirement r{w.S("zone"), api::NodeSelectorOp::kIn, {}};
    for (const auto& v : values) r.values.push_back(w.S(v));
    t1.match_expressions.push_back(r);
    t2.match_fields.push_back({w.S("metadata.name"), api::NodeSelectorOp::kIn, {w.S("n1")}});
    api::NodeAffinity na;
    na.required = api::NodeSelector{};
    if (swap_terms) {
      na.required->node_selector_terms = {t2, t1};
    } else {
      na.required->node_selector_terms = {t1, t2};
    }
    na.preferred.push_back({5, t1});
    p.affinity = api::Affinity{};
    p.affinity->node_affinity = na;
    return p;
  };
  const std::string a = NodeAffinity(make({"b", "a"}, false), w.in);
  const std::string b = NodeAffinity(make({"a", "b"}, true), w.in);
  EXPECT_EQ(a, b);
  EXPECT_EQ(a.substr(0, 13), R"({"Required":[)");
  EXPECT_NE(a.find(R"(values\\\":[\\\"a\\\",\\\"b\\\"])"), std::string::npos) << a;
  EXPECT_EQ(NodeAffinity(w.Pod("none").Obj(), w.in), "null");
}

TEST(SignersTest, NodeSelectorIsAnObjectInKeyOrder) {
  testing::TestWorld w;
  EXPECT_EQ(
      NodeSelector(w.Pod("p").NodeSelector("zone", "a").NodeSelector("disk", "ssd").Obj(), w.in),
      R"({"disk":"ssd","zone":"a"})");
  EXPECT_EQ(NodeSelector(w.Pod("q").Obj(), w.in), "null");
}

TEST(SignersTest, VolumesKeepOnlyClaimsAndEphemeral) {
  testing::TestWorld w;
  auto& pod = w.Pod("p").Obj();
  pod.volumes.push_back({w.S("cfg"), api::VolumeKind::kOther, Symbol()});
  pod.volumes.push_back({w.S("data"), api::VolumeKind::kPersistentVolumeClaim, w.S("claim-1")});
  pod.volumes.push_back({w.S("scratch"), api::VolumeKind::kEphemeral, Symbol()});
  EXPECT_EQ(Volumes(pod, w.in),
            R"(["{\"ephemeral\":{}}","{\"persistentVolumeClaim\":{\"claimName\":\"claim-1\"}}"])");
  EXPECT_EQ(Volumes(w.Pod("q").Obj(), w.in), "[]");
}

}  // namespace
}  // namespace corral::plugins::signers
