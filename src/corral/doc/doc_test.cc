// doc::Node trees from YAML (libyaml) and JSON (simdjson): types, lines, documents, aliases,
// errors, and YAML/JSON parity.

#include <fstream>
#include <sstream>
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "corral/doc/parse.h"

#include "test/testing/read_file.h"

namespace corral::doc {
namespace {

using corral::testing::ReadFile;
using ::testing::HasSubstr;

std::string AllDiagnostics(const Diagnostics& d) {
  std::string out;
  for (const auto& x : d.items()) out += x.ToString() + "\n";
  return out;
}

TEST(DocYamlTest, ResolvesPlainScalarsLikeGoYamlV2) {
  Diagnostics diags;
  Stream s = ParseYaml(
      "a: 1\n"
      "b: \"1\"\n"
      "c: yes\n"
      "d: 'yes'\n"
      "e: ~\n"
      "f:\n"
      "g: 0x1F\n"
      "h: 1.5\n"
      "i: 1e3\n"
      "j: on\n"
      "k: 1_000\n"
      "l: hello world\n"
      "m: 99999999999999999999\n"
      "n: .inf\n"
      "o: !!str 12\n"
      "p: 012\n",
      "t.yaml", diags);
  ASSERT_EQ(diags.items().size(), 0u) << AllDiagnostics(diags);
  ASSERT_EQ(s.documents().size(), 1u);
  const Node& m = s.documents()[0];
  ASSERT_TRUE(m.is_map());
  EXPECT_EQ(m.Find("a")->kind(), Kind::kInt);
  EXPECT_EQ(m.Find("a")->int_value(), 1);
  EXPECT_TRUE(m.Find("a")->plain());
  EXPECT_EQ(m.Find("b")->kind(), Kind::kString);
  EXPECT_EQ(m.Find("b")->text(), "1");
  EXPECT_EQ(m.Find("b")->style(), Style::kDoubleQuoted);
  EXPECT_EQ(m.Find("c")->kind(), Kind::kBool);
  EXPECT_TRUE(m.Find("c")->bool_value());
  EXPECT_EQ(m.Find("c")->text(), "yes");
  EXPECT_EQ(m.Find("d")->kind(), Kind::kString);
  EXPECT_EQ(m.Find("e")->kind(), Kind::kNull);
  EXPECT_EQ(m.Find("f")->kind(), Kind::kNull);
  EXPECT_EQ(m.Find("g")->int_value(), 31);
  EXPECT_EQ(m.Find("h")->kind(), Kind::kFloat);
  EXPECT_DOUBLE_EQ(m.Find("h")->float_value(), 1.5);
  EXPECT_EQ(m.Find("i")->kind(), Kind::kFloat);
  EXPECT_DOUBLE_EQ(m.Find("i")->float_value(), 1000);
  EXPECT_EQ(m.Find("j")->kind(), Kind::kBool);
  EXPECT_EQ(m.Find("k")->int_value(), 1000);
  EXPECT_EQ(m.Find("k")->text(), "1_000");
  EXPECT_EQ(m.Find("l")->kind(), Kind::kString);
  EXPECT_EQ(m.Find("l")->text(), "hello world");
  EXPECT_EQ(m.Find("m")->kind(), Kind::kFloat);  // beyond int64: keeps the spelling
  EXPECT_EQ(m.Find("m")->text(), "99999999999999999999");
  EXPECT_EQ(m.Find("n")->kind(), Kind::kFloat);
  EXPECT_EQ(m.Find("o")->kind(), Kind::kString);
  EXPECT_EQ(m.Find("o")->tag(), "tag:yaml.org,2002:str");
  EXPECT_EQ(m.Find("p")->int_value(), 10);  // YAML 1.1 octal
}

TEST(DocYamlTest, KeepsApplicationTags) {
  Diagnostics diags;
  Stream s = ParseYaml(
      "a: !custom {x: 1, y: [2]}\nb: !vault secret\nc: !!int \"7\"\nd: !!float 3\ne: !!int x\n",
      "t.yaml", diags);
  ASSERT_EQ(diags.error_count(), 1u);  // e: "x" is not an integer
  EXPECT_EQ(diags.items()[0].ToString(),
            "t.yaml:5: e: cannot decode \"x\" as tag:yaml.org,2002:int");
  const Node& m = s.documents()[0];
  EXPECT_EQ(m.Find("a")->tag(), "!custom");
  EXPECT_EQ(m.Find("a")->Find("x")->int_value(), 1);
  EXPECT_EQ(m.Find("a")->Find("y")->items()[0].int_value(), 2);
  EXPECT_EQ(m.Find("b")->tag(), "!vault");
  EXPECT_EQ(m.Find("b")->text(), "secret");
  EXPECT_EQ(m.Find("c")->kind(), Kind::kInt);
  EXPECT_EQ(m.Find("c")->int_value(), 7);
  EXPECT_FALSE(m.Find("c")->plain());
  EXPECT_EQ(m.Find("d")->kind(), Kind::kFloat);
  EXPECT_DOUBLE_EQ(m.Find("d")->float_value(), 3.0);
  EXPECT_EQ(m.Find("e")->kind(), Kind::kString);
}

TEST(DocYamlTest, KeepsLinesAndOrder) {
  Diagnostics diags;
  Stream s = ParseYaml(
      "# comment\n"
      "kind: Pod\n"               // 2
      "metadata:\n"               // 3
      "  name: x\n"               // 4
      "  labels: {z: 1, a: 2}\n"  // 5
      "spec:\n"                   // 6
      "  containers:\n"           // 7
      "  - name: c\n"             // 8
      "    image: i\n",           // 9
      "t.yaml", diags);
  ASSERT_EQ(s.documents().size(), 1u);
  const Node& root = s.documents()[0];
  EXPECT_EQ(root.line(), 2u);
  EXPECT_EQ(root.key(0).text(), "kind");
  EXPECT_EQ(root.key(1).text(), "metadata");
  EXPECT_EQ(root.key(2).text(), "spec");
  const Node* labels = root.Find("metadata")->Find("labels");
  EXPECT_EQ(labels->line(), 5u);
  EXPECT_EQ(labels->key(0).text(), "z");  // input order, not sorted
  const Node* containers = root.Find("spec")->Find("containers");
  ASSERT_TRUE(containers->is_sequence());
  EXPECT_EQ(containers->line(), 8u);
  EXPECT_EQ(containers->items()[0].Find("image")->line(), 9u);
}

TEST(DocYamlTest, MultipleDocumentsAndEmptyOnes) {
  Diagnostics diags;
  Stream s = ParseYaml("a: 1\n---\n---\nb: 2\n...\n---\n- x\n", "t.yaml", diags);
  EXPECT_EQ(diags.items().size(), 0u);
  ASSERT_EQ(s.documents().size(), 4u);
  EXPECT_TRUE(s.documents()[0].is_map());
  EXPECT_TRUE(s.documents()[1].is_null());
  EXPECT_EQ(s.documents()[2].Find("b")->line(), 4u);
  EXPECT_TRUE(s.documents()[3].is_sequence());
}

TEST(DocYamlTest, ResolvesAnchorsAliasesAndMergeKeys) {
  Diagnostics diags;
  Stream s = ParseYaml(
      "base: &base {cpu: 1, memory: 2Gi}\n"
      "list: &l [a, b]\n"
      "copy: *base\n"
      "merged:\n"
      "  <<: *base\n"
      "  cpu: 4\n"
      "again: *l\n",
      "t.yaml", diags);
  ASSERT_EQ(diags.items().size(), 0u) << AllDiagnostics(diags);
  const Node& root = s.documents()[0];
  EXPECT_EQ(DebugString(*root.Find("copy")), DebugString(*root.Find("base")));
  const Node* merged = root.Find("merged");
  ASSERT_EQ(merged->size(), 2u);
  EXPECT_EQ(merged->Find("cpu")->int_value(), 4);  // explicit key wins
  EXPECT_EQ(merged->Find("memory")->text(), "2Gi");
  EXPECT_EQ(root.Find("again")->items().size(), 2u);
}

TEST(DocYamlTest, ReportsDuplicateKeysWithBothLinesAndPath) {
  Diagnostics diags;
  Stream s = ParseYaml(
      "metadata:\n"
      "  name: a\n"
      "  labels:\n"
      "    app: x\n"
      "    app: y\n"
      "  name: b\n",
      "dup.yaml", diags);
  ASSERT_EQ(diags.error_count(), 2u) << AllDiagnostics(diags);
  EXPECT_EQ(diags.items()[0].ToString(),
            "dup.yaml:5: metadata.labels: duplicate key \"app\" (first at line 4)");
  EXPECT_EQ(diags.items()[1].ToString(),
            "dup.yaml:6: metadata: duplicate key \"name\" (first at line 2)");
  // The first entry is kept.
  ASSERT_EQ(s.documents().size(), 1u);
  EXPECT_EQ(s.documents()[0].Find("metadata")->Find("name")->text(), "a");
}

TEST(DocYamlTest, ReportsSyntaxErrorsWithLineAndKeepsEarlierDocuments) {
  Diagnostics diags;
  Stream s = ParseYaml(
      "a: 1\n"
      "---\n"
      "spec:\n"
      "  containers:\n"
      "  - name: x\n"
      "    image: [unclosed\n"
      "  foo: bar\n",
      "bad.yaml", diags);
  ASSERT_EQ(diags.error_count(), 1u);
  const Diagnostic& d = diags.items()[0];
  EXPECT_EQ(d.file, "bad.yaml");
  EXPECT_GE(d.line, 6u);
  EXPECT_THAT(d.message, HasSubstr("YAML syntax error"));
  ASSERT_EQ(s.documents().size(), 1u);  // the first document survives
  EXPECT_EQ(s.documents()[0].Find("a")->int_value(), 1);
}

TEST(DocYamlTest, TabIndentationIsASyntaxError) {
  Diagnostics diags;
  ParseYaml("a:\n\tb: 1\n", "tab.yaml", diags);
  ASSERT_EQ(diags.error_count(), 1u);
  EXPECT_EQ(diags.items()[0].line, 2u);
}

TEST(DocYamlTest, RejectsExcessiveAliasing) {
  std::string y = "a: &a [x, x, x, x, x, x, x, x, x, x]\n";
  char prev = 'a';
  for (char c = 'b'; c <= 'j'; ++c) {
    y += std::string(1, c) + ": &" + c + " [";
    for (int i = 0; i < 10; ++i) y += std::string(i ? ", *" : "*") + prev;
    y += "]\n";
    prev = c;
  }
  Diagnostics diags;
  Stream s = ParseYaml(y, "bomb.yaml", diags);
  ASSERT_EQ(diags.error_count(), 1u);
  EXPECT_THAT(diags.items()[0].message, HasSubstr("excessive aliasing"));
  EXPECT_EQ(s.documents().size(), 0u);
}

TEST(DocYamlTest, UnknownAnchorIsAnError) {
  Diagnostics diags;
  ParseYaml("a: *nope\n", "t.yaml", diags);
  ASSERT_EQ(diags.error_count(), 1u);
  EXPECT_THAT(diags.items()[0].ToString(), HasSubstr("t.yaml:1"));
}

TEST(DocYamlTest, DepthLimit) {
  std::string y(2000, '[');
  Diagnostics diags;
  Stream s = ParseYaml(y + std::string(2000, ']'), "deep.yaml", diags, {.max_depth = 100});
  ASSERT_EQ(diags.error_count(), 1u);
  EXPECT_THAT(diags.items()[0].message, HasSubstr("deeper than 100"));
  EXPECT_EQ(s.documents().size(), 0u);
}

TEST(DocJsonTest, ParsesTypesAndLines) {
  Diagnostics diags;
  Stream s = ParseJson(
      "{\n"
      "  \"a\": 1,\n"
      "  \"b\": \"1\",\n"
      "  \"c\": true,\n"
      "  \"d\": null,\n"
      "  \"e\": 1.5e3,\n"
      "  \"f\": [1, {\"g\": \"h\"}],\n"
      "  \"big\": 123456789012345678901234567890\n"
      "}\n",
      "t.json", diags);
  ASSERT_EQ(diags.items().size(), 0u) << AllDiagnostics(diags);
  ASSERT_EQ(s.documents().size(), 1u);
  const Node& m = s.documents()[0];
  EXPECT_EQ(m.line(), 1u);
  EXPECT_EQ(m.Find("a")->kind(), Kind::kInt);
  EXPECT_EQ(m.Find("a")->line(), 2u);
  EXPECT_EQ(m.Find("b")->kind(), Kind::kString);
  EXPECT_FALSE(m.Find("b")->plain());
  EXPECT_EQ(m.Find("c")->kind(), Kind::kBool);
  EXPECT_EQ(m.Find("d")->kind(), Kind::kNull);
  EXPECT_EQ(m.Find("e")->kind(), Kind::kFloat);
  EXPECT_EQ(m.Find("e")->text(), "1.5e3");
  EXPECT_EQ(m.Find("f")->items()[1].Find("g")->line(), 7u);
  EXPECT_EQ(m.Find("big")->kind(), Kind::kFloat);
  EXPECT_EQ(m.Find("big")->text(), "123456789012345678901234567890");
}

TEST(DocJsonTest, DropRulesSkipContainerValuesInTheirContextOnly) {
  const DropRule rules[] = {{"metadata", "managedFields"}, {"containers", "env"}};
  Diagnostics diags;
  Stream s = ParseJson(
      R"({"metadata": {"managedFields": [{"manager": "kubectl"}], "labels": {"managedFields": "x"}},
          "spec": {"env": [1], "containers": [{"name": "c", "env": [{"name": "A"}]}, {"env": "scalar"}]}})",
      "d.json", diags, {.drop = rules});
  ASSERT_EQ(diags.items().size(), 0u);
  const Node& root = s.documents()[0];
  EXPECT_EQ(root.Find("metadata")->Find("managedFields"), nullptr);
  EXPECT_EQ(root.Find("metadata")->Find("labels")->Find("managedFields")->text(),
            "x");                                      // not under metadata
  EXPECT_NE(root.Find("spec")->Find("env"), nullptr);  // parent is spec
  const Node* containers = root.Find("spec")->Find("containers");
  EXPECT_EQ(containers->items()[0].Find("env"), nullptr);
  EXPECT_EQ(containers->items()[0].Find("name")->text(), "c");
  EXPECT_EQ(containers->items()[1].Find("env")->text(), "scalar");  // scalars are kept
}

