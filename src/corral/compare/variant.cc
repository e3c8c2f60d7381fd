#include "corral/compare/variant.h"

#include <algorithm>
#include <charconv>

#include <fmt/format.h>

#include "corral/sim/input/scenario.h"

namespace corral::compare {

namespace {

template <class V>
void Put(std::vector<std::pair<std::string, V>>& kv, const std::string& key, const V& value) {
  for (auto& [k, v] : kv) {
    if (k == key) {
      v = value;
      return;
    }
  }
  kv.emplace_back(key, value);
}

// The item of `items` (clusters, workloads) with that name, or items.end(). A function rather than
// a lambda in the loops: clang 14 refuses a lambda that captures a structured binding.
template <typename T>
typename std::vector<T>::iterator FindNamed(std::vector<T>& items, std::string_view name) {
  return std::find_if(items.begin(), items.end(), [name](const T& x) { return x.name == name; });
}

std::string JoinNames(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& n : names) {
    if (!out.empty()) out += ", ";
    out += n;
  }
  return out.empty() ? "none" : out;
}

bool ParseCount(std::string_view s, int64_t& out) {
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  return ec == std::errc() && p == s.data() + s.size() && out >= 0 && out <= kMaxPoolNodes;
}

// The initial createNodes op of pool `p`: the first one without a time.
sim::Op* InitialCreate(sim::SimSpec& spec, uint32_t p) {
  for (auto& op : spec.program) {
    if (op.kind == sim::Op::Kind::kCreateNodes && op.pool == p && !op.at_ns.has_value()) return &op;
  }
  return nullptr;
}

Result<uint32_t> FindPool(const sim::SimSpec& spec, std::string_view name) {
  std::vector<std::string> names;
  for (uint32_t i = 0; i < spec.pools.size(); ++i) {
    if (spec.pools[i].name == name) return i;
    names.push_back(spec.pools[i].name);
  }
  return Error::Invalid(fmt::format("nodes.{}: the scenario has no node pool {:?} (pools: {})",
                                    name, name, JoinNames(names)));
}

// Sets pool p's node count at the start of the run: its initial createNodes op, inserted among the
// other pools' initial ops (in pool order) when it has none.
void SetPoolCount(sim::SimSpec& spec, uint32_t p, int64_t count) {
  const std::string& pool = spec.pools[p].name;
  spec.pools[p].initial_count = count;
  if (sim::Op* initial = InitialCreate(spec, p); initial != nullptr) {
    initial->count = count;
    initial->describe = fmt::format("createNodes pool={} count={}", pool, count);
    return;
  }
  if (count <= 0) return;
  sim::Op op;
  op.kind = sim::Op::Kind::kCreateNodes;
  op.pool = p;
  op.count = count;
  op.describe = fmt::format("createNodes pool={} count={}", pool, count);
  auto at = std::find_if(spec.program.begin(), spec.program.end(), [&](const sim::Op& x) {
    return x.kind != sim::Op::Kind::kCreateNodes || x.at_ns.has_value() || x.pool > p;
  });
  spec.program.insert(at, std::move(op));
}

// Adds the node pools of the scenario file `path` to cluster `cluster` of `spec` (0: the only
// cluster), or replaces the pools of the same name. `key` names the option in errors.
Result<void> AddPools(const std::string& key, const std::string& path, uint32_t cluster,
                      sim::SimSpec& spec, Interner& interner) {
  Diagnostics diags;
  auto extra = sim::LoadScenarioFile(path, interner, diags);
  if (!extra.ok())
    return Error{extra.error().code, fmt::format("{}: {}", key, extra.error().message)};
  bool only_pools = extra->workloads.empty() && extra->pod_templates.empty() &&
                    extra->initial_nodes.empty() && extra->pools.size() > 0;
  for (const auto& op : extra->program) {
    only_pools = only_pools && op.kind == sim::Op::Kind::kCreateNodes && !op.at_ns.has_value();
  }
  if (!only_pools || !extra->clusters.empty()) {
    return Error::Invalid(fmt::format(
        "{}: {}: a pools file is a scenario that holds nodePools and nothing else", key, path));
  }
  for (const auto& np : extra->pools) {
    auto count = InitialPoolSize(*extra, np.name);
    if (!count.ok()) return count.error();
    auto it = std::find_if(spec.pools.begin(), spec.pools.end(),
                           [&](const sim::NodePool& x) { return x.name == np.name; });
    uint32_t p = 0;
    if (it != spec.pools.end()) {
      if (it->cluster != cluster) {
        // Pool names are unique over the whole scenario, member clusters included.
        return Error::Invalid(
            fmt::format("{}: pool {:?} belongs to cluster {:?}; replace it with pools.{}=FILE", key,
                        np.name, spec.clusters[it->cluster].name, spec.clusters[it->cluster].name));
      }
      p = static_cast<uint32_t>(it - spec.pools.begin());
      *it = np;
    } else {
      p = static_cast<uint32_t>(spec.pools.size());
      spec.pools.push_back(np);
    }
    spec.pools[p].cluster = cluster;
    SetPoolCount(spec, p, *count);
  }
  return Result<void>::Ok();
}

}  // namespace

