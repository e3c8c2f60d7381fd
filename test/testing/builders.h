#pragma once
// Test-only builders for API objects and framework infos (kube's st.MakeNode()/st.MakePod()
//   wrappers): TestWorld w; auto& n = w.Node("n1").Capacity({{"cpu", "4"}, {"memory", "32Gi"},
//   {"pods", "110"}}).Label("zone", "a").Obj(); auto& p = w.Pod("p1").Req({{"cpu", "100m"}}).Obj();
// Objects live in the world (stable addresses) so NodeInfo/PodInfo may point at them.

#include <algorithm>
#include <cstdint>
#include <deque>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "corral/api/quantity.h"
#include "corral/api/types.h"
#include "corral/api/well_known.h"
#include "corral/core/check.h"
#include "corral/framework/feature_gates.h"
#include "corral/framework/node_info.h"
#include "corral/framework/pod_info.h"

namespace corral::testing {

using ResourcePairs = std::initializer_list<std::pair<std::string_view, std::string_view>>;

// Fills `n` as the integration tests' plain node: named `name` (hostname label too), `cpu_milli`
// CPU, 64Gi memory and `max_pods` pods, as capacity and allocatable.
inline void MakeCpuNode(api::Node& n, Interner& in, std::string_view name, int64_t cpu_milli,
                        int64_t max_pods) {
  n.meta.name = in.Intern(name);
  n.meta.labels.Set(api::wk::kHostnameLabel, n.meta.name);
  n.capacity = {{api::wk::kCpu, api::Quantity::FromMilli(cpu_milli)},
                {api::wk::kMemory, api::Quantity::FromInt(int64_t{64} << 30)},
                {api::wk::kPods, api::Quantity::FromInt(max_pods)}};
  std::sort(n.capacity.begin(), n.capacity.end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });
  n.allocatable = n.capacity;
}

class TestWorld;

class NodeBuilder {
 public:
  NodeBuilder(TestWorld& w, api::Node& n) : w_(w), n_(n) {}
  NodeBuilder& Capacity(ResourcePairs r);  // sets capacity and allocatable
  NodeBuilder& Allocatable(ResourcePairs r);
  NodeBuilder& Label(std::string_view k, std::string_view v);
  NodeBuilder& Taint(std::string_view k, std::string_view v, api::TaintEffect e);
  NodeBuilder& Unschedulable(bool u = true) {
    n_.unschedulable = u;
    return *this;
  }
  NodeBuilder& Image(std::string_view name, int64_t size_bytes);
  api::Node& Obj() { return n_; }

 private:
  TestWorld& w_;
  api::Node& n_;
};

class PodBuilder {
 public:
  PodBuilder(TestWorld& w, api::Pod& p) : w_(w), p_(p) {}
  PodBuilder& Namespace(std::string_view ns);
  PodBuilder& Label(std::string_view k, std::string_view v);
  // Adds a container with these requests (and the given image, if any).
  PodBuilder& Req(ResourcePairs r, std::string_view image = "");
  PodBuilder& InitReq(ResourcePairs r, bool sidecar = false);
  PodBuilder& Overhead(ResourcePairs r);
  PodBuilder& HostPort(int32_t port, api::Protocol proto = api::Protocol::kTCP,
                       std::string_view ip = "");
  PodBuilder& NodeSelector(std::string_view k, std::string_view v);
  PodBuilder& NodeName(std::string_view n);
  PodBuilder& SchedulerName(std::string_view n);
  PodBuilder& Priority(int32_t p) {
    p_.priority = p;
    return *this;
  }
  PodBuilder& Toleration(std::string_view k, std::string_view v, api::TolerationOp op,
                         api::TaintEffect e);
  PodBuilder& SchedulingGate(std::string_view g);
  // Topology spread and inter-pod affinity (kube's st.MakePod() helpers of the same names).
  PodBuilder& Terminating();
  PodBuilder& Uid(std::string_view uid);
  PodBuilder& OwnerReference(std::string_view name, std::string_view api_version,
                             std::string_view kind);
  PodBuilder& SpreadConstraint(
      int32_t max_skew, std::string_view topology_key, api::WhenUnsatisfiable when,
      std::optional<api::LabelSelector> selector, std::optional<int32_t> min_domains = std::nullopt,
      std::optional<api::NodeInclusionPolicy> node_affinity_policy = std::nullopt,
      std::optional<api::NodeInclusionPolicy> node_taints_policy = std::nullopt,
      std::initializer_list<std::string_view> match_label_keys = {});
  enum class AffinityKind {
    kRequiredAffinity,
    kPreferredAffinity,
    kRequiredAntiAffinity,
    kPreferredAntiAffinity
  };
  PodBuilder& AffinityTerm(AffinityKind kind, api::PodAffinityTerm term, int32_t weight = 1);
  // One term whose selector is `key In/NotIn (values)` or `key Exists`, in the pod's namespace.
  PodBuilder& AffinityIn(AffinityKind kind, std::string_view key, std::string_view topology_key,
                         std::initializer_list<std::string_view> values, int32_t weight = 1);
  PodBuilder& AffinityNotIn(AffinityKind kind, std::string_view key, std::string_view topology_key,
                            std::initializer_list<std::string_view> values, int32_t weight = 1);
  PodBuilder& AffinityExists(AffinityKind kind, std::string_view key, std::string_view topology_key,
                             int32_t weight = 1);
  // A required node affinity term `key In/NotIn (values)` (added to the first term).
  PodBuilder& NodeAffinityIn(std::string_view key, std::initializer_list<std::string_view> values);
  PodBuilder& NodeAffinityNotIn(std::string_view key,
                                std::initializer_list<std::string_view> values);
  // Adds an init container running `image` with these requests.
  PodBuilder& InitImage(std::string_view image, ResourcePairs r = {});
  api::Pod& Obj() { return p_; }

