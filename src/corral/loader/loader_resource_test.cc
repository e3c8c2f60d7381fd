// resource.k8s.io decoding: every kind, template claims generated at load, kube's validation, and
// every CEL construct outside Corral's subset rejected at its line with its column.

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

class LoaderResourceTest : public ::testing::Test {
 protected:
  LoadResult Load(const std::string& yaml) {
    LoadResult r = LoadString(yaml, "dra.yaml", in_);
    for (const auto& d : r.diagnostics.items()) messages_.push_back(d.ToString());
    return r;
  }
  std::string S(Symbol s) const { return std::string(in_.Str(s)); }

  Interner in_ = api::NewInterner();
  std::vector<std::string> messages_;
};

TEST_F(LoaderResourceTest, AllKindsAndTemplateClaims) {
  LoadResult r = Load(R"(apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: gpu}
spec:
  selectors:
  - cel: {expression: 'device.driver == "gpu.example.com"'}
  config: [{opaque: {driver: gpu.example.com, parameters: {a: 1}}}]
---
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: n1-gpu}
spec:
  driver: gpu.example.com
  nodeName: n1
  pool: {name: n1, generation: 3, resourceSliceCount: 1}
  sharedCounters:
  - name: mem
    counters: {memory: {value: 80Gi}}
  devices:
  - name: gpu-0
    attributes:
      model: {string: H100}
      other.example.com/numa: {int: 1}
      driverVersion: {version: 1.2.3}
    capacity:
      memory: {value: 80Gi}
    consumesCounters:
    - counterSet: mem
      counters: {memory: {value: 40Gi}}
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaimTemplate
metadata: {name: one-gpu, namespace: ml}
spec:
  spec:
    devices:
      requests:
      - name: gpu
        firstAvailable:
        - {name: big, deviceClassName: gpu, count: 2}
        - {name: any, deviceClassName: gpu, allocationMode: All}
      constraints:
      - {matchAttribute: gpu.example.com/model, requests: [gpu/big]}
---
apiVersion: v1
kind: Pod
metadata: {name: trainer-with-a-rather-long-name-for-truncation, namespace: ml, uid: u1}
spec:
  containers: [{name: c, image: i}]
  resourceClaims:
  - {name: accelerator-claim-also-quite-long, resourceClaimTemplateName: one-gpu}
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: shared, namespace: ml}
spec:
  devices:
    requests:
    - name: gpu
      exactly: {deviceClassName: gpu, adminAccess: true}
status:
  allocation:
    devices:
      results: [{request: gpu, driver: gpu.example.com, pool: n1, device: gpu-0}]
    nodeSelector:
      nodeSelectorTerms: [{matchFields: [{key: metadata.name, operator: In, values: [n1]}]}]
  reservedFor: [{resource: pods, name: p, uid: u2}]
)");
  ASSERT_TRUE(r.ok()) << messages_[0];
  ASSERT_NE(r.objects.resources, nullptr);
  const api::resource::ResourceObjects& o = *r.objects.resources;
  ASSERT_EQ(o.device_classes.size(), 1u);
  EXPECT_EQ(o.device_classes[0].selectors[0].program->source(),
            "device.driver == \"gpu.example.com\"");
  ASSERT_EQ(o.resource_slices.size(), 1u);
  const auto& slice = o.resource_slices[0];
  EXPECT_EQ(slice.pool_generation, 3);
  ASSERT_EQ(slice.devices[0].attributes.size(), 3u);
  EXPECT_EQ(slice.devices[0].attributes[0].domain, "gpu.example.com");  // the driver's domain
  EXPECT_EQ(slice.devices[0].attributes[1].domain, "other.example.com");
  EXPECT_EQ(slice.devices[0].attributes[1].id, "numa");
  EXPECT_EQ(slice.devices[0].attributes[2].value.version.patch, 3u);
  EXPECT_EQ(slice.shared_counters[0].counters[0].value.String(), "80Gi");
  EXPECT_EQ(S(slice.devices[0].consumes_counters[0].counter_set), "mem");
  // The user claim, then the claim generated for the pod (kube's controller: generateName cut in
  // proportion to 57 characters, the pod as controlling owner).
  ASSERT_EQ(o.resource_claims.size(), 2u);
  EXPECT_TRUE(o.resource_claims[0].allocation.has_value());
  EXPECT_TRUE(o.resource_claims[0].spec.requests[0].exactly->admin_access);
  const auto& gen = o.resource_claims[1];
  EXPECT_EQ(S(gen.meta.name).substr(0, S(gen.meta.name).size() - 5),
            "trainer-with-a-rather-long-name--accelerator-claim-also-");
  EXPECT_EQ(S(gen.meta.owner_references[0].uid), "u1");
  EXPECT_TRUE(gen.meta.owner_references[0].controller);
  EXPECT_EQ(S(gen.spec.requests[0].first_available[1].result_name), "gpu/any");
  EXPECT_EQ(r.objects.pods[0].resource_claims[0].generated_claim_name, gen.meta.name);
}