bool Overrides::empty() const {
  return config.empty() && cluster_configs.empty() && feature_gates.empty() && pools.empty() &&
         cluster_pools.empty() && nodes.empty() && rates.empty() && absent_clusters.empty() &&
         fleet.empty();
}

void Overrides::Merge(const Overrides& other) {
  if (!other.config.empty()) config = other.config;
  if (!other.feature_gates.empty()) feature_gates = other.feature_gates;
  if (!other.pools.empty()) pools = other.pools;
  for (const auto& [k, v] : other.cluster_configs) Put(cluster_configs, k, v);
  for (const auto& [k, v] : other.cluster_pools) Put(cluster_pools, k, v);
  for (const auto& [k, v] : other.nodes) Put(nodes, k, v);
  for (const auto& [k, v] : other.rates) Put(rates, k, v);
  for (const auto& c : other.absent_clusters) {
    if (std::find(absent_clusters.begin(), absent_clusters.end(), c) == absent_clusters.end())
      absent_clusters.push_back(c);
  }
  fleet.Merge(other.fleet);
}

std::string Overrides::Describe() const {
  std::vector<std::string> parts;
  if (!config.empty()) parts.push_back("config=" + config);
  for (const auto& [k, v] : cluster_configs) parts.push_back(fmt::format("config.{}={}", k, v));
  if (!feature_gates.empty()) parts.push_back("feature-gates=" + feature_gates);
  if (!pools.empty()) parts.push_back("pools=" + pools);
  for (const auto& [k, v] : cluster_pools) parts.push_back(fmt::format("pools.{}={}", k, v));
  for (const auto& [k, v] : nodes) parts.push_back(fmt::format("nodes.{}={}", k, v));
  for (const auto& [k, v] : rates) parts.push_back(fmt::format("rate.{}={}", k, v));
  for (const auto& c : absent_clusters) parts.push_back(fmt::format("clusters.{}=absent", c));
  if (!fleet.empty()) parts.push_back(fleet.Describe());
  std::string out;
  for (const auto& p : parts) {
    if (!out.empty()) out += ';';
    out += p;
  }
  return out;
}