 private:
  TestWorld& w_;
  api::Pod& p_;
};

class TestWorld {
 public:
  TestWorld() = default;
  Symbol S(std::string_view s) { return in.Intern(s); }
  api::ResourceList Resources(ResourcePairs r);
  api::Quantity Q(std::string_view s) {
    auto q = api::Quantity::Parse(s);
    CORRAL_CHECK_MSG(q.ok(), "bad quantity in test");
    return *q;
  }

  NodeBuilder Node(std::string_view name) {
    nodes.emplace_back();
    nodes.back().meta.name = S(name);
    nodes.back().meta.labels.Set(api::wk::kHostnameLabel, S(name));
    return NodeBuilder(*this, nodes.back());
  }
  // A label selector: w.Sel().Label("app", "web").Exists("tier").Obj().
  class SelectorBuilder;
  SelectorBuilder Sel();

  PodBuilder Pod(std::string_view name) {
    pods.emplace_back();
    pods.back().meta.name = S(name);
    pods.back().meta.namespace_ = api::wk::kDefaultNamespace;
    pods.back().scheduler_name = api::wk::kDefaultScheduler;
    return PodBuilder(*this, pods.back());
  }

  // A PodInfo for `pod`, computed with `gates`; owned by the world.
  framework::PodInfo& Info(const api::Pod& pod) {
    infos.emplace_back();
    infos.back().pod = &pod;
    infos.back().id = static_cast<uint32_t>(infos.size());
    framework::ComputePodInfo(infos.back(), gates, &in);
    return infos.back();
  }
  // A NodeInfo for `node` holding `pods` (each converted with Info()).
  framework::NodeInfo& NodeWith(const api::Node& node,
                                std::initializer_list<const api::Pod*> on = {}) {
    node_infos.emplace_back(&node);
    for (const api::Pod* p : on) node_infos.back().AddPod(&Info(*p));
    return node_infos.back();
  }

  Interner in = api::NewInterner();
  framework::FeatureGates gates;
  std::deque<api::Node> nodes;
  std::deque<api::Pod> pods;
  std::deque<framework::PodInfo> infos;
  std::deque<framework::NodeInfo> node_infos;
};

// ---- inline definitions ----

inline api::ResourceList TestWorld::Resources(ResourcePairs r) {
  api::ResourceList out;
  for (const auto& [k, v] : r) out.emplace_back(S(k), Q(v));
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  return out;
}

inline NodeBuilder& NodeBuilder::Capacity(ResourcePairs r) {
  n_.capacity = w_.Resources(r);
  n_.allocatable = n_.capacity;
  return *this;
}
inline NodeBuilder& NodeBuilder::Allocatable(ResourcePairs r) {
  n_.allocatable = w_.Resources(r);
  return *this;
}
inline NodeBuilder& NodeBuilder::Label(std::string_view k, std::string_view v) {
  n_.meta.labels.Set(w_.S(k), w_.S(v));
  return *this;
}
inline NodeBuilder& NodeBuilder::Taint(std::string_view k, std::string_view v, api::TaintEffect e) {
  n_.taints.push_back({w_.S(k), w_.S(v), e, std::nullopt});
  return *this;
}
inline NodeBuilder& NodeBuilder::Image(std::string_view name, int64_t size_bytes) {
  n_.images.push_back({{w_.S(name)}, size_bytes});
  return *this;
}

