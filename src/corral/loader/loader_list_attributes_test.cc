// List-typed device attributes (DRAListTypeAttributes): ints, bools, strings and versions decoded
// into AttributeValue lists, with kube's validation (a non-empty list, the scalar fields' rules
// for each element, at most 48 attribute values per device) at the element's line.

#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "corral/api/resource/types.h"
#include "corral/api/well_known.h"
#include "corral/loader/loader.h"

namespace corral::loader {
namespace {

using ::testing::ElementsAre;

constexpr std::string_view kSliceHead = R"(apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: s}
spec:
  driver: gpu.example.com
  nodeName: n1
  pool: {name: p, generation: 1, resourceSliceCount: 1}
  devices:
  - name: d
    attributes:
)";

TEST(LoaderListAttributesTest, DecodesEachListKind) {
  Interner in = api::NewInterner();
  LoadResult r = LoadString(std::string(kSliceHead) + R"(      numa: {ints: [0, 1]}
      ready: {bools: [true]}
      dra.example.com/pcieRoot: {strings: [pci0000:00, pci0000:80]}
      driverVersion: {versions: [1.0.0, 2.1.0-rc.1]}
      model: {string: H100}
)",
                            "dra.yaml", in);
  for (const auto& d : r.diagnostics.items()) ADD_FAILURE() << d.ToString();
  ASSERT_TRUE(r.ok());
  const auto& attrs = r.objects.resources->resource_slices[0].devices[0].attributes;
  ASSERT_EQ(attrs.size(), 5u);
  using Kind = cel::AttributeValue::Kind;
  EXPECT_EQ(attrs[0].value.kind, Kind::kInt);
  ASSERT_EQ(attrs[0].value.list.size(), 2u);
  EXPECT_EQ(attrs[0].value.list[1].int_value, 1);
  EXPECT_EQ(attrs[1].value.kind, Kind::kBool);
  EXPECT_TRUE(attrs[1].value.list[0].bool_value);
  EXPECT_EQ(attrs[2].domain, "dra.example.com");
  EXPECT_EQ(attrs[2].value.list[1].string_value, "pci0000:80");
  EXPECT_EQ(attrs[3].value.kind, Kind::kVersion);
  EXPECT_EQ(attrs[3].value.list[1].version.minor, 1u);
  EXPECT_EQ(attrs[3].value.list[1].version.pre, "rc.1");
  EXPECT_FALSE(attrs[4].value.is_list());
}

// kube's allocator cases "list-attributes-match-constaint-with-empty-or-unknown-type" and
// "list-attributes-distinct-constaint-with-empty-or-unknown-type" give a device an attribute
// with no value or an empty list; kube's API validation refuses both, and so does the loader.
TEST(LoaderListAttributesTest, RefusesWhatKubesValidationRefuses) {
  Interner in = api::NewInterner();
  std::string many;
  for (int i = 0; i < 49; ++i) many += (i == 0 ? "" : ", ") + std::to_string(i);
  LoadResult r = LoadString(std::string(kSliceHead) + R"(      a: {}
      b: {strings: []}
      c: {ints: [1], int: 2}
      d: {versions: [1.0.0, "1.0"]}
      e: {strings: [")" + std::string(65, 'x') +
                                R"("]}
      f: {bools: true}
  - name: d2
    attributes:
      many: {ints: [)" + many + R"(]}
)",
                            "dra.yaml", in);
  EXPECT_FALSE(r.ok());
  std::vector<std::string> got;
  for (const auto& d : r.diagnostics.items()) got.push_back(d.ToString());
  EXPECT_THAT(
      got,
      ElementsAre(
          "dra.yaml:11: spec.devices[0].attributes[a]: exactly one value must be specified",
          "dra.yaml:12: spec.devices[0].attributes[b].strings: Required value: must have at least "
          "one value",
          "dra.yaml:13: spec.devices[0].attributes[c]: exactly one value must be specified",
          "dra.yaml:14: spec.devices[0].attributes[d].versions[1]: Invalid value: \"1.0\": must be "
          "a string compatible with semver.org spec 2.0.0",
          "dra.yaml:15: spec.devices[0].attributes[e].strings[0]: Too long: may not be more than "
          "64 bytes",
          "dra.yaml:16: spec.devices[0].attributes[f].bools: expected a sequence, got boolean true",
          "dra.yaml:17: spec.devices[1]: Too many: 49: must have at most 48 attribute values"));
}

}  // namespace
}  // namespace corral::loader
