// scheduler_perf's Dynamic Resource Allocation ops: createResourceDriver (a ResourceSlice per
// matching node, as kube's test driver publishes), createResourceClaims (copies of a claim
// template) and allocResourceClaims (claims allocated before the measured pods, as kube's op does
// with the structured allocator), plus the objects createAny adds for DRA and storage kinds.

#include <algorithm>
#include <random>

#include <fmt/format.h>

#include "corral/plugins/dynamic_resources/allocator.h"
#include "corral/sim/input/perf_config_internal.h"
#include "corral/state/dra_store.h"

namespace corral::sim::perf_detail {

namespace {

namespace res = api::resource;

// One element of a Go filepath.Match pattern at `p`: a class, an escaped or a literal character.
// Returns the pattern position after it, or npos when it is malformed; `matched` tells whether
// `c` matches it.
size_t MatchOne(std::string_view pat, size_t p, char c, bool& matched) {
  if (pat[p] == '[') {
    size_t i = p + 1;
    bool negate = false;
    if (i < pat.size() && pat[i] == '^') {
      negate = true;
      ++i;
    }
    bool in = false;
    bool first = true;
    while (true) {
      if (i >= pat.size()) return std::string_view::npos;
      if (pat[i] == ']' && !first) break;
      first = false;
      char lo = pat[i];
      if (lo == '\\') {
        if (++i >= pat.size()) return std::string_view::npos;
        lo = pat[i];
      }
      ++i;
      char hi = lo;
      if (i + 1 < pat.size() && pat[i] == '-' && pat[i + 1] != ']') {
        ++i;
        hi = pat[i];
        if (hi == '\\') {
          if (++i >= pat.size()) return std::string_view::npos;
          hi = pat[i];
        }
        ++i;
      }
      if (lo <= c && c <= hi) in = true;
    }
    matched = in != negate && c != '/';
    return i + 1;
  }
  if (pat[p] == '\\') {
    if (p + 1 >= pat.size()) return std::string_view::npos;
    matched = pat[p + 1] == c;
    return p + 2;
  }
  matched = pat[p] == '?' ? c != '/' : pat[p] == c;
  return p + 1;
}

bool GlobFrom(std::string_view pat, size_t p, std::string_view name, size_t n) {
  while (p < pat.size()) {
    if (pat[p] == '*') {
      while (p < pat.size() && pat[p] == '*') ++p;
      if (p == pat.size()) return name.find('/', n) == std::string_view::npos;
      for (size_t k = n; k <= name.size(); ++k) {
        if (GlobFrom(pat, p, name, k)) return true;
        if (k < name.size() && name[k] == '/') break;
      }
      return false;
    }
    if (n >= name.size()) return false;
    bool matched = false;
    const size_t next = MatchOne(pat, p, name[n], matched);
    if (next == std::string_view::npos || !matched) return false;
    p = next;
    ++n;
  }
  return n == name.size();
}

// The namespaced DRA objects get the op's namespace (createAny's `namespace`), as kube creates
// them there.
template <typename T>
void MoveAll(std::vector<T>& from, std::vector<T>& to, const std::optional<Symbol>& ns) {
  for (T& x : from) {
    if (ns) x.meta.namespace_ = *ns;
    to.push_back(std::move(x));
  }
  from.clear();
}

}  // namespace

bool WellFormedGlob(std::string_view pattern) {
  for (size_t p = 0; p < pattern.size();) {
    if (pattern[p] == '*') {
      ++p;
      continue;
    }
    bool matched = false;
    p = MatchOne(pattern, p, 'a', matched);
    if (p == std::string_view::npos) return false;
  }
  return true;
}

bool GlobMatch(std::string_view pattern, std::string_view name) {
  return WellFormedGlob(pattern) && GlobFrom(pattern, 0, name, 0);
}

std::string DriverSliceYaml(std::string_view driver, std::string_view node, int64_t capacity,
                            bool binding_conditions) {
  std::string y = fmt::format(
      "apiVersion: resource.k8s.io/v1\nkind: ResourceSlice\nmetadata:\n  name: {0}\nspec:\n"
      "  driver: {1}\n  nodeName: {0}\n  pool:\n    name: {0}\n    generation: 0\n"
      "    resourceSliceCount: 1\n  devices:",
      node, driver);
  if (capacity == 0) return y + " []\n";
  y += "\n";
  for (int64_t i = 0; i < capacity; ++i) {
    y += fmt::format(
        "  - name: instance-{}\n    attributes:\n      model: {{string: A100}}\n"
        "      family: {{string: GPU}}\n      driverVersion: {{version: 1.2.3}}\n"
        "      dra.example.com/numa: {{int: {}}}\n    capacity:\n      memory: {{value: 1Gi}}\n",
        i, i);
    if (binding_conditions) {
      y += "    bindsToNode: true\n    bindingConditions: [DeviceAttached]\n"
           "    bindingFailureConditions: [AttachmentFailed]\n";
    }
  }
  return y;
}

size_t OpCompiler::TakeDraAndStorage(api::ObjectSet& from, const std::optional<std::string>& ns) {
  size_t moved = 0;
  std::optional<Symbol> ns_sym;
  if (ns) ns_sym = in_.Intern(*ns);
  if (from.resources != nullptr && !from.resources->empty()) {
    if (dra_ == nullptr) dra_ = std::make_shared<res::ResourceObjects>();
    res::ResourceObjects r = *from.resources;
    moved += r.device_classes.size() + r.resource_slices.size() + r.resource_claims.size() +
             r.resource_claim_templates.size() + r.device_taint_rules.size();
    MoveAll(r.device_classes, dra_->device_classes, std::nullopt);
    MoveAll(r.resource_slices, dra_->resource_slices, std::nullopt);
    MoveAll(r.resource_claims, dra_->resource_claims, ns_sym);
    MoveAll(r.resource_claim_templates, dra_->resource_claim_templates, ns_sym);
    MoveAll(r.device_taint_rules, dra_->device_taint_rules, std::nullopt);
    from.resources.reset();
  }
  if (from.storage != nullptr && !from.storage->empty()) {
    if (storage_ == nullptr) storage_ = std::make_shared<api::StorageObjects>();
    api::StorageObjects& s = *from.storage;
    moved += s.volumes.size() + s.claims.size() + s.classes.size() + s.csi_nodes.size() +
             s.csi_drivers.size() + s.capacities.size();
    MoveAll(s.volumes, storage_->volumes, std::nullopt);
    MoveAll(s.claims, storage_->claims, ns_sym);
    MoveAll(s.classes, storage_->classes, std::nullopt);
    MoveAll(s.csi_nodes, storage_->csi_nodes, std::nullopt);
    MoveAll(s.csi_drivers, storage_->csi_drivers, std::nullopt);
    MoveAll(s.capacities, storage_->capacities, ns_sym);
    from.storage.reset();
  }
  return moved;
}

void OpCompiler::Finish() {
  if (dra_ != nullptr) spec_.objects.resources = dra_;
  if (storage_ != nullptr) spec_.objects.storage = storage_;
}

bool OpCompiler::PlannedNodes(const Node& at, std::vector<PlannedNode>& out) {
  // The engine names a node without a fixed name "<prefix><k>", k counting per prefix from 0 in
  // creation order; createNodes ops run in program order, so the names are known here.
  std::map<std::string, int64_t> counters;
  for (const Op& o : spec_.program) {
    if (o.kind != Op::Kind::kCreateNodes || o.pool == kNone) continue;
    const NodePool& pool = spec_.pools[o.pool];
    for (int64_t i = 0; i < o.count; ++i) {
      PlannedNode pn;
      if (pool.render) {
        auto n = pool.render(i);
        if (!n.ok()) {
          d_.Error(at, n.error().message);
          return false;
        }
        pn.node = std::move(*n);
      } else {
        pn.node = pool.tmpl;
      }
      if (pn.node.meta.name.empty() || !pool.render) {
        const int64_t k = counters[pool.name_prefix]++;
        pn.node.meta.name = in_.Intern(fmt::format("{}{}", pool.name_prefix, k));
        pn.generated_prefix = pool.name_prefix;
      }
      out.push_back(std::move(pn));
    }
  }
  return true;
}

bool OpCompiler::CreateResourceDriver(const Node& op) {
  CheckKeys(op, {"driverName", "maxClaimsPerNode", "maxClaimsPerNodeParam", "nodes"});
  auto driver = String(op, "driverName");
  auto nodes = String(op, "nodes");
  // A count beyond a slice's 128 devices is the loader's error, as the API server's. Neither key
  // set is kube's zero value, which its isValidCount accepts: slices without devices (the
  // workloadresourceclaims configs publish their devices with createAny instead).
  auto present = [&](std::string_view k) {
    const Node* n = op.Find(k);
    return n != nullptr && !n->is_null();
  };
  auto per_node = present("maxClaimsPerNode") || present("maxClaimsPerNodeParam")
                      ? Count(op, "maxClaimsPerNode", "maxClaimsPerNodeParam", true)
                      : std::optional<int64_t>(0);
  if (!driver || driver->empty()) d_.Required(op, "driverName");
  if (!nodes || nodes->empty()) d_.Required(op, "nodes");
  if (!driver || driver->empty() || !nodes || nodes->empty() || !per_node) return false;
  if (!WellFormedGlob(*nodes)) {
    d_.FieldError(op, "nodes", fmt::format("syntax error in pattern {:?}", *nodes));
    return false;
  }
  std::vector<PlannedNode> planned;
  if (!PlannedNodes(op, planned)) return false;
  // kube's resourceSlice gives every device bindsToNode, binding condition DeviceAttached and
  // failure condition AttachmentFailed, which the API server drops while DRADeviceBindingConditions
  // is off (alpha when kube wrote the op). The gate is on by default in v1.37, so Corral keeps the
  // fields only where the workload turns the gate on itself, as kube's binding-condition tests do;
  // every other DRA workload sees the plain devices it was written for.
  const bool binding = spec_.gates.Enabled(framework::Feature::kDRADeviceBindingConditions) &&
                       std::find(spec_.explicit_gates.begin(), spec_.explicit_gates.end(),
                                 "DRADeviceBindingConditions=true") != spec_.explicit_gates.end();
  int64_t matched = 0;
  for (const PlannedNode& pn : planned) {
    const std::string name(in_.Str(pn.node.meta.name));
    if (!GlobMatch(*nodes, name)) continue;
    ++matched;
    const std::string yaml = DriverSliceYaml(*driver, name, *per_node, binding);
    auto obj = LoadRendered(yaml, "<createResourceDriver slice>", in_);
    if (!obj.ok()) {
      d_.Error(op, obj.error().message);
      return false;
    }
    TakeDraAndStorage(obj->objects, std::nullopt);
  }
  spec_.notes.push_back(fmt::format(
      "createResourceDriver {}: a ResourceSlice of {} devices{} for "
      "each of {} nodes matching {:?}",
      *driver, *per_node,
      binding ? " (bindsToNode, binding conditions DeviceAttached / AttachmentFailed)" : "",
      matched, *nodes));
  return true;
}

bool OpCompiler::UpdateDeviceConditions(const Node& op) {
  // kube's op struct has no JSON tags, so its fields match case-insensitively; the configs spell
  // them as below.
  CheckKeys(
      op, {"namespace", "ConditionTypeParam", "ConditionStatusParam", "duration", "durationParam"});
  auto ns = String(op, "namespace");
  auto type_ref = String(op, "ConditionTypeParam");
  auto status_ref = String(op, "ConditionStatusParam");
  if (!ns || ns->empty()) {
    d_.FieldError(op, "namespace", "namespace must be set");
    return false;
  }
  if (!type_ref || !status_ref) {
    if (type_ref.has_value() != status_ref.has_value()) {
      d_.Error(op, type_ref ? "ConditionTypeParam must be set together with ConditionStatusParam"
                            : "ConditionStatusParam must be set together with ConditionTypeParam");
    } else {
      d_.Error(op, "conditions must be set");
    }
    return false;
  }
  auto param = [&](const std::string& ref, std::string_view key) -> std::optional<std::string> {
    auto it = w_.params.find(ref.starts_with("$") ? ref.substr(1) : ref);
    if (it == w_.params.end() || it->second.is_int || it->second.complex != nullptr) {
      d_.FieldError(op, key,
                    fmt::format("parameter {:?} of workload {:?} is not a string", ref, w_.name));
      return std::nullopt;
    }
    return it->second.s;
  };
  auto type = param(*type_ref, "ConditionTypeParam");
  auto status = param(*status_ref, "ConditionStatusParam");
  if (!type || !status) return false;
  Op o;
  o.kind = Op::Kind::kUpdateDeviceConditions;
  o.line = op.line();
  if (*status == "True") {
    o.condition_status = res::ConditionStatus::kTrue;
  } else if (*status == "False") {
    o.condition_status = res::ConditionStatus::kFalse;
  } else if (*status == "Unknown") {
    o.condition_status = res::ConditionStatus::kUnknown;
  } else {
    d_.FieldError(op, "ConditionStatusParam",
                  fmt::format("invalid condition status {:?}", *status));
    return false;
  }
  o.condition_type = in_.Intern(*type);
  auto d = DurationField(op, "duration", "durationParam");
  o.duration_ns = d.value_or(0);
  o.namespaces.push_back(in_.Intern(*ns));
  o.describe = fmt::format("updateDeviceConditions namespace={} {}={}", *ns, *type, *status);
  spec_.program.push_back(std::move(o));
  return true;
}

bool OpCompiler::CheckPodScheduled(const Node& op) {
  CheckKeys(op, {"namespace", "ScheduledParam", "ExpectedScheduled", "duration", "durationParam"});
  auto ns = String(op, "namespace");
  if (!ns || ns->empty()) {
    d_.FieldError(op, "namespace", "namespace must be set");
    return false;
  }
  Op o;
  o.kind = Op::Kind::kCheckPodScheduled;
  o.line = op.line();
  o.expect_scheduled = Bool(op, "ExpectedScheduled");
  if (auto ref = String(op, "ScheduledParam")) {
    auto it = w_.params.find(ref->starts_with("$") ? ref->substr(1) : *ref);
    // kube's getParam[bool]: the workload's param must be a YAML boolean.
    if (it == w_.params.end() || it->second.is_int || it->second.complex != nullptr ||
        (it->second.s != "true" && it->second.s != "false")) {
      d_.FieldError(op, "ScheduledParam",
                    fmt::format("parameter {:?} of workload {:?} is not a bool", *ref, w_.name));
      return false;
    }
    o.expect_scheduled = it->second.s == "true";
  }
  o.duration_ns = DurationField(op, "duration", "durationParam").value_or(0);
  o.namespaces.push_back(in_.Intern(*ns));
  o.describe = fmt::format("checkPodScheduled namespace={} scheduled={}", *ns, o.expect_scheduled);
  spec_.program.push_back(std::move(o));
  return true;
}

bool OpCompiler::CreateResourceClaims(const Node& op) {
  CheckKeys(op, {"count", "countParam", "namespace", "templatePath"});
  auto count = Count(op, "count", "countParam", true);
  auto ns = String(op, "namespace");
  auto path = String(op, "templatePath");
  if (!ns || ns->empty()) d_.Required(op, "namespace");
  if (!path) d_.Required(op, "templatePath");
  if (!count || !ns || ns->empty() || !path) return false;
  AddNamespace(*ns);
  auto scope = d_.Field("templatePath");
  auto t = Template(*path, *op.Find("templatePath"));
  if (!t.ok()) return false;
  // kube creates `count` copies of the one claim the file holds (read once, no template
  // parameters); the API server names generateName copies, Corral names them "<prefix><i>".
  auto text = (*t)->tmpl.Execute(Env(op, 0, *count));
  if (!text.ok()) {
    diags_.Error((*t)->path, 0, "", fmt::format("template: {}", text.error().message));
    return false;
  }
  for (int64_t i = 0; i < *count; ++i) {
    auto obj = LoadRendered(*text, (*t)->path, in_);
    if (!obj.ok()) {
      diags_.Error("", 0, "", obj.error().message);
      return false;
    }
    if (obj->kind != "ResourceClaim" || obj->objects.resources == nullptr ||
        obj->objects.resources->resource_claims.size() != 1) {
      d_.Error(*op.Find("templatePath"),
               fmt::format("template {} is a {:?}, want a ResourceClaim", (*t)->path, obj->kind));
      return false;
    }
    auto r = std::make_shared<res::ResourceObjects>(*obj->objects.resources);
    if (!obj->has_name) {
      r->resource_claims[0].meta.name = in_.Intern(fmt::format("{}{}", obj->generate_name, i));
    } else if (*count > 1) {
      d_.Error(*op.Find("templatePath"),
               fmt::format("{} copies of ResourceClaim {:?} with a fixed name (kube's create "
                           "would fail with AlreadyExists)",
                           *count, in_.Str(r->resource_claims[0].meta.name)));
      return false;
    }
    obj->objects.resources = std::move(r);
    TakeDraAndStorage(obj->objects, *ns);
  }
  return true;
}

bool OpCompiler::AllocResourceClaims(const Node& op) {
  CheckKeys(op, {"namespace"});
  auto ns = String(op, "namespace");
  if (dra_ == nullptr) return true;  // no claims: nothing to allocate
  std::optional<Symbol> ns_sym;
  if (ns && !ns->empty()) ns_sym = in_.Intern(*ns);
  std::vector<PlannedNode> planned;
  if (!PlannedNodes(op, planned)) return false;
  // kube lists the claims (API order: namespace, then name) and allocates one at a time with the
  // structured allocator on nodes in random order, each allocation counting for the next; the
  // order here comes from a generator seeded with the run's seed.
  std::vector<res::ResourceClaim*> claims;
  for (res::ResourceClaim& c : dra_->resource_claims) {
    if (ns_sym && c.meta.namespace_ != *ns_sym) continue;
    if (!c.allocation) claims.push_back(&c);
  }
  std::sort(claims.begin(), claims.end(),
            [&](const res::ResourceClaim* a, const res::ResourceClaim* b) {
              const auto an = in_.Str(a->meta.namespace_), bn = in_.Str(b->meta.namespace_);
              if (an != bn) return an < bn;
              return in_.Str(a->meta.name) < in_.Str(b->meta.name);
            });
  state::DraStore store;
  store.set_pods_resource(in_.Intern("pods"));
  store.Reset(dra_.get());
  std::mt19937_64 rng(spec_.seed);
  // The allocator's features: the defaults, but for the test case's DRADeviceCompatibilityGroups
  // gate. With it off, kube's allocator skips every device that names compatibility groups, so a
  // config that enables the gate could not allocate its claims on grouped devices at all
  // (docs/deviations.md: the index's version of kube's op predates the gate).
  const plugins::dra::Allocator::Features features{
      .compatibility_groups =
          spec_.gates.Enabled(framework::Feature::kDRADeviceCompatibilityGroups)};
  std::vector<const api::Node*> nodes;
  for (const PlannedNode& pn : planned) nodes.push_back(&pn.node);
  for (size_t i = 0; i < claims.size(); ++i) {
    res::ResourceClaim& claim = *claims[i];
    const res::ResourceClaim* held = store.GetClaim(claim.meta.namespace_, claim.meta.name);
    plugins::dra::Allocator allocator(store, in_, features);
    std::shuffle(nodes.begin(), nodes.end(), rng);
    bool done = false;
    for (const api::Node* node : nodes) {
      std::vector<res::AllocationResult> results;
      std::string error;
      const res::ResourceClaim* one[] = {held};
      auto outcome = allocator.Allocate(*node, one, &results, &error);
      if (outcome == plugins::dra::Allocator::Outcome::kError) {
        d_.Error(op, fmt::format("allocResourceClaims: claim {}/{}: {}",
                                 in_.Str(claim.meta.namespace_), in_.Str(claim.meta.name), error));
        return false;
      }
      if (outcome != plugins::dra::Allocator::Outcome::kAllocated) continue;
      claim.allocation = results[0];
      store.SignalClaimPendingAllocation(*held, results[0]);
      done = true;
      break;
    }
    if (!done) {
      d_.Error(op, fmt::format("allocResourceClaims: could not allocate claim {} out of {}", i,
                               claims.size()));
      return false;
    }
  }
  return true;
}

}  // namespace corral::sim::perf_detail
