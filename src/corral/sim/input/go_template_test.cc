// The Go text/template subset used by scheduler_perf object templates.

#include "corral/sim/input/go_template.h"

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

TEST(GoTemplateTest, ErrorsNameTheLine) {
  TemplateData d = {{"Index", int64_t{1}}};
  EXPECT_EQ(Render("a\nb {{.Nope}}", d), "exec error: line 2: map has no entry for key \"Nope\"");
  EXPECT_EQ(Render("a\n\nb {{Frobnicate 1}}", d),
            "exec error: line 3: function \"Frobnicate\" not defined");
  EXPECT_EQ(Render("{{DivideInt .Index 0}}", d),
            "exec error: line 1: DivideInt: integer divide by zero");
  EXPECT_EQ(Render("{{AddInt .Index \"x\"}}", d),
            "exec error: line 1: AddInt: wrong type for value; expected int; got string");
  EXPECT_EQ(Render("x\n{{if .Index}}y{{end}}", d),
            "parse error: line 2: \"if\" actions are not supported by corral's template subset");
  EXPECT_EQ(Render("{{.Index", d), "parse error: line 1: unclosed action");
  EXPECT_EQ(Render("{{.Index 3}}", d),
            "parse error: line 1: can't give argument to non-function \"3\"");
}

}  // namespace
}  // namespace corral::sim