// kube's API validation, each error at its field.
TEST_F(LoaderResourceTest, ValidationErrorsArePositioned) {
  LoadResult r = Load(R"(apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: s}
spec:
  driver: gpu.example.com
  pool: {name: p, resourceSliceCount: 1}
  devices:
  - name: d
    attributes:
      a: {int: 1, bool: true}
      v: {version: "1.0"}
  - name: d
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: c}
spec:
  devices:
    requests:
    - name: r
      exactly: {deviceClassName: gpu, allocationMode: All, count: 2}
    - name: r2
      exactly: {deviceClassName: gpu}
      firstAvailable: [{name: s, deviceClassName: gpu}]
    - name: r3
      exactly: {deviceClassName: gpu, count: 0, tolerations: [{operator: Exists, value: x}]}
    constraints:
    - {matchAttribute: model, requests: [nope]}
    - {distinctAttribute: gpu.example.com/model}
---
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: ext}
spec: {extendedResourceName: gpu}
---
apiVersion: v1
kind: Pod
metadata: {name: p}
spec:
  containers: [{name: c, image: i}]
  resourceClaims:
  - {name: a, resourceClaimName: x, resourceClaimTemplateName: t}
  - {name: a, resourceClaimName: x}
)");
  EXPECT_FALSE(r.ok());
  EXPECT_THAT(
      messages_,
      ElementsAre(
          "dra.yaml:5: spec: exactly one of `nodeName`, `nodeSelector`, `allNodes`, "
          "`perDeviceNodeSelection` is required",
          "dra.yaml:10: spec.devices[0].attributes[a]: exactly one value must be specified",
          "dra.yaml:11: spec.devices[0].attributes[v].version: Invalid value: \"1.0\": must be a "
          "string compatible with semver.org spec 2.0.0",
          "dra.yaml:12: spec.devices[1].name: Duplicate value: \"d\"",
          "dra.yaml:21: spec.devices.requests[0].exactly.count: Invalid value: must not be "
          "specified when allocationMode is 'All'",
          "dra.yaml:22: spec.devices.requests[1]: exactly one of `exactly` or `firstAvailable` is "
          "required",
          "dra.yaml:26: spec.devices.requests[2].exactly.tolerations[0].value: Invalid value: "
          "\"x\": must be empty for operator `Exists`",
          "dra.yaml:26: spec.devices.requests[2].exactly.count: Invalid value: 0: must be greater "
          "than zero",
          "dra.yaml:28: spec.devices.constraints[0].matchAttribute: Invalid value: \"model\": must "
          "include a domain",
          "dra.yaml:28: spec.devices.constraints[0].requests[0]: Invalid value: \"nope\": must be "
          "the name of a request in the claim or the name of a request and a subrequest separated "
          "by '/'",
          "dra.yaml:29: spec.devices.constraints[1].distinctAttribute: not modelled by Corral: "
          "distinctAttribute constraints",
          "dra.yaml:34: spec.extendedResourceName: Invalid value: \"gpu\": must be a valid "
          "extended resource name",
          "dra.yaml:42: spec.resourceClaims[0]: must specify one of: `resourceClaimName`, "
          "`resourceClaimTemplateName`",
          "dra.yaml:43: spec.resourceClaims[1].name: Duplicate value: \"a\""));
}

// Every construct outside the CEL subset is an error at the expression's line, never a silent
// match; so is invalid CEL.
TEST_F(LoaderResourceTest, UnsupportedCelIsAPositionedError) {
  const char* kExpressions[] = {
      "device.driver.matches('^gpu')",
      "device.attributes['d'].x > 1.5",
      "device.attributes['d'].x == 1u",
      "device.attributes['d'].x == b'a'",
      "device.attributes['d'].x == null",
      "{'a': 1}['a'] == 1",
      "device.driver + 'x' == 'y'",
      "[1, 2].exists(x, x == 1)",
      "int(device.attributes['d'].x) == 1",
      "quantity(device.driver).sign() == 1",
      "noSuchVar",
  };
  std::string yaml;
  for (size_t i = 0; i < std::size(kExpressions); ++i) {
    yaml += "---\napiVersion: resource.k8s.io/v1\nkind: DeviceClass\nmetadata: {name: c" +
            std::to_string(i) + "}\nspec:\n  selectors:\n  - cel:\n      expression: \"" +
            kExpressions[i] + "\"\n";
  }
  LoadResult r = Load(yaml);
  EXPECT_FALSE(r.ok());
  EXPECT_THAT(
      messages_,
      ElementsAre(
          "dra.yaml:8: spec.selectors[0].cel.expression: unsupported CEL function 'matches' "
          "(column 15)",
          "dra.yaml:16: spec.selectors[0].cel.expression: unsupported CEL double literal (column "
          "28)",
          "dra.yaml:24: spec.selectors[0].cel.expression: unsupported CEL unsigned integer literal "
          "(column 29)",
          "dra.yaml:32: spec.selectors[0].cel.expression: unsupported CEL bytes literal (column "
          "29)",
          "dra.yaml:40: spec.selectors[0].cel.expression: unsupported CEL null literal (column 29)",
          "dra.yaml:48: spec.selectors[0].cel.expression: unsupported CEL map literal (column 1)",
          "dra.yaml:56: spec.selectors[0].cel.expression: unsupported CEL string concatenation "
          "(column 15)",
          "dra.yaml:64: spec.selectors[0].cel.expression: unsupported CEL macro 'exists' (column "
          "8)",
          "dra.yaml:72: spec.selectors[0].cel.expression: unsupported CEL function 'int' (column "
          "1)",
          "dra.yaml:80: spec.selectors[0].cel.expression: unsupported CEL quantity() of a computed "
          "string (column 1)",
          "dra.yaml:88: spec.selectors[0].cel.expression: compilation failed: undeclared "
          "reference to 'noSuchVar' (in container '') (column 1)"));
}

}  // namespace
}  // namespace corral::loader