Result<void> ParseOverride(std::string_view option, Overrides& o) {
  size_t eq = option.find('=');
  if (eq == std::string_view::npos || eq == 0) {
    return Error::Invalid(fmt::format(
        "{:?}: want key=value (config, config.CLUSTER, feature-gates, pools, pools.CLUSTER, "
        "nodes.POOL, "
        "rate.WORKLOAD, clusters.CLUSTER, fleet.KEY)",
        option));
  }
  std::string key(option.substr(0, eq));
  std::string value(option.substr(eq + 1));
  if (value.empty()) return Error::Invalid(fmt::format("{}: empty value", key));
  if (key == "config") {
    o.config = value;
  } else if (key.starts_with("config.") && key.size() > 7) {
    Put(o.cluster_configs, key.substr(7), value);
  } else if (key == "feature-gates") {
    framework::FeatureGates check;
    if (auto st = check.ParseFlag(value); !st.ok()) {
      return Error::Invalid(fmt::format("feature-gates: {}", st.error().message));
    }
    o.feature_gates = value;
  } else if (key == "pools") {
    o.pools = value;
  } else if (key.starts_with("pools.") && key.size() > 6) {
    Put(o.cluster_pools, key.substr(6), value);
  } else if (key.starts_with("nodes.") && key.size() > 6) {
    int64_t n = 0;
    if (!ParseCount(value, n)) {
      return Error::Invalid(
          fmt::format("{}: want a node count from 0 to {} (a pool's limit), got {:?}", key,
                      kMaxPoolNodes, value));
    }
    Put(o.nodes, key.substr(6), n);
  } else if (key.starts_with("rate.") && key.size() > 5) {
    double per_s = 0;
    if (!sim::ParseRate(value, per_s)) {
      return Error::Invalid(fmt::format(
          "{}: invalid rate {:?} (want a positive number per second, or \"N/s\", \"N/min\", "
          "\"N/h\", \"N/d\")",
          key, value));
    }
    Put(o.rates, key.substr(5), value);
  } else if (key.starts_with("clusters.") && key.size() > 9) {
    if (value != "absent") {
      return Error::Invalid(fmt::format(
          "{}: want absent (the member cluster dropped from the run), got {:?}", key, value));
    }
    const std::string name = key.substr(9);
    if (std::find(o.absent_clusters.begin(), o.absent_clusters.end(), name) ==
        o.absent_clusters.end())
      o.absent_clusters.push_back(name);
  } else if (key.starts_with("fleet.") && key.size() > 6) {
    return ParseFleetOverride(std::string_view(key).substr(6), value, o.fleet);
  } else {
    return Error::Invalid(fmt::format(
        "unknown option {:?} (want config, config.CLUSTER, feature-gates, pools, pools.CLUSTER, "
        "nodes.POOL, "
        "rate.WORKLOAD, clusters.CLUSTER or fleet.KEY)",
        key));
  }
  return Result<void>::Ok();
}

bool ValidVariantName(std::string_view name) {
  if (name.empty() || name.size() > 40) return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
           c == '_' || c == '-';
  });
}

Result<Variant> ParseVariantFlag(std::string_view flag) {
  Variant v;
  size_t colon = flag.find(':');
  v.name = std::string(flag.substr(0, colon));
  if (!ValidVariantName(v.name)) {
    return Error::Invalid(fmt::format(
        "invalid variant name {:?} (want 1-40 characters of A-Z a-z 0-9 . _ -)", v.name));
  }
  if (colon == std::string_view::npos) return v;
  std::string_view rest = flag.substr(colon + 1);
  while (!rest.empty()) {
    size_t semi = rest.find(';');
    std::string_view opt = rest.substr(0, semi);
    if (!opt.empty()) {
      if (auto st = ParseOverride(opt, v.overrides); !st.ok()) {
        return Error::Invalid(fmt::format("variant {}: {}", v.name, st.error().message));
      }
    }
    if (semi == std::string_view::npos) break;
    rest = rest.substr(semi + 1);
  }
  return v;
}

sim::ScenarioOptions ScenarioOptionsOf(const Overrides& o) {
  sim::ScenarioOptions opts;
  opts.absent_clusters = o.absent_clusters;
  return opts;
}

Result<int64_t> InitialPoolSize(const sim::SimSpec& spec, std::string_view pool) {
  auto p = FindPool(spec, pool);
  if (!p.ok()) return p.error();
  for (const auto& op : spec.program) {
    if (op.kind == sim::Op::Kind::kCreateNodes && op.pool == *p && !op.at_ns.has_value())
      return op.count;
  }
  return int64_t{0};
}

