// scheduler_perf's schedulerApiClientQPS and schedulerApiClientBurst: the rate limit of the
// scheduler's client-go REST config, resolved into SimSpec::api_client (perf_config_internal.h).

#include <string>
#include <string_view>

#include <fmt/format.h>

#include "corral/sim/input/perf_config_internal.h"

namespace corral::sim::perf_detail {

namespace {

// kube's scheduler_perf gives the scheduler's client QPS 5000 and Burst 5000 unless the test case
// or workload sets them.
constexpr double kHarnessQps = 5000;
constexpr int64_t kHarnessBurst = 5000;
// client-go's rest.DefaultQPS and rest.DefaultBurst, used when a field is 0.
constexpr float kClientGoDefaultQps = 5;
constexpr int64_t kClientGoDefaultBurst = 10;

constexpr std::string_view kAsyncGate = "SchedulerAsyncAPICalls";

// The SchedulerAsyncAPICalls value the workload sets (the workload's over the test case's), or its
// default in kube v1.37 (false).
bool AsyncApiCalls(const TestCaseIn& tc, const WorkloadIn& w) {
  bool value = false;
  for (const Node* g : {tc.gates, w.gates}) {
    if (g == nullptr) continue;
    for (size_t k = 0; k < g->size(); ++k) {
      if (g->key(k).text() == kAsyncGate && g->value(k).kind() == doc::Kind::kBool)
        value = g->value(k).bool_value();
    }
  }
  return value;
}

// API calls the scheduler makes for features whose calls the limit does not model, or empty.
std::string UnmodelledCalls(const SimSpec& spec) {
  if (spec.objects.resources != nullptr)
    return "DynamicResources' ResourceClaim status updates (resource.k8s.io objects)";
  if (spec.objects.storage != nullptr)
    return "VolumeBinding's PersistentVolume and claim updates (storage objects)";
  if (!spec.objects.pod_groups.empty() || !spec.objects.workloads.empty() ||
      !spec.objects.composite_pod_groups.empty())
    return "the workload scheduling cycle's pod group status updates (PodGroups, Workloads)";
  return {};
}

}  // namespace

void ResolveApiLimit(const std::string& path, const TestCaseIn& tc, const WorkloadIn& w,
                     SimSpec& spec, Diagnostics& diags) {
  const ApiLimitIn& t = tc.api_limit;
  const ApiLimitIn& o = w.api_limit;
  if (!t.any() && !o.any()) return;
  const Node* qps_node = o.qps.has_value() ? o.qps_node : t.qps_node;
  const Node* burst_node = o.burst.has_value() ? o.burst_node : t.burst_node;
  const Node* at = qps_node != nullptr ? qps_node : burst_node;
  const std::string_view at_field =
      qps_node != nullptr ? "schedulerApiClientQPS" : "schedulerApiClientBurst";
  // client-go keeps QPS as a float32.
  float qps = static_cast<float>(o.qps.value_or(t.qps.value_or(kHarnessQps)));
  int64_t burst = o.burst.value_or(t.burst.value_or(kHarnessBurst));
  const std::string given =
      fmt::format("schedulerApiClientQPS {}, schedulerApiClientBurst {}", qps, burst);
  if (qps < 0) {
    // client-go's RESTClientFor builds no rate limiter for a negative QPS.
    spec.notes.push_back(fmt::format(
        "{}: a negative QPS turns client-go's rate limiter off; the scheduler's API calls are not "
        "limited",
        given));
    return;
  }
  if (qps == 0) qps = kClientGoDefaultQps;
  if (burst == 0) burst = kClientGoDefaultBurst;
  if (burst < 0) {
    diags.Error(path, burst_node->line(), "schedulerApiClientBurst",
                fmt::format("{}: client-go's token bucket refuses every call when the burst is "
                            "negative (rate: Wait(n=1) exceeds limiter's burst {}); a scheduler "
                            "whose API calls all fail cannot be run",
                            burst, burst));
    return;
  }
  if (std::string calls = UnmodelledCalls(spec); !calls.empty()) {
    diags.Error(path, at->line(), std::string(at_field),
                fmt::format("the rate limit is modelled for bindings, PodScheduled status patches "
                            "and preemption's victim calls only; this workload also makes {} "
                            "through the scheduler's API client, which Corral does not limit",
                            calls));
    return;
  }
  const bool dispatcher = AsyncApiCalls(tc, w);
  spec.api_client = ApiClientLimit{true, qps, burst, dispatcher};
  spec.notes.push_back(fmt::format(
      "scheduler API client: QPS {}, burst {}: bindings, PodScheduled status patches and "
      "preemption's victim calls wait for client-go's token bucket in virtual time",
      qps, burst));
  // The gate's note says it changes nothing; under a limit it does.
  const std::string prefix = fmt::format("feature gate {}=", kAsyncGate);
  for (std::string& n : spec.notes) {
    if (!n.starts_with(prefix)) continue;
    n = dispatcher ? prefix +
                         "true: bindings and status patches go through the scheduler's API "
                         "dispatcher, which merges a pod's waiting calls; the scheduling loop "
                         "does not wait for them"
                   : prefix +
                         "false: bindings and status patches are direct client calls; the "
                         "scheduling loop waits for each status patch it makes";
  }
}

}  // namespace corral::sim::perf_detail
