#include <algorithm>
#include <charconv>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "corral/doc/decoder.h"
#include "corral/doc/parse.h"
#include "corral/sim/distribution.h"
#include "corral/sim/input/scenario.h"
#include "corral/sim/input/scenario_input.h"
#include "corral/sim/virtual_time.h"

namespace corral::sim {

bool ParseRate(std::string_view s, double& per_second) {
  size_t slash = s.find('/');
  std::string_view num = slash == std::string_view::npos ? s : s.substr(0, slash);
  double v = 0;
  auto [p, ec] = std::from_chars(num.data(), num.data() + num.size(), v);
  if (ec != std::errc() || p != num.data() + num.size() || !(v > 0)) return false;
  double per = 1;
  if (slash != std::string_view::npos) {
    std::string_view unit = s.substr(slash + 1);
    if (unit == "s" || unit == "sec") {
      per = 1;
    } else if (unit == "m" || unit == "min") {
      per = 60;
    } else if (unit == "h") {
      per = 3600;
    } else if (unit == "d") {
      per = 86400;
    } else {
      return false;
    }
  }
  per_second = v / per;
  return true;
}

bool LooksLikeScenario(std::string_view text) {
  Diagnostics d;
  doc::Stream st = doc::ParseYaml(text, "", d);
  if (st.documents().empty()) return false;
  const doc::Node* kind = st.documents()[0].Find("kind");
  return kind != nullptr && kind->text() == "Scenario";
}

namespace scenario_internal {

using doc::Decoder;

namespace {

bool ReadDurationNs(Decoder& d, const Node& n, int64_t& out) {
  return ReadVirtualDurationNs(d, n, out);
}

void ReadRateField(Decoder& d, const Node& n, double& out) {
  if (n.kind() == doc::Kind::kInt || n.kind() == doc::Kind::kFloat) {
    double v = n.kind() == doc::Kind::kInt ? static_cast<double>(n.int_value()) : n.float_value();
    if (!(v > 0)) {
      d.Error(n, "must be positive");
      return;
    }
    out = v;
    return;
  }
  std::string_view s;
  if (!d.ReadString(n, s)) return;
  if (!ParseRate(s, out)) {
    d.Error(n, fmt::format(
                   "invalid rate {:?} (want a positive number per second, or \"N/s\", \"N/min\", "
                   "\"N/h\", \"N/d\")",
                   s));
  }
}

// ---- field tables -------------------------------------------------------------------------------

// The two scheduler fields a member cluster owns too (kClusterSchedulerFields).
void DecodeFeatureGates(Decoder& d, const Node& n, SchedulerIn& o) {
  if (d.ExpectMap(n)) o.gates = &n;
}
void DecodeConfigPath(Decoder& d, const Node& n, SchedulerIn& o) {
  o.config_node = &n;
  d.ReadString(n, o.config_path);
}

const doc::Field<SchedulerIn> kSchedulerFields[] = {
    {"featureGates", DecodeFeatureGates},
    {"configPath", DecodeConfigPath},
    {"bindLatency",
     [](Decoder& d, const Node& n, SchedulerIn& o) { DecodeDistribution(d, n, o.bind_latency); }},
    {"gangMode",
     [](Decoder& d, const Node& n, SchedulerIn& o) {
       static const doc::EnumName<bool> kModes[] = {{"workload-cycle", true}, {"permit", false}};
       d.ReadEnum(n, kModes, "gang mode", o.workload_cycle);
     }},
    {"schedulingCost",
     [](Decoder& d, const Node& n, SchedulerIn& o) {
       std::string_view s;
       if (!d.ReadString(n, s)) return;
       if (s == "instant" || s == "none") {
         o.cost.mode = CostModel::Mode::kInstant;
       } else if (s == "measured") {
         o.cost.mode = CostModel::Mode::kMeasured;
       } else {
         Duration v{};
         if (!doc::ParseGoDuration(s, v) || v.count() < 0) {
           d.Error(n,
                   fmt::format(
                       "invalid scheduling cost {:?} (want instant, measured, or a Go duration per "
                       "scheduling cycle such as \"2ms\")",
                       s));
           return;
         }
         o.cost.mode = CostModel::Mode::kFixed;
         o.cost.fixed_ns = v.count();
       }
     }},
};

const doc::Field<PoolIn> kPoolFields[] = {
    {"name", [](Decoder& d, const Node& n, PoolIn& o) { d.ReadString(n, o.name); }},
    {"namePrefix", [](Decoder& d, const Node& n, PoolIn& o) { d.ReadString(n, o.prefix); }},
    {"count", [](Decoder& d, const Node& n,
                 PoolIn& o) { o.has_count = d.ReadInt64(n, o.count, 0, 1'000'000); }},
    {"zones", [](Decoder& d, const Node& n, PoolIn& o) { d.ReadSymbolList(n, o.zones); }},
    {"racksPerZone",
     [](Decoder& d, const Node& n, PoolIn& o) { d.ReadInt32(n, o.racks, 0, 100000); }},
    {"labels",
     [](Decoder& d, const Node& n, PoolIn& o) {
       if (d.ExpectMap(n)) o.labels = &n;
     }},
    {"taints",
     [](Decoder& d, const Node& n, PoolIn& o) {
       if (d.ExpectSequence(n)) o.taints = &n;
     }},
    {"resources",
     [](Decoder& d, const Node& n, PoolIn& o) {
       if (d.ExpectMap(n)) o.resources = &n;
     }},
    {"template",
     [](Decoder& d, const Node& n, PoolIn& o) {
       if (d.ExpectMap(n)) o.tmpl = &n;
     }},
};

const doc::EnumName<std::string_view> kWorkloadKinds[] = {
    {"Pods", "Pods"}, {"Job", "Job"}, {"Gang", "Gang"}};

const doc::Field<WorkloadIn> kArrivalFields[] = {
    {"rate",
     [](Decoder& d, const Node& n, WorkloadIn& o) {
       o.arrival.kind = Arrival::Kind::kFixedRate;
       ReadRateField(d, n, o.arrival.rate_per_s);
     }},
    {"poisson",
     [](Decoder& d, const Node& n, WorkloadIn& o) {
       o.arrival.kind = Arrival::Kind::kPoisson;
       ReadRateField(d, n, o.arrival.rate_per_s);
     }},
};

const doc::Field<WorkloadIn> kWorkloadFields[] = {
    {"name", [](Decoder& d, const Node& n, WorkloadIn& o) { d.ReadString(n, o.name); }},
    {"kind",
     [](Decoder& d, const Node& n, WorkloadIn& o) {
       std::string_view k;
       if (d.ReadEnum(n, kWorkloadKinds, "workload kind", k)) o.kind = std::string(k);
     }},
    {"namespace",
     [](Decoder& d, const Node& n, WorkloadIn& o) {
       o.ns_node = &n;
       d.ReadString(n, o.ns);
     }},
    {"count",
     [](Decoder& d, const Node& n, WorkloadIn& o) { d.ReadInt64(n, o.count, 0, 100'000'000); }},
    {"arrival",
     [](Decoder& d, const Node& n, WorkloadIn& o) {
       o.arrival_set = true;
       if (n.is_scalar()) {
         std::string_view s;
         if (!d.ReadString(n, s)) return;
         if (s != "burst")
           d.Error(n, fmt::format(
                          "unknown arrival {:?} (want burst, {{rate: R}} or {{poisson: R}})", s));
         o.arrival.kind = Arrival::Kind::kBurst;
         return;
       }
       auto seen = d.Struct(n, o, kArrivalFields);
       if (n.is_map() && seen.has("rate") == seen.has("poisson")) {
         d.Error(n, "give exactly one of rate, poisson");
       }
     }},
    {"start", [](Decoder& d, const Node& n, WorkloadIn& o) { ReadDurationNs(d, n, o.start); }},
    {"stop",
     [](Decoder& d, const Node& n, WorkloadIn& o) { ReadDurationNs(d, n, o.arrival.stop_ns); }},
    {"parallelism",
     [](Decoder& d, const Node& n, WorkloadIn& o) { d.ReadInt32(n, o.parallelism, 1, 100000); }},
    {"minCount",
     [](Decoder& d, const Node& n, WorkloadIn& o) { d.ReadInt32(n, o.min_count, 1, 100000); }},
    {"duration",
     [](Decoder& d, const Node& n, WorkloadIn& o) { DecodeDistribution(d, n, o.duration); }},
    {"recreateOnEvict",
     [](Decoder& d, const Node& n, WorkloadIn& o) { d.ReadBool(n, o.recreate); }},
    {"priorityClassName",
     [](Decoder& d, const Node& n, WorkloadIn& o) {
       o.priority_node = &n;
       d.ReadString(n, o.priority_class);
     }},
    {"labels",
     [](Decoder& d, const Node& n, WorkloadIn& o) {
       if (d.ExpectMap(n)) o.labels = &n;
     }},
    {"resources",
     [](Decoder& d, const Node& n, WorkloadIn& o) {
       if (d.ExpectMap(n)) o.resources = &n;
     }},
    {"nodeSelector",
     [](Decoder& d, const Node& n, WorkloadIn& o) {
       if (d.ExpectMap(n)) o.node_selector = &n;
     }},
    {"tolerations",
     [](Decoder& d, const Node& n, WorkloadIn& o) {
       if (d.ExpectSequence(n)) o.tolerations = &n;
     }},
    {"topologySpread",
     [](Decoder& d, const Node& n, WorkloadIn& o) {
       if (d.ExpectSequence(n)) o.spread = &n;
     }},
    {"affinity",
     [](Decoder& d, const Node& n, WorkloadIn& o) {
       if (d.ExpectMap(n)) o.affinity = &n;
     }},
    {"schedulerName",
     [](Decoder& d, const Node& n, WorkloadIn& o) {
       std::string_view s;
       if (d.ReadString(n, s)) o.scheduler_name = &n;
     }},
    {"template",
     [](Decoder& d, const Node& n, WorkloadIn& o) {
       if (d.ExpectMap(n)) o.tmpl = &n;
     }},
    {"cluster",
     [](Decoder& d, const Node& n, WorkloadIn& o) {
       o.cluster_node = &n;
       d.ReadString(n, o.cluster);
     }},
    {"fleet", [](Decoder& d, const Node& n, WorkloadIn& o) { DecodeFleetWorkload(d, n, o.fleet); }},
};

const doc::Field<OpIn> kOpFields[] = {
    {"op", [](Decoder& d, const Node& n, OpIn& o) { d.ReadString(n, o.op); }},
    {"at",
     [](Decoder& d, const Node& n, OpIn& o) {
       int64_t v = 0;
       if (ReadDurationNs(d, n, v)) o.at = v;
     }},
    {"pool",
     [](Decoder& d, const Node& n, OpIn& o) {
       o.pool_node = &n;
       d.ReadString(n, o.pool);
     }},
    {"workload",
     [](Decoder& d, const Node& n, OpIn& o) {
       o.workload_node = &n;
       d.ReadString(n, o.workload);
     }},
    {"count", [](Decoder& d, const Node& n, OpIn& o) { d.ReadInt64(n, o.count, 0, 10'000'000); }},
    {"remove", [](Decoder& d, const Node& n, OpIn& o) { d.ReadBool(n, o.remove); }},
    {"duration",
     [](Decoder& d, const Node& n, OpIn& o) {
       ReadDurationNs(d, n, o.duration);
       o.has_duration = true;
     }},
    {"priorityClass",
     [](Decoder& d, const Node& n, OpIn& o) {
       o.class_node = &n;
       d.ReadString(n, o.priority_class);
     }},
    {"value", [](Decoder& d, const Node& n,
                 OpIn& o) { o.has_value = d.ReadInt32(n, o.value, -2147483648, 1000000000); }},
    {"namespaces", [](Decoder& d, const Node& n, OpIn& o) { d.ReadSymbolList(n, o.namespaces); }},
    {"stageRequirement",
     [](Decoder& d, const Node& n, OpIn& o) {
       static const doc::EnumName<std::string_view> kStages[] = {{"Scheduled", "Scheduled"},
                                                                 {"Attempted", "Attempted"}};
       std::string_view s;
       if (d.ReadEnum(n, kStages, "stage requirement", s)) o.stage = std::string(s);
     }},
    {"rate", [](Decoder& d, const Node& n, OpIn& o) { ReadRateField(d, n, o.rate); }},
    {"wait", [](Decoder& d, const Node& n, OpIn& o) { d.ReadBool(n, o.wait); }},
    {"mode",
     [](Decoder& d, const Node& n, OpIn& o) {
       static const doc::EnumName<std::string_view> kModes[] = {{"create", "create"},
                                                                {"recreate", "recreate"}};
       std::string_view s;
       if (d.ReadEnum(n, kModes, "churn mode", s)) o.mode = std::string(s);
     }},
    {"number", [](Decoder& d, const Node& n, OpIn& o) { d.ReadInt64(n, o.number, 1, 1'000'000); }},
    {"kind", [](Decoder& d, const Node& n, OpIn& o) { d.ReadString(n, o.controller_kind); }},
    {"name",
     [](Decoder& d, const Node& n, OpIn& o) {
       o.controller_node = &n;
       d.ReadString(n, o.controller_name);
     }},
    {"namespace",
     [](Decoder& d, const Node& n, OpIn& o) { d.ReadString(n, o.controller_namespace); }},
    {"replicas", [](Decoder& d, const Node& n, OpIn& o) { d.ReadInt32(n, o.replicas, 0); }},
    {"interval",
     [](Decoder& d, const Node& n, OpIn& o) {
       if (!ReadDurationNs(d, n, o.interval)) return;
       o.has_interval = true;
       if (o.interval <= 0) d.Error(n, "must be positive");
     }},
};

// Decodes a nodePools list into `out`, each pool tagged with its cluster and its field path.
void DecodePools(Decoder& d, const Node& n, std::string_view path, uint32_t cluster,
                 std::vector<PoolIn>& out) {
  size_t index = 0;
  d.ForEachItem(n, [&](const Node& item) {
    PoolIn p;
    p.self = &item;
    p.cluster = cluster;
    p.path = fmt::format("{}[{}]", path, index++);
    auto seen = d.Struct(item, p, kPoolFields);
    if (item.is_map()) {
      if (p.name.empty()) d.Required(item, "name");
      if (!seen.has("count")) d.Required(item, "count");
      if (p.tmpl != nullptr &&
          (p.labels != nullptr || p.taints != nullptr || p.resources != nullptr)) {
        d.Error(item,
                "template and labels/taints/resources are exclusive (put them in the template)");
      }
      if (p.tmpl == nullptr && p.resources == nullptr) d.Required(item, "resources", "or template");
    }
    out.push_back(std::move(p));
  });
}

// A cluster's scheduler: only what a member owns (its configuration and feature gates); the cost
// model, bind latency and gang mode stay the scenario's.
const doc::Field<SchedulerIn> kClusterSchedulerFields[] = {
    {"featureGates", DecodeFeatureGates},
    {"configPath", DecodeConfigPath},
};

struct ClusterDecode {
  ClusterIn* cluster;
  ScenarioIn* scenario;
  uint32_t index;
};

const doc::Field<ClusterDecode> kClusterFields[] = {
    {"name",
     [](Decoder& d, const Node& n, ClusterDecode& o) {
       o.cluster->name_node = &n;
       d.ReadString(n, o.cluster->name);
     }},
    {"scheduler",
     [](Decoder& d, const Node& n, ClusterDecode& o) {
       d.Struct(n, o.cluster->scheduler, kClusterSchedulerFields);
     }},
    {"nodePools",
     [](Decoder& d, const Node& n, ClusterDecode& o) {
       DecodePools(d, n, fmt::format("clusters[{}].nodePools", o.index), o.index,
                   o.scenario->pools);
     }},
};

const doc::Field<ScenarioIn> kMetaFields[] = {
    {"name", [](Decoder& d, const Node& n, ScenarioIn& o) { d.ReadString(n, o.name); }},
    {"description",
     [](Decoder& d, const Node& n, ScenarioIn& o) { d.ReadString(n, o.description); }},
};

const doc::Field<ScenarioIn> kScenarioFields[] = {
    {"apiVersion",
     [](Decoder& d, const Node& n, ScenarioIn&) {
       std::string_view s;
       if (d.ReadString(n, s) && s != "corral.dev/v1alpha1") {
         d.Error(n, fmt::format("unsupported apiVersion {:?} (want corral.dev/v1alpha1)", s));
       }
     }},
    {"kind",
     [](Decoder& d, const Node& n, ScenarioIn&) {
       std::string_view s;
       if (d.ReadString(n, s) && s != "Scenario")
         d.Error(n, fmt::format("kind {:?}: want Scenario", s));
     }},
    {"metadata", [](Decoder& d, const Node& n, ScenarioIn& o) { d.Struct(n, o, kMetaFields); }},
    {"seed",
     [](Decoder& d, const Node& n, ScenarioIn& o) {
       int64_t v = 0;
       if (d.ReadInt64(n, v, 0)) o.seed = static_cast<uint64_t>(v);
     }},
    {"duration",
     [](Decoder& d, const Node& n, ScenarioIn& o) { ReadDurationNs(d, n, o.duration); }},
    {"sampleInterval",
     [](Decoder& d, const Node& n, ScenarioIn& o) {
       if (ReadDurationNs(d, n, o.sample_interval) && o.sample_interval < 1'000'000) {
         d.Error(n, "must be at least 1ms");
       }
     }},
    {"scheduler",
     [](Decoder& d, const Node& n, ScenarioIn& o) { d.Struct(n, o.scheduler, kSchedulerFields); }},
    {"priorityClasses",
     [](Decoder& d, const Node& n, ScenarioIn& o) {
       if (d.ExpectSequence(n)) o.priority_classes = &n;
     }},
    {"namespaces",
     [](Decoder& d, const Node& n, ScenarioIn& o) {
       if (d.ExpectSequence(n)) o.namespaces = &n;
     }},
    {"manifests",
     [](Decoder& d, const Node& n, ScenarioIn& o) {
       o.manifests_node = &n;
       d.ForEachItem(n, [&](const Node& item) {
         std::string s;
         if (d.ReadString(item, s)) o.manifests.push_back(s);
       });
     }},
    {"nodePools",
     [](Decoder& d, const Node& n, ScenarioIn& o) {
       o.top_pools_node = &n;
       DecodePools(d, n, "nodePools", 0, o.pools);
     }},
    {"clusters",
     [](Decoder& d, const Node& n, ScenarioIn& o) {
       o.clusters_node = &n;
       d.ForEachItem(n, [&](const Node& item) {
         ClusterIn c;
         c.self = &item;
         o.clusters.push_back(std::move(c));
         ClusterDecode cd{&o.clusters.back(), &o, static_cast<uint32_t>(o.clusters.size() - 1)};
         d.Struct(item, cd, kClusterFields);
         if (item.is_map() && o.clusters.back().name.empty()) d.Required(item, "name");
       });
     }},
    {"fleet", [](Decoder& d, const Node& n, ScenarioIn& o) { DecodeFleet(d, n, o.fleet); }},
    {"workloads",
     [](Decoder& d, const Node& n, ScenarioIn& o) {
       d.ForEachItem(n, [&](const Node& item) {
         WorkloadIn w;
         w.self = &item;
         d.Struct(item, w, kWorkloadFields);
         if (item.is_map()) {
           if (w.name.empty()) d.Required(item, "name");
           if (w.tmpl != nullptr &&
               (w.labels != nullptr || w.resources != nullptr || w.node_selector != nullptr ||
                w.tolerations != nullptr || w.spread != nullptr || w.affinity != nullptr ||
                w.scheduler_name != nullptr)) {
             d.Error(
                 item,
                 "template and labels/resources/nodeSelector/tolerations/topologySpread/affinity/"
                 "schedulerName are exclusive (put them in the template)");
           }
           if (w.tmpl == nullptr && w.resources == nullptr)
             d.Required(item, "resources", "or template");
           if (w.kind == "Pods" &&
               (item.Find("parallelism") != nullptr || item.Find("minCount") != nullptr)) {
             d.Error(item, "parallelism and minCount apply to kind Job and Gang");
           }
           if (w.kind == "Gang" && w.min_count > w.parallelism) {
             d.FieldError(item, "minCount", "must not exceed parallelism");
           }
         }
         o.workloads.push_back(std::move(w));
       });
     }},
    {"ops",
     [](Decoder& d, const Node& n, ScenarioIn& o) {
       d.ForEachItem(n, [&](const Node& item) {
         OpIn op;
         op.self = &item;
         auto seen = d.Struct(item, op, kOpFields);
         if (item.is_map() && !seen.has("op")) d.Required(item, "op");
         o.ops.push_back(std::move(op));
       });
     }},
};

}  // namespace

void DecodeScenario(Decoder& d, const Node& root, ScenarioIn& in) {
  d.Struct(root, in, kScenarioFields);
}

}  // namespace scenario_internal
}  // namespace corral::sim
