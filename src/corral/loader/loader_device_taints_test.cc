// Device taints (DRADeviceTaints) at load: device `taints`, request `tolerations`, DeviceTaintRule
// (resource.k8s.io v1alpha3 and v1beta2), and the v1beta1/v1alpha3 claims whose requests carry
// their fields inline (as kube's scheduler_perf templates write them). Validation follows kube's
// validateDeviceTaint, validateDeviceToleration and the request rules of v1beta1.

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
namespace res = api::resource;

class LoaderDeviceTaintsTest : public ::testing::Test {
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

TEST_F(LoaderDeviceTaintsTest, TaintsTolerationsRulesAndInlineRequests) {
  LoadResult r = Load(R"(apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: s}
spec:
  driver: gpu.example.com
  nodeName: n1
  pool: {name: p, resourceSliceCount: 1}
  devices:
  - name: d
    taints:
    - {key: example.com/broken, value: "yes", effect: NoExecute, timeAdded: "2026-01-02T03:04:05Z"}
    - {key: example.com/info, effect: None}
---
apiVersion: resource.k8s.io/v1alpha3
kind: DeviceTaintRule
metadata: {name: all}
spec:
  deviceSelector:
  taint: {key: example.com/taint, value: tainted, effect: NoSchedule}
---
apiVersion: resource.k8s.io/v1beta2
kind: DeviceTaintRule
metadata: {name: one}
spec:
  deviceSelector: {driver: gpu.example.com, pool: p, device: d}
  taint: {key: example.com/taint, effect: NoExecute}
---
apiVersion: resource.k8s.io/v1alpha3
kind: ResourceClaimTemplate
metadata: {name: t, namespace: ns}
spec:
  spec:
    devices:
      requests:
      - name: req-0
        deviceClassName: gpu
        tolerations:
        - key: example.com/taint
          operator: Exists
        - {key: example.com/broken, value: "yes", effect: NoExecute, tolerationSeconds: 30}
      - name: req-1
        firstAvailable:
        - {name: big, deviceClassName: gpu, tolerations: [{operator: Exists}]}
        - {name: small, deviceClassName: gpu, count: 2}
)");
  for (const auto& m : messages_) ADD_FAILURE() << m;
  ASSERT_TRUE(r.ok());
  const res::ResourceObjects& o = *r.objects.resources;
  ASSERT_EQ(o.resource_slices.size(), 1u);
  const auto& taints = o.resource_slices[0].devices[0].taints;
  ASSERT_EQ(taints.size(), 2u);
  EXPECT_EQ(S(taints[0].key), "example.com/broken");
  EXPECT_EQ(S(taints[0].value), "yes");
  EXPECT_EQ(taints[0].effect, res::DeviceTaintEffect::kNoExecute);
  EXPECT_EQ(taints[1].effect, res::DeviceTaintEffect::kNone);
  ASSERT_EQ(o.device_taint_rules.size(), 2u);
  EXPECT_FALSE(o.device_taint_rules[0].driver.has_value());
  EXPECT_FALSE(o.device_taint_rules[0].device.has_value());
  EXPECT_EQ(S(o.device_taint_rules[0].taint.value), "tainted");
  EXPECT_EQ(o.device_taint_rules[0].taint.effect, res::DeviceTaintEffect::kNoSchedule);
  EXPECT_EQ(S(*o.device_taint_rules[1].driver), "gpu.example.com");
  EXPECT_EQ(S(*o.device_taint_rules[1].pool), "p");
  EXPECT_EQ(S(*o.device_taint_rules[1].device), "d");
  ASSERT_EQ(o.resource_claim_templates.size(), 1u);
  const auto& reqs = o.resource_claim_templates[0].spec.requests;
  ASSERT_EQ(reqs.size(), 2u);
  ASSERT_TRUE(reqs[0].exactly.has_value());
  EXPECT_EQ(S(reqs[0].exactly->device_class_name), "gpu");
  EXPECT_EQ(S(reqs[0].exactly->result_name), "req-0");
  const auto& tols = reqs[0].exactly->tolerations;
  ASSERT_EQ(tols.size(), 2u);
  EXPECT_EQ(tols[0].op, res::DeviceTolerationOperator::kExists);
  EXPECT_FALSE(tols[0].effect.has_value());
  EXPECT_EQ(tols[1].op, res::DeviceTolerationOperator::kEqual);  // the default
  EXPECT_EQ(tols[1].effect, res::DeviceTaintEffect::kNoExecute);
  ASSERT_EQ(reqs[1].first_available.size(), 2u);
  EXPECT_EQ(S(reqs[1].first_available[0].result_name), "req-1/big");
  EXPECT_EQ(reqs[1].first_available[0].tolerations.size(), 1u);
  EXPECT_EQ(reqs[1].first_available[1].count, 2);
}

TEST_F(LoaderDeviceTaintsTest, ValidationErrorsArePositioned) {
  LoadResult r = Load(R"(apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: s}
spec:
  driver: gpu.example.com
  nodeName: n1
  pool: {name: p, resourceSliceCount: 1}
  devices:
  - name: d
    taints:
    - {value: "a b", effect: Sometimes}
    - {key: k}
---
apiVersion: resource.k8s.io/v1alpha3
kind: DeviceTaintRule
metadata: {name: r}
spec:
  deviceSelector: {deviceClassName: gpu, selectors: [{cel: {expression: "true"}}]}
---
apiVersion: resource.k8s.io/v1beta1
kind: ResourceClaim
metadata: {name: c}
spec:
  devices:
    requests:
    - name: r
      deviceClassName: gpu
      firstAvailable: [{name: s, deviceClassName: gpu}]
    - name: r2
      exactly: {deviceClassName: gpu}
    - name: r3
      deviceClassName: gpu
      tolerations: [{key: k, operator: Maybe}]
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: c2}
spec:
  devices:
    requests:
    - name: r
      deviceClassName: gpu
)");
  EXPECT_FALSE(r.ok());
  EXPECT_THAT(
      messages_,
      ElementsAre(
          "dra.yaml:11: spec.devices[0].taints[0].effect: unknown effect \"Sometimes\" (want "
          "NoSchedule, NoExecute, None)",
          "dra.yaml:11: spec.devices[0].taints[0].key: required field \"key\" is missing",
          "dra.yaml:11: spec.devices[0].taints[0].value: Invalid value: \"a b\": a valid label "
          "must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and "
          "must start and end with an alphanumeric character (e.g. 'MyValue', or 'my_value', or "
          "'12345')",
          "dra.yaml:12: spec.devices[0].taints[1].effect: required field \"effect\" is missing",
          "dra.yaml:18: spec.deviceSelector.deviceClassName: not modelled by Corral: "
          "DeviceTaintRule device selection by device class",
          "dra.yaml:18: spec.deviceSelector.selectors: not modelled by Corral: DeviceTaintRule "
          "device selection by CEL selectors",
          "dra.yaml:18: spec.taint: required field \"taint\" is missing",
          "dra.yaml:27: spec.devices.requests[0].deviceClassName: Invalid value: must not be "
          "specified when firstAvailable is set",
          "dra.yaml:29: spec.devices.requests[1].deviceClassName: required field "
          "\"deviceClassName\" is missing",
          "dra.yaml:30: spec.devices.requests[1].exactly: unknown field \"exactly\"",
          "dra.yaml:33: spec.devices.requests[2].tolerations[0].operator: unknown operator "
          "\"Maybe\" (want Equal, Exists)",
          "dra.yaml:41: spec.devices.requests[0]: exactly one of `exactly` or `firstAvailable` is "
          "required",
          "dra.yaml:42: spec.devices.requests[0].deviceClassName: unknown field "
          "\"deviceClassName\""));
}

}  // namespace
}  // namespace corral::loader
