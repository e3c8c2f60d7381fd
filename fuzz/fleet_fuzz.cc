// Fuzzes the fleet loader and what runs on its output: the bytes go through the YAML and JSON
// parsers and every Karmada and Kueue decoder (placement annotations included); each loaded work
// item is then estimated by the general estimator on every loaded cluster, filtered by the cluster
// plugins and divided over the clusters by its replica scheduling. Any crash, sanitizer report,
// hang or CHECK failure is a bug: bad input must only ever produce diagnostics or division errors.

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "corral/api/well_known.h"
#include "corral/fleet/division.h"
#include "corral/fleet/estimator.h"
#include "corral/fleet/plugins/cluster_affinity/cluster_affinity.h"
#include "corral/fleet/plugins/taint_toleration/taint_toleration.h"
#include "corral/loader/fleet_loader.h"

namespace {

// Division deals replicas one seat at a time, as Karmada does; keep the fuzzer's inputs small.
constexpr int32_t kMaxFuzzReplicas = 10000;

void Exercise(const corral::loader::FleetObjects& o, const corral::Interner& in) {
  using namespace corral;  // NOLINT
  fleet::GeneralEstimator estimator(in);
  fleet::ClusterAffinity affinity(in);
  fleet::TaintToleration taints(in);
  std::vector<const api::Cluster*> clusters;
  for (const api::Cluster& c : o.clusters) clusters.push_back(&c);
  for (const api::FleetWork& w : o.works) {
    const api::ReplicaRequirements* req =
        w.replica_requirements ? &*w.replica_requirements : nullptr;
    std::vector<int32_t> available = estimator.MaxAvailableReplicas(clusters, req);
    if (available.size() != clusters.size()) __builtin_trap();
    std::vector<fleet::ClusterDetail> candidates;
    for (size_t i = 0; i < clusters.size(); ++i) {
      if (available[i] < 0) __builtin_trap();  // the general estimator always answers
      if (!affinity.Filter(w, *clusters[i]).ok() || !taints.Filter(w, *clusters[i]).ok()) continue;
      fleet::ClusterDetail d;
      d.name = std::string(in.Str(clusters[i]->meta.name));
      d.cluster = clusters[i];
      d.allocatable_replicas = available[i];
      d.available_replicas = available[i];
      candidates.push_back(d);
    }
    if (w.replicas > kMaxFuzzReplicas) continue;
    fleet::DivisionRequest request;
    request.replicas = w.replicas;
    for (const api::TargetCluster& t : w.clusters) {
      request.previous.push_back({std::string(in.Str(t.name)), t.replicas});
    }
    request.uid = std::string(in.Str(w.resource.uid));
    fleet::Division d = fleet::AssignReplicas(
        candidates, w.placement, w.replica_requirements.has_value(), false, request, in);
    if (!d.ok()) continue;
    for (const fleet::TargetReplicas& t : d.clusters) {
      if (t.replicas < 0) __builtin_trap();
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view input(reinterpret_cast<const char*>(data), size);  // NOLINT
  for (std::string_view name : {"fuzz.yaml", "fuzz.json"}) {
    corral::Interner interner = corral::api::NewInterner();
    corral::loader::FleetLoadResult r = corral::loader::LoadFleetString(input, name, interner);
    for (const auto& d : r.diagnostics.items()) {
      if (d.message.empty()) __builtin_trap();  // every diagnostic says something
    }
    for (const auto& c : r.objects.clusters) {
      if (c.meta.name.empty()) __builtin_trap();
    }
    Exercise(r.objects, interner);
  }
  return 0;
}