inline PodBuilder& PodBuilder::Namespace(std::string_view ns) {
  p_.meta.namespace_ = w_.S(ns);
  return *this;
}
inline PodBuilder& PodBuilder::Label(std::string_view k, std::string_view v) {
  p_.meta.labels.Set(w_.S(k), w_.S(v));
  return *this;
}
inline PodBuilder& PodBuilder::Req(ResourcePairs r, std::string_view image) {
  api::Container c;
  c.name = w_.S("c" + std::to_string(p_.containers.size()));
  c.image = w_.S(image);
  c.resources.requests = w_.Resources(r);
  p_.containers.push_back(std::move(c));
  return *this;
}
inline PodBuilder& PodBuilder::InitReq(ResourcePairs r, bool sidecar) {
  api::Container c;
  c.name = w_.S("init" + std::to_string(p_.init_containers.size()));
  c.resources.requests = w_.Resources(r);
  if (sidecar) c.restart_policy = api::ContainerRestartPolicy::kAlways;
  p_.init_containers.push_back(std::move(c));
  return *this;
}
inline PodBuilder& PodBuilder::Overhead(ResourcePairs r) {
  p_.overhead = w_.Resources(r);
  return *this;
}
inline PodBuilder& PodBuilder::HostPort(int32_t port, api::Protocol proto, std::string_view ip) {
  if (p_.containers.empty()) Req({});
  p_.containers.back().ports.push_back({Symbol(), port, port, proto, w_.S(ip)});
  return *this;
}
inline PodBuilder& PodBuilder::NodeSelector(std::string_view k, std::string_view v) {
  p_.node_selector.Set(w_.S(k), w_.S(v));
  return *this;
}
inline PodBuilder& PodBuilder::NodeName(std::string_view n) {
  p_.node_name = w_.S(n);
  return *this;
}
inline PodBuilder& PodBuilder::SchedulerName(std::string_view n) {
  p_.scheduler_name = w_.S(n);
  return *this;
}
inline PodBuilder& PodBuilder::Toleration(std::string_view k, std::string_view v,
                                          api::TolerationOp op, api::TaintEffect e) {
  p_.tolerations.push_back({w_.S(k), op, w_.S(v), e, std::nullopt});
  return *this;
}
inline PodBuilder& PodBuilder::SchedulingGate(std::string_view g) {
  p_.scheduling_gates.push_back(w_.S(g));
  return *this;
}

// ---- label selectors, spread constraints, inter-pod affinity ----

class TestWorld::SelectorBuilder {
 public:
  explicit SelectorBuilder(TestWorld& w) : w_(w) {}
  SelectorBuilder& Label(std::string_view k, std::string_view v) {
    s_.match_labels.Set(w_.S(k), w_.S(v));
    return *this;
  }
  SelectorBuilder& In(std::string_view k, std::initializer_list<std::string_view> values) {
    return Expr(k, api::LabelSelectorOp::kIn, values);
  }
  SelectorBuilder& NotIn(std::string_view k, std::initializer_list<std::string_view> values) {
    return Expr(k, api::LabelSelectorOp::kNotIn, values);
  }
  SelectorBuilder& Exists(std::string_view k) { return Expr(k, api::LabelSelectorOp::kExists, {}); }
  SelectorBuilder& DoesNotExist(std::string_view k) {
    return Expr(k, api::LabelSelectorOp::kDoesNotExist, {});
  }
  api::LabelSelector Obj() const { return s_; }

 private:
  SelectorBuilder& Expr(std::string_view k, api::LabelSelectorOp op,
                        std::initializer_list<std::string_view> values) {
    api::LabelSelectorRequirement r{w_.S(k), op, {}};
    for (auto v : values) r.values.push_back(w_.S(v));
    s_.match_expressions.push_back(std::move(r));
    return *this;
  }
  TestWorld& w_;
  api::LabelSelector s_;
};

inline TestWorld::SelectorBuilder TestWorld::Sel() {
  return SelectorBuilder(*this);
}