Result<void> ApplyOverrides(const Overrides& o, sim::SimSpec& spec, Interner& interner) {
  for (const auto& name : o.absent_clusters) {
    // Absent clusters are dropped while the scenario compiles (ScenarioOptionsOf); a spec that
    // still has one was loaded without them.
    if (std::any_of(spec.clusters.begin(), spec.clusters.end(),
                    [&](const sim::ClusterSpec& c) { return c.name == name; }) ||
        spec.clusters.empty()) {
      return Error::Invalid(
          fmt::format("clusters.{}=absent: applies while a scenario file compiles (a scenario with "
                      "`clusters:`), not to a loaded run",
                      name));
    }
  }
  if (!o.config.empty()) {
    if (!spec.clusters.empty()) {
      return Error::Invalid(
          "config: the scenario has member clusters; set each one's configuration with "
          "config.CLUSTER=FILE");
    }
    spec.scheduler_config_path = o.config;
    spec.scheduler_config.reset();
  }
  for (const auto& [name, file] : o.cluster_configs) {
    auto it = FindNamed(spec.clusters, name);
    if (it == spec.clusters.end()) {
      std::vector<std::string> names;
      for (const auto& c : spec.clusters) names.push_back(c.name);
      return Error::Invalid(
          fmt::format("config.{}: the scenario has no member cluster {:?} "
                      "(clusters: {})",
                      name, name, JoinNames(names)));
    }
    it->scheduler_config_path = file;
    it->scheduler_config.reset();
  }
  if (!o.feature_gates.empty()) {
    auto apply = [&](framework::FeatureGates& g) -> Result<void> {
      if (auto st = g.ParseFlag(o.feature_gates); !st.ok()) {
        return Error::Invalid(fmt::format("feature-gates: {}", st.error().message));
      }
      return Result<void>::Ok();
    };
    if (spec.clusters.empty()) {
      if (auto st = apply(spec.gates); !st.ok()) return st;
    }
    for (auto& c : spec.clusters) {
      if (auto st = apply(c.gates); !st.ok()) return st;
    }
  }
  if (!o.pools.empty()) {
    if (!spec.clusters.empty()) {
      return Error::Invalid(
          "pools: the scenario has member clusters; add pools to one of them with "
          "pools.CLUSTER=FILE");
    }
    if (auto st = AddPools("pools", o.pools, 0, spec, interner); !st.ok()) return st;
  }
  for (const auto& [name, file] : o.cluster_pools) {
    auto it = FindNamed(spec.clusters, name);
    if (it == spec.clusters.end()) {
      std::vector<std::string> names;
      for (const auto& c : spec.clusters) names.push_back(c.name);
      return Error::Invalid(fmt::format(
          "pools.{}: the scenario has no member cluster {:?} (clusters: {}; a scenario without "
          "clusters takes pools=FILE)",
          name, name, JoinNames(names)));
    }
    const auto c = static_cast<uint32_t>(it - spec.clusters.begin());
    if (auto st = AddPools("pools." + name, file, c, spec, interner); !st.ok()) return st;
  }
  for (const auto& [pool, count] : o.nodes) {
    auto p = FindPool(spec, pool);
    if (!p.ok()) return p.error();
    SetPoolCount(spec, *p, count);
  }
  for (const auto& [name, rate] : o.rates) {
    auto it = FindNamed(spec.workloads, name);
    if (it == spec.workloads.end()) {
      std::vector<std::string> names;
      for (const auto& w : spec.workloads) names.push_back(w.name);
      return Error::Invalid(
          fmt::format("rate.{}: the scenario has no workload {:?} "
                      "(workloads: {})",
                      name, name, JoinNames(names)));
    }
    if (it->arrival.kind != sim::Arrival::Kind::kFixedRate &&
        it->arrival.kind != sim::Arrival::Kind::kPoisson) {
      return Error::Invalid(
          fmt::format("rate.{}: workload {:?} has no arrival rate (want arrival: rate or poisson)",
                      name, name));
    }
    double per_s = 0;
    if (!sim::ParseRate(rate, per_s)) {
      return Error::Invalid(fmt::format("rate.{}: invalid rate {:?}", name, rate));
    }
    it->arrival.rate_per_s = per_s;
  }
  return ApplyFleetOverrides(o.fleet, spec, interner);
}

}  // namespace corral::compare
