// The Go text/template subset used by scheduler_perf object templates.

#include "corral/sim/input/go_template.h"

#include <limits>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace corral::sim {
namespace {

std::string Render(std::string_view text, const TemplateData& data) {
  auto t = GoTemplate::Parse(text);
  if (!t.ok()) return "parse error: " + t.error().message;
  auto out = t->Execute(data);
  if (!out.ok()) return "exec error: " + out.error().message;
  return *out;
}

TEST(GoTemplateTest, FieldsAndKubeFunctions) {
  TemplateData d = {{"Index", int64_t{7}}, {"Count", int64_t{100}}, {"podsPerGroup", int64_t{3}}};
  EXPECT_EQ(Render("pod-{{.Index}}", d), "pod-7");
  EXPECT_EQ(Render("gang-{{DivideInt .Index .podsPerGroup}}", d), "gang-2");
  EXPECT_EQ(Render("{{Mod .Index 3}} {{AddInt .Index 1}} {{SubtractInt .Count .Index}} "
                   "{{MultiplyInt .Index 2}}",
                   d),
            "1 8 93 14");
  EXPECT_EQ(Render("{{MaxInt .Index 10}} {{MinInt .Index 10}} {{div .Count 7}}", d), "10 7 14");
  EXPECT_EQ(Render("{{AddInt (MultiplyInt .Index 10) 5}}", d), "75");
  EXPECT_EQ(Render("{{.Index | AddInt 1}}", d), "8");
  EXPECT_EQ(Render("{{printf \"node-%05d\" .Index}}", d), "node-00007");
  EXPECT_EQ(Render("{{DivideFloat .Index 2}}", d), "3.5");
  EXPECT_EQ(Render("{{Lowercase \"ZoneA\"}}", d), "zonea");
}

TEST(GoTemplateTest, TrimMarkersAndComments) {
  TemplateData d = {{"Index", int64_t{1}}};
  EXPECT_EQ(Render("a  {{- .Index -}}  b", d), "a1b");
  EXPECT_EQ(Render("a{{/* a comment */}}b", d), "ab");
  EXPECT_EQ(Render("x: {{- \" y\"}}\n", d), "x: y\n");
}

TEST(GoTemplateTest, KnowsWhetherItHasActions) {
  auto plain = GoTemplate::Parse("kind: Pod\n{{/* only a comment */}}\n");
  ASSERT_TRUE(plain.ok());
  EXPECT_FALSE(plain->has_actions());
  auto t = GoTemplate::Parse("name: {{.Index}}");
  ASSERT_TRUE(t.ok());
  EXPECT_TRUE(t->has_actions());
}

// Go's int arithmetic wraps around; MinInt64 / -1 is MinInt64 (remainder 0) rather than a trap.
TEST(GoTemplateTest, IntArithmeticWrapsAsInGo) {
  TemplateData d = {{"min", std::numeric_limits<int64_t>::min()},
                    {"max", std::numeric_limits<int64_t>::max()}};
  EXPECT_EQ(Render("{{AddInt .max 1}}", d), "-9223372036854775808");
  EXPECT_EQ(Render("{{SubtractInt .min 1}}", d), "9223372036854775807");
  EXPECT_EQ(Render("{{MultiplyInt .max 2}}", d), "-2");
  EXPECT_EQ(Render("{{DivideInt .min -1}} {{div .min -1}}", d),
            "-9223372036854775808 -9223372036854775808");
  EXPECT_EQ(Render("{{Mod .min -1}} {{mod .min -1}}", d), "0 0");
}

TEST(GoTemplateTest, ErrorsNameTheLine) {
  TemplateData d = {{"Index", int64_t{1}}};
  EXPECT_EQ(Render("a\nb {{.Nope}}", d), "exec error: line 2: map has no entry for key \"Nope\"");
  EXPECT_EQ(Render("a\n\nb {{Frobnicate 1}}", d),
            "exec error: line 3: function \"Frobnicate\" not defined");
  EXPECT_EQ(Render("{{DivideInt .Index 0}}", d),
            "exec error: line 1: DivideInt: integer divide by zero");
  EXPECT_EQ(Render("{{AddInt .Index \"x\"}}", d),
            "exec error: line 1: AddInt: wrong type for value; expected int; got string");
  EXPECT_EQ(Render("x\n{{range .Index}}y{{end}}", d),
            "parse error: line 2: \"range\" actions are not supported by corral's template subset");
  EXPECT_EQ(Render("{{.Index", d), "parse error: line 1: unclosed action");
  EXPECT_EQ(Render("{{.Index 3}}", d),
            "parse error: line 1: can't give argument to non-function \"3\"");
}

// Expected outputs are those of Go 1.19's text/template on map[string]any data with the same
// values (each case was run through template.New("t").Funcs(...).Parse(...).Execute).
TEST(GoTemplateTest, IfElseFollowsGoTruth) {
  TemplateData d = {{"priority", int64_t{5}}, {"zero", int64_t{0}},
                    {"empty", std::string()}, {"f", 0.0},
                    {"s", std::string("x")},  {"mode", std::string("All")}};
  EXPECT_EQ(Render("{{if .priority}}A{{else}}B{{end}}", d), "A");
  EXPECT_EQ(Render("{{if .missing}}A{{else}}B{{end}}", d), "B");
  EXPECT_EQ(Render("{{if .zero}}A{{else}}B{{end}}", d), "B");
  EXPECT_EQ(Render("{{if .empty}}A{{else}}B{{end}}", d), "B");
  EXPECT_EQ(Render("{{if .f}}A{{else}}B{{end}}", d), "B");
  EXPECT_EQ(Render("{{if .s}}A{{else}}B{{end}}", d), "A");
  EXPECT_EQ(Render("{{if .zero}}a{{else if .priority}}b{{else}}c{{end}}", d), "b");
  EXPECT_EQ(Render("{{if .zero}}a{{else if .empty}}b{{else}}c{{end}}", d), "c");
  EXPECT_EQ(Render("{{if .zero}}a{{else if .empty}}b{{end}}", d), "");
  EXPECT_EQ(Render("x\n  {{- if .priority}}\n  y\n  {{- else}}\n  z\n  {{- end}}\n", d),
            "x\n  y\n");
  // kube's workload_preemption templates: a parameter the workload may leave out.
  EXPECT_EQ(Render("{{if .priority}}{{AddInt 0 .priority}}{{else}}10000{{end}}", d), "5");
  EXPECT_EQ(Render("{{if .nope}}{{AddInt 0 .nope}}{{else}}10000{{end}}", d), "10000");
  EXPECT_EQ(Render("{{if and .missing (eq .missing \"All\")}}A{{else}}B{{end}}", d), "B");
  EXPECT_EQ(Render("{{if and .mode (eq .mode \"All\")}}A{{else}}B{{end}}", d), "A");
}

TEST(GoTemplateTest, ComparisonAndLogicBuiltins) {
  TemplateData d = {{"s", std::string("x")}};
  EXPECT_EQ(
      Render("{{and 1 0 2}}|{{and 1 2}}|{{or 0 \"\" 3}}|{{or 0 \"\"}}|{{not 0}}|{{not .s}}", d),
      "0|2|3||true|false");
  EXPECT_EQ(
      Render("{{eq 1 2 1}}|{{ne 1 2}}|{{lt 1 2}}|{{le 2 2}}|{{gt \"b\" \"a\"}}|{{ge 1.5 2.5}}", d),
      "true|true|true|true|true|false");
  EXPECT_EQ(Render("{{eq .missing \"All\"}}", d), "false");
  EXPECT_EQ(Render("{{not .missing}}", d), "true");
  EXPECT_EQ(Render("{{eq 1 1.0}}", d),
            "exec error: line 1: error calling eq: incompatible types for comparison");
  EXPECT_EQ(Render("{{lt true false}}", d),
            "exec error: line 1: error calling lt: invalid type for comparison");
  EXPECT_EQ(Render("{{lt .missing 1}}", d),
            "exec error: line 1: error calling lt: invalid type for comparison");
  EXPECT_EQ(Render("{{eq 1}}", d),
            "exec error: line 1: error calling eq: missing argument for comparison");
  EXPECT_EQ(Render("{{ne \"a\" 1}}", d),
            "exec error: line 1: error calling ne: incompatible types for comparison");
}

// A YAML boolean parameter is Go's bool (kube decodes params from JSON): false is false in an if,
// and it prints as true/false. Expected outputs checked against Go 1.19's text/template with
// map[string]any{"on": true, "off": false}.
TEST(GoTemplateTest, BooleanParametersAreGoBools) {
  TemplateData d = {{"on", true}, {"off", false}, {"n", int64_t{2}}};
  EXPECT_EQ(Render("{{if .on}}A{{else}}B{{end}}|{{if .off}}A{{else}}B{{end}}", d), "A|B");
  EXPECT_EQ(Render("{{.on}} {{.off}} {{not .off}} {{eq .on true}} {{and .on .n}}", d),
            "true false true true 2");
  EXPECT_EQ(Render("{{printf \"%v-%v\" .on .n}}|{{print .off .n}}", d), "true-2|false 2");
  EXPECT_EQ(Render("{{AddInt .on 1}}", d),
            "exec error: line 1: AddInt: wrong type for value; expected int; got bool");
  EXPECT_EQ(Render("{{AddFloat .on 1.5}}", d),
            "exec error: line 1: AddFloat: wrong type for value; expected float64; got bool");
  EXPECT_EQ(Render("{{printf \"%d\" .on}}", d), "exec error: line 1: printf: %d of bool");
}

TEST(GoTemplateTest, LowercaseModOfKubeEventHandlingTemplates) {
  TemplateData d = {{"Index", int64_t{7}}};
  EXPECT_EQ(Render("8{{ mod .Index 12 }}|{{mod .Index 3}}|{{mod -7 3}}", d), "87|1|-1");
  EXPECT_EQ(Render("{{mod .Index 0}}", d), "exec error: line 1: mod: integer divide by zero");
}

TEST(GoTemplateTest, MalformedIfBlocksAreParseErrors) {
  TemplateData d;
  EXPECT_EQ(Render("{{if 1}}a{{end}}\n{{end}}", d), "parse error: line 2: unexpected {{end}}");
  EXPECT_EQ(Render("\n{{if 1}}a", d), "parse error: line 2: unexpected EOF");
  EXPECT_EQ(Render("{{else}}", d), "parse error: line 1: unexpected {{else}}");
  EXPECT_EQ(Render("{{if}}a{{end}}", d), "parse error: line 1: missing value for if");
  EXPECT_EQ(Render("{{if 1}}a{{else}}b{{else}}c{{end}}", d),
            "parse error: line 1: expected end; found {{else}}");
  // Go prints "<no value>" here and panics in kube's AddInt; Corral stops with the key's name.
  EXPECT_EQ(Render("{{.missing}}", d), "exec error: line 1: map has no entry for key \"missing\"");
  EXPECT_EQ(Render("{{AddInt .missing 1}}", d),
            "exec error: line 1: map has no entry for key \"missing\"");
}

}  // namespace
}  // namespace corral::sim
