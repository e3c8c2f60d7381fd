// DraStore's allocated-device bookkeeping for shared devices (allowMultipleAllocations): a claim's
// shared results add their consumed capacity to the device's shares when the allocation is in
// flight or written, and give it back when the pod that holds the claim goes away.

#include "corral/state/dra_store.h"

#include <gtest/gtest.h>

#include "corral/api/well_known.h"
#include "corral/loader/loader.h"

namespace corral::state {
namespace {

namespace res = api::resource;

constexpr std::string_view kInput = R"(---
apiVersion: v1
kind: Node
metadata: {name: node-1}
status: {capacity: {pods: "110"}}
---
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: nic}
spec:
  driver: nic.example.com
  nodeName: node-1
  pool: {name: pool-1, generation: 1, resourceSliceCount: 1}
  devices:
  - name: nic-0
    allowMultipleAllocations: true
    capacity:
      bandwidth: {value: 100G}
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: a, namespace: ml}
spec:
  devices:
    requests:
    - name: nic
      exactly: {deviceClassName: nic, capacity: {requests: {bandwidth: 40G}}}
status:
  allocation:
    devices:
      results:
      - {request: nic, driver: nic.example.com, pool: pool-1, device: nic-0, shareID: 6f0b1c1e-0000-4000-8000-000000000001, consumedCapacity: {bandwidth: 40G}}
  reservedFor: [{resource: pods, name: pod-a, uid: ua}]
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: b, namespace: ml}
spec:
  devices:
    requests:
    - name: nic
      exactly: {deviceClassName: nic, capacity: {requests: {bandwidth: 15G}}}
status:
  allocation:
    devices:
      results:
      - {request: nic, driver: nic.example.com, pool: pool-1, device: nic-0, shareID: 6f0b1c1e-0000-4000-8000-000000000002, consumedCapacity: {bandwidth: 15G}}
  reservedFor: [{resource: pods, name: pod-b, uid: ub}]
---
apiVersion: v1
kind: Pod
metadata: {name: pod-a, namespace: ml, uid: ua}
spec:
  nodeName: node-1
  containers: [{name: c, image: i}]
  resourceClaims: [{name: nic, resourceClaimName: a}]
---
apiVersion: v1
kind: Pod
metadata: {name: pod-b, namespace: ml, uid: ub}
spec:
  nodeName: node-1
  containers: [{name: c, image: i}]
  resourceClaims: [{name: nic, resourceClaimName: b}]
)";

std::string Shares(const Interner& in, const DraStore& s) {
  std::string out;
  for (const auto& [id, sh] : s.SharedDevices()) {
    out += std::string(in.Str(id.device)) + " x" + std::to_string(sh.shares);
    for (const auto& c : sh.consumed) {
      out += " " + std::string(c.domain) + "/" + std::string(c.id) + "=" + c.value.String();
    }
  }
  return out;
}

TEST(DraStoreTest, SharedDevicesHeldAndReleased) {
  Interner in = api::NewInterner();
  loader::LoadResult r = loader::LoadString(kInput, "shares.yaml", in);
  for (const auto& d : r.diagnostics.items()) ADD_FAILURE() << d.path << ": " << d.message;
  ASSERT_TRUE(r.ok());
  DraStore store;
  store.set_pods_resource(in.Intern("pods"));
  store.Reset(r.objects.resources.get());
  // Both claims share the device: it is not held whole, and their capacity adds up.
  EXPECT_TRUE(store.AllocatedDevices().empty());
  EXPECT_EQ(Shares(in, store), "nic-0 x2 nic.example.com/bandwidth=55G");
  EXPECT_TRUE(store.ReleasePod(r.objects.pods[0]));
  EXPECT_EQ(Shares(in, store), "nic-0 x1 nic.example.com/bandwidth=15G");
  EXPECT_TRUE(store.ReleasePod(r.objects.pods[1]));
  EXPECT_EQ(Shares(in, store), "");
}

}  // namespace
}  // namespace corral::state
