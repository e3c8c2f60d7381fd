// The naming and labelling rules of kube's workload controllers (names.h).

#include "corral/sim/controllers/names.h"

#include <set>

#include <gtest/gtest.h>

#include "corral/api/well_known.h"

namespace corral::sim::controllers {
namespace {

TEST(GenerateNameTest, FiveCharactersOfKubesAlphabet) {
  Rng rng(7);
  std::set<std::string> seen;
  for (int i = 0; i < 200; ++i) {
    const std::string n = GenerateName("web-7d4b9c8f5-", rng);
    ASSERT_EQ(n.size(), 14u + 5u);
    EXPECT_EQ(n.substr(0, 14), "web-7d4b9c8f5-");
    for (char c : n.substr(14)) EXPECT_NE(kNameAlphabet.find(c), std::string_view::npos) << n;
    seen.insert(n);
  }
  EXPECT_GT(seen.size(), 190u);  // 27^5 names: collisions are rare
}

TEST(GenerateNameTest, BaseCutTo58Characters) {
  // names.SimpleNameGenerator: a base longer than 58 characters is cut so that the name fits 63.
  Rng rng(1);
  const std::string base(70, 'a');
  const std::string n = GenerateName(base, rng);
  EXPECT_EQ(n.size(), 63u);
  EXPECT_EQ(n.substr(0, 58), std::string(58, 'a'));
}

TEST(GenerateNameTest, SameSeedSameNames) {
  Rng a(42), b(42);
  for (int i = 0; i < 10; ++i) EXPECT_EQ(GenerateName("x-", a), GenerateName("x-", b));
}

TEST(SafeEncodeStringTest, MapsBytesModulo27) {
  // rand.SafeEncodeString: '0' (48) → alphabet[48 % 27 = 21] = '4'; '9' (57) → alphabet[3] = 'f'.
  EXPECT_EQ(SafeEncodeString("0"), "4");
  EXPECT_EQ(SafeEncodeString("9"), "f");
  EXPECT_EQ(SafeEncodeString("1234567890"), "56789bcdf4");
}

TEST(TemplateHashTest, DigitsOfFnv32aEncoded) {
  // FNV-32a("") = 2166136261 (the offset basis), printed in decimal and safe-encoded.
  EXPECT_EQ(TemplateHash(""), SafeEncodeString("2166136261"));
  EXPECT_NE(TemplateHash("a"), TemplateHash("b"));
}

TEST(JobIndexedPrefixTest, PodGenerateNameWithIndex) {
  // kube's podGenerateNameWithIndex: "<job>-<index>-", the job name cut to fit 58 characters.
  EXPECT_EQ(JobIndexedPrefix("reindex", 3), "reindex-3-");
  const std::string long_job(60, 'j');
  const std::string p = JobIndexedPrefix(long_job, 12);
  EXPECT_EQ(p.size(), 58u);
  EXPECT_EQ(p, std::string(54, 'j') + "-12-");
}

TEST(NewUidTest, Version4Layout) {
  Rng rng(3);
  const std::string u = NewUid(rng);
  ASSERT_EQ(u.size(), 36u);
  EXPECT_EQ(u[8], '-');
  EXPECT_EQ(u[13], '-');
  EXPECT_EQ(u[14], '4');
  EXPECT_NE(std::string_view("89ab").find(u[19]), std::string_view::npos);
}

TEST(DaemonSetTolerationsTest, KubesListInOrder) {
  // util.AddOrUpdateDaemonPodTolerations (kube's daemon controller), the host-network one only for
  // host-network pods; an equal toleration already there is not added twice.
  Interner in = api::NewInterner();
  api::Pod pod;
  api::Toleration own;
  own.key = in.Intern("node.kubernetes.io/unschedulable");
  own.op = api::TolerationOp::kExists;
  own.effect = api::TaintEffect::kNoSchedule;
  pod.tolerations.push_back(own);
  AddDaemonSetTolerations(pod, in);
  struct Want {
    std::string_view key;
    api::TaintEffect effect;
  };
  const Want want[] = {
      {"node.kubernetes.io/unschedulable", api::TaintEffect::kNoSchedule},
      {"node.kubernetes.io/not-ready", api::TaintEffect::kNoExecute},
      {"node.kubernetes.io/unreachable", api::TaintEffect::kNoExecute},
      {"node.kubernetes.io/disk-pressure", api::TaintEffect::kNoSchedule},
      {"node.kubernetes.io/memory-pressure", api::TaintEffect::kNoSchedule},
      {"node.kubernetes.io/pid-pressure", api::TaintEffect::kNoSchedule},
  };
  ASSERT_EQ(pod.tolerations.size(), std::size(want));
  for (size_t i = 0; i < std::size(want); ++i) {
    EXPECT_EQ(in.Str(pod.tolerations[i].key), want[i].key) << i;
    EXPECT_EQ(pod.tolerations[i].effect, want[i].effect) << i;
    EXPECT_EQ(pod.tolerations[i].op, api::TolerationOp::kExists) << i;
  }
  api::Pod host;
  host.host_network = true;
  AddDaemonSetTolerations(host, in);
  ASSERT_EQ(host.tolerations.size(), 7u);
  EXPECT_EQ(in.Str(host.tolerations.back().key), "node.kubernetes.io/network-unavailable");
  EXPECT_EQ(host.tolerations.back().effect, api::TaintEffect::kNoSchedule);
}

TEST(PinToNodeTest, ReplacesRequiredTermsKeepsPreferred) {
  // util.ReplaceDaemonSetPodNodeNameNodeAffinity: the required terms become one matchFields term.
  Interner in = api::NewInterner();
  api::Pod pod;
  pod.affinity.emplace();
  pod.affinity->node_affinity.emplace();
  api::NodeSelector sel;
  sel.node_selector_terms.resize(2);
  sel.node_selector_terms[0].match_expressions.push_back(
      {in.Intern("disk"), api::NodeSelectorOp::kIn, {in.Intern("ssd")}});
  pod.affinity->node_affinity->required = sel;
  pod.affinity->node_affinity->preferred.push_back({10, {}});
  PinToNode(pod, in.Intern("node-1"), in);
  const auto& req = *pod.affinity->node_affinity->required;
  ASSERT_EQ(req.node_selector_terms.size(), 1u);
  EXPECT_TRUE(req.node_selector_terms[0].match_expressions.empty());
  ASSERT_EQ(req.node_selector_terms[0].match_fields.size(), 1u);
  const auto& f = req.node_selector_terms[0].match_fields[0];
  EXPECT_EQ(in.Str(f.key), "metadata.name");
  EXPECT_EQ(f.op, api::NodeSelectorOp::kIn);
  ASSERT_EQ(f.values.size(), 1u);
  EXPECT_EQ(in.Str(f.values[0]), "node-1");
  EXPECT_EQ(pod.affinity->node_affinity->preferred.size(), 1u);
  api::Pod bare;
  PinToNode(bare, in.Intern("node-2"), in);
  ASSERT_TRUE(bare.affinity && bare.affinity->node_affinity &&
              bare.affinity->node_affinity->required);
}

}  // namespace
}  // namespace corral::sim::controllers
