// doc::Decoder: typed reads, paths, messages, unknown fields, strictness, keep-going.

#include "corral/doc/decoder.h"

#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "corral/doc/parse.h"

namespace corral::doc {
namespace {

using ::testing::ElementsAre;

enum class Color { kRed, kGreen };
constexpr EnumName<Color> kColors[] = {{"Red", Color::kRed}, {"Green", Color::kGreen}};

struct Inner {
  int32_t n = 0;
  Color color = Color::kRed;
};
struct Outer {
  std::string name;
  bool on = false;
  std::vector<Inner> items;
  std::vector<std::pair<Symbol, Symbol>> labels;
  api::Quantity q;
  int64_t big = 0;
};

const Field<Inner> kInnerFields[] = {
    {"n", [](Decoder& d, const Node& n, Inner& o) { d.ReadInt32(n, o.n, 1, 100); }},
    {"color",
     [](Decoder& d, const Node& n, Inner& o) { d.ReadEnum(n, kColors, "color", o.color); }},
};
const Field<Outer> kOuterFields[] = {
    {"name", [](Decoder& d, const Node& n, Outer& o) { d.ReadString(n, o.name); }},
    {"on", [](Decoder& d, const Node& n, Outer& o) { d.ReadBool(n, o.on); }},
    {"items",
     [](Decoder& d, const Node& n, Outer& o) {
       d.ReadList(n, o.items,
                  [&](const Node& item, Inner& in) { d.Struct(item, in, kInnerFields); });
     }},
    {"labels", [](Decoder& d, const Node& n, Outer& o) { d.ReadSymbolMap(n, o.labels); }},
    {"quantity", [](Decoder& d, const Node& n, Outer& o) { d.ReadQuantity(n, o.q); }},
    {"big", [](Decoder& d, const Node& n, Outer& o) { d.ReadInt64(n, o.big); }},
};
constexpr std::string_view kOuterIgnored[] = {"status"};

struct DecodeRun {
  Diagnostics diags;
  Interner interner;
  Outer out;
  std::vector<std::string> messages;
};

void Decode(const std::string& yaml, DecodeRun& r, bool strict = false,
            FieldValidation unknown_fields = FieldValidation::kWarn) {
  Stream s = ParseYaml(yaml, "f.yaml", r.diags);
  Decoder d("f.yaml", r.diags, &r.interner, {.strict = strict, .unknown_fields = unknown_fields});
  d.Struct(s.documents()[0], r.out, kOuterFields, kOuterIgnored);
  for (const auto& x : r.diags.items()) r.messages.push_back(x.ToString());
}

TEST(DecoderTest, DecodesTypedFields) {
  DecodeRun r;
  Decode(
      "name: web\n"
      "on: true\n"
      "items:\n"
      "- {n: 5, color: Green}\n"
      "- n: 7\n"
      "labels: {app: web}\n"
      "quantity: 1500m\n"
      "big: 9000000000\n"
      "status: {anything: [goes]}\n",
      r);
  EXPECT_THAT(r.messages, ElementsAre());
  EXPECT_EQ(r.out.name, "web");
  EXPECT_TRUE(r.out.on);
  ASSERT_EQ(r.out.items.size(), 2u);
  EXPECT_EQ(r.out.items[0].n, 5);
  EXPECT_EQ(r.out.items[0].color, Color::kGreen);
  EXPECT_EQ(r.out.items[1].n, 7);
  ASSERT_EQ(r.out.labels.size(), 1u);
  EXPECT_EQ(r.interner.Str(r.out.labels[0].second), "web");
  EXPECT_EQ(r.out.q.MilliValue(), 1500);
  EXPECT_EQ(r.out.big, 9000000000);
}

TEST(DecoderTest, ReportsEveryErrorWithLineAndPath) {
  DecodeRun r;
  Decode(
      "name: 1\n"       // 1: a plain integer is not a string
      "on: \"true\"\n"  // 2: a quoted string is not a boolean
      "items:\n"
      "- {n: 0, color: Blue}\n"       // 4: range, enum
      "- n: \"3\"\n"                  // 5: a quoted string is not an integer
      "quantity: 1.5x\n"              // 6
      "colour: Red\n"                 // 7: unknown field
      "big: 99999999999999999999\n",  // 8: overflow
      r);
  EXPECT_THAT(
      r.messages,
      ElementsAre(
          "f.yaml:1: name: expected a string, got integer 1 (quote it: \"1\")",
          "f.yaml:2: on: expected a boolean (true or false), got string \"true\"",
          "f.yaml:4: items[0].n: invalid value 0: must be between 1 and 100",
          "f.yaml:4: items[0].color: unknown color \"Blue\" (want Red, Green)",
          "f.yaml:5: items[1].n: expected an integer, got string \"3\"",
          "f.yaml:6: quantity: invalid quantity \"1.5x\": quantities must match the regular "
          "expression "
          "'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'",
          "f.yaml:7: warning: colour: unknown field \"colour\"",
          "f.yaml:8: big: value 99999999999999999999 is out of range for a 64-bit integer"));
}

TEST(DecoderTest, SuggestsTheClosestField) {
  DecodeRun r;
  Decode("nmae: x\nitems: [{colr: Red}]\n", r);
  EXPECT_THAT(
      r.messages,
      ElementsAre("f.yaml:1: warning: nmae: unknown field \"nmae\" (did you mean \"name\"?)",
                  "f.yaml:2: warning: items[0].colr: unknown field \"colr\" (did you mean "
                  "\"color\"?)"));
}

TEST(DecoderTest, UnknownFieldsAreErrorsByDefault) {
  DecodeRun r;
  Stream s = ParseYaml("name: x\nnmae: y\n", "f.yaml", r.diags);
  Decoder d("f.yaml", r.diags, &r.interner);
  d.Struct(s.documents()[0], r.out, kOuterFields, kOuterIgnored);
  ASSERT_EQ(r.diags.items().size(), 1u);
  EXPECT_EQ(r.diags.items()[0].ToString(),
            "f.yaml:2: nmae: unknown field \"nmae\" (did you mean \"name\"?)");
  EXPECT_EQ(r.diags.error_count(), 1u);
}

TEST(DecoderTest, IgnoredUnknownFieldsAreCountedNotReported) {
  DecodeRun r;
  Stream s = ParseYaml("name: x\nextra: 1\n", "f.yaml", r.diags);
  Decoder d("f.yaml", r.diags, &r.interner, {.unknown_fields = FieldValidation::kIgnore});
  d.Struct(s.documents()[0], r.out, kOuterFields, kOuterIgnored);
  EXPECT_TRUE(r.diags.items().empty());
  EXPECT_EQ(d.unknown_field_count(), 1u);
}

TEST(DecoderTest, StrictTurnsUnknownFieldsIntoErrors) {
  DecodeRun r;
  Decode("name: x\nextra: 1\n", r, /*strict=*/true);
  EXPECT_THAT(r.messages, ElementsAre("f.yaml:2: extra: unknown field \"extra\""));
  EXPECT_EQ(r.diags.error_count(), 1u);
}

TEST(DecoderTest, EmptyStringsInternToTheEmptySymbol) {
  DecodeRun r;
  Decode("labels: {a: '', b: \"\"}\n", r);
  ASSERT_EQ(r.out.labels.size(), 2u);
  EXPECT_TRUE(r.out.labels[0].second.empty());
  EXPECT_TRUE(r.out.labels[1].second.empty());
}

TEST(DecoderTest, NullMeansAbsent) {
  DecodeRun r;
  r.out.name = "keep";
  Decode("name: null\non: ~\nitems:\nlabels: {a: null}\n", r);
  EXPECT_THAT(r.messages, ElementsAre());
  EXPECT_EQ(r.out.name, "keep");
  ASSERT_EQ(r.out.labels.size(), 1u);
  EXPECT_TRUE(r.out.labels[0].second.empty());
}

TEST(DecoderTest, WrongContainerTypes) {
  DecodeRun r;
  Decode("items: {n: 1}\nlabels: [a]\n", r);
  EXPECT_THAT(r.messages, ElementsAre("f.yaml:1: items: expected a sequence, got a map",
                                      "f.yaml:2: labels: expected a map, got a sequence"));
}

TEST(DecoderTest, QuantitiesAcceptNumbers) {
  DecodeRun r;
  Decode("quantity: 2\n", r);
  EXPECT_THAT(r.messages, ElementsAre());
  EXPECT_EQ(r.out.q.Value(), 2);
  DecodeRun r2;
  Decode("quantity: 0.5\n", r2);
  EXPECT_EQ(r2.out.q.MilliValue(), 500);
  DecodeRun r3;
  Decode("quantity: yes\n", r3);
  ASSERT_EQ(r3.messages.size(), 1u);
  EXPECT_THAT(r3.messages[0], ::testing::HasSubstr("expected a quantity"));
}

TEST(DecoderTest, PathScopes) {
  Diagnostics diags;
  Decoder d("f", diags);
  {
    auto root = d.Root("items[3]");
    auto a = d.Field("spec");
    auto b = d.Field("resources");
    auto c = d.Field("requests");
    auto k = d.Key("nvidia.com/gpu");
    EXPECT_EQ(d.path(), "items[3].spec.resources.requests[nvidia.com/gpu]");
  }
  EXPECT_EQ(d.path(), "");
  auto f = d.Field("a");
  auto i = d.Index(0);
  EXPECT_EQ(d.path(), "a[0]");
  EXPECT_EQ(d.PathWith("b"), "a[0].b");
}

TEST(DecoderTest, Rfc3339) {
  TimePoint t;
  ASSERT_TRUE(ParseRfc3339("1970-01-01T00:00:01Z", t));
  EXPECT_EQ(t.time_since_epoch(), std::chrono::seconds(1));
  ASSERT_TRUE(ParseRfc3339("1970-01-01T01:00:00.5+01:00", t));
  EXPECT_EQ(t.time_since_epoch(), std::chrono::milliseconds(500));
  ASSERT_TRUE(ParseRfc3339("2026-11-21T14:05:00Z", t));
  EXPECT_FALSE(ParseRfc3339("2026-11-21 14:05:00Z", t));
  EXPECT_FALSE(ParseRfc3339("2026-02-30T00:00:00Z", t));
  EXPECT_FALSE(ParseRfc3339("2026-11-21T14:05:00", t));
  EXPECT_FALSE(ParseRfc3339("2026-11-21T25:05:00Z", t));
  EXPECT_FALSE(ParseRfc3339("0001-01-01T00:00:00Z", t));  // outside int64 nanoseconds
  EXPECT_FALSE(ParseRfc3339("9999-12-31T23:59:59Z", t));
  ASSERT_TRUE(ParseRfc3339("1969-12-31T23:59:59.5Z", t));
  EXPECT_EQ(t.time_since_epoch(), std::chrono::milliseconds(-500));
}

TEST(DecoderTest, GoDurations) {
  Duration d;
  ASSERT_TRUE(ParseGoDuration("1m30s", d));
  EXPECT_EQ(d, std::chrono::seconds(90));
  ASSERT_TRUE(ParseGoDuration("1.5h", d));
  EXPECT_EQ(d, std::chrono::minutes(90));
  ASSERT_TRUE(ParseGoDuration("-300ms", d));
  EXPECT_EQ(d, std::chrono::milliseconds(-300));
  ASSERT_TRUE(ParseGoDuration("0", d));
  EXPECT_EQ(d.count(), 0);
  EXPECT_FALSE(ParseGoDuration("5", d));
  EXPECT_FALSE(ParseGoDuration("5d", d));
  EXPECT_FALSE(ParseGoDuration("", d));
  EXPECT_FALSE(ParseGoDuration("99999999999h", d));
}

TEST(DecoderTest, Suggest) {
  std::vector<std::string_view> c = {"tolerations", "topologySpreadConstraints", "nodeName"};
  EXPECT_EQ(Suggest("tolerance", c), "tolerations");
  EXPECT_EQ(Suggest("NodeName", c), "nodeName");
  EXPECT_EQ(Suggest("zzz", c), "");
}

}  // namespace
}  // namespace corral::doc
