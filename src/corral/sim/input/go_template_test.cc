// The Go text/template subset used by scheduler_perf object templates.

#include "corral/sim/input/go_template.h"

#include <limits>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace corral::sim {
namespace {

TemplateValue List(std::vector<TemplateValue> items) {
  return std::make_shared<const TemplateList>(TemplateList{std::move(items)});
}

TemplateValue Map(TemplateData items) {
  return std::make_shared<const TemplateMap>(TemplateMap{std::move(items)});
}

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
  EXPECT_EQ(
      Render("x\n{{define \"y\"}}y{{end}}", d),
      "parse error: line 2: \"define\" actions are not supported by corral's template subset");
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

// The data of the cases below; every expected output was printed by Go 1.19's text/template with
// the same data as map[string]any (ints as int) and kube's Int and JSON functions, except where a
// case says Go 1.22+: range over an integer, checked through the equivalent list 0..n-1.
TemplateData GoData() {
  return {
      {"Index", int64_t{7}},
      {"n", int64_t{3}},
      {"zero", int64_t{0}},
      {"s", std::string("x")},
      {"f", 2.5},
      {"big", 1000000.0},
      {"small", 0.00001},
      {"on", true},
      {"nums", std::string("64")},
      {"list", List({std::string("a"), int64_t{2}, Map({{"k", std::string("v")}})})},
      {"empty", List({})},
      {"m", Map({{"b", int64_t{2}}, {"a", int64_t{1}}, {"c", List({1.5, std::string("<&>")})}})},
      {"constraints", List({Map({{"matchAttribute", std::string("dra.example.com/match")}})})}};
}

TEST(GoTemplateTest, VariablesFollowGoScoping) {
  const TemplateData d = GoData();
  struct Case {
    std::string_view text, want;
  };
  const Case cases[] = {
      {"{{$x := 1}}{{$x}}", "1"},
      {"{{$x := .Index}}{{$x = AddInt $x 1}}{{$x}}", "8"},
      {"{{if $x := .n}}{{$x}}{{end}}", "3"},
      {"{{with $x := .s}}{{.}}{{$x}}{{end}}", "xx"},
      // An assignment inside a range changes the outer variable.
      {"{{$x := 1}}{{range .list}}{{$x = 2}}{{end}}{{$x}}", "2"},
      {"{{$.Index}}|{{range .list}}{{$.Index}}{{end}}", "7|777"},
      {"{{$x := .m}}{{$x.a}} {{(.m).a}} {{.m.c}}", "1 1 [1.5 <&>]"},
      // A declaration prints nothing; its value may be a missing key.
      {"{{$v := .missing}}{{or $v 5}}", "5"},
      // Declarations inside a range body are fresh in each iteration.
      {"{{range $i, $e := .list}}{{$y := $i}}{{$y}}{{end}}", "012"},
      // Variables declared in a control's pipeline last to its end, else branch included.
      {"{{if $x := .zero}}a{{else}}{{$x}}{{end}}", "0"},
  };
  for (const Case& c : cases) EXPECT_EQ(Render(c.text, d), c.want) << c.text;
}

TEST(GoTemplateTest, RangeOverListsMapsAndIntegers) {
  const TemplateData d = GoData();
  struct Case {
    std::string_view text, want;
  };
  const Case cases[] = {
      {"{{range $i, $v := .list}}{{$i}}={{$v}};{{end}}", "0=a;1=2;2=map[k:v];"},
      {"{{range $v := .list}}{{$v}}|{{.}};{{end}}", "a|a;2|2;map[k:v]|map[k:v];"},
      {"{{range .empty}}x{{else}}none{{end}}", "none"},
      {"{{range .missing}}x{{else}}none{{end}}", "none"},
      {"{{range $k, $v := .m}}{{$k}}:{{$v}} {{end}}", "a:1 b:2 c:[1.5 <&>] "},
      {"{{range .m}}{{.}} {{end}}", "1 2 [1.5 <&>] "},
      {"{{range $i, $e := .m.c}}{{$i}}{{$e}}{{end}}", "01.51<&>"},
      // Go 1.22+: an integer n ranges over 0..n-1, the variable and dot being the element.
      {"{{range $i := .n}}{{$i}}{{.}},{{end}}", "00,11,22,"},
      {"{{range .zero}}x{{else}}none{{end}}", "none"},
      {"{{range $i := (.nums | Int)}}{{end}}{{len .s}}", "1"},
      {"{{range $i := -2}}x{{else}}none{{end}}", "none"},
  };
  for (const Case& c : cases) EXPECT_EQ(Render(c.text, d), c.want) << c.text;
}

TEST(GoTemplateTest, WithBreakAndContinue) {
  const TemplateData d = GoData();
  struct Case {
    std::string_view text, want;
  };
  const Case cases[] = {
      {"{{with .zero}}a{{else}}b{{end}}", "b"},
      {"{{with .m}}{{.a}}{{end}}", "1"},
      // Go 1.23+: `else with` chains like `else if`.
      {"{{with .missing}}a{{else with .s}}{{.}}{{end}}", "x"},
      {"{{range $i, $v := .list}}{{if eq $i 1}}{{break}}{{end}}{{$v}}{{end}}", "a"},
      {"{{range $i, $v := .list}}{{if eq $i 1}}{{continue}}{{end}}{{$v}}{{end}}", "amap[k:v]"},
      {"{{range $i := 5}}{{if eq $i 2}}{{break}}{{end}}{{$i}}{{end}}", "01"},
  };
  for (const Case& c : cases) EXPECT_EQ(Render(c.text, d), c.want) << c.text;
}

TEST(GoTemplateTest, MisusedVariablesAndRangesAreGoErrors) {
  const TemplateData d = GoData();
  struct Case {
    std::string_view text, want;
  };
  const Case cases[] = {
      {"{{range .list}}{{$y := 5}}{{end}}{{$y}}", "parse error: line 1: undefined variable \"$y\""},
      {"{{if 1}}{{$z := 1}}{{end}}{{$z}}", "parse error: line 1: undefined variable \"$z\""},
      {"\n{{$x.a}}", "parse error: line 2: undefined variable \"$x\""},
      {"{{$x = 1}}", "exec error: line 1: undefined variable: $x"},
      {"{{break}}", "parse error: line 1: {{break}} outside {{range}}"},
      {"{{range .list}}{{else}}{{continue}}{{end}}",
       "parse error: line 1: {{continue}} outside {{range}}"},
      {"{{1 | 2}}", "parse error: line 1: non executable command in pipeline stage 2"},
      {"{{$x, $y := .list}}", "parse error: line 1: too many declarations in command"},
      {"{{with $x, $y := .list}}{{end}}", "parse error: line 1: too many declarations in with"},
      {"{{range $x, $y, $z := .list}}{{end}}",
       "parse error: line 1: too many declarations in range"},
      {"{{nil}}", "parse error: line 1: nil is not a command"},
      {"{{range 3.5}}{{end}}", "exec error: line 1: range can't iterate over 3.5"},
      {"{{range .s}}{{end}}", "exec error: line 1: range can't iterate over x"},
      {"{{range $i, $v := 3}}{{end}}",
       "exec error: line 1: can't use 3 to iterate over more than one variable"},
      {"{{.Index.foo}}", "exec error: line 1: can't evaluate field foo in type interface {}"},
      {"{{range .n}}{{.foo}}{{end}}", "exec error: line 1: can't evaluate field foo in type int"},
      {"{{len 3}}", "exec error: line 1: error calling len: len of type int"},
  };
  for (const Case& c : cases) EXPECT_EQ(Render(c.text, d), c.want) << c.text;
}

// kube's Int is int(toFloat64(v)) and JSON is json.Marshal; the values print as Go's fmt does.
TEST(GoTemplateTest, IntJsonAndGoPrinting) {
  const TemplateData d = GoData();
  struct Case {
    std::string_view text, want;
  };
  const Case cases[] = {
      {"{{Int .nums}} {{Int .f}} {{\"12\" | Int}} {{Int 7}}", "64 2 12 7"},
      {"{{Int .on}}", "exec error: line 1: error calling Int: cannot cast true to float64"},
      {"{{Int \"x\"}}", "exec error: line 1: error calling Int: cannot cast x to float64"},
      {"{{JSON .constraints}}", "[{\"matchAttribute\":\"dra.example.com/match\"}]"},
      {"{{JSON .m}}", "{\"a\":1,\"b\":2,\"c\":[1.5,\"\\u003c\\u0026\\u003e\"]}"},
      {"{{JSON nil}}|{{(or .selectors nil) | JSON}}", "null|null"},
      {"{{JSON .big}} {{JSON .small}} {{JSON .f}} {{JSON 1e21}} {{JSON 1e-7}}",
       "1000000 0.00001 2.5 1e+21 1e-7"},
      {"{{JSON \"a\\\"b<>&\\n\\t\"}}", "\"a\\\"b\\u003c\\u003e\\u0026\\n\\t\""},
      {"{{.big}} {{.small}} {{.f}} {{123456789.0}} {{0.0001}} {{1e21}} {{100000.0}}",
       "1e+06 1e-05 2.5 1.23456789e+08 0.0001 1e+21 100000"},
      {"{{.list}}|{{printf \"%v\" .list}}|{{print nil}}", "[a 2 map[k:v]]|[a 2 map[k:v]]|<nil>"},
      {"{{len .list}} {{len .m}} {{len .s}}", "3 3 1"},
      {"{{$}}",
       "map[Index:7 big:1e+06 constraints:[map[matchAttribute:dra.example.com/match]] empty:[] "
       "f:2.5 list:[a 2 map[k:v]] m:map[a:1 b:2 c:[1.5 <&>]] n:3 nums:64 on:true s:x small:1e-05 "
       "zero:0]"},
  };
  for (const Case& c : cases) EXPECT_EQ(Render(c.text, d), c.want) << c.text;
}

// kube's DRA claim template (test/integration/scheduler_perf/dra/templates/
// resourceclaimtemplate.yaml at 958ef682): variables, Int, JSON, nil and range over an int.
TEST(GoTemplateTest, KubeClaimTemplateWithRequestsAndConstraints) {
  constexpr std::string_view kTemplate =
      "{{$numRequests := (or .numRequests 1) | Int}}\n"
      "{{$selectors := (or .selectors nil) | JSON}}\n"
      "{{$constraints := (or .constraints nil) | JSON}}\n"
      "\n"
      "spec:\n"
      "  constraints: {{$constraints}}\n"
      "  requests:{{range $numRequests}}\n"
      "  - name: req-{{.}}\n"
      "    selectors: {{$selectors}}{{end}}\n";
  const TemplateData d = GoData();
  EXPECT_EQ(Render(kTemplate, {{"numRequests", int64_t{2}}, {"constraints", d.at("constraints")}}),
            "\n\n\n\nspec:\n"
            "  constraints: [{\"matchAttribute\":\"dra.example.com/match\"}]\n"
            "  requests:\n  - name: req-0\n    selectors: null\n"
            "  - name: req-1\n    selectors: null\n");
  EXPECT_EQ(Render(kTemplate, {}),
            "\n\n\n\nspec:\n  constraints: null\n  requests:\n  - name: req-0\n"
            "    selectors: null\n");
}

}  // namespace
}  // namespace corral::sim
