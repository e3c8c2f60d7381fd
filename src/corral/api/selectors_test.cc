#include "corral/api/selectors.h"

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

namespace corral::api {
namespace {

class SelectorsTest : public ::testing::Test {
 protected:
  Symbol S(std::string_view s) { return in_.Intern(s); }
  std::vector<Symbol> Values(std::initializer_list<std::string_view> vs) {
    std::vector<Symbol> out;
    for (std::string_view v : vs) out.push_back(S(v));
    return out;
  }
  LabelSet Labels(std::initializer_list<std::pair<std::string_view, std::string_view>> kvs) {
    std::vector<std::pair<Symbol, Symbol>> pairs;
    for (const auto& [k, v] : kvs) pairs.emplace_back(S(k), S(v));
    return LabelSet(std::move(pairs));
  }
  LabelSelectorRequirement Req(std::string_view key, LabelSelectorOp op,
                               std::initializer_list<std::string_view> values = {}) {
    return {S(key), op, Values(values)};
  }
  NodeSelectorRequirement NodeReq(std::string_view key, NodeSelectorOp op,
                                  std::initializer_list<std::string_view> values = {}) {
    return {S(key), op, Values(values)};
  }

  Interner in_;
};

// ---- label selectors (kube labels.Requirement.Matches and metav1 LabelSelectorAsSelector) ----

TEST_F(SelectorsTest, LabelSelectorMatchesLikeMetav1) {
  const LabelSet labels = Labels({{"app", "web"}, {"tier", "fe"}, {"env", "prod"}});
  using Op = LabelSelectorOp;
  struct Case {
    std::string name;
    LabelSelector selector;
    bool want;
  };
  const Case cases[] = {
      {"empty selector matches everything", {}, true},
      {"matchLabels subset", {Labels({{"app", "web"}}), {}}, true},
      {"matchLabels all pairs",
       {Labels({{"app", "web"}, {"tier", "fe"}, {"env", "prod"}}), {}},
       true},
      {"matchLabels wrong value", {Labels({{"app", "db"}}), {}}, false},
      {"matchLabels missing key", {Labels({{"zone", "a"}}), {}}, false},
      {"In listed", {{}, {Req("app", Op::kIn, {"db", "web"})}}, true},
      {"In not listed", {{}, {Req("app", Op::kIn, {"db"})}}, false},
      {"In missing key", {{}, {Req("zone", Op::kIn, {"a"})}}, false},
      {"NotIn not listed", {{}, {Req("app", Op::kNotIn, {"db"})}}, true},
      {"NotIn listed", {{}, {Req("app", Op::kNotIn, {"db", "web"})}}, false},
      {"NotIn missing key matches", {{}, {Req("zone", Op::kNotIn, {"a"})}}, true},
      {"Exists", {{}, {Req("tier", Op::kExists)}}, true},
      {"Exists missing", {{}, {Req("zone", Op::kExists)}}, false},
      {"DoesNotExist missing", {{}, {Req("zone", Op::kDoesNotExist)}}, true},
      {"DoesNotExist present", {{}, {Req("app", Op::kDoesNotExist)}}, false},
      {"labels AND expressions, both hold",
       {Labels({{"app", "web"}}), {Req("env", Op::kIn, {"prod"}), Req("zone", Op::kDoesNotExist)}},
       true},
      {"labels AND expressions, label fails",
       {Labels({{"app", "db"}}), {Req("env", Op::kIn, {"prod"})}},
       false},
      {"labels AND expressions, second expression fails",
       {Labels({{"app", "web"}}), {Req("env", Op::kIn, {"prod"}), Req("tier", Op::kNotIn, {"fe"})}},
       false},
      {"In without values (rejected by the loader) matches nothing",
       {{}, {Req("app", Op::kIn)}},
       false},
  };
  for (const Case& tc : cases) {
    SCOPED_TRACE(tc.name);
    EXPECT_EQ(Matches(tc.selector, labels), tc.want);
  }
  // An empty label set: only absence-based requirements match.
  EXPECT_TRUE(Matches(LabelSelector{}, LabelSet()));
  EXPECT_TRUE(Matches(LabelSelector{{}, {Req("app", Op::kNotIn, {"web"})}}, LabelSet()));
  EXPECT_FALSE(Matches(LabelSelector{{}, {Req("app", Op::kExists)}}, LabelSet()));
}

TEST_F(SelectorsTest, NodeSelectorMapIsSubsetMatch) {
  // kube TestPodMatchesNodeSelectorAndAffinityTerms, nodeSelector cases.
  EXPECT_TRUE(MatchesLabels(LabelSet(), LabelSet()));                              // no selector
  EXPECT_FALSE(MatchesLabels(Labels({{"foo", "bar"}}), LabelSet()));               // missing labels
  EXPECT_TRUE(MatchesLabels(Labels({{"foo", "bar"}}), Labels({{"foo", "bar"}})));  // same labels
  EXPECT_TRUE(MatchesLabels(Labels({{"foo", "bar"}}),                              // superset
                            Labels({{"foo", "bar"}, {"baz", "blah"}})));
  EXPECT_FALSE(MatchesLabels(Labels({{"foo", "bar"}, {"baz", "blah"}}),  // subset
                             Labels({{"foo", "bar"}})));
}

// ---- node selector requirements (kube labels Gt/Lt and nodeaffinity) ----

TEST_F(SelectorsTest, NodeSelectorRequirementMatchesLikeKube) {
  const LabelSet node = Labels({{"foo", "bar"},
                                {"kernel-version", "0206"},
                                {"mem-type", "DDR3"},
                                {"GPU", "NVIDIA-GRID-K1"},
                                {"num", "10"},
                                {"neg", "-3"},
                                {"bad", "abc"}});
  using Op = NodeSelectorOp;
  struct Case {
    std::string name;
    NodeSelectorRequirement req;
    bool want;
  };
  const Case cases[] = {
      {"In matches", NodeReq("foo", Op::kIn, {"bar", "value2"}), true},
      {"In does not match", NodeReq("foo", Op::kIn, {"value1", "value2"}), false},
      {"NotIn matches", NodeReq("mem-type", Op::kNotIn, {"DDR", "DDR2"}), true},
      {"NotIn missing key", NodeReq("zone", Op::kNotIn, {"a"}), true},
      {"Exists", NodeReq("GPU", Op::kExists), true},
      {"DoesNotExist", NodeReq("GPU", Op::kDoesNotExist), false},
      {"Gt with leading zeros: 206 > 204", NodeReq("kernel-version", Op::kGt, {"0204"}), true},
      {"Lt with leading zeros: 206 < 204 is false", NodeReq("kernel-version", Op::kLt, {"0204"}),
       false},
      {"Gt: 10 > 9", NodeReq("num", Op::kGt, {"9"}), true},
      {"Gt: 10 > 10 is false", NodeReq("num", Op::kGt, {"10"}), false},
      {"Lt: 10 < 11", NodeReq("num", Op::kLt, {"11"}), true},
      {"Gt: 10 > +9 (Go accepts a plus sign)", NodeReq("num", Op::kGt, {"+9"}), true},
      {"Gt negative label: -3 > -5", NodeReq("neg", Op::kGt, {"-5"}), true},
      {"Lt: 10 < max int64", NodeReq("num", Op::kLt, {"9223372036854775807"}), true},
      {"Gt on a missing label", NodeReq("zone", Op::kGt, {"1"}), false},
      {"Gt on an unparsable label", NodeReq("bad", Op::kGt, {"1"}), false},
      {"Lt on an unparsable label", NodeReq("bad", Op::kLt, {"1"}), false},
      // Structural errors: kube's NewRequirement fails, so the requirement never matches.
      {"Gt with an unparsable value", NodeReq("num", Op::kGt, {"abc"}), false},
      {"Gt with a value beyond int64", NodeReq("num", Op::kGt, {"9223372036854775808"}), false},
      {"Gt with a decimal value", NodeReq("num", Op::kGt, {"1.5"}), false},
      {"Gt with two values", NodeReq("num", Op::kGt, {"1", "2"}), false},
      {"Lt without values", NodeReq("num", Op::kLt), false},
      {"Exists with values", NodeReq("GPU", Op::kExists, {"x"}), false},
      {"DoesNotExist with values", NodeReq("zone", Op::kDoesNotExist, {"x"}), false},
      {"In without values", NodeReq("foo", Op::kIn), false},
      {"NotIn without values", NodeReq("zone", Op::kNotIn), false},
  };
  for (const Case& tc : cases) {
    SCOPED_TRACE(tc.name);
    EXPECT_EQ(Matches(tc.req, node, in_), tc.want);
  }
}

TEST_F(SelectorsTest, NodeSelectorTermsMatchLikeNodeAffinity) {
  using Op = NodeSelectorOp;
  const LabelSet labeled = Labels({{"label_1", "label_1_val"}});
  const Symbol host1 = S("host_1");
  struct Case {
    std::string name;
    NodeSelectorTerm term;
    LabelSet labels;
    Symbol node_name;
    bool want;
  };
  const Case cases[] = {
      {"empty term matches nothing", {}, labeled, host1, false},
      {"field In", {{}, {NodeReq("metadata.name", Op::kIn, {"host_1"})}}, {}, host1, true},
      {"field In other node",
       {{}, {NodeReq("metadata.name", Op::kIn, {"host_2"})}},
       {},
       host1,
       false},
      {"field NotIn", {{}, {NodeReq("metadata.name", Op::kNotIn, {"host_2"})}}, {}, host1, true},
      {"field NotIn self",
       {{}, {NodeReq("metadata.name", Op::kNotIn, {"host_1"})}},
       {},
       host1,
       false},
      {"field In with two values cannot parse",
       {{}, {NodeReq("metadata.name", Op::kIn, {"host_1", "host_2"})}},
       {},
       host1,
       false},
      {"field Exists cannot parse",
       {{}, {NodeReq("metadata.name", Op::kExists)}},
       {},
       host1,
       false},
      {"field other than metadata.name reads empty",
       {{}, {NodeReq("metadata.uid", Op::kIn, {""})}},
       {},
       host1,
       true},
      {"field other than metadata.name, NotIn",
       {{}, {NodeReq("metadata.uid", Op::kNotIn, {"x"})}},
       {},
       host1,
       true},
      {"node without a name skips fields",
       {{}, {NodeReq("metadata.name", Op::kIn, {"host_2"})}},
       {},
       Symbol(),
       true},
      {"node without a name still rejects a bad field",
       {{}, {NodeReq("metadata.name", Op::kIn, {"a", "b"})}},
       {},
       Symbol(),
       false},
      {"node matches field selector, but not labels",
       {{NodeReq("label_1", Op::kIn, {"label_1_val"})},
        {NodeReq("metadata.name", Op::kIn, {"host_1"})}},
       {},
       host1,
       false},
      {"node matches field selector and label selector",
       {{NodeReq("label_1", Op::kIn, {"label_1_val"})},
        {NodeReq("metadata.name", Op::kIn, {"host_1"})}},
       labeled,
       host1,
       true},
      {"labels match but a field does not",
       {{NodeReq("label_1", Op::kIn, {"label_1_val"})},
        {NodeReq("metadata.name", Op::kIn, {"host_2"})}},
       labeled,
       host1,
       false},
      {"expressions are ANDed",
       {{NodeReq("label_1", Op::kExists), NodeReq("label_2", Op::kExists)}, {}},
       labeled,
       host1,
       false},
      {"a malformed expression spoils a matching term",
       {{NodeReq("label_1", Op::kExists), NodeReq("label_2", Op::kNotIn)}, {}},
       labeled,
       host1,
       false},
  };
  for (const Case& tc : cases) {
    SCOPED_TRACE(tc.name);
    EXPECT_EQ(MatchesNodeSelectorTerm(tc.term, tc.labels, tc.node_name, in_), tc.want);
  }
}

TEST_F(SelectorsTest, NodeSelectorTermsAreOred) {
  using Op = NodeSelectorOp;
  const Symbol host1 = S("host_1");
  const NodeSelectorTerm label_term{{NodeReq("label_1", Op::kIn, {"label_1_val"})}, {}};
  const NodeSelectorTerm field_term{{}, {NodeReq("metadata.name", Op::kIn, {"host_1"})}};
  const NodeSelectorTerm bad_term{{}, {NodeReq("metadata.name", Op::kIn, {"host_1", "host_2"})}};
  EXPECT_FALSE(MatchesNodeSelector(NodeSelector{}, LabelSet(), host1, in_));  // zero terms
  EXPECT_FALSE(MatchesNodeSelector(NodeSelector{{NodeSelectorTerm{}, NodeSelectorTerm{}}},
                                   LabelSet(), host1, in_));  // only empty terms
  // kube "second term matches".
  EXPECT_TRUE(MatchesNodeSelector(NodeSelector{{label_term, field_term}}, LabelSet(), host1, in_));
  // A term kube cannot parse is skipped; a later term can still match (LazyErrorNodeSelector).
  EXPECT_TRUE(MatchesNodeSelector(NodeSelector{{bad_term, field_term}}, LabelSet(), host1, in_));
  EXPECT_FALSE(MatchesNodeSelector(NodeSelector{{bad_term, label_term}}, LabelSet(), host1, in_));
}

// ---- taints and tolerations (kube TestTolerationToleratesTaint, TestFindMatchingUntoleratedTaint)

TEST_F(SelectorsTest, ToleratesTaintLikeKube) {
  using E = TaintEffect;
  using Op = TolerationOp;
  const Symbol foo = S("foo"), bar = S("bar"), baz = S("baz"), none;
  struct Case {
    std::string name;
    Toleration toleration;
    Taint taint;
    bool want;
  };
  const Case cases[] = {
      {"same key and effect, Exists, taint without value",
       {foo, Op::kExists, none, E::kNoSchedule},
       {foo, none, E::kNoSchedule},
       true},
      {"same key and effect, Exists, taint with a value",
       {foo, Op::kExists, none, E::kNoSchedule},
       {foo, bar, E::kNoSchedule},
       true},
      {"same effect, empty key with Exists",
       {none, Op::kExists, none, E::kNoSchedule},
       {foo, bar, E::kNoSchedule},
       true},
      {"same key, effect and value, Equal",
       {foo, Op::kEqual, bar, E::kNoSchedule},
       {foo, bar, E::kNoSchedule},
       true},
      {"same key and effect, different value, Equal",
       {foo, Op::kEqual, baz, E::kNoSchedule},
       {foo, bar, E::kNoSchedule},
       false},
      {"same key and value, different effect",
       {foo, Op::kEqual, bar, E::kNoSchedule},
       {foo, bar, E::kNoExecute},
       false},
      {"different key", {baz, Op::kExists, none, E::kNone}, {foo, bar, E::kNoSchedule}, false},
      {"empty effect matches every effect",
       {foo, Op::kExists, none, E::kNone},
       {foo, bar, E::kPreferNoSchedule},
       true},
      {"empty toleration (key empty, Exists, any effect) tolerates everything",
       {none, Op::kExists, none, E::kNone},
       {foo, bar, E::kNoExecute},
       true},
      {"Equal with an empty value tolerates a taint without value",
       {foo, Op::kEqual, none, E::kNone},
       {foo, none, E::kNoSchedule},
       true},
      {"Equal with an empty value against a valued taint",
       {foo, Op::kEqual, none, E::kNone},
       {foo, bar, E::kNoSchedule},
       false},
      {"empty key with Equal compares values only (kube quirk)",
       {none, Op::kEqual, bar, E::kNone},
       {foo, bar, E::kNoSchedule},
       true},
  };
  for (const Case& tc : cases) {
    SCOPED_TRACE(tc.name);
    EXPECT_EQ(Tolerates(tc.toleration, tc.taint), tc.want);
  }
}

TEST_F(SelectorsTest, FindUntoleratedTaintHonoursTheEffectFilter) {
  using E = TaintEffect;
  using Op = TolerationOp;
  const Symbol a = S("a"), b = S("b"), c = S("c"), v = S("v");
  const std::vector<Taint> taints = {
      {a, v, E::kPreferNoSchedule},
      {b, v, E::kNoSchedule},
      {c, v, E::kNoExecute},
  };
  const Toleration tolerate_b{b, Op::kEqual, v, E::kNoSchedule};
  const Toleration tolerate_c{c, Op::kExists, Symbol(), E::kNone};
  const Toleration tolerate_all{Symbol(), Op::kExists, Symbol(), E::kNone};
  struct Case {
    std::string name;
    std::vector<Toleration> tolerations;
    TaintEffectSet filter;
    const Taint* want;
  };
  const Case cases[] = {
      {"no tolerations: first NoSchedule/NoExecute taint", {}, kDoNotScheduleTaints, &taints[1]},
      {"b tolerated: c is next", {tolerate_b}, kDoNotScheduleTaints, &taints[2]},
      {"b and c tolerated; PreferNoSchedule is filtered out",
       {tolerate_b, tolerate_c},
       kDoNotScheduleTaints,
       nullptr},
      {"all effects: the PreferNoSchedule taint counts",
       {tolerate_b, tolerate_c},
       TaintEffectSet::All(),
       &taints[0]},
      {"PreferNoSchedule only", {}, TaintEffectSet{E::kPreferNoSchedule}, &taints[0]},
      {"tolerate everything", {tolerate_all}, TaintEffectSet::All(), nullptr},
      {"empty filter selects no taint", {}, TaintEffectSet{}, nullptr},
  };
  for (const Case& tc : cases) {
    SCOPED_TRACE(tc.name);
    EXPECT_EQ(FindUntoleratedTaint(taints, tc.tolerations, tc.filter), tc.want);
  }
  EXPECT_EQ(FindUntoleratedTaint({}, {}, TaintEffectSet::All()), nullptr);  // no taints
  EXPECT_TRUE(TolerationsTolerateTaint(std::vector<Toleration>{tolerate_b, tolerate_c}, taints[2]));
  EXPECT_FALSE(TolerationsTolerateTaint({}, taints[2]));
}

// ---- resource names (kube v1helper tests and validation's TestValidateResourceNames) ----

TEST(ResourceNamesTest, ClassifiesLikeV1Helper) {
  const std::string name63 = "example.com/" + std::string(63, 'a');
  const std::string name64 = "example.com/" + std::string(64, 'a');
  const std::string prefix244 = std::string(244, 'a') + "/gpu";  // 244 + 9 ("requests.") = 253
  const std::string prefix245 = std::string(245, 'a') + "/gpu";
  struct Case {
    std::string name;
    bool native, prefixed_native, extended, hugepages, attachable, scalar, overcommit;
  };
  const Case cases[] = {
      // name                              nat    pnat   ext    huge   att    scal   over
      {"cpu", true, false, false, false, false, false, true},
      {"memory", true, false, false, false, false, false, true},
      {"pods", true, false, false, false, false, false, true},
      {"hugepages-2Mi", true, false, false, true, false, true, false},
      {"kubernetes.io/foo", true, true, false, false, false, true, true},
      {"foo.kubernetes.io/bar", true, true, false, false, false, true, true},
      {"attachable-volumes-aws-ebs", true, false, false, false, true, true, true},
      {"example.com/gpu", false, false, true, false, false, true, false},
      {"nvidia.com/gpu", false, false, true, false, false, true, false},
      {"example.com/Gpu_1.x", false, false, true, false, false, true, false},
      {"requests.example.com/gpu", false, false, false, false, false, false, false},
      {"Example.com/gpu", false, false, false, false, false, false, false},
      {"example.com/gpu_", false, false, false, false, false, false, false},
      {"example.com/", false, false, false, false, false, false, false},
      {"/gpu", false, false, false, false, false, false, false},
      {"a/b/c", false, false, false, false, false, false, false},
      {name63, false, false, true, false, false, true, false},
      {name64, false, false, false, false, false, false, false},
      {prefix244, false, false, true, false, false, true, false},
      {prefix245, false, false, false, false, false, false, false},
  };
  for (const Case& tc : cases) {
    SCOPED_TRACE(tc.name);
    EXPECT_EQ(IsNativeResource(tc.name), tc.native);
    EXPECT_EQ(IsPrefixedNativeResource(tc.name), tc.prefixed_native);
    EXPECT_EQ(IsExtendedResourceName(tc.name), tc.extended);
    EXPECT_EQ(IsHugePageResourceName(tc.name), tc.hugepages);
    EXPECT_EQ(IsAttachableVolumeResourceName(tc.name), tc.attachable);
    EXPECT_EQ(IsScalarResourceName(tc.name), tc.scalar);
    EXPECT_EQ(IsOvercommitAllowed(tc.name), tc.overcommit);
  }
}

TEST(ResourceNamesTest, ValidatesLikeTheApiServer) {
  constexpr std::string_view kOk;
  constexpr std::string_view kNotStandard = "must be a standard resource type or fully qualified";
  constexpr std::string_view kNotContainer = "must be a standard resource for containers";
  constexpr std::string_view kNotExtended = "doesn't follow extended resource name standard";
  struct Case {
    std::string_view name;
    std::string_view want_resource;   // ValidateResourceName error, empty when valid
    std::string_view want_container;  // ValidateContainerResourceName error, empty when valid
  };
  const std::string both = std::string(kNotStandard) + "; " + std::string(kNotContainer);
  const Case cases[] = {
      {"cpu", kOk, kOk},
      {"memory", kOk, kOk},
      {"ephemeral-storage", kOk, kOk},
      {"hugepages-2Mi", kOk, kOk},
      {"example.com/gpu", kOk, kOk},
      {"kubernetes.io/foo", kOk, kOk},  // native: no extended-name check
      {"pods", kOk, kNotContainer},
      {"requests.cpu", kOk, kNotContainer},
      {"requests.hugepages-2Mi", kOk, kNotContainer},
      {"requests.example.com/gpu", kOk, kNotExtended},
      {"foo", kNotStandard, both},
      {"attachable-volumes-aws-ebs", kNotStandard, both},
  };
  for (const Case& tc : cases) {
    SCOPED_TRACE(tc.name);
    const Result<void> resource = ValidateResourceName(tc.name);
    EXPECT_EQ(resource.ok() ? "" : resource.error().message, tc.want_resource);
    const Result<void> container = ValidateContainerResourceName(tc.name);
    EXPECT_EQ(container.ok() ? "" : container.error().message, tc.want_container);
  }
  // Qualified-name errors carry kube's messages.
  EXPECT_EQ(ValidateResourceName("example.com/").error().message,
            "name part must be non-empty; name part must consist of alphanumeric characters, '-', "
            "'_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or "
            "'my.name',  or '123-abc', regex used for validation is "
            "'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')");
  EXPECT_EQ(ValidateResourceName("/gpu").error().message, "prefix part must be non-empty");
  EXPECT_TRUE(ValidateResourceName("Example.com/gpu")
                  .error()
                  .message.starts_with("prefix part a lowercase RFC 1123 subdomain"));
  EXPECT_TRUE(ValidateResourceName("a/b/c").error().message.starts_with("a qualified name must"));
  EXPECT_EQ(ValidateResourceName("example.com/" + std::string(64, 'a')).error().message,
            "name part must be no more than 63 characters");
  EXPECT_EQ(ValidateResourceName("cpu").ok(), true);
  EXPECT_EQ(ValidateContainerResourceName("a/b/c").error().code, ErrorCode::kInvalidInput);
}

TEST(ResourceNamesTest, QualifiedNamesAndLabelValues) {
  struct Case {
    std::string_view value;
    bool qualified, label_value;
  };
  const Case cases[] = {
      {"simple", true, true},
      {"now-with-dashes", true, true},
      {"1-starts-with-num", true, true},
      {"1234", true, true},
      {"simple/simple", true, false},
      {"now-with-dashes/simple", true, false},
      {"example.com/MyName", true, false},
      {"a.b_c-d", true, true},
      {"", false, true},  // the empty label value is valid
      {"-dash-start", false, false},
      {"dash-end-", false, false},
      {"under_end_", false, false},
      {"with space", false, false},
      {"Upper.Case/name", false, false},
      {"a/", false, false},
  };
  for (const Case& tc : cases) {
    SCOPED_TRACE(tc.value);
    EXPECT_EQ(ValidateQualifiedName(tc.value).ok(), tc.qualified);
    EXPECT_EQ(ValidateLabelValue(tc.value).ok(), tc.label_value);
  }
  EXPECT_EQ(ValidateLabelValue(std::string(64, 'a')).error().message,
            "must be no more than 63 characters");
}

}  // namespace
}  // namespace corral::api