TEST(DocJsonTest, ReportsSyntaxErrorsAndDuplicates) {
  {
    Diagnostics diags;
    Stream s = ParseJson("{\"a\": 1,\n \"a\": 2}", "dup.json", diags);
    ASSERT_EQ(diags.error_count(), 1u);
    EXPECT_EQ(diags.items()[0].ToString(), "dup.json:2: duplicate key \"a\" (first at line 1)");
  }
  {
    Diagnostics diags;
    Stream s = ParseJson("{\"a\": 1,\n\n \"b\": }", "bad.json", diags);
    ASSERT_EQ(diags.error_count(), 1u);
    EXPECT_THAT(diags.items()[0].message, HasSubstr("JSON syntax error"));
    EXPECT_EQ(s.documents().size(), 0u);
  }
  {
    Diagnostics diags;
    ParseJson("{\"a\": 1}\n{\"b\": 2}", "two.json", diags);
    ASSERT_EQ(diags.error_count(), 1u);
    EXPECT_EQ(diags.items()[0].line, 2u);
  }
  {
    Diagnostics diags;
    ParseJson("", "empty.json", diags);
    EXPECT_EQ(diags.error_count(), 1u);
  }
}

// The same JSON text through libyaml and simdjson gives the same tree: kinds, texts, quoting
// and lines.
TEST(DocParityTest, JsonAndYamlParsersAgree) {
  const std::string json =
      "{\n"
      "  \"apiVersion\": \"v1\",\n"
      "  \"kind\": \"Pod\",\n"
      "  \"metadata\": {\"name\": \"p\", \"labels\": {\"app\": \"web\", \"tier\": \"1\"}},\n"
      "  \"spec\": {\n"
      "    \"priority\": 100,\n"
      "    \"hostNetwork\": false,\n"
      "    \"overhead\": null,\n"
      "    \"tolerations\": [\n"
      "      {\"key\": \"k\", \"operator\": \"Exists\", \"tolerationSeconds\": -5},\n"
      "      {\"effect\": \"NoSchedule\"}\n"
      "    ],\n"
      "    \"ratio\": 0.25,\n"
      "    \"empty\": {}, \"none\": [],\n"
      "    \"escaped\": \"a\\\"b\\\\c\\u00e9\\n\"\n"
      "  }\n"
      "}\n";
  Diagnostics d1, d2;
  Stream from_json = ParseJson(json, "p.json", d1);
  Stream from_yaml = ParseYaml(json, "p.json", d2);
  ASSERT_EQ(d1.items().size(), 0u) << AllDiagnostics(d1);
  ASSERT_EQ(d2.items().size(), 0u) << AllDiagnostics(d2);
  ASSERT_EQ(from_json.documents().size(), 1u);
  ASSERT_EQ(from_yaml.documents().size(), 1u);
  EXPECT_EQ(DebugString(from_json.documents()[0]), DebugString(from_yaml.documents()[0]));
}

TEST(DocParityTest, KubectlJsonDumpParsesTheSameWithBothParsers) {
  std::string json = ReadFile(std::string(CORRAL_LOADER_TESTDATA) + "/kubectl-dump.json");
  ASSERT_FALSE(json.empty());
  Diagnostics d1, d2;
  Stream a = ParseJson(json, "dump.json", d1);
  Stream b = ParseYaml(json, "dump.json", d2);
  ASSERT_EQ(d1.items().size(), 0u) << AllDiagnostics(d1);
  ASSERT_EQ(d2.items().size(), 0u) << AllDiagnostics(d2);
  EXPECT_EQ(DebugString(a.documents()[0]), DebugString(b.documents()[0]));
  EXPECT_EQ(a.node_count(), b.node_count());
}

TEST(DocTest, LooksLikeJson) {
  EXPECT_TRUE(LooksLikeJson("  \n{\"a\":1}"));
  EXPECT_TRUE(LooksLikeJson("[1]"));
  EXPECT_FALSE(LooksLikeJson("a: 1"));
  EXPECT_FALSE(LooksLikeJson(""));
}

}  // namespace
}  // namespace corral::doc