inline PodBuilder& PodBuilder::Terminating() {
  p_.meta.deletion_timestamp = TimePoint{};
  return *this;
}
inline PodBuilder& PodBuilder::Uid(std::string_view uid) {
  p_.meta.uid = w_.S(uid);
  return *this;
}
inline PodBuilder& PodBuilder::OwnerReference(std::string_view name, std::string_view api_version,
                                              std::string_view kind) {
  p_.meta.owner_references.push_back({w_.S(api_version), w_.S(kind), w_.S(name), Symbol(), true});
  return *this;
}
inline PodBuilder& PodBuilder::SpreadConstraint(
    int32_t max_skew, std::string_view topology_key, api::WhenUnsatisfiable when,
    std::optional<api::LabelSelector> selector, std::optional<int32_t> min_domains,
    std::optional<api::NodeInclusionPolicy> node_affinity_policy,
    std::optional<api::NodeInclusionPolicy> node_taints_policy,
    std::initializer_list<std::string_view> match_label_keys) {
  api::TopologySpreadConstraint c;
  c.max_skew = max_skew;
  c.topology_key = w_.S(topology_key);
  c.when_unsatisfiable = when;
  c.label_selector = std::move(selector);
  c.min_domains = min_domains;
  c.node_affinity_policy = node_affinity_policy;
  c.node_taints_policy = node_taints_policy;
  for (auto k : match_label_keys) c.match_label_keys.push_back(w_.S(k));
  p_.topology_spread_constraints.push_back(std::move(c));
  return *this;
}
inline PodBuilder& PodBuilder::AffinityTerm(AffinityKind kind, api::PodAffinityTerm term,
                                            int32_t weight) {
  if (!p_.affinity) p_.affinity.emplace();
  const bool anti =
      kind == AffinityKind::kRequiredAntiAffinity || kind == AffinityKind::kPreferredAntiAffinity;
  auto& slot = anti ? p_.affinity->pod_anti_affinity : p_.affinity->pod_affinity;
  if (!slot) slot.emplace();
  if (kind == AffinityKind::kRequiredAffinity || kind == AffinityKind::kRequiredAntiAffinity) {
    slot->required.push_back(std::move(term));
  } else {
    slot->preferred.push_back({weight, std::move(term)});
  }
  return *this;
}
inline PodBuilder& PodBuilder::AffinityIn(AffinityKind kind, std::string_view key,
                                          std::string_view topology_key,
                                          std::initializer_list<std::string_view> values,
                                          int32_t weight) {
  api::PodAffinityTerm t;
  t.label_selector = w_.Sel().In(key, values).Obj();
  t.topology_key = w_.S(topology_key);
  return AffinityTerm(kind, std::move(t), weight);
}
inline PodBuilder& PodBuilder::AffinityNotIn(AffinityKind kind, std::string_view key,
                                             std::string_view topology_key,
                                             std::initializer_list<std::string_view> values,
                                             int32_t weight) {
  api::PodAffinityTerm t;
  t.label_selector = w_.Sel().NotIn(key, values).Obj();
  t.topology_key = w_.S(topology_key);
  return AffinityTerm(kind, std::move(t), weight);
}
inline PodBuilder& PodBuilder::AffinityExists(AffinityKind kind, std::string_view key,
                                              std::string_view topology_key, int32_t weight) {
  api::PodAffinityTerm t;
  t.label_selector = w_.Sel().Exists(key).Obj();
  t.topology_key = w_.S(topology_key);
  return AffinityTerm(kind, std::move(t), weight);
}
inline PodBuilder& PodBuilder::NodeAffinityIn(std::string_view key,
                                              std::initializer_list<std::string_view> values) {
  if (!p_.affinity) p_.affinity.emplace();
  if (!p_.affinity->node_affinity) p_.affinity->node_affinity.emplace();
  auto& req = p_.affinity->node_affinity->required;
  if (!req) req.emplace();
  if (req->node_selector_terms.empty()) req->node_selector_terms.emplace_back();
  api::NodeSelectorRequirement r{w_.S(key), api::NodeSelectorOp::kIn, {}};
  for (auto v : values) r.values.push_back(w_.S(v));
  req->node_selector_terms[0].match_expressions.push_back(std::move(r));
  return *this;
}
inline PodBuilder& PodBuilder::NodeAffinityNotIn(std::string_view key,
                                                 std::initializer_list<std::string_view> values) {
  NodeAffinityIn(key, values);
  p_.affinity->node_affinity->required->node_selector_terms[0].match_expressions.back().op =
      api::NodeSelectorOp::kNotIn;
  return *this;
}

inline PodBuilder& PodBuilder::InitImage(std::string_view image, ResourcePairs r) {
  InitReq(r);
  p_.init_containers.back().image = w_.S(image);
  return *this;
}

}  // namespace corral::testing
