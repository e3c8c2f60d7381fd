// Fixtures shared by the DynamicResources plugin and structured-allocator tests: a DraManager over
// loaded objects with a fixed set of allocated devices (kube's allocatedDevices), a DeviceClass
// that selects one driver, device ids written "driver/pool/device", the one-line description of an
// allocation the tables compare, a FakeHandle that owns a DraStore, and a Status printer.
// Test-only; nothing here is linked into the scheduler.

#ifndef CORRAL_PLUGINS_DYNAMIC_RESOURCES_TEST_UTIL_H_
#define CORRAL_PLUGINS_DYNAMIC_RESOURCES_TEST_UTIL_H_

#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <absl/container/flat_hash_set.h>
#include <fmt/format.h>

#include "corral/api/resource/types.h"
#include "corral/core/interner.h"
#include "corral/framework/dra_manager.h"
#include "corral/framework/status.h"
#include "corral/state/dra_store.h"

#include "test/testing/fake_handle.h"

namespace corral::plugins::dra_test {

namespace res = api::resource;

// A DraManager over the classes, slices and DeviceTaintRules of `objects` (which must outlive
// it), with `allocated` devices in use and `shared` devices partly consumed. No claim is stored
// or pending; the write operations do nothing.
class FakeDraManager final : public framework::DraManager {
 public:
  FakeDraManager(const res::ResourceObjects& objects,
                 absl::flat_hash_set<framework::DeviceId> allocated,
                 framework::SharedDeviceMap shared = {})
      : allocated_(std::move(allocated)), shared_(std::move(shared)) {
    for (const auto& c : objects.device_classes) classes_.push_back(&c);
    for (const auto& s : objects.resource_slices) slices_.push_back(&s);
    for (const auto& r : objects.device_taint_rules) rules_.push_back(&r);
  }
  const res::DeviceClass* GetDeviceClass(Symbol name) const override {
    for (const auto* c : classes_) {
      if (c->meta.name == name) return c;
    }
    return nullptr;
  }
  std::span<const res::DeviceClass* const> DeviceClasses() const override { return classes_; }
  std::span<const res::ResourceSlice* const> ResourceSlices() const override { return slices_; }
  std::span<const res::DeviceTaintRule* const> DeviceTaintRules() const override { return rules_; }
  const res::ResourceClaim* GetClaim(Symbol, Symbol) const override { return nullptr; }
  const absl::flat_hash_set<framework::DeviceId>& AllocatedDevices() const override {
    return allocated_;
  }
  const framework::SharedDeviceMap& SharedDevices() const override { return shared_; }
  bool ClaimHasPendingAllocation(const res::ResourceClaim&) const override { return false; }
  void SignalClaimPendingAllocation(const res::ResourceClaim&, res::AllocationResult) override {}
  bool RemoveClaimPendingAllocation(const res::ResourceClaim&) override { return false; }
  std::string BindClaim(const res::ResourceClaim&, Symbol, Symbol) override { return ""; }
  void UnreserveClaim(const res::ResourceClaim&, Symbol) override {}
  void DeallocateClaim(const res::ResourceClaim&) override {}

 private:
  std::vector<const res::DeviceClass*> classes_;
  std::vector<const res::ResourceSlice*> slices_;
  std::vector<const res::DeviceTaintRule*> rules_;
  absl::flat_hash_set<framework::DeviceId> allocated_;
  framework::SharedDeviceMap shared_;
};

// A FakeHandle whose shared DRA manager is a DraStore the test fills.
class DraHandle : public ::corral::testing::FakeHandle {
 public:
  using FakeHandle::FakeHandle;
  framework::DraManager* SharedDRAManager() override { return &store; }
  state::DraStore store;
};

// A resource.k8s.io/v1 DeviceClass manifest selecting the devices of `driver` (kube's generator).
inline std::string DriverClass(std::string_view name, std::string_view driver) {
  return fmt::format(R"(---
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {{name: {}}}
spec:
  selectors:
  - cel: {{expression: 'device.driver == "{}"'}}
)",
                     name, driver);
}

// kube's workerNodeSlice of the DynamicResources plugin tests: device instance-1 of some-driver
// on node "worker", in a pool of one slice.
inline constexpr std::string_view kWorkerSlice = R"(---
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: worker-some-driver}
spec:
  driver: some-driver
  nodeName: worker
  pool: {name: worker, generation: 1, resourceSliceCount: 1}
  devices:
  - name: instance-1
)";

// "driver/pool/device" as a device id; the three parts are interned in `in`.
inline framework::DeviceId ParseDeviceId(Interner& in, std::string_view id) {
  size_t s1 = id.find('/'), s2 = id.find('/', s1 + 1);
  return {in.Intern(id.substr(0, s1)), in.Intern(id.substr(s1 + 1, s2 - s1 - 1)),
          in.Intern(id.substr(s2 + 1))};
}

inline absl::flat_hash_set<framework::DeviceId> ParseDeviceIds(
    Interner& in, const std::vector<std::string>& ids) {
  absl::flat_hash_set<framework::DeviceId> out;
  for (const auto& id : ids) out.insert(ParseDeviceId(in, id));
  return out;
}

// "<request> <driver>/<pool>/<device>[ admin], ..." for the devices of one allocation.
inline std::string DescribeDevices(const Interner& in, const res::AllocationResult& r) {
  std::string out;
  for (const auto& d : r.devices) {
    if (!out.empty()) out += ", ";
    out += fmt::format("{} {}/{}/{}{}", in.Str(d.request), in.Str(d.driver), in.Str(d.pool),
                       in.Str(d.device), d.admin_access ? " admin" : "");
  }
  return out;
}

// "Code" or "Code: message", as the plugin tables write kube's expected statuses.
inline std::string ShowStatus(const framework::Status& s) {
  std::string out(framework::CodeName(s.code()));
  if (!s.Message().empty()) out += ": " + s.Message();
  return out;
}

}  // namespace corral::plugins::dra_test

#endif  // CORRAL_PLUGINS_DYNAMIC_RESOURCES_TEST_UTIL_H_
